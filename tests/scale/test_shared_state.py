"""Three task-tracker nodes behind haproxy round-robin, sharing a redis-server of the test's own
(`--redis`): what a caller is allowed and what the server remembers of it hold across the nodes.

- Two clients of revision 2026-07-28, which carry no session, named by their bearer tokens (the
  README's "Who calls"): each has a rate-limit budget and a loop-breaker memory of its own,
  and each has one of them across the three nodes, not three.
- A node killed under load from eight clients costs only the calls it was answering: every
  call that failed was sent before the kill, and every call sent after it was answered."""

import asyncio
import time

import pytest

from conftest import MODERN, Cluster, Redis, connect, node_of, run

# At most this many calls a minute for each caller (`--rate-limit`): a burst of this many, then
# one every 60 / LIMIT seconds.
LIMIT = 5


@pytest.fixture
def redis():
    redis = Redis()
    try:
        yield redis
    finally:
        redis.stop()


def shared_cluster(redis, *options):
    return Cluster(options=("--redis", redis.url, *options))


def test_each_stateless_caller_has_one_budget_across_the_nodes(redis):
    cluster = shared_cluster(redis, "--rate-limit", str(LIMIT))
    try:

        async def spend(session):
            started = time.monotonic()
            answers = []
            for n in range(LIMIT + 3):
                answers.append(
                    await session.call_tool(
                        "create_task", {"title": f"Budget {n}", "assignee": "ada", "due": "2026-12-01"}
                    )
                )
            return answers, time.monotonic() - started

        answers, elapsed = run(cluster.url, MODERN, spend, token="alice")
        served = [a for a in answers if not a.is_error]
        limited = [a for a in answers if a.is_error]
        # Round-robin spread the calls that were served over the three nodes...
        assert {node_of(a.structured_content["id"]) for a in served} == {1, 2, 3}, answers
        # ...and the three nodes kept one budget: a burst of LIMIT, and one more call for each
        # 60 / LIMIT seconds the calls took (per node, it would have been 3 × LIMIT).
        assert LIMIT <= len(served) <= LIMIT + int(elapsed // (60 / LIMIT)), (elapsed, answers)
        assert limited, answers
        for answer in limited:
            text = answer.content[0].text
            assert "RATE_LIMITED" in text and "retry in" in text, text
        # The calls after the first refusal were all refused, on every node.
        assert all(a.is_error for a in answers[answers.index(limited[0]) :]), answers

        async def first_call(session):
            return await session.call_tool(
                "create_task", {"title": "Bob's first", "assignee": "bob", "due": "2026-12-01"}
            )

        # Another bearer, on the same nodes, spends a budget of its own.
        bob = run(cluster.url, MODERN, first_call, token="bob")
        assert not bob.is_error, bob.content
    finally:
        cluster.stop()


def test_each_stateless_caller_has_one_loop_memory_across_the_nodes(redis):
    cluster = shared_cluster(redis)
    # An unknown field: the same invalid call, sent again as it is.
    invalid = {"title": "Loop", "asignee": "ada", "due": "2026-12-01"}
    try:

        async def repeat(session):
            return [(await session.call_tool("create_task", invalid)).content[0].text for _ in range(3)]

        first, second, third = run(cluster.url, MODERN, repeat, token="alice")
        # Round-robin sent the three calls to the three nodes in turn: the second and third
        # were still known as repeats.
        assert "<validation_error" in first and "repeated_call" not in first, first
        assert '<repeated_call tool="create_task" times="2">' in second, second
        assert '<repeated_call tool="create_task" times="3">' in third, third
        assert "Stop. Do not call create_task again" in third, third

        async def once(session):
            return (await session.call_tool("create_task", invalid)).content[0].text

        # Another caller's first call of the same arguments is a first call.
        bob = run(cluster.url, MODERN, once, token="bob")
        assert "<validation_error" in bob and "repeated_call" not in bob, bob
    finally:
        cluster.stop()


def test_a_node_killed_under_load_costs_only_the_calls_it_was_answering(redis):
    cluster = shared_cluster(redis)
    clients = 8
    try:

        async def load(token, log, stop):
            async def body(session):
                n = 0
                while not stop.is_set():
                    sent = time.monotonic()
                    try:
                        result = await session.call_tool(
                            "create_task",
                            {"title": f"{token} {n}", "assignee": token, "due": "2026-12-01"},
                        )
                        ok = not result.is_error
                        what = result.structured_content if ok else result.content
                    except Exception as error:  # noqa: BLE001  (a failed call is what is counted)
                        ok, what = False, repr(error)
                    log.append((sent, time.monotonic(), ok, what))
                    n += 1

            await connect(cluster.url, MODERN, body, token=token)

        async def main():
            log = []
            stop = asyncio.Event()
            runners = [asyncio.create_task(load(f"client{c}", log, stop)) for c in range(clients)]
            await asyncio.sleep(1.5)
            killed_at = time.monotonic()
            await asyncio.to_thread(cluster.kill, "node2")
            await asyncio.sleep(2.5)
            stop.set()
            await asyncio.gather(*runners)
            return log, killed_at

        log, killed_at = asyncio.run(main())
    finally:
        cluster.stop()
    before = [entry for entry in log if entry[0] < killed_at]
    after = [entry for entry in log if entry[0] >= killed_at]
    failed = [entry for entry in log if not entry[2]]
    # Load on all three nodes before the kill, on the two left after it.
    assert {node_of(e[3]["id"]) for e in before if e[2]} == {1, 2, 3}
    assert {node_of(e[3]["id"]) for e in after if e[2]} == {1, 3}
    assert len(after) >= 10 * clients, len(after)
    # What failed was in flight at the kill: sent before it, answered (as a failure) after it;
    # each client has at most one call in flight.
    assert len(failed) <= clients, failed
    for sent, answered, _, what in failed:
        assert sent < killed_at <= answered, (sent, answered, killed_at, what)
