"""Scaling out by the README's recipe: three task-tracker nodes on loopback behind haproxy, run
with tests/scale/haproxy.cfg as it is, driven by the official Python SDK.

- A client of revision 2026-07-28 keeps no session: plain round-robin spreads its calls over
  the nodes, and a node killed mid-run costs it no call.
- A client of revision 2025-11-25 keeps a session on the node that created it: the stick table
  learnt from the `Mcp-Session-Id` response header sends every later request there.
- Nodes started alike (no `--node`) draw node numbers of their own: an update that reaches a
  node without the task is refused, never applied to another task.

What the nodes share through Redis is tested in test_shared_state.py."""

import re

from conftest import CONFIG, LEGACY, MODERN, ROOT, Cluster, create, node_of, run


def test_current_clients_are_served_round_robin_and_survive_a_killed_node(cluster):
    async def body(session):
        nodes = [node_of(await create(session, f"Spread {n}")) for n in range(6)]
        # Round-robin: every node served this one client.
        assert set(nodes) == {1, 2, 3}, nodes
        cluster.kill("node1")
        after = []
        for n in range(12):
            after.append(node_of(await create(session, f"After the kill {n}")))
        for _ in range(3):
            listed = await session.call_tool("list_tasks", {"assignee": "ada", "status": "todo"})
            assert not listed.is_error, listed.content
        return after

    after = run(cluster.url, MODERN, body)
    # Every call after the kill succeeded, on the nodes left, in turn.
    assert set(after) == {2, 3}, after


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

    # Three sessions in a row start on the three nodes in turn, and each sticks to its own.
    nodes = [run(cluster.url, LEGACY, body) for _ in range(3)]
    assert set(nodes) == {1, 2, 3}, nodes


def test_an_update_sent_to_the_node_without_the_task_is_refused(cluster):
    async def body(session):
        task_id = await create(session, "Mine")
        # The next calls go round-robin: the first two reach the other nodes, the third the
        # task's own.
        answers = []
        for _ in range(3):
            result = await session.call_tool("update_task", {"id": task_id, "priority": 1})
            answers.append(result)
        return task_id, answers

    task_id, answers = run(cluster.url, MODERN, body)
    assert [a.is_error for a in answers] == [True, True, False], [a.content for a in answers]
    for refused in answers[:2]:
        text = refused.content[0].text
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
            # Round-robin spread the tasks over the nodes, whose drawn numbers differ.
            assert len({node_of(i) for i in ids}) == 3, ids
            assert all(node_of(i) > 999 for i in ids), ids
            outcomes = []
            for task_id in ids:
                # Three updates in a row: round-robin sends one to each node.
                for priority in (3, 4, 5):
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
            for _ in range(3):
                result = await session.call_tool("list_tasks", {"assignee": "alike"})
                assert not result.is_error, result.content
                listed += [
                    task for task in result.structured_content["items"] if task["id"] in ids
                ]
            return outcomes, listed

        outcomes, listed = run(cluster.url, MODERN, body)
    finally:
        cluster.stop()
    assert (outcomes.count(True), outcomes.count(False)) == (8, 4), outcomes
    assert sorted(task["id"] for task in listed) == sorted(set(task["id"] for task in listed))
    assert len(listed) == 4, listed
    assert all(task["priority"] in (3, 4, 5) for task in listed), listed


def test_the_readme_shows_this_configuration():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```haproxy\n(.*?)```", readme, re.S)
    assert block, "the README's Scaling out section shows the haproxy configuration"
    config = CONFIG.read_text()
    for line in block.group(1).splitlines():
        if line.strip() and not line.strip().startswith("#") and line.strip() != "...":
            assert line.rstrip() in config, line
