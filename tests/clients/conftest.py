"""Shared helpers: run an example server over stdio and talk to it with the official Python SDK."""

import asyncio
import contextlib
import os
import pathlib
import socket
import subprocess
import time

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def example_binary(name: str) -> str:
    path = TARGET / "debug" / "examples" / name
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `cargo build --examples` first")
    return str(path)


# The protocol revisions every test runs on: 2026-07-28 (`server/discover`, no handshake) and
# 2025-11-25, the SDK's legacy mode (the `initialize` handshake), which older clients speak.
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
_revision = MODERN


@pytest.fixture(autouse=True, params=[MODERN, LEGACY])
def revision(request):
    """Runs each test once per revision; `session_run` speaks the one of the current run."""
    global _revision
    _revision = request.param
    yield request.param
    _revision = MODERN


async def open_session(session: ClientSession, revision: str):
    """Starts the session at `revision`, and checks that the server took it."""
    if revision == MODERN:
        await session.discover()
    else:
        await session.initialize()
    assert session.protocol_version == revision, (session.protocol_version, revision)


def session_run(example: str, body, args=()):
    """Starts `example` over stdio (with `args`), opens a session at the revision of the current
    run and runs `body(session)`."""
    revision = _revision

    async def run():
        params = StdioServerParameters(command=example_binary(example), args=list(args))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await open_session(session, revision)
                return await body(session)

    return asyncio.run(run())


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def wait_for(predicate, seconds=10, step=0.05):
    """Returns once `predicate()` holds, or after `seconds`: what a client receives by
    notification arrives in its own time. The caller asserts what it waited for."""
    for _ in range(int(seconds / step)):
        if predicate():
            return
        await asyncio.sleep(step)


@contextlib.contextmanager
def serving_http(command, stderr=subprocess.DEVNULL):
    """Runs `command(address)` (a server's command line, given the free local address it is to
    serve Streamable HTTP on) until it accepts connections; yields its MCP endpoint's URL, and
    stops the server afterwards. `stderr` takes the server's log."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(command(f"127.0.0.1:{port}"), stderr=stderr)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.kill()
        server.wait()


def http_session_run(example: str, body):
    """Starts `example` serving Streamable HTTP on a free local port, opens a session at the
    revision of the current run and runs `body(session)`."""
    revision = _revision

    async def run(url):
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await open_session(session, revision)
                return await body(session)

    with serving_http(lambda address: [example_binary(example), address]) as url:
        return asyncio.run(run(url))
