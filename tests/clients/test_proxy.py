"""`guardrails proxy` in front of the MCP reference servers (TypeScript, from the npm registry),
driven by the official Python SDK: every tool is listed, valid calls give what the server alone
gives, and invalid calls are coached in one message whose example the server accepts.

`.ci/run` installs the servers into `target/npm-servers`; without them these tests are skipped."""

import asyncio
import json
import os
import re

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import conftest
from conftest import TARGET, open_session, text_of

NPM_BIN = TARGET / "npm-servers" / "node_modules" / ".bin"

pytestmark = pytest.mark.skipif(
    not (NPM_BIN / "mcp-server-everything").exists(),
    reason="the npm reference servers are not installed (.ci/run installs them into target/npm-servers)",
)


def guardrails_binary() -> str:
    path = TARGET / "debug" / "guardrails"
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `cargo build -p guardrails-mcp --features cli` first")
    return str(path)


@pytest.fixture(params=["everything", "memory", "filesystem"])
def upstream(request, tmp_path):
    """The command of a reference server, with its state in a temporary folder."""
    env = dict(os.environ)
    if request.param == "everything":
        return [str(NPM_BIN / "mcp-server-everything")], env
    if request.param == "memory":
        env["MEMORY_FILE_PATH"] = str(tmp_path / "memory.jsonl")
        return [str(NPM_BIN / "mcp-server-memory")], env
    (tmp_path / "notes.txt").write_text("first line\nsecond line\n")
    return [str(NPM_BIN / "mcp-server-filesystem"), str(tmp_path)], env


@pytest.fixture
def everything():
    """The everything server, which has prompts, resources and an echo."""
    return [str(NPM_BIN / "mcp-server-everything")], dict(os.environ)


def run_with(command, env, body, *, proxy_args=(), direct=False):
    """Runs `body(session)` against `command` through the proxy (at the revision of the current
    run), or against the server alone (`direct`, at the revision the server speaks)."""
    revision = conftest._revision

    async def run():
        if direct:
            params = StdioServerParameters(command=command[0], args=command[1:], env=env)
        else:
            args = ["proxy", *proxy_args, "--", *command]
            params = StdioServerParameters(command=guardrails_binary(), args=args, env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                if direct:
                    await session.initialize()
                else:
                    await open_session(session, revision)
                return await asyncio.wait_for(body(session), 60)

    return asyncio.run(run())


def test_every_tool_is_listed_with_a_strict_schema(upstream):
    command, env = upstream

    async def tools(session):
        return {tool.name: tool for tool in (await session.list_tools()).tools}

    alone = run_with(command, env, tools, direct=True)
    proxied = run_with(command, env, tools)
    assert sorted(proxied) == sorted(alone)
    for name, tool in proxied.items():
        assert tool.description == alone[name].description
        assert tool.input_schema["additionalProperties"] is False, name
        # The same fields; nested objects are closed too.
        assert tool.input_schema["properties"].keys() == alone[name].input_schema["properties"].keys(), name


# Calls whose results do not depend on time or chance, per server: each is made through the
# proxy and to the server alone, each on a fresh server.
VALID_CALLS = {
    "mcp-server-everything": [
        ("echo", {"message": "hello"}),
        ("get-sum", {"a": 2, "b": 3.5}),
        ("get-annotated-message", {"messageType": "success"}),
        ("get-resource-links", {"count": 2}),
    ],
    "mcp-server-memory": [
        ("create_entities", {"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote notes"]}]}),
        ("read_graph", {}),
        ("search_nodes", {"query": "Ada"}),
    ],
    "mcp-server-filesystem": [
        ("read_text_file", {"path": "notes.txt", "head": 1}),
        ("list_directory", {"path": "."}),
        ("list_allowed_directories", {}),
    ],
}


def calls_of(command):
    return VALID_CALLS[os.path.basename(command[0])]


def absolute(command, arguments):
    """Paths of the filesystem server made absolute in its folder."""
    if "filesystem" in command[0] and "path" in arguments:
        return {**arguments, "path": os.path.join(command[1], arguments["path"])}
    return arguments


def test_a_valid_call_gives_what_the_server_alone_gives(upstream):
    command, env = upstream
    calls = [(name, absolute(command, arguments)) for name, arguments in calls_of(command)]

    async def results(session):
        out = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            out.append((result.is_error, [block.model_dump() for block in result.content], result.structured_content))
        return out

    alone = run_with(command, env, results, direct=True)
    # A memory of its own, so the proxied server starts as empty as the one alone did.
    if "MEMORY_FILE_PATH" in env:
        env = {**env, "MEMORY_FILE_PATH": env["MEMORY_FILE_PATH"] + ".proxied"}
    proxied = run_with(command, env, results)
    assert proxied == alone
    assert not any(is_error for is_error, _, _ in proxied), proxied


def wrong_value(schema: dict):
    """A value of another JSON type than `schema` allows."""
    return 12345 if schema.get("type") == "string" else "not the right type"


def test_an_invalid_call_is_coached_in_one_message_whose_example_the_server_accepts(upstream):
    command, env = upstream

    async def coach(session):
        coached = {}
        for tool in (await session.list_tools()).tools:
            properties = tool.input_schema.get("properties", {})
            required = tool.input_schema.get("required", [])
            # An unknown key, a wrong type on the first optional or second required field, and
            # the first required field missing.
            arguments = {"definitelyNotAField": True}
            typed = [p for p in properties if p not in required[:1]]
            if typed:
                arguments[typed[0]] = wrong_value(properties[typed[0]])
            result = await session.call_tool(tool.name, arguments)
            assert result.is_error, tool.name
            assert len(result.content) == 1, tool.name
            text = text_of(result)
            assert text.startswith(f'<validation_error tool="{tool.name}"'), text
            assert 'code="unknown_field"' in text, text
            if typed:
                assert 'code="type"' in text, text
            if required:
                assert 'code="missing"' in text, text
            assert "dev.guardrails/report" in (result.meta or {}), tool.name
            example = re.search(r"<valid_example>(.*)</valid_example>", text)
            assert example, f"{tool.name} has no example: {text}"
            coached[tool.name] = json.loads(example.group(1))
        return coached

    examples = run_with(command, env, coach)
    assert examples

    async def accepted(session):
        for name, example in examples.items():
            # The example downloads a file from the network: its arguments are checked, not run.
            if name == "gzip-file-as-resource":
                continue
            result = await session.call_tool(name, absolute(command, example))
            assert "validation error" not in text_of(result).lower(), (name, example, text_of(result))
            assert "invalid arguments" not in text_of(result).lower(), (name, example, text_of(result))

    run_with(command, env, accepted, direct=True)


def test_limits_cut_a_result_and_say_so(everything):
    command, env = everything

    async def echo(session):
        return await session.call_tool("echo", {"message": "x" * 200})

    result = run_with(command, env, echo, proxy_args=["--max-bytes", "echo=40"])
    text = text_of(result)
    assert not result.is_error
    assert len(result.content[0].text.encode()) == 40
    assert 'bytes_shown="40"' in text, text


def test_a_token_budget_cuts_a_text_and_says_so(everything):
    command, env = everything

    async def echo(session):
        return await session.call_tool("echo", {"message": "word " * 400})

    whole = run_with(command, env, echo)
    cut = run_with(command, env, echo, proxy_args=["--max-tokens", "echo=50"])
    assert not cut.is_error
    # The text is a head of the server's own text, shorter, and a notice follows it.
    shown = cut.content[0].text
    assert whole.content[0].text.startswith(shown)
    assert len(shown) < len(whole.content[0].text) // 4, shown
    assert len(cut.content) == 2, text_of(cut)


def test_repair_and_ignored_keys_have_the_librarys_semantics(everything, tmp_path):
    """A number sent as a string is read as meant under `--repair`, with a line for the model
    and a receipt in `_meta`; a key a client adds on its own is dropped under `--ignore-keys`;
    without them both are refused, and with them every other slip still is."""
    command, env = everything

    async def calls(session):
        return [
            await session.call_tool("get-sum", {"a": "2", "b": 3.5}),
            await session.call_tool("echo", {"message": "hi", "_client_meta": {"x": 1}}),
            await session.call_tool("echo", {"message": "hi", "mesage": "typo"}),
        ]

    alone = run_with(command, env, calls, direct=True)
    strict = run_with(command, env, calls)
    assert all(result.is_error for result in strict), [text_of(r) for r in strict]
    config = tmp_path / "proxy.toml"
    config.write_text('repair = "on"\nignore_keys = ["_*"]\n')
    for proxy_args in (["--repair", "--ignore-keys", "_*"], ["--config", str(config)]):
        summed, echoed, typo = run_with(command, env, calls, proxy_args=proxy_args)
        assert not summed.is_error, text_of(summed)
        assert summed.content[0].text == "The sum of 2 and 3.5 is 5.5.", text_of(summed)
        assert '<repair field="a" kind="number_in_string">' in text_of(summed), text_of(summed)
        receipts = summed.meta["dev.guardrails/repairs"]
        assert [receipt["field"] for receipt in receipts] == ["a"], receipts
        assert [block.model_dump() for block in echoed.content] == [block.model_dump() for block in alone[1].content]
        assert typo.is_error and 'code="unknown_field"' in text_of(typo), text_of(typo)


POLICY = """
[[rule]]
name = "untagged_dollar_amount"
severity = "critical"
pattern = '\\$\\d[\\d,]*'
unless_followed_by = '\\[AI estimation'
within = 64
message = "Dollar amounts need an estimation tag."
alternative = "Substantial investment [AI estimation: enterprise scope]"

[[rule]]
name = "overconfident_language"
severity = "warning"
words = ["guaranteed"]
"""


def test_an_output_policy_holds_back_text_that_breaks_it(everything, tmp_path):
    command, env = everything
    rules = tmp_path / "rules.toml"
    rules.write_text(POLICY)

    async def echo(session):
        held = await session.call_tool("echo", {"message": "It costs $40,000, guaranteed."})
        passed = await session.call_tool("echo", {"message": "It costs a little."})
        return held, passed

    held, passed = run_with(
        command, env, echo, proxy_args=["--policy", f"echo.message={rules}"]
    )
    text = text_of(held)
    assert held.is_error, text
    # Each rule broken is named, the critical one with its alternative; the text is not echoed.
    assert "untagged_dollar_amount" in text and "overconfident_language" in text, text
    assert "[AI estimation: enterprise scope]" in text, text
    assert "$40,000" not in text, text
    assert not passed.is_error, text_of(passed)
    assert "It costs a little." in text_of(passed)


def test_a_result_policy_withholds_or_flags_what_the_server_returns(everything, tmp_path):
    command, env = everything
    rules = tmp_path / "rules.toml"
    rules.write_text(POLICY)

    async def echo(session):
        blocked = await session.call_tool("echo", {"message": "It costs $40,000."})
        flagged = await session.call_tool("echo", {"message": "It works, guaranteed."})
        clean = await session.call_tool("echo", {"message": "It works."})
        return blocked, flagged, clean

    blocked, flagged, clean = run_with(
        command, env, echo, proxy_args=["--result-policy", f"echo={rules}"]
    )
    # A critical rule withholds the result behind the policy's tool error, naming the rule.
    assert blocked.is_error, text_of(blocked)
    assert "untagged_dollar_amount" in text_of(blocked), text_of(blocked)
    assert "$40,000" not in text_of(blocked), text_of(blocked)
    # A warning delivers the result as the server wrote it, with the verdict after it.
    assert not flagged.is_error, text_of(flagged)
    assert "It works, guaranteed." in flagged.content[0].text
    assert len(flagged.content) == 2 and "overconfident_language" in flagged.content[1].text
    assert not clean.is_error and len(clean.content) == 1, text_of(clean)


def test_audit_lets_an_invalid_call_through_to_the_server(everything):
    command, env = everything

    async def call(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        return tools["get-sum"], await session.call_tool("get-sum", {"a": "one", "b": 2})

    tool, result = run_with(command, env, call, proxy_args=["--audit"])
    # The server's own schema, and the server's own error.
    assert "additionalProperties" not in tool.input_schema
    assert result.is_error
    assert "Input validation error" in text_of(result), text_of(result)


def test_prompts_and_resources_pass_through(everything):
    command, env = everything

    async def listing(session):
        prompts = await session.list_prompts()
        simple = await session.get_prompt(prompts.prompts[0].name, {})
        resources = await session.list_resources()
        first = resources.resources[0]
        read = await session.read_resource(first.uri)
        return (
            [p.name for p in prompts.prompts],
            [m.model_dump() for m in simple.messages],
            [r.uri for r in resources.resources],
            [c.model_dump() for c in read.contents],
        )

    assert run_with(command, env, listing) == run_with(command, env, listing, direct=True)


def test_progress_of_a_long_call_reaches_the_client(everything):
    command, env = everything

    async def call(session):
        seen = []

        async def on_progress(progress, total, message):
            seen.append((progress, total))

        result = await session.call_tool(
            "trigger-long-running-operation", {"duration": 1, "steps": 2}, progress_callback=on_progress
        )
        return result, seen

    (result, seen), (alone_result, alone_seen) = (
        run_with(command, env, call),
        run_with(command, env, call, direct=True),
    )
    assert not result.is_error
    assert alone_seen, "the server alone reports progress"
    assert seen == alone_seen
