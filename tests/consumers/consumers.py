"""Each model client's own code for turning an MCP tool's schema into a model's tool, called as
that client calls it, CPU only and offline.

A consumer is a function `(schema, tool, kind, example) -> Outcome`: `kind` is "input" or
"output", `example` the tool's own valid example (input) or a real structured result (output),
or None when there is none. It passes when the client's code does not raise and, for grammar
engines, when the grammar accepts the example and (for arguments) refuses the example with one
unknown key. `dropped` counts the schema keywords a transform lost on the way, and `unfit` says
when what it sends no longer accepts the example (what it weakens).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import sys
import tempfile
import types
from collections import Counter
from dataclasses import dataclass, field

UNKNOWN_KEY = "zz_unknown_key"


@dataclass
class Outcome:
    ok: bool
    error: str | None = None
    dropped: Counter = field(default_factory=Counter)
    warnings: list = field(default_factory=list)  # what a grammar engine says it ignores
    # A transform that took the schema but sends one that refuses the tool's own example: the
    # model, held to it, can no longer make that call (weakened past use, not refused).
    unfit: str | None = None


def failure(error: BaseException | str) -> Outcome:
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    text = " ".join(text.split())
    return Outcome(False, text[:300])


# --- what a schema says, as keyword counts --------------------------------------------------

_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "any_of", "one_of", "all_of")
_SUBSCHEMA_ONE = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "additionalItems",
)


def keywords(schema, counts: Counter | None = None) -> Counter:
    """Counts the keywords of `schema` and of every subschema in it (a boolean subschema
    counts as `true`/`false`; the names of properties are not keywords)."""
    counts = Counter() if counts is None else counts
    if isinstance(schema, bool):
        counts[str(schema).lower()] += 1
        return counts
    if not isinstance(schema, dict):
        return counts
    for key, value in schema.items():
        if value is None:
            continue
        counts[key] += 1
        if key == "additionalProperties" and isinstance(value, dict):
            counts["additionalProperties (a map's values)"] += 1
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            for sub in value.values():
                keywords(sub, counts)
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            for sub in value:
                keywords(sub, counts)
        elif key in _SUBSCHEMA_ONE:
            if isinstance(value, list):  # draft-07 tuples
                for sub in value:
                    keywords(sub, counts)
            else:
                keywords(value, counts)
    return counts


# Names a transform may rename or add without losing meaning: not "dropped".
_RENAMED = {"oneOf", "$defs", "$ref", "definitions", "title"}


def dropped(before, after) -> Counter:
    lost = keywords(before) - keywords(after)
    for key in _RENAMED:
        lost.pop(key, None)
    return lost


# --- the examples, in the order the grammar engines write properties --------------------------


def _resolve(schema, root):
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 32:
        ref = schema["$ref"]
        if not ref.startswith("#"):
            return schema
        node = root
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part, {}) if isinstance(node, dict) else {}
        schema = node
        seen += 1
    return schema


def _property_schemas(schema, root, out: dict, depth: int = 0) -> None:
    """The subschema of each property `schema` may hold: its own, then its `$ref`'s, then
    those of its branches (`anyOf`, `oneOf`, `allOf`)."""
    if not isinstance(schema, dict) or depth > 32:
        return
    for name, sub in (schema.get("properties") or {}).items():
        out.setdefault(name, sub)
    if "$ref" in schema:
        _property_schemas(_resolve({"$ref": schema["$ref"]}, root), root, out, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or []:
            _property_schemas(sub, root, out, depth + 1)


def ordered(value, schema, root=None):
    """`value` with the keys of each object in the order its schema lists them, the order in
    which grammar engines let a model write them (unknown keys last)."""
    root = schema if root is None else root
    if isinstance(value, dict):
        props: dict = {}
        _property_schemas(schema, root, props)
        names = list(props)
        keys = sorted(value, key=lambda k: names.index(k) if k in names else len(names))
        resolved = _resolve(schema, root)
        extra = resolved.get("additionalProperties") if isinstance(resolved, dict) else None
        return {
            k: ordered(value[k], props.get(k, extra if isinstance(extra, dict) else {}), root)
            for k in keys
        }
    schema = _resolve(schema, root)
    if isinstance(value, list) and isinstance(schema, dict):
        prefix = schema.get("prefixItems") or []
        items = schema.get("items")
        out = []
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else items
            if isinstance(items, list):
                sub = items[i] if i < len(items) else {}
            out.append(ordered(item, sub if isinstance(sub, dict) else {}, root))
        return out
    return value


# --- the call a model in OpenAI strict mode makes ---------------------------------------------

_JSON_TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (
        isinstance(v, int) and not isinstance(v, bool) or isinstance(v, float) and v.is_integer()
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_NO_TAG = object()


def map_entries(schema, root):
    """The schema of a map's values when `schema` is the array of `{"key", "value"}` entries
    that the openai profile advertises a map as, else None."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or schema.get("type") != "array":
        return None
    items = _resolve(schema.get("items"), root)
    properties = items.get("properties") if isinstance(items, dict) else None
    if not isinstance(properties, dict) or set(properties) != {"key", "value"}:
        return None
    if set(items.get("required") or []) != {"key", "value"}:
        return None
    return properties["value"]


def _tag(schema, root):
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return _NO_TAG
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    return enum[0] if isinstance(enum, list) and len(enum) == 1 else _NO_TAG


def _fits(value, schema, root) -> bool:
    """Whether `value` (as the portable schema takes it) is of the branch `schema`: its JSON
    type, its `const` or `enum`, and for an object its keys and its tags (a property of one
    value). Enough to tell the branches of an option or a tagged union apart."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return schema is not False
    if "const" in schema and schema["const"] != value:
        return False
    if isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        return False
    types = schema.get("type")
    types = [types] if isinstance(types, str) else types or []
    of_a_type = not types or any(_JSON_TYPES.get(t, lambda v: False)(value) for t in types)
    # A map fits the array of its entries, which it is sent as.
    if not of_a_type and not (isinstance(value, dict) and map_entries(schema, root) is not None):
        return False
    properties = schema.get("properties")
    if isinstance(value, dict) and isinstance(properties, dict):
        if schema.get("additionalProperties") is False and any(k not in properties for k in value):
            return False
        for name, sub in properties.items():
            tag = _tag(sub, root)
            if tag is not _NO_TAG and value.get(name, _NO_TAG) != tag:
                return False
    if isinstance(schema.get("anyOf"), list):
        return any(_fits(value, branch, root) for branch in schema["anyOf"])
    return True


def strict_call(value, schema, root=None):
    """The call a model in OpenAI strict mode makes for `value` (a call as the portable schema
    takes it), held to `schema` (as the openai profile advertises it): every property of an
    object sent, `null` for one that `value` leaves out; a map sent as the array of its
    `{"key", "value"}` entries; at every depth. A key `schema` does not name is kept, for the
    checks to refuse."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if value is None or not isinstance(schema, dict):
        return value
    branches = schema.get("anyOf")
    if isinstance(branches, list) and branches:
        real = [b for b in branches if _resolve(b, root) != {"type": "null"}]
        fitting = [b for b in real if _fits(value, b, root)]
        chosen = (fitting or real or [{}])[0]
        return strict_call(value, chosen, root)
    values = map_entries(schema, root)
    if isinstance(value, dict) and values is not None:
        return [{"key": k, "value": strict_call(v, values, root)} for k, v in value.items()]
    properties = schema.get("properties")
    if isinstance(value, dict) and isinstance(properties, dict):
        out = {
            name: strict_call(value[name], sub, root) if name in value else None
            for name, sub in properties.items()
        }
        out.update({k: v for k, v in value.items() if k not in properties})
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [strict_call(item, schema["items"], root) for item in value]
    return value


def with_unknown_key(example):
    if not isinstance(example, dict):
        return None
    return {**example, UNKNOWN_KEY: 1}


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --- the consumers ------------------------------------------------------------------------------


def _transformed(before, after, example) -> Outcome:
    """A transform that did not raise: it passes, and `unfit` says whether what it sends the
    model refuses the tool's own example (or real result), a call a model held to it can no
    longer make."""
    import jsonschema

    outcome = Outcome(True, dropped=dropped(before, after))
    if example is None:
        return outcome
    try:
        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(after).iter_errors(example)
        )
    except Exception as raised:  # noqa: BLE001 - a schema the validator cannot read
        error = raised
    if error is not None:
        where = "/".join(str(p) for p in getattr(error, "absolute_path", [])) or "the root"
        message = getattr(error, "message", str(error))
        outcome.unfit = " ".join(
            f"the schema it sends refuses the tool's own example at {where}: {message}".split()
        )[:300]
    return outcome


def anthropic_strict(schema, tool, kind, example):
    from anthropic.lib._parse._transform import transform_schema

    before = copy.deepcopy(schema)
    try:
        after = transform_schema(copy.deepcopy(schema))
    except Exception as error:  # noqa: BLE001 - any raise is the consumer refusing
        return failure(error)
    return _transformed(before, after, example)


def openai_agents_strict(schema, tool, kind, example):
    from agents.strict_schema import ensure_strict_json_schema

    before = copy.deepcopy(schema)
    try:
        after = ensure_strict_json_schema(copy.deepcopy(schema))
    except Exception as error:  # noqa: BLE001
        return failure(error)
    return _transformed(before, after, example)


def openai_strict(schema, tool, kind, example):
    # The openai SDK's strict transform, which `pydantic_function_tool` applies to a model's
    # JSON Schema; its public entry takes only pydantic models, so the dict goes in one step
    # later, where the SDK hands it the model's schema.
    from openai.lib._pydantic import _ensure_strict_json_schema

    before = copy.deepcopy(schema)
    try:
        work = copy.deepcopy(schema)
        after = _ensure_strict_json_schema(work, path=(), root=work)
    except Exception as error:  # noqa: BLE001
        return failure(error)
    return _transformed(before, after, example)


def pydantic_ai_openai(schema, tool, kind, example):
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    before = copy.deepcopy(schema)
    try:
        after = OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=True).walk()
    except Exception as error:  # noqa: BLE001
        return failure(error)
    return _transformed(before, after, example)


def pydantic_ai_google(schema, tool, kind, example):
    from pydantic_ai.profiles.google import GoogleJsonSchemaTransformer

    before = copy.deepcopy(schema)
    try:
        after = GoogleJsonSchemaTransformer(copy.deepcopy(schema)).walk()
    except Exception as error:  # noqa: BLE001
        return failure(error)
    return _transformed(before, after, example)


def langchain_strict(schema, tool, kind, example):
    # As langchain-mcp-adapters wraps an MCP tool: a StructuredTool whose args_schema is the
    # tool's JSON Schema, then bound to a model in OpenAI's strict mode.
    from langchain_core.tools import StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    before = copy.deepcopy(schema)
    try:
        wrapped = StructuredTool(
            name=tool.name,
            description=tool.description or tool.name,
            args_schema=copy.deepcopy(schema),
            func=lambda **kwargs: "",
        )
        after = convert_to_openai_tool(wrapped, strict=True)["function"]["parameters"]
    except Exception as error:  # noqa: BLE001
        return failure(error)
    return _transformed(before, after, example)


def _google_dump(schema_obj) -> dict:
    return schema_obj.model_dump(mode="json", exclude_none=True, by_alias=True)


def google_legacy(schema, tool, kind, example):
    # The google-genai SDK's conversion of a dict to its legacy `types.Schema`, which it applies
    # to a function declaration's `parameters` and `response`, and to a `response_schema`.
    from google.genai import _transformers

    before = copy.deepcopy(schema)
    try:
        after = _google_dump(_transformers.t_schema(None, copy.deepcopy(schema)))
    except Exception as error:  # noqa: BLE001
        return failure(error)
    return Outcome(True, dropped=dropped(before, after))


def google_mcp(schema, tool, kind, example):
    # The google-genai SDK's own conversion of an MCP tool (what it does with a ClientSession
    # passed as a tool). It reads the input schema only.
    if kind != "input":
        return None
    from google.genai._mcp_utils import mcp_to_gemini_tool

    before = copy.deepcopy(schema)
    try:
        converted = mcp_to_gemini_tool(tool)
        after = _google_dump(converted.function_declarations[0].parameters)
    except Exception as error:  # noqa: BLE001
        return failure(error)
    return Outcome(True, dropped=dropped(before, after))


def google_legacy_refusals(schema) -> list[tuple[str, str]]:
    """Each error google-genai's legacy `Schema` raises on `schema`, as (pydantic's error type,
    the field it is about): what a failure of `google_legacy`, cut short, said in full."""
    import pydantic
    from google.genai import _transformers

    try:
        _transformers.t_schema(None, copy.deepcopy(schema))
    except pydantic.ValidationError as error:
        return [(e["type"], str(e["loc"][-1]) if e["loc"] else "") for e in error.errors()]
    except Exception as error:  # noqa: BLE001 - any other raise is a refusal of its own
        return [(type(error).__name__, str(error)[:120])]
    return []


# Grammar engines: the arguments a model writes are constrained by the grammar of the input
# schema; each must accept the tool's own example and refuse it with one unknown key.


def _grammar_verdict(accepts, kind, example) -> Outcome:
    if example is None:
        return Outcome(True)
    if not accepts(example):
        return failure(
            f"the grammar refuses the tool's own {'example' if kind == 'input' else 'result'}"
        )
    extra = with_unknown_key(example)
    if kind == "input" and extra is not None and accepts(extra):
        return failure("the grammar accepts an unknown key")
    return Outcome(True)


_xgrammar = None


def _load_xgrammar():
    """xgrammar's package imports torch (its token-mask kernels) and transformers (Hugging
    Face tokenizers) on import, neither of which its JSON Schema compiler or its string matcher
    calls: they stand as empty modules while xgrammar imports, and are gone after."""
    global _xgrammar
    if _xgrammar is not None:
        return _xgrammar
    import tvm_ffi  # noqa: F401 - imported first, so that it sees no torch

    class _Absent:
        def __init__(self, name):
            self._name = name

        def __getattr__(self, attr):
            return _Absent(f"{self._name}.{attr}")

        def __call__(self, *args, **kwargs):
            return _Absent(f"{self._name}()")

        def __mro_entries__(self, bases):
            return (object,)

    names = [
        "torch",
        "torch.nn",
        "torch.nn.functional",
        "torch.utils",
        "torch.utils.cpp_extension",
        "transformers",
        "triton",
        "triton.language",
    ]
    stand_ins = []
    for name in names:
        if name in sys.modules:
            continue
        module = types.ModuleType(name)
        module.__getattr__ = lambda attr, _n=name: _Absent(f"{_n}.{attr}")
        sys.modules[name] = module
        stand_ins.append(name)
    try:
        import xgrammar
        from xgrammar.testing import _is_grammar_accept_string
    finally:
        for name in stand_ins:
            sys.modules.pop(name, None)
    _xgrammar = (xgrammar, _is_grammar_accept_string)
    return _xgrammar


@contextlib.contextmanager
def _native_stderr(lines: list):
    """Collects what native code writes to file descriptor 2 (xgrammar's warnings)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines.extend(sink.read().decode("utf-8", "replace").splitlines())


_XGRAMMAR_WARNING = re.compile(r"Warning: (.*)")


def xgrammar_engine(schema, tool, kind, example):
    xgrammar, accepts_string = _load_xgrammar()
    said: list = []
    try:
        with _native_stderr(said):
            grammar = xgrammar.Grammar.from_json_schema(json.dumps(schema))
    except Exception as error:  # noqa: BLE001
        return failure(error)
    verdict = _grammar_verdict(
        lambda v: accepts_string(grammar, compact(ordered(v, schema))), kind, example
    )
    verdict.warnings = [m.group(1) for line in said if (m := _XGRAMMAR_WARNING.search(line))]
    return verdict


class _ByteTokenizer:
    """One token per byte, and an end token: the grammar is walked byte by byte."""

    eos_token_id = 256
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids = [256]

    def __call__(self, text):
        return list(text if isinstance(text, bytes) else text.encode("utf-8"))


_llg_tokenizer = None


def llguidance_engine(schema, tool, kind, example):
    import llguidance

    global _llg_tokenizer
    if _llg_tokenizer is None:
        _llg_tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokenizer()))
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(schema)
        is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(
            grammar, _llg_tokenizer
        )
        if is_error:
            return failure("; ".join(messages))
        warnings = list(messages)
        matcher = llguidance.LLMatcher(_llg_tokenizer, grammar, log_level=0)
        if matcher.is_error():
            return failure(matcher.get_error())
    except Exception as error:  # noqa: BLE001
        return failure(error)

    def accepts(value):
        m = llguidance.LLMatcher(_llg_tokenizer, grammar, log_level=0)
        text = compact(ordered(value, schema)).encode("utf-8")
        return m.consume_tokens(list(text)) and not m.is_error() and m.is_accepting()

    verdict = _grammar_verdict(accepts, kind, example)
    verdict.warnings = warnings
    return verdict


_outlines_vocabulary = None


def outlines_engine(schema, tool, kind, example):
    from outlines_core import Index, Vocabulary
    from outlines_core.json_schema import build_regex_from_schema

    global _outlines_vocabulary
    if _outlines_vocabulary is None:
        _outlines_vocabulary = Vocabulary(256, {bytes([i]): [i] for i in range(256)})
    try:
        regex = build_regex_from_schema(json.dumps(schema))
        index = Index(regex, _outlines_vocabulary)
    except Exception as error:  # noqa: BLE001
        return failure(error)

    def accepts(value):
        state = index.get_initial_state()
        for byte in compact(ordered(value, schema)).encode("utf-8"):
            state = index.get_next_state(state, byte)
            if state is None:
                return False
        return index.is_final_state(state)

    return _grammar_verdict(accepts, kind, example)


# Name, package (whose installed version the report shows) and function, in report order.
CONSUMERS = [
    ("anthropic", "anthropic", anthropic_strict),
    ("openai-agents", "openai-agents", openai_agents_strict),
    ("openai", "openai", openai_strict),
    ("pydantic-ai-openai", "pydantic-ai-slim", pydantic_ai_openai),
    ("pydantic-ai-google", "pydantic-ai-slim", pydantic_ai_google),
    ("langchain", "langchain-core", langchain_strict),
    ("google-legacy", "google-genai", google_legacy),
    ("google-mcp", "google-genai", google_mcp),
    ("xgrammar", "xgrammar", xgrammar_engine),
    ("llguidance", "llguidance", llguidance_engine),
    ("outlines-core", "outlines-core", outlines_engine),
]


# --- what no schema can avoid ------------------------------------------------------------------


@dataclass(frozen=True)
class ConsumerBug:
    """A consumer refusing what it should read, which no schema can avoid without saying less."""

    consumer: str
    error: str  # a regular expression the consumer's error matches
    trigger: str  # the keyword that sets it off, which the schema must hold
    why: str


KNOWN_CONSUMER_BUGS = [
    ConsumerBug(
        "google-mcp",
        r"AttributeError: 'bool' object has no attribute 'items'",
        "additionalProperties",
        "google-genai's MCP conversion (_mcp_utils._filter_to_supported_schema) recurses into "
        "`additionalProperties` as if it were always a schema object, and crashes on the boolean "
        "`false` that closes an object; kept, since it is what makes unknown keys refused",
    ),
]


def _has_boolean(schema, keyword) -> bool:
    if isinstance(schema, dict):
        return any(
            (key == keyword and isinstance(value, bool)) or _has_boolean(value, keyword)
            for key, value in schema.items()
        )
    if isinstance(schema, list):
        return any(_has_boolean(item, keyword) for item in schema)
    return False


def known_bug(consumer: str, error: str, schemas) -> ConsumerBug | None:
    for bug in KNOWN_CONSUMER_BUGS:
        if (
            bug.consumer == consumer
            and re.search(bug.error, error)
            and any(_has_boolean(s, bug.trigger) for s in schemas if s is not None)
        ):
            return bug
    return None
