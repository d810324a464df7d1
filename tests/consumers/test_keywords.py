"""One keyword at a time: each form the library's schemas take today, and each portable form
they move to, in a closed object of its own, through every consumer (as the tools are in
test_consumers.py; the TypeScript SDK parses it as a tool's `outputSchema` and validates the
example with its default validator).

`pytest -s` prints which consumer refuses which form; the tests hold that every portable form
passes every consumer, except where a consumer cannot read what the form says
(PORTABLE_LIMITS).
"""

from __future__ import annotations

import pytest
from mcp.types import Tool

from conftest import run_node
from consumers import CONSUMERS, known_bug, with_unknown_key

TS_SDK = "ts-sdk"
MAX_SAFE = 2**53 - 1


def closed(properties: dict, required=None) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def variant(tag: str, **fields) -> dict:
    props = {"kind": {"type": "string", "const": tag}, **fields}
    return closed(props)


# (id, form, schema, valid example). "today": what the library's schemas say now; "portable":
# the form that says the same and that the consumers read; "stays": a form that is both;
# "candidate": a form considered and measured, not chosen (the printout says who refuses it).
PROBES = [
    ("plain closed object", "stays", closed({"n": {"type": "integer"}}), {"n": 1}),
    (
        "option as a type array",
        "today",
        closed({"n": {"type": ["integer", "null"], "minimum": 0}}, []),
        {"n": 1},
    ),
    (
        "option as anyOf [T, null]",
        "portable",
        closed({"n": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}}, []),
        {"n": 1},
    ),
    (
        "option of an enum, null in type and enum",
        "today",
        closed({"s": {"type": ["string", "null"], "enum": ["a", "b", None]}}, []),
        {"s": "a"},
    ),
    (
        "option of an enum as anyOf [enum, null]",
        "portable",
        closed({"s": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]}}, []),
        {"s": "a"},
    ),
    (
        "tagged enum as oneOf, bare const tags",
        "today",
        closed(
            {
                "r": {
                    "oneOf": [
                        closed({"kind": {"const": "daily"}, "until": {"type": "string"}}),
                        closed({"kind": {"const": "monthly"}, "day": {"type": "integer"}}),
                    ]
                }
            }
        ),
        {"r": {"kind": "daily", "until": "2026-01-31"}},
    ),
    (
        "tagged enum as anyOf, typed const tags",
        "portable",
        closed(
            {
                "r": {
                    "anyOf": [
                        variant("daily", until={"type": "string"}),
                        variant("monthly", day={"type": "integer"}),
                    ]
                }
            }
        ),
        {"r": {"kind": "daily", "until": "2026-01-31"}},
    ),
    (
        "flattened enum as allOf [oneOf] + unevaluatedProperties",
        "today",
        {
            "type": "object",
            "properties": {"limit": {"type": "integer"}},
            "allOf": [
                {
                    "oneOf": [
                        {
                            "properties": {"by": {"const": "name"}, "name": {"type": "string"}},
                            "required": ["by", "name"],
                            "type": "object",
                        },
                        {
                            "properties": {"by": {"const": "id"}, "id": {"type": "integer"}},
                            "required": ["by", "id"],
                            "type": "object",
                        },
                    ]
                }
            ],
            "required": ["limit"],
            "unevaluatedProperties": False,
        },
        {"limit": 1, "by": "name", "name": "a"},
    ),
    (
        "flattened enum as closed variants carrying the shared properties",
        "candidate",
        {
            "type": "object",
            "anyOf": [
                closed(
                    {
                        "limit": {"type": "integer"},
                        "by": {"type": "string", "const": "name"},
                        "name": {"type": "string"},
                    }
                ),
                closed(
                    {
                        "limit": {"type": "integer"},
                        "by": {"type": "string", "const": "id"},
                        "id": {"type": "integer"},
                    }
                ),
            ],
        },
        {"limit": 1, "by": "name", "name": "a"},
    ),
    (
        "flattened enum as every variant's properties, closed, and the closed variants in anyOf",
        "portable",
        {
            "type": "object",
            "properties": {
                "limit": {"type": "integer"},
                "by": {"type": "string", "enum": ["name", "id"]},
                "name": {"type": "string"},
                "id": {"type": "integer"},
            },
            "required": ["limit", "by"],
            "additionalProperties": False,
            "anyOf": [
                closed(
                    {
                        "limit": {"type": "integer"},
                        "by": {"type": "string", "const": "name"},
                        "name": {"type": "string"},
                    }
                ),
                closed(
                    {
                        "limit": {"type": "integer"},
                        "by": {"type": "string", "const": "id"},
                        "id": {"type": "integer"},
                    }
                ),
            ],
        },
        {"limit": 1, "by": "name", "name": "a"},
    ),
    (
        "tuple as prefixItems",
        "today",
        closed(
            {
                "slot": {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}, {"type": "string"}],
                    "minItems": 2,
                    "maxItems": 2,
                }
            }
        ),
        {"slot": [1, "a"]},
    ),
    (
        "tuple as items + minItems/maxItems",
        "portable",
        closed(
            {
                "slot": {
                    "type": "array",
                    "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "minItems": 2,
                    "maxItems": 2,
                }
            }
        ),
        {"slot": [1, "a"]},
    ),
    (
        "u64 bound at 2^64-1",
        "today",
        closed({"n": {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}}),
        {"n": 1},
    ),
    (
        "i64 bounds at -2^63 and 2^63-1",
        "today",
        closed({"n": {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}}),
        {"n": 1},
    ),
    (
        "integer bounds at ±(2^53-1)",
        "portable",
        closed({"n": {"type": "integer", "minimum": -MAX_SAFE, "maximum": MAX_SAFE}}),
        {"n": 1},
    ),
    ("anything as true", "today", closed({"v": True}), {"v": {"a": [1]}}),
    ("anything as {}", "candidate", closed({"v": {}}), {"v": {"a": [1]}}),
    (
        "anything as anyOf of the six JSON types",
        "portable",
        closed(
            {
                "v": {
                    "anyOf": [
                        {"type": t}
                        for t in ("string", "number", "boolean", "null", "object", "array")
                    ]
                }
            }
        ),
        {"v": {"a": [1, "x"]}},
    ),
    (
        "anything as {} with a description",
        "candidate",
        closed({"v": {"description": "Any JSON value."}}),
        {"v": {"a": [1]}},
    ),
    (
        "$schema at the root",
        "today",
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            **closed({"n": {"type": "integer"}}),
        },
        {"n": 1},
    ),
    ("examples", "today", closed({"n": {"type": "integer", "examples": [1]}}), {"n": 1}),
    ("writeOnly", "today", closed({"t": {"type": "string", "writeOnly": True}}), {"t": "x"}),
    (
        "uniqueItems",
        "today",
        closed({"t": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}),
        {"t": ["a"]},
    ),
    (
        "map as additionalProperties: schema",
        "stays",
        closed({"m": {"type": "object", "additionalProperties": {"type": "integer"}}}),
        {"m": {"k": 1}},
    ),
    (
        "string length, pattern and format",
        "stays",
        closed(
            {
                "s": {"type": "string", "minLength": 1, "maxLength": 9, "pattern": "^[a-z]+$"},
                "d": {"type": "string", "format": "date"},
            }
        ),
        {"s": "abc", "d": "2026-01-31"},
    ),
    (
        "rmcp's integer formats (uint32)",
        "today",
        closed({"n": {"type": "integer", "format": "uint32", "minimum": 0}}),
        {"n": 1},
    ),
    (
        "$ref to $defs",
        "today",
        {
            "$defs": {"P": closed({"x": {"type": "integer"}})},
            **closed({"p": {"$ref": "#/$defs/P"}}),
        },
        {"p": {"x": 1}},
    ),
]
PROBE_IDS = [p[0] for p in PROBES]
CONSUMER_NAMES = [name for name, _, _ in CONSUMERS] + [TS_SDK]

# A consumer that cannot read what a portable form says, whatever the library writes: filled in
# from the measured matrix, each with why.
FLATTENED = "flattened enum as every variant's properties, closed, and the closed variants in anyOf"
PORTABLE_LIMITS: dict[tuple[str, str], str] = {
    ("openai-agents", FLATTENED): (
        "OpenAI strict mode refuses `anyOf` at the root, and a flattened enum has no exact form "
        "without it: a strict profile must say less"
    ),
    ("openai-agents", "map as additionalProperties: schema"): (
        "OpenAI strict mode closes every object, so it has no maps: a strict profile must say "
        "less (a list of key and value pairs)"
    ),
    ("pydantic-ai-openai", "anything as anyOf of the six JSON types"): (
        "OpenAI strict mode needs every array's items typed, so it cannot say \"any JSON "
        'value": pydantic-ai refuses the untyped array when strict is asked for'
    ),
}


def _ts_sdk_probes() -> dict:
    def run(example_of):
        job = [
            {"id": pid, "schema": schema, "example": example_of(example)}
            for pid, _, schema, example in PROBES
        ]
        return run_node({"schemas": job})["schemas"]

    valid = run(lambda example: example)
    # Whether the validator refuses the example with an unknown key, as the schema says.
    extra = run(with_unknown_key)
    out = {}
    for pid in PROBE_IDS:
        ok, error, warnings = valid[pid]["ok"], valid[pid]["error"], valid[pid]["warnings"]
        if ok and extra[pid]["ok"]:
            ok, error = False, "the validator accepts an unknown key"
        out[pid] = (ok, error, warnings)
    return out


@pytest.fixture(scope="module")
def probe_matrix():
    """probe id -> consumer -> (ok, error or None, dropped keywords, warnings)."""
    ts = _ts_sdk_probes()
    out = {}
    for pid, _, schema, example in PROBES:
        tool = Tool.model_validate({"name": "probe", "inputSchema": schema})
        row = {}
        for name, _, check in CONSUMERS:
            outcome = check(schema, tool, "input", example)
            said = outcome.warnings + (
                [f"no longer fits the example: {outcome.unfit}"] if outcome.unfit else []
            )
            row[name] = (outcome.ok, outcome.error, dict(outcome.dropped), said)
        ok, error, warnings = ts[pid]
        row[TS_SDK] = (ok, error, {}, warnings)
        out[pid] = row
    return out


def test_probe_matrix(probe_matrix):
    """Prints each form against each consumer; every consumer judged every form."""
    print(
        "\n\n== one keyword at a time: ok, REFUSED (the consumer raised or its grammar got the "
        "example wrong), or the keywords it dropped"
    )
    for pid, form, _, _ in PROBES:
        print(f"- [{form}] {pid}")
        for consumer in CONSUMER_NAMES:
            ok, error, lost, warnings = probe_matrix[pid][consumer]
            if not ok:
                print(f"    {consumer}: REFUSED {' '.join(str(error).split())[:200]}")
            elif lost or warnings:
                said = ", ".join(
                    [f"drops {k}" for k in sorted(lost)] + [f"says: {w}" for w in warnings]
                )
                print(f"    {consumer}: ok, {' '.join(said.split())[:200]}")
    assert set(probe_matrix) == set(PROBE_IDS)
    assert all(set(row) == set(CONSUMER_NAMES) for row in probe_matrix.values())


@pytest.mark.parametrize("consumer", CONSUMER_NAMES)
@pytest.mark.parametrize(
    "probe", [pid for pid, form, _, _ in PROBES if form in ("portable", "stays")]
)
def test_portable_forms_pass_every_consumer(probe_matrix, probe, consumer):
    ok, error, _, _ = probe_matrix[probe][consumer]
    schema = next(s for pid, _, s, _ in PROBES if pid == probe)
    if not ok and (bug := known_bug(consumer, str(error), [schema])):
        pytest.xfail(f"a bug of {consumer}'s: {bug.why}")
    if (consumer, probe) in PORTABLE_LIMITS:
        if ok:
            pytest.fail(f"{consumer} now reads {probe!r}: drop it from PORTABLE_LIMITS")
        pytest.xfail(PORTABLE_LIMITS[(consumer, probe)])
    assert ok, f"{consumer} refuses {probe!r}: {error}"
