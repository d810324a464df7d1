"""`guardrails proxy` in front of a server in pydantic's lax mode: the calls the server alone
takes (a number as a string, a whole number written as a float) are taken through the proxy
with `--repair` and the schema's meaning of `integer` (its default), with the same results;
what the server refuses is still refused, coached."""

import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import conftest
from conftest import open_session, text_of
from test_proxy import guardrails_binary

UPSTREAM = [sys.executable, os.path.join(os.path.dirname(__file__), "pydantic_upstream.py")]

CALLS = [
    {"lines": [{"sku": "a", "quantity": 2}]},
    # pydantic's lax mode: a number sent as a string, a whole number written as a float.
    {"lines": [{"sku": "a", "quantity": "2"}], "copies": 3},
    {"lines": [{"sku": "a", "quantity": 2.0}, {"sku": "b", "quantity": 1e1}], "priority": "high"},
]


def run(proxy_args=None):
    revision = conftest._revision

    async def go():
        if proxy_args is None:
            params = StdioServerParameters(command=UPSTREAM[0], args=UPSTREAM[1:])
        else:
            params = StdioServerParameters(command=guardrails_binary(), args=["proxy", *proxy_args, "--", *UPSTREAM])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                if proxy_args is None:
                    await session.initialize()
                else:
                    await open_session(session, revision)
                results = [await session.call_tool("order", arguments) for arguments in CALLS]
                refused = await session.call_tool("order", {"lines": [{"sku": "a", "quantity": "many"}]})
                return results, refused

    return asyncio.run(asyncio.wait_for(go(), 60))


def test_what_a_lax_server_takes_is_taken_through_the_proxy_with_repair():
    alone, alone_refused = run()
    assert not any(result.is_error for result in alone), [text_of(r) for r in alone]
    assert alone_refused.is_error
    proxied, refused = run(["--repair"])
    for direct, through in zip(alone, proxied):
        assert not through.is_error, text_of(through)
        # The server's own text first; a repaired call has the repair line after it.
        assert through.content[0].model_dump() == direct.content[0].model_dump()
    assert '<repair field="lines[0].quantity" kind="number_in_string">' in text_of(proxied[1]), text_of(proxied[1])
    assert len(proxied[0].content) == len(alone[0].content) and len(proxied[2].content) == len(alone[2].content)
    # What the server refuses is refused before it, with the field and its fix.
    assert refused.is_error and 'name="lines[0].quantity"' in text_of(refused), text_of(refused)
    # Without --repair the string is refused, coached, as the strict contract says.
    strict, _ = run([])
    assert strict[1].is_error and 'name="lines[0].quantity"' in text_of(strict[1]), text_of(strict[1])
