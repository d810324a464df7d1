"""What `guardrails proxy` does not guard passes through both ways: the official Python client,
with sampling, elicitation, roots and logging callbacks, drives `server-everything` through the
proxy and directly, and gets the same tools, results and notifications.

The server registers its sampling, elicitation and roots tools only for a client that declares
those capabilities, so the tool list alone shows whether the proxy declared the client's own."""

import asyncio
import json

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

import conftest
from conftest import open_session, text_of, wait_for
from test_proxy import guardrails_binary, pytestmark  # noqa: F401  (skipped without the servers)
from test_proxy import NPM_BIN

EVERYTHING = [str(NPM_BIN / "mcp-server-everything")]

ROOTS = [
    types.Root(uri="file:///work/project", name="project"),
    types.Root(uri="file:///work/notes", name="notes"),
]


class Client:
    """The callbacks of a client that samples, elicits and has roots, and what it was asked."""

    def __init__(self):
        self.sampled = []
        self.elicited = []
        self.roots_asked = 0
        self.roots = ROOTS[:1]
        self.logs = []

    async def sampling(self, context, params):
        request = params.model_dump(mode="json", exclude_none=True)
        # Two marks of rmcp, which carries the request: it gives every request it sends a
        # progress token of its own, and holds a temperature as a 32-bit float.
        request.pop("meta", None)
        request["temperature"] = round(request["temperature"], 6)
        self.sampled.append(request)
        prompt = params.messages[0].content.text
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"echo: {prompt}"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def elicitation(self, context, params):
        self.elicited.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada", "check": True, "integer": 7})

    async def list_roots(self, context):
        self.roots_asked += 1
        return types.ListRootsResult(roots=self.roots)

    async def logging(self, params):
        self.logs.append((params.level, params.logger, params.data))


def read_raw(text):
    """The text before the server's `Raw result:`, and that result read: the proxy's JSON
    objects (serde_json's) keep their keys sorted, not in the order the client wrote them."""
    before, _, raw = text.partition("Raw result: ")
    return before, json.loads(raw) if raw else None


async def progress_of(session):
    seen = []

    async def on_progress(progress, total, message):
        seen.append((progress, total))

    progressed = await session.call_tool(
        "trigger-long-running-operation", {"duration": 0.4, "steps": 2}, progress_callback=on_progress
    )
    return progressed.is_error, seen


async def tools_of(session):
    return sorted(tool.name for tool in (await session.list_tools()).tools)


async def exercise(session, client, everything):
    """Every feature the proxy passes through, in one session (or only the tools and progress
    unless `everything`); what the client saw."""
    tools = await tools_of(session)
    if not everything:
        return {"tools": tools, "progress": await progress_of(session)}
    sampled = await session.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 20})
    elicited = await session.call_tool("trigger-elicitation-request", {})
    # The server asks for the roots on its own after it starts, and again on `list_changed`.
    await wait_for(lambda: client.roots_asked >= 1)
    roots = await session.call_tool("get-roots-list", {})
    asked = client.roots_asked
    client.roots = ROOTS
    await session.send_roots_list_changed()
    await wait_for(lambda: client.roots_asked > asked)
    roots_after = await session.call_tool("get-roots-list", {})
    # Logging: the level the client sets is the server's, and its messages reach the client.
    await session.set_logging_level("debug")
    logged = len(client.logs)
    await session.call_tool("toggle-simulated-logging", {})
    await wait_for(lambda: len(client.logs) > logged)
    simulated = client.logs[logged:]
    await session.call_tool("toggle-simulated-logging", {})
    return {
        "tools": tools,
        "sampled": (sampled.is_error, text_of(sampled)),
        "sampling requests": client.sampled,
        "elicited": (elicited.is_error, *read_raw(text_of(elicited))),
        "elicitation requests": client.elicited,
        "roots": text_of(roots),
        "roots after list_changed": text_of(roots_after),
        "roots log": [data for _, logger, data in client.logs if logger == "everything-server"],
        # The server picks each message's level at random: the message names its level.
        "simulated log": [str(data).lower().startswith(level) for level, _, data in simulated][:1],
        "progress": await progress_of(session),
    }


def run(direct: bool, revision: str, capable=True):
    client = Client()

    async def go():
        callbacks = (
            dict(
                sampling_callback=client.sampling,
                elicitation_callback=client.elicitation,
                list_roots_callback=client.list_roots,
                logging_callback=client.logging,
            )
            if capable
            else {}
        )
        if direct:
            params = StdioServerParameters(command=EVERYTHING[0], args=[])
        else:
            params = StdioServerParameters(command=guardrails_binary(), args=["proxy", "--", *EVERYTHING])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, **callbacks) as session:
                if direct:
                    await session.initialize()
                else:
                    await open_session(session, revision)
                # On 2026-07-28 a server asks its client nothing, so there is only progress to see.
                everything = capable and (direct or revision == conftest.LEGACY)
                return await asyncio.wait_for(exercise(session, client, everything), 60)

    return asyncio.run(go())


def test_sampling_elicitation_roots_logging_and_progress_pass_through(revision):
    if revision == conftest.MODERN:
        # The proxy does not turn the upstream's requests into the results that ask for input
        # which replace them on 2026-07-28: it tells the upstream of no sampling, elicitation
        # or roots, and the server lists what it lists to a client that has none.
        proxied = run(direct=False, revision=revision)
        plain = run(direct=True, revision=conftest.LEGACY, capable=False)
        assert proxied["tools"] == plain["tools"], (proxied["tools"], plain["tools"])
        assert "trigger-sampling-request" not in proxied["tools"]
        assert proxied["progress"] == (False, [(1, 2), (2, 2)]), proxied
        return
    alone = run(direct=True, revision=revision)
    proxied = run(direct=False, revision=revision)
    # The server registered its sampling, elicitation and roots tools for the client.
    assert "trigger-sampling-request" in alone["tools"] and "get-roots-list" in alone["tools"], alone
    assert not alone["sampled"][0] and "echo: " in alone["sampled"][1], alone
    assert "Name: Ada" in alone["elicited"][1], alone
    assert "2 total" in alone["roots after list_changed"], alone
    assert alone["simulated log"], alone
    assert alone["progress"] == (False, [(1, 2), (2, 2)]), alone
    for key in alone:
        assert proxied[key] == alone[key], (key, json.dumps(proxied[key]), json.dumps(alone[key]))
