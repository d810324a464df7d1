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
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
NODE_MODULES = TARGET / "npm-consumers" / "node_modules"


@dataclass(frozen=True)
class ServerSpec:
    """A server to list: `twin` names the same server guarded (or unguarded), whose tools
    are the same; an unguarded server takes its examples from its guarded twin."""

    id: str
    example: str
    args: tuple = ()
    guarded: bool = True
    twin: str | None = None


SERVERS = [
    ServerSpec("task_tracker", "task_tracker"),
    ServerSpec("derive_shapes", "derive_shapes_server"),
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
                # message shows for a call without arguments (a call that needs none runs).
                examples = entry.input_schema.get("examples")
                if isinstance(examples, list) and examples:
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
                    called = await session.call_tool(tool.name, entry.example)
                    if not called.is_error and called.structured_content is not None:
                        entry.result = called.structured_content
                entries.append(entry)
            return entries


@pytest.fixture(scope="session")
def catalog() -> dict[str, list[ToolEntry]]:
    """Every server's tools, listed once per test session (guarded servers first, so that
    their unguarded twins borrow their examples)."""
    out: dict[str, list[ToolEntry]] = {}
    for spec in sorted(SERVERS, key=lambda s: not s.guarded):
        borrowed = {}
        if spec.twin and spec.twin in out:
            borrowed = {e.name: e.example for e in out[spec.twin] if e.example is not None}
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
