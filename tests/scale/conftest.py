"""What the scale-out tests share: task-tracker nodes on loopback behind haproxy (run with
tests/scale/haproxy.cfg as it is), a redis-server of their own, and the official Python SDK's
client over Streamable HTTP.

Needs haproxy and redis-server on the PATH (`apt-get install haproxy redis-server`) and the
example built (`cargo build --example task_tracker`)."""

import asyncio
import os
import pathlib
import shutil
import socket
import subprocess
import time

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
CONFIG = HERE / "haproxy.cfg"
NODES = ("node1", "node2", "node3")
MODERN = "2026-07-28"
LEGACY = "2025-11-25"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


class Redis:
    """A redis-server of the test's own, without persistence, on a free port."""

    def __init__(self):
        server = shutil.which("redis-server")
        if server is None:
            raise RuntimeError("redis-server is missing: apt-get install redis-server")
        port = free_port()
        self.process = subprocess.Popen(
            [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        wait_for(port)
        self.url = f"redis://127.0.0.1:{port}/"

    def stop(self):
        self.process.kill()
        self.process.wait()


class Cluster:
    """Three task-tracker nodes and haproxy in front of them; `options` are given to every node."""

    def __init__(self, numbered: bool = True, options: tuple = ()):
        tracker = TARGET / "debug" / "examples" / "task_tracker"
        if not tracker.exists():
            raise RuntimeError(f"{tracker} is missing: run `cargo build --example task_tracker`")
        haproxy = shutil.which("haproxy")
        if haproxy is None:
            raise RuntimeError("haproxy is missing: apt-get install haproxy")
        self.ports = {name: free_port() for name in (*NODES, "front")}
        self.nodes = {
            name: subprocess.Popen(
                [str(tracker), "--http", f"127.0.0.1:{self.ports[name]}", *options]
                + (["--node", name[-1]] if numbered else []),
                stderr=subprocess.DEVNULL,
            )
            for name in NODES
        }
        for name in self.nodes:
            wait_for(self.ports[name])
        env = dict(
            os.environ,
            MCP_BIND=f"127.0.0.1:{self.ports['front']}",
            **{name.upper(): f"127.0.0.1:{self.ports[name]}" for name in NODES},
        )
        # -db: in the foreground, -q: quiet.
        self.haproxy = subprocess.Popen([haproxy, "-db", "-q", "-f", str(CONFIG)], env=env)
        wait_for(self.ports["front"])
        self.url = f"http://127.0.0.1:{self.ports['front']}/mcp"

    def kill(self, name: str):
        self.nodes[name].kill()
        self.nodes[name].wait()

    def stop(self):
        for process in [self.haproxy, *self.nodes.values()]:
            process.kill()
            process.wait()


@pytest.fixture
def cluster():
    cluster = Cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


def node_of(task_id: int) -> int:
    """The node that created a task: its ids carry the node's number."""
    return task_id // 1_000_000_000


async def create(session: ClientSession, title: str) -> int:
    result = await session.call_tool(
        "create_task", {"title": title, "assignee": "ada", "due": "2026-12-01"}
    )
    assert not result.is_error, result.content
    return result.structured_content["id"]


async def connect(url: str, revision: str, body, token: str | None = None):
    """Runs `body(session)` in a session of `revision`, as the bearer of `token` if given."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                if revision == MODERN:
                    await session.discover()
                else:
                    await session.initialize()
                assert session.protocol_version == revision
                # The client lists the tools before its first call of a tool it has not seen
                # listed (to check the result against the tool's output schema): listed now,
                # every later request is one the test sends.
                await session.list_tools()
                return await body(session)


def run(url: str, revision: str, body, token: str | None = None):
    return asyncio.run(connect(url, revision, body, token))
