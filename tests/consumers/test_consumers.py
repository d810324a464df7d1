"""Every tool of the example servers, as it crosses the wire, through each model client's own
code (consumers.py) and the TypeScript SDK's client (ts_sdk.cjs).

`pytest -s` prints the matrix: per consumer and server, the tools that pass out of all, and each
failure with the consumer's own words. What the tests hold:
- a guarded server passes each consumer with at least as many tools as the same server
  unguarded (rmcp's own schemas);
- every tool of the task tracker and of the derive shapes server passes every consumer, except
  where a consumer's own bug refuses what it should read (KNOWN_CONSUMER_BUGS, each matched by
  its error and by the keyword in the schema that sets it off).
"""

from __future__ import annotations

import importlib.metadata
from collections import Counter
from dataclasses import dataclass, field

import pytest

from conftest import SERVERS, SPECS, run_ts_sdk
from consumers import CONSUMERS, known_bug, keywords

TS_SDK = "ts-sdk"
CONSUMER_NAMES = [name for name, _, _ in CONSUMERS] + [TS_SDK]

# The servers whose every tool must pass every consumer, and their tools: a tool added to either
# must be added here, so that it is held to the same.
PORTABLE = {
    "task_tracker": [
        "list_tasks",
        "read_tasks",
        "create_task",
        "update_task",
        "delete_task",
        "task_report",
        "export_tasks",
        "schedule_task",
    ],
    "derive_shapes": ["plan_trip", "find_places", "label_place"],
}

# Pairs of the same server guarded and unguarded.
PAIRS = [(spec.id, spec.twin) for spec in SERVERS if spec.guarded and spec.twin]


@dataclass
class Verdict:
    ok: bool
    errors: list = field(default_factory=list)  # "input: ..." / "output: ..."
    dropped: Counter = field(default_factory=Counter)
    warnings: Counter = field(default_factory=Counter)
    unfit: list = field(default_factory=list)  # "input: ..." where what is sent refuses the example


@pytest.fixture(scope="session")
def ts_reports(catalog):
    reports = {}
    for spec in SERVERS:
        calls = [
            {"name": e.name, "arguments": e.example}
            for e in catalog[spec.id]
            if e.example is not None
        ]
        reports[spec.id] = run_ts_sdk(spec, calls)
    return reports


@pytest.fixture(scope="session")
def matrix(catalog, ts_reports):
    """(server, tool) -> consumer -> Verdict."""
    out = {}
    for server, entries in catalog.items():
        ts = ts_reports[server]
        for entry in entries:
            row = {}
            for name, _, check in CONSUMERS:
                verdict = Verdict(True)
                for kind, schema, example in (
                    ("input", entry.input_schema, entry.example),
                    ("output", entry.output_schema, entry.result),
                ):
                    if schema is None:
                        continue
                    outcome = check(schema, entry.tool, kind, example)
                    if outcome is None:
                        continue
                    verdict.dropped.update(outcome.dropped)
                    verdict.warnings.update(outcome.warnings)
                    if outcome.unfit:
                        verdict.unfit.append(f"{kind}: {outcome.unfit}")
                    if not outcome.ok:
                        verdict.ok = False
                        verdict.errors.append(f"{kind}: {outcome.error}")
                row[name] = verdict
            if not ts["list"]["ok"]:
                row[TS_SDK] = Verdict(False, [f"listTools: {ts['list']['error']}"])
            else:
                call = ts["calls"].get(entry.name)
                if call is None or call["ok"]:
                    row[TS_SDK] = Verdict(True)
                else:
                    row[TS_SDK] = Verdict(False, [f"callTool: {call['error']}"])
            out[(server, entry.name)] = row
    return out


def _one_line(text: str, limit: int = 240) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _versions() -> str:
    seen = {}
    for _, package, _ in CONSUMERS:
        seen[package] = importlib.metadata.version(package)
    return ", ".join(f"{p} {v}" for p, v in seen.items())


def test_matrix(catalog, matrix, ts_reports):
    """Prints the matrix; every consumer judged every tool of every server."""
    servers = [spec.id for spec in SERVERS]
    sdk = {r["sdk"] for r in ts_reports.values()}
    print(f"\n\n== consumers: {_versions()}, @modelcontextprotocol/sdk {', '.join(sorted(sdk))}")
    widths = [len(s) + 2 for s in servers]
    print("tools passing / tools, per consumer (rows) and server (columns)")
    print(
        " " * 20
        + "".join(s.rjust(w) for s, w in zip(servers, widths, strict=True))
        + "total".rjust(9)
    )
    for consumer in CONSUMER_NAMES:
        cells, passed, total = [], 0, 0
        for server, width in zip(servers, widths, strict=True):
            verdicts = [matrix[(server, e.name)][consumer] for e in catalog[server]]
            ok = sum(v.ok for v in verdicts)
            passed, total = passed + ok, total + len(verdicts)
            cells.append(f"{ok}/{len(verdicts)}".rjust(width))
        print(consumer.ljust(20) + "".join(cells) + f"{passed}/{total}".rjust(9))

    print("\nfailures (server tool: what the consumer said)")
    for consumer in CONSUMER_NAMES:
        lines = [
            f"  {server} {tool}: {_one_line(' | '.join(row[consumer].errors))}"
            for (server, tool), row in matrix.items()
            if not row[consumer].ok
        ]
        if lines:
            print(f"- {consumer} ({len(lines)})")
            print("\n".join(lines))

    print("\ntools passing whose schema as sent still accepts the tool's own example (and result)")
    print(
        " " * 20
        + "".join(s.rjust(w) for s, w in zip(servers, widths, strict=True))
        + "total".rjust(9)
    )
    for consumer in CONSUMER_NAMES:
        cells, passed, total = [], 0, 0
        for server, width in zip(servers, widths, strict=True):
            verdicts = [matrix[(server, e.name)][consumer] for e in catalog[server]]
            ok = sum(v.ok and not v.unfit for v in verdicts)
            passed, total = passed + ok, total + len(verdicts)
            cells.append(f"{ok}/{len(verdicts)}".rjust(width))
        print(consumer.ljust(20) + "".join(cells) + f"{passed}/{total}".rjust(9))
    print("\nwhere the schema as sent refuses the tool's own example (weakened past use)")
    for consumer in CONSUMER_NAMES:
        lines = [
            f"  {server} {tool}: {_one_line(' | '.join(row[consumer].unfit))}"
            for (server, tool), row in matrix.items()
            if row[consumer].ok and row[consumer].unfit
        ]
        if lines:
            print(f"- {consumer} ({len(lines)})")
            print("\n".join(lines))

    print("\nkeywords each transform dropped, over the guarded servers' tools (keyword x times)")
    for consumer in CONSUMER_NAMES:
        lost = Counter()
        for (server, _), row in matrix.items():
            if SPECS[server].guarded:
                lost.update(row[consumer].dropped)
        if lost:
            print(f"- {consumer}: " + ", ".join(f"{k} x{n}" for k, n in lost.most_common()))
    print("\nwhat each consumer said it ignores, over the guarded servers' tools (x times)")
    for consumer in CONSUMER_NAMES:
        said = Counter()
        for (server, _), row in matrix.items():
            if SPECS[server].guarded:
                said.update(row[consumer].warnings)
        if consumer == TS_SDK:
            said.update(w for s, r in ts_reports.items() if SPECS[s].guarded for w in r["warnings"])
        if said:
            print(
                f"- {consumer}: "
                + "; ".join(f"{_one_line(w, 160)} x{n}" for w, n in said.most_common())
            )

    for server in servers:
        for entry in catalog[server]:
            assert set(matrix[(server, entry.name)]) == set(CONSUMER_NAMES), (server, entry.name)
    assert sum(len(e) for e in catalog.values()) == len(matrix)


@pytest.mark.parametrize("server", sorted(PORTABLE))
def test_portable_servers_list_the_tools_held_here(catalog, server):
    assert [e.name for e in catalog[server]] == PORTABLE[server]


@pytest.mark.parametrize("consumer", CONSUMER_NAMES)
@pytest.mark.parametrize(("guarded", "unguarded"), PAIRS, ids=[g for g, _ in PAIRS])
def test_guarded_passes_at_least_as_many_tools_as_unguarded(
    catalog, matrix, consumer, guarded, unguarded
):
    def passing(server):
        """The tools the consumer reads, or refuses only through a bug of its own (a guarded
        server closes every object, which the Google MCP conversion crashes on)."""
        out = set()
        for e in catalog[server]:
            verdict = matrix[(server, e.name)][consumer]
            schemas = [e.input_schema, e.output_schema]
            if verdict.ok or all(known_bug(consumer, err, schemas) for err in verdict.errors):
                out.add(e.name)
        return out

    lost = passing(unguarded) - passing(guarded)
    assert len(passing(guarded)) >= len(passing(unguarded)), {
        tool: matrix[(guarded, tool)][consumer].errors for tool in sorted(lost)
    }


@pytest.mark.parametrize("consumer", CONSUMER_NAMES)
@pytest.mark.parametrize(
    ("server", "tool"), [(server, tool) for server, tools in PORTABLE.items() for tool in tools]
)
def test_every_tool_passes_every_consumer(catalog, matrix, server, tool, consumer):
    verdict = matrix[(server, tool)][consumer]
    if verdict.ok:
        return
    entry = next(e for e in catalog[server] if e.name == tool)
    bugs = [
        known_bug(consumer, error, [entry.input_schema, entry.output_schema])
        for error in verdict.errors
    ]
    if all(bugs):
        pytest.xfail(f"a bug of {consumer}'s: {bugs[0].why}")
    pytest.fail(f"{consumer} refuses {server} {tool}: " + " | ".join(verdict.errors))


def test_keyword_counts_see_through_subschemas():
    schema = {
        "type": "object",
        "properties": {"a": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}},
        "additionalProperties": False,
        "$defs": {"X": {"items": True}},
    }
    counts = keywords(schema)
    assert counts["type"] == 3 and counts["minimum"] == 1 and counts["false"] == 1
    assert counts["true"] == 1 and counts["anyOf"] == 1 and "a" not in counts
