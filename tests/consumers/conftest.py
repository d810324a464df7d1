"""The example servers, started over stdio and listed with the official Python MCP SDK: each
tool's schemas as they cross the wire, its own valid example and a real structured result."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import subprocess
from dataclasses import dataclass, field

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from consumers import strict_call

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
NODE_MODULES = TARGET / "npm-consumers" / "node_modules"


@dataclass(frozen=True)
class ServerSpec:
    """A server to list: `twin` names the same server guarded (or unguarded), whose tools
    are the same; an unguarded server takes its examples from its guarded twin. `profile` is
    the schema profile the server advertises (`--schema-profile`); a server in a profile other
    than the default names its `base`, the same binary in the portable profile, whose examples
    it takes (an `openai` server gets them as a model in OpenAI strict mode sends them)."""

    id: str
    example: str
    args: tuple = ()
    guarded: bool = True
    twin: str | None = None
    profile: str = "portable"
    base: str | None = None


def in_profile(base: str, example: str, profile: str) -> ServerSpec:
    """`base`'s binary started with `--schema-profile profile` as its only arguments (the
    task tracker reads what it serves from its first argument: stdio, for this one)."""
    args = ("--schema-profile", profile)
    return ServerSpec(f"{base}/{profile}", example, args, profile=profile, base=base)


SERVERS = [
    ServerSpec("task_tracker", "task_tracker"),
    in_profile("task_tracker", "task_tracker", "gemini"),
    in_profile("task_tracker", "task_tracker", "openai"),
    ServerSpec("derive_shapes", "derive_shapes_server"),
    in_profile("derive_shapes", "derive_shapes_server", "gemini"),
    in_profile("derive_shapes", "derive_shapes_server", "openai"),
    ServerSpec("create_user", "create_user"),
    ServerSpec("serde_shapes", "serde_shapes_server", twin="serde_shapes/unguarded"),
    ServerSpec(
        "serde_shapes/unguarded", "serde_shapes_server", ("--unguarded",), False, "serde_shapes"
    ),
    ServerSpec("notes", "notes_server", twin="notes/unguarded"),
    ServerSpec("notes/unguarded", "notes_server", ("--unguarded",), False, "notes"),
    ServerSpec("shapes/calculator", "shapes_server", ("calculator",)),
    ServerSpec("shapes/counter", "shapes_server", ("counter",)),
    ServerSpec("shapes/audited", "shapes_server", ("audited",)),
    ServerSpec("shapes/listing", "shapes_server", ("listing",)),
]
SPECS = {spec.id: spec for spec in SERVERS}


@dataclass
class ToolEntry:
    server: str
    name: str
    tool: object  # the SDK's `Tool`, as google-genai's MCP conversion takes it
    input_schema: dict
    output_schema: dict | None
    example: dict | None = None
    result: object = None
    calls: list = field(default_factory=list)
    # What the server answered to `example`, and what the Python SDK's client said of its
    # structured result, checked against the tool's `outputSchema` (None: nothing to say).
    answer: Answer | None = None
    result_check: str | None = None


@dataclass(frozen=True)
class Answer:
    """The kind of answer a call got: "ok", or the code of the failure the server reports
    (`INVALID_ARGUMENTS` for arguments its check refused, `NOT_FOUND`...)."""

    kind: str
    validation: bool  # the server's check refused the arguments (a `<validation_error>`)
    text: str

    @classmethod
    def of(cls, result) -> Answer:
        text = _text(result)
        if not result.is_error:
            return cls("ok", False, text)
        failure = (result.meta or {}).get("dev.guardrails/failure") or {}
        tag = re.match(r"\s*<([a-z_]+)", text)
        kind = failure.get("code") or (tag.group(1) if tag else "error")
        validation = failure.get("class") == "validation" or bool(
            tag and tag.group(1) == "validation_error"
        )
        return cls(kind, validation, text)


def example_binary(name: str) -> str:
    path = TARGET / "debug" / "examples" / name
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `cargo build --examples` first")
    return str(path)


# The servers' own log lines (start-up notes) would interleave with the report.
_QUIET = open(os.devnull, "w")  # noqa: SIM115 - open for the whole test session

_VALID_EXAMPLE = re.compile(r"<valid_example>(.*?)</valid_example>", re.S)


def _text(result) -> str:
    return "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")


async def _call(session: ClientSession, name: str, arguments: dict):
    """`tools/call`, as `ClientSession.call_tool` sends it, without the check of the result
    that it runs after (`_result_check` runs it apart): a result it refuses is still read."""
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(name=name, arguments=arguments)
    )
    return await session.send_request(request, types.CallToolResult)


async def _result_check(session: ClientSession, name: str, result) -> str | None:
    """What `ClientSession.call_tool` says of `result` after the call: the SDK's own check of
    the structured content against the tool's advertised `outputSchema`."""
    if result.is_error:
        return None
    try:
        await session.validate_tool_result(name, result)
    except RuntimeError as error:
        return " ".join(str(error).split())[:300]
    return None


async def _list(spec: ServerSpec, borrowed: dict[str, dict]) -> list[ToolEntry]:
    params = StdioServerParameters(command=example_binary(spec.example), args=list(spec.args))
    async with stdio_client(params, errlog=_QUIET) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            entries = []
            for tool in listed.tools:
                entry = ToolEntry(
                    spec.id,
                    tool.name,
                    tool,
                    tool.model_dump(mode="json", by_alias=True)["inputSchema"],
                    tool.model_dump(mode="json", by_alias=True).get("outputSchema"),
                )
                # The tool's own example: the one its schema advertises, or the one its coaching
                # message shows for a call without arguments (a call that needs none runs). A
                # server in another profile takes its base's (its schema says none), and under
                # `openai` sends it as a model held to that schema does.
                examples = entry.input_schema.get("examples")
                if spec.base and entry.name in borrowed:
                    entry.example = borrowed[entry.name]
                    if spec.profile == "openai":
                        entry.example = strict_call(entry.example, entry.input_schema)
                elif isinstance(examples, list) and examples:
                    entry.example = examples[0]
                elif entry.name in borrowed:
                    entry.example = borrowed[entry.name]
                else:
                    empty = await session.call_tool(tool.name, {})
                    found = _VALID_EXAMPLE.search(_text(empty))
                    if not empty.is_error:
                        entry.example = {}
                    elif found:
                        entry.example = json.loads(found.group(1))
                if entry.example is not None:
                    called = await _call(session, tool.name, entry.example)
                    entry.answer = Answer.of(called)
                    entry.result_check = await _result_check(session, tool.name, called)
                    if not called.is_error and called.structured_content is not None:
                        entry.result = called.structured_content
                entries.append(entry)
            return entries


@pytest.fixture(scope="session")
def catalog() -> dict[str, list[ToolEntry]]:
    """Every server's tools, listed once per test session (guarded servers in the default
    profile first, so that their unguarded twins and their other profiles borrow their
    examples)."""
    out: dict[str, list[ToolEntry]] = {}
    for spec in sorted(SERVERS, key=lambda s: (not s.guarded, s.base is not None)):
        borrowed = {}
        lender = spec.base or spec.twin
        if lender and lender in out:
            borrowed = {e.name: e.example for e in out[lender] if e.example is not None}
        out[spec.id] = asyncio.run(_list(spec, borrowed))
    return {spec.id: out[spec.id] for spec in SERVERS}


def run_node(job: dict) -> dict:
    """ts_sdk.cjs on `job`: its report as a dict."""
    if not (NODE_MODULES / "@modelcontextprotocol" / "sdk").exists():
        raise RuntimeError(
            f"{NODE_MODULES} lacks @modelcontextprotocol/sdk: install it as .ci/run does"
        )
    done = subprocess.run(
        ["node", str(pathlib.Path(__file__).with_name("ts_sdk.cjs"))],
        input=json.dumps({"modules": str(NODE_MODULES), **job}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"ts_sdk.cjs failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def run_ts_sdk(spec: ServerSpec, calls: list[dict]) -> dict:
    """The TypeScript SDK's client against `spec`: lists its tools, then makes `calls`."""
    return run_node(
        {"command": example_binary(spec.example), "args": list(spec.args), "calls": calls}
    )
