"""A native rmcp server whose arguments take every shape serde gives (flattened and tagged enums, a
recursive enum, tuples, chrono and uuid fields), adopted with `guard_router`, driven by the official
Python SDK and compared with the same server served by rmcp alone."""

import html
import json
import re

from conftest import session_run, text_of


def run(body, unguarded=False):
    return session_run("serde_shapes_server", body, args=["--unguarded"] if unguarded else [])


VALID = [
    ("draw", {"shape": {"type": "circle", "radius": 2.0}, "size": {"name": "large"}}),
    ("draw", {"shape": {"type": "dot"}, "steps": [{"t": "wait", "c": 3}, {"t": "move", "c": {"dx": -1, "dy": 2}}]}),
    ("eval", {"expr": {"add": [{"num": 1}, {"neg": {"num": -4}}, "zero"]}}),
    ("search", {"by": "name", "name": "ada"}),
    ("search", {"by": "id", "id": 7, "limit": 10}),
    ("label", {"target": 3, "color": 2}),
    (
        "schedule",
        {
            "when": "2024-01-02 03:04:05Z",
            "id": "67e5504410b1426f9247bb680e5fe0c8",
            "slot": [9, "morning"],
            "count": -2147483648,
            "total": 18446744073709551615,
        },
    ),
]


def test_valid_calls_of_every_shape_are_unchanged():
    async def body(session):
        return [(await session.call_tool(name, args)).model_dump(mode="json") for name, args in VALID]

    guarded = run(body)
    assert all(not result["is_error"] for result in guarded), guarded
    assert guarded == run(body, unguarded=True)


def test_wrong_variants_and_overflows_are_coached_at_their_paths():
    async def body(session):
        return [
            text_of(await session.call_tool("draw", {"shape": {"type": "circel", "radius": 1}})),
            text_of(await session.call_tool("eval", {"expr": {"add": [{"num": 1}, {"neg": {"num": "x"}}]}})),
            text_of(await session.call_tool("search", {"by": "id", "id": 1, "limt": 3})),
            text_of(await session.call_tool("eval", {"expr": {"num": 3000000000}})),
        ]

    tag, deep, unknown, overflow = run(body)
    assert '<field name="shape.type" code="enum">This "type" names no variant. Did you mean "circle"?' in tag, tag
    assert '<field name="expr.add[1].neg.num" code="type">' in deep, deep
    assert '<field name="limt" code="unknown_field">' in unknown, unknown
    assert '<field name="expr.num" code="too_large">' in overflow, overflow
    for text in (tag, deep, unknown, overflow):
        assert "an object or an object" not in text


def test_the_example_validates_and_is_never_null():
    async def body(session):
        out = []
        for tool in ["draw", "eval", "search", "schedule"]:
            bad = text_of(await session.call_tool(tool, {"nope": 1}))
            example = json.loads(html.unescape(re.search(r"<valid_example>(.*)</valid_example>", bad).group(1)))
            out.append((tool, example, await session.call_tool(tool, example)))
        follow = text_of(await session.call_tool("follow", {}))
        return out, follow

    retries, follow = run(body)
    for tool, example, retry in retries:
        assert not retry.is_error, (tool, example, text_of(retry))
    assert "valid_example" not in follow and "null" not in follow, follow
