"""Every tool of the example servers, as it crosses the wire, through each model client's own
code (consumers.py) and the TypeScript SDK's client (ts_sdk.cjs).

`pytest -s` prints the matrix: per consumer and server, the tools that pass out of all, and each
failure with the consumer's own words. What the tests hold:
- a guarded server passes each consumer with at least as many tools as the same server
  unguarded (rmcp's own schemas);
- every tool of the task tracker and of the derive shapes server passes every consumer, served
  in the schema profile that consumer is held against (HELD_PROFILE: Google's legacy `Schema`
  against `gemini`, the OpenAI strict transforms against `openai`, every other consumer against
  the default, `portable`), except where a consumer's own bug refuses what it should read
  (KNOWN_CONSUMER_BUGS, each matched by its error and by the keyword in the schema that sets it
  off);
- in the portable profile, the only failures of those tools are of the kinds PORTABLE_FAILURES
  names, each matched by the consumer, its words and what in the schema sets it off;
- under `openai`, the call a model in OpenAI strict mode makes from each tool's example (every
  property sent, `null` for one left out, a map as its entries) fits the strict schema the
  OpenAI Agents SDK makes of the tool's, and the server reads it as the portable server reads the
  example; under `gemini`, the example as it is gets the same answer as from the portable
  server;
- the results of those servers, in each profile, pass the MCP SDKs' own check against the
  advertised `outputSchema`, but for the library defects PROFILE_OUTPUT_DEFECTS names.
"""

from __future__ import annotations

import copy
import importlib.metadata
import re
from collections import Counter
from dataclasses import dataclass, field

import pytest

from conftest import SERVERS, SPECS, run_ts_sdk
from consumers import CONSUMERS, google_legacy_refusals, keywords, known_bug, strict_call

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

# The profile each consumer is held against: the one an operator serving that client starts the
# server with. Every other consumer reads the default, portable, form.
OPENAI_STRICT = ("openai-agents", "openai", "pydantic-ai-openai", "langchain")
HELD_PROFILE = {
    "google-legacy": "gemini",
    "google-mcp": "gemini",
    **{name: "openai" for name in OPENAI_STRICT},
}


def held_server(server: str, consumer: str) -> str:
    """The variant of the portable `server` that `consumer` is held against."""
    profile = HELD_PROFILE.get(consumer, "portable")
    return server if profile == "portable" else f"{server}/{profile}"


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
                # A model client turns a tool's inputSchema into the model's tool; the
                # outputSchema is read by the MCP SDKs, which check results against it
                # (test_results_fit_the_advertised_output_schema).
                for kind, schema, example in (("input", entry.input_schema, entry.example),):
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

    print(
        "\nheld: tools passing / tools of each portable server, in the profile each consumer is"
        " held against (test_every_tool_passes_every_consumer)"
    )
    print(" " * 20 + "profile".ljust(10) + "".join(f"{server:>28}" for server in PORTABLE))
    for consumer in CONSUMER_NAMES:
        cells = []
        for server in PORTABLE:
            held = held_server(server, consumer)
            verdicts = [matrix[(held, e.name)][consumer] for e in catalog[held]]
            cells.append(f"{held} {sum(v.ok for v in verdicts)}/{len(verdicts)}".rjust(28))
        profile = HELD_PROFILE.get(consumer, "portable")
        print(consumer.ljust(20) + profile.ljust(10) + "".join(cells))

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

    print(
        "\nresults the Python SDK's client refuses, checked against the advertised outputSchema"
        " (the TypeScript SDK's words are among the ts-sdk failures above)"
    )
    refused = [
        f"  {server} {e.name}: {_one_line(e.result_check)}"
        for server, entries in catalog.items()
        for e in entries
        if e.result_check
    ]
    print("\n".join(refused) if refused else "  none")

    def default_guarded(server):
        return SPECS[server].guarded and SPECS[server].base is None

    print(
        "\nkeywords each transform dropped, over the guarded servers' tools in the default"
        " profile (keyword x times)"
    )
    for consumer in CONSUMER_NAMES:
        lost = Counter()
        for (server, _), row in matrix.items():
            if default_guarded(server):
                lost.update(row[consumer].dropped)
        if lost:
            print(f"- {consumer}: " + ", ".join(f"{k} x{n}" for k, n in lost.most_common()))
    print(
        "\nwhat each consumer said it ignores, over the guarded servers' tools in the default"
        " profile (x times)"
    )
    for consumer in CONSUMER_NAMES:
        said = Counter()
        for (server, _), row in matrix.items():
            if default_guarded(server):
                said.update(row[consumer].warnings)
        if consumer == TS_SDK:
            said.update(
                w for s, r in ts_reports.items() if default_guarded(s) for w in r["warnings"]
            )
        if said:
            print(
                f"- {consumer}: "
                + "; ".join(f"{_one_line(w, 160)} x{n}" for w, n in said.most_common())
            )

    for server in servers:
        for entry in catalog[server]:
            assert set(matrix[(server, entry.name)]) == set(CONSUMER_NAMES), (server, entry.name)
    assert sum(len(e) for e in catalog.values()) == len(matrix)


@pytest.mark.parametrize(
    "server", [spec.id for spec in SERVERS if (spec.base or spec.id) in PORTABLE]
)
def test_portable_servers_list_the_tools_held_here(catalog, server):
    """The portable servers, and the same servers in each other profile, list the same tools."""
    assert [e.name for e in catalog[server]] == PORTABLE[SPECS[server].base or server]


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
    """Each consumer on the server in the profile it is held against (HELD_PROFILE)."""
    server = held_server(server, consumer)
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


# --- the portable profile: what it costs, named ---------------------------------------------------


def _nodes(schema):
    """Every object in `schema`, at every depth."""
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _nodes(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _nodes(item)


def _types(node) -> list:
    t = node.get("type")
    return [t] if isinstance(t, str) else t if isinstance(t, list) else []


def _has_map(schema) -> bool:
    """An object whose values are all of one schema (`additionalProperties: {schema}`)."""
    return any(
        "object" in _types(n) and isinstance(n.get("additionalProperties"), dict)
        for n in _nodes(schema)
    )


def _has_untyped_array(schema) -> bool:
    """An array whose items have no type (the array branch of any JSON value)."""
    return any(
        "array" in _types(n) and not isinstance(n.get("items"), dict) for n in _nodes(schema)
    )


# The annotations the portable form keeps for the other consumers' models, which Google's
# legacy `Schema` has no field for (it reads `const`, which the portable form also keeps).
GOOGLE_EXTRA_FIELDS = {"examples", "writeOnly"}


def _only_google_extra_fields(schema) -> bool:
    refusals = google_legacy_refusals(schema)
    return bool(refusals) and all(
        kind == "extra_forbidden" and name in GOOGLE_EXTRA_FIELDS for kind, name in refusals
    )


@dataclass(frozen=True)
class PortableFailure:
    """A consumer refusing a tool of a portable server: its words, and what in the schema sets
    it off. The profile the consumer is held against (HELD_PROFILE) answers it."""

    name: str
    consumer: str
    error: str  # a regular expression the consumer's error matches
    holds: object  # schema -> bool: the schema holds what sets it off


PORTABLE_FAILURES = [
    PortableFailure(
        "annotations Google's legacy Schema has no field for (examples, writeOnly): gemini",
        "google-legacy",
        r"^ValidationError: \d+ validation errors? for Schema .*Extra inputs are not permitted",
        _only_google_extra_fields,
    ),
    PortableFailure(
        "a map, which OpenAI strict mode has no open object for: openai",
        "openai-agents",
        r"^UserError: additionalProperties should not be set for object types",
        _has_map,
    ),
    PortableFailure(
        "any JSON value, whose array OpenAI strict mode needs typed items for: openai",
        "pydantic-ai-openai",
        r"^UserError: OpenAI strict mode requires array items to have a type",
        _has_untyped_array,
    ),
]


def _portable_failure(consumer, error, entry):
    """The documented kind of `consumer`'s `error` ("input: ..." or "output: ...") on the
    tool `entry`, or None."""
    kind, _, said = error.partition(": ")
    schema = entry.input_schema if kind == "input" else entry.output_schema
    for failure in PORTABLE_FAILURES:
        if (
            failure.consumer == consumer
            and re.search(failure.error, said)
            and failure.holds(schema)
        ):
            return failure.name
    bug = known_bug(consumer, said, [schema])
    return f"a bug of {consumer}'s: {bug.trigger}" if bug else None


@pytest.fixture(scope="session")
def portable_failures(catalog, matrix):
    """(server, tool, consumer, error, its documented kind or None) for every failure of a
    tool of the portable servers."""
    out = []
    for server in PORTABLE:
        for entry in catalog[server]:
            for consumer, verdict in matrix[(server, entry.name)].items():
                for error in verdict.errors:
                    kind = _portable_failure(consumer, error, entry)
                    out.append((server, entry.name, consumer, error, kind))
    return out


def test_portable_servers_fail_only_in_the_documented_kinds(portable_failures):
    kinds = Counter(kind for *_, kind in portable_failures)
    print("\n\nfailures of the portable servers' tools, by documented kind (x times)")
    for kind, n in sorted(kinds.items(), key=lambda kn: str(kn[0])):
        print(f"- {kind or 'UNDOCUMENTED'} x{n}")
    new = [
        f"{server} {tool} {consumer}: {_one_line(error)}"
        for server, tool, consumer, error, kind in portable_failures
        if kind is None
    ]
    assert not new, "a kind of failure PORTABLE_FAILURES does not name:\n" + "\n".join(new)


@pytest.mark.parametrize("name", [f.name for f in PORTABLE_FAILURES])
def test_every_documented_portable_failure_is_seen(portable_failures, name):
    """A kind that no longer happens is to be struck from PORTABLE_FAILURES and the README."""
    assert any(kind == name for *_, kind in portable_failures)


# --- round trips: a server in a profile reads what a model held to it sends ----------------------

ROUND_TRIPS = [(server, tool) for server, tools in PORTABLE.items() for tool in tools]


def _entry(catalog, server, tool):
    return next(e for e in catalog[server] if e.name == tool)


def _same_answer(catalog, server, profile, tool):
    """The server in `profile` answers its call as the portable server answers the example:
    ok where it is ok, the same failure (a tool's own, found at run time) where it fails, and
    never a refusal of the arguments."""
    portable = _entry(catalog, server, tool)
    other = _entry(catalog, f"{server}/{profile}", tool)
    assert portable.answer is not None and other.answer is not None
    assert not portable.answer.validation, portable.answer.text
    assert not other.answer.validation, (other.example, other.answer.text)
    assert other.answer.kind == portable.answer.kind, (other.answer.text, portable.answer.text)


@pytest.mark.parametrize(("server", "tool"), ROUND_TRIPS)
def test_openai_call_round_trip(catalog, server, tool):
    """A model in OpenAI strict mode sends every property (`null` for one the example leaves
    out) and a map as its `{"key", "value"}` entries: that call fits the strict schema the
    OpenAI Agents SDK makes of the advertised one, and the server reads it back."""
    portable = _entry(catalog, server, tool)
    openai = _entry(catalog, f"{server}/openai", tool)
    call = strict_call(portable.example, openai.input_schema)
    assert openai.example == call, "the catalog sent the openai server this call"
    assert set(call) == set(openai.input_schema["properties"]), "every property is sent"
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        from agents.strict_schema import ensure_strict_json_schema

        strict = ensure_strict_json_schema(copy.deepcopy(openai.input_schema))
        errors = [
            f"{'/'.join(map(str, e.absolute_path)) or 'the root'}: {e.message}"
            for e in jsonschema.Draft202012Validator(strict).iter_errors(call)
        ]
        assert not errors, (call, errors)
    _same_answer(catalog, server, "openai", tool)


@pytest.mark.parametrize(("server", "tool"), ROUND_TRIPS)
def test_gemini_call_round_trip(catalog, server, tool):
    """The example, as it is, to the gemini server: the answer of the portable server."""
    portable = _entry(catalog, server, tool)
    gemini = _entry(catalog, f"{server}/gemini", tool)
    assert gemini.example == portable.example
    _same_answer(catalog, server, "gemini", tool)


# --- results: what the MCP SDKs check against the advertised outputSchema ------------------------

# A server in a profile whose result its own advertised `outputSchema` refuses, in the words of
# the MCP SDKs that check it (the Python SDK's `ClientSession.call_tool`, the TypeScript SDK's
# `callTool`): the library's to fix. Each is matched by those words; one that no longer
# happens is to be struck.
PROFILE_OUTPUT_DEFECTS: dict = {
    # None: every profile advertises output schemas in the portable form (strict aside), which
    # describes the result as the tool sends it.
}


@pytest.mark.parametrize(
    ("server", "tool"),
    [
        (spec.id, tool)
        for spec in SERVERS
        if (spec.base or spec.id) in PORTABLE
        for tool in PORTABLE[spec.base or spec.id]
    ],
)
def test_results_fit_the_advertised_output_schema(catalog, ts_reports, server, tool):
    entry = _entry(catalog, server, tool)
    errors = []
    if entry.result_check:
        errors.append(f"python-sdk: {entry.result_check}")
    call = ts_reports[server]["calls"].get(tool)
    if call is not None and not call["ok"]:
        errors.append(f"ts-sdk: {_one_line(call['error'], 300)}")
    defect = PROFILE_OUTPUT_DEFECTS.get((server, tool))
    if defect is None:
        assert not errors, errors
        return
    why, said = defect
    assert errors, f"no longer refused: strike it from PROFILE_OUTPUT_DEFECTS ({why})"
    unexplained = [error for error in errors if not re.search(said, error)]
    assert not unexplained, unexplained
    pytest.xfail(f"a defect of the library's: {why}")


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
