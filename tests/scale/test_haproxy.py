"""Scaling out by the README's recipe: two task-tracker nodes on loopback behind haproxy, run
with tests/scale/haproxy.cfg as it is, driven by the official Python SDK.

- A client of revision 2026-07-28 keeps no session: plain round-robin spreads its calls over
  both nodes, and a node killed mid-run costs it no call.
- A client of revision 2025-11-25 keeps a session on the node that created it: the stick table
  learnt from the `Mcp-Session-Id` response header sends every later request there.
- Nodes started alike (no `--node`) draw node numbers of their own: an update that reaches the
  node without the task is refused, never applied to another task.

Needs haproxy on the PATH (`apt-get install haproxy`) and the example built (`cargo build
--example task_tracker`)."""

import asyncio
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import time

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
CONFIG = HERE / "haproxy.cfg"
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


class Cluster:
    """Two task-tracker nodes and haproxy in front of them."""

    def __init__(self, numbered: bool = True):
        tracker = TARGET / "debug" / "examples" / "task_tracker"
        if not tracker.exists():
            raise RuntimeError(f"{tracker} is missing: run `cargo build --example task_tracker`")
        haproxy = shutil.which("haproxy")
        if haproxy is None:
            raise RuntimeError("haproxy is missing: apt-get install haproxy")
        self.ports = {"node1": free_port(), "node2": free_port(), "front": free_port()}
        self.nodes = {
            name: subprocess.Popen(
                [str(tracker), "--http", f"127.0.0.1:{self.ports[name]}"]
                + (["--node", name[-1]] if numbered else []),
                stderr=subprocess.DEVNULL,
            )
            for name in ("node1", "node2")
        }
        for name in self.nodes:
            wait_for(self.ports[name])
        env = dict(
            os.environ,
            MCP_BIND=f"127.0.0.1:{self.ports['front']}",
            NODE1=f"127.0.0.1:{self.ports['node1']}",
            NODE2=f"127.0.0.1:{self.ports['node2']}",
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


def run(url: str, revision: str, body):
    async def main():
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                if revision == MODERN:
                    await session.discover()
                else:
                    await session.initialize()
                assert session.protocol_version == revision
                return await body(session)

    return asyncio.run(main())


def test_current_clients_are_served_round_robin_and_survive_a_killed_node(cluster):
    async def body(session):
        nodes = [node_of(await create(session, f"Spread {n}")) for n in range(6)]
        # Round-robin: both nodes served this one client.
        assert set(nodes) == {1, 2}, nodes
        cluster.kill("node1")
        after = []
        for n in range(12):
            after.append(node_of(await create(session, f"After the kill {n}")))
            listed = await session.call_tool("list_tasks", {"assignee": "ada", "status": "todo"})
            assert not listed.is_error, listed.content
        return after

    after = run(cluster.url, MODERN, body)
    # Every call after the kill succeeded, all of them on the node left.
    assert after == [2] * 12, after


def test_older_clients_keep_their_session_on_one_node(cluster):
    async def body(session):
        ids = [await create(session, f"Sticky {n}") for n in range(6)]
        # Every call of the session went to the node that created it; round-robin alone would
        # have sent every other request to a node that does not know the session.
        assert len({node_of(i) for i in ids}) == 1, ids
        for task_id in ids:
            updated = await session.call_tool("update_task", {"id": task_id, "status": "done"})
            assert not updated.is_error, updated.content
            assert updated.structured_content["status"] == "done"
        return node_of(ids[0])

    # Two sessions in a row start on the two nodes in turn, and each sticks to its own.
    first = run(cluster.url, LEGACY, body)
    second = run(cluster.url, LEGACY, body)
    assert {first, second} == {1, 2}, (first, second)


def test_an_update_sent_to_the_node_without_the_task_is_refused(cluster):
    async def body(session):
        task_id = await create(session, "Mine")
        # The next calls go round-robin: within two, one reaches the other node.
        answers = []
        for _ in range(2):
            result = await session.call_tool("update_task", {"id": task_id, "priority": 1})
            answers.append(result)
        return task_id, answers

    task_id, answers = run(cluster.url, MODERN, body)
    refused = [a for a in answers if a.is_error]
    assert len(refused) == 1, [a.content for a in answers]
    text = refused[0].content[0].text
    assert "NOT_FOUND" in text and f"is kept by node {node_of(task_id)}" in text, text


def test_nodes_started_alike_never_update_each_others_tasks():
    cluster = Cluster(numbered=False)
    try:

        async def body(session):
            ids = []
            for n in range(4):
                created = await session.call_tool(
                    "create_task", {"title": f"Alike {n}", "assignee": "alike", "due": "2026-12-01"}
                )
                assert not created.is_error, created.content
                ids.append(created.structured_content["id"])
            # Round-robin spread the tasks over both nodes, whose drawn numbers differ.
            assert len({node_of(i) for i in ids}) == 2, ids
            assert all(node_of(i) > 999 for i in ids), ids
            outcomes = []
            for task_id in ids:
                # Two updates in a row: round-robin sends one to each node.
                for priority in (4, 5):
                    result = await session.call_tool(
                        "update_task", {"id": task_id, "priority": priority}
                    )
                    if result.is_error:
                        text = result.content[0].text
                        assert "NOT_FOUND" in text, text
                        assert f"is kept by node {node_of(task_id)}" in text, text
                    else:
                        task = result.structured_content
                        assert (task["id"], task["priority"]) == (task_id, priority), task
                    outcomes.append(result.is_error)
            # Each task, listed where it lives, holds the one update that reached it.
            listed = []
            for _ in range(2):
                result = await session.call_tool(
                    "list_tasks", {"assignee": "alike"}
                )
                assert not result.is_error, result.content
                listed += [
                    task for task in result.structured_content["items"] if task["id"] in ids
                ]
            return outcomes, listed

        outcomes, listed = run(cluster.url, MODERN, body)
    finally:
        cluster.stop()
    assert outcomes.count(True) == outcomes.count(False) == 4, outcomes
    assert sorted(task["id"] for task in listed) == sorted(set(task["id"] for task in listed))
    assert len(listed) == 4, listed
    assert all(task["priority"] in (4, 5) for task in listed), listed


def test_the_readme_shows_this_configuration():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```haproxy\n(.*?)```", readme, re.S)
    assert block, "the README's Scaling out section shows the haproxy configuration"
    config = CONFIG.read_text()
    for line in block.group(1).splitlines():
        if line.strip() and not line.strip().startswith("#") and line.strip() != "...":
            assert line.rstrip() in config, line
