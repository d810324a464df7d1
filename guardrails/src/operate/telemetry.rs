//! Spans, events and metrics of guarded calls, with nothing of the caller's in them: tool
//! names, declared field paths, issue and error codes, classes, counts and durations.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

use metrics::{Key, Label, Metadata, SharedString};
use serde_json::Value;

/// The target of the span of each guarded call.
pub(crate) const CALL_TARGET: &str = "guardrails::call";
/// The target of the event of each issue of a rejected call.
pub(crate) const REJECTION_TARGET: &str = "guardrails::rejection";
/// The target of the event of each tool error (a handler's `ToolError`, a panic, a rate limit).
pub(crate) const TOOL_ERROR_TARGET: &str = "guardrails::tool_error";
/// The target of the event of each repaired call.
pub(crate) const REPAIR_TARGET: &str = "guardrails::repair";

/// Counter of the issues of rejected calls, labelled `gen_ai.tool.name`, `field` (the
/// declared path, `<unknown>` for a key the tool does not declare) and `code` (the issue code): which fields models get
/// wrong, and how.
pub(crate) const ISSUES: &str = "guardrails.tool.issues";
/// Counter of tool errors, labelled `gen_ai.tool.name`, `code` and `class`.
pub(crate) const TOOL_ERRORS: &str = "guardrails.tool.errors";
/// Counter of calls refused by a rate limit, labelled `gen_ai.tool.name`.
pub(crate) const RATE_LIMITED: &str = "guardrails.tool.rate_limited";
/// Counter of loop escalations (the same invalid call again), labelled `gen_ai.tool.name`
/// and `stop` (`false` for the shorter message, `true` once the model is told to stop).
pub(crate) const LOOPS: &str = "guardrails.tool.loops";
/// Counter of repaired calls (a rejection followed by a successful call of the same tool by
/// the same caller), labelled `gen_ai.tool.name`.
pub(crate) const REPAIRS: &str = "guardrails.tool.repairs";
/// Histogram of how many rejected calls came before each repair, labelled `gen_ai.tool.name`.
pub(crate) const REPAIR_RETRIES: &str = "guardrails.tool.repair.retries";
/// Counter of the values repaired in calls' arguments (see
/// [`RepairPolicy`](crate::RepairPolicy)), labelled `gen_ai.tool.name`, `field` (the declared
/// path) and `kind` (`number_in_string`, `boolean_in_string`, `array_in_string`,
/// `object_in_string`): which slips models make, never a value.
pub(crate) const ARGUMENT_REPAIRS: &str = "guardrails.tool.argument_repairs";
/// Counter of the keys dropped from calls' arguments because the tool or the server ignores
/// them (see [`IgnoreKeys`](crate::IgnoreKeys)), labelled `gen_ai.tool.name`; the keys are
/// the caller's and are never named.
pub(crate) const IGNORED_KEYS: &str = "guardrails.tool.ignored_keys";
/// Histogram of the duration of each guarded call in seconds, the OpenTelemetry MCP metric,
/// labelled `mcp.method.name`, `gen_ai.tool.name` and, for a call that failed, `error.type`
/// (`invalid_arguments`, `tool_error`, `rate_limited`). Its count is the number of calls by
/// tool and outcome: no separate call counter costs each call a second lookup in the
/// recorder.
pub(crate) const DURATION: &str = "mcp.server.operation.duration";

/// The field of an issue at a key the tool does not declare: the key's text is the caller's
/// and never leaves the process.
pub(crate) const UNKNOWN_FIELD: &str = "<unknown>";
/// A step into a map, whose keys are the caller's: `labels.*`.
pub(crate) const MAP_KEY: &str = "*";

/// The `mcp.method.name` of every guarded call.
const METHOD: &str = "tools/call";

/// The span of one guarded call: named `tools/call` (`otel.name` is `tools/call {tool}`, the
/// name the conventions give), kind server, with the attributes of the OpenTelemetry MCP and
/// `GenAI` conventions; `error.type` and the correlation id are recorded when the call fails.
pub(crate) fn call_span(tool: &ToolTelemetry) -> tracing::Span {
    tracing::info_span!(
        target: CALL_TARGET,
        "tools/call",
        otel.name = &*tool.otel_name,
        otel.kind = "server",
        mcp.method.name = METHOD,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = &*tool.label,
        error.type = tracing::field::Empty,
        guardrails.correlation_id = tracing::field::Empty,
    )
}

/// What the telemetry of every call of one tool is made of, built once with the tool: the
/// span's name and the key of the duration histogram for each outcome. A call records through
/// them without building a key, allocating, or hashing the labels again (a key keeps its hash).
#[derive(Debug)]
pub(crate) struct ToolTelemetry {
    /// The tool's name, as a metrics label.
    pub(crate) label: SharedString,
    /// `tools/call {tool}`, the span's `otel.name`.
    otel_name: Box<str>,
    /// The duration histogram's key for each outcome, in the order of [`Outcome::ALL`].
    durations: [Key; 4],
}

impl ToolTelemetry {
    pub(crate) fn new(tool: &str) -> Self {
        // Shared, so that the labels of the keys clone a count rather than the name.
        let label = SharedString::from(std::sync::Arc::<str>::from(tool));
        let durations = Outcome::ALL.map(|outcome| {
            let mut labels = vec![
                Label::from_static_parts("mcp.method.name", METHOD),
                Label::new("gen_ai.tool.name", label.clone()),
            ];
            if let Some(error_type) = outcome.error_type() {
                labels.push(Label::from_static_parts("error.type", error_type));
            }
            Key::from_parts(DURATION, labels)
        });
        Self {
            otel_name: format!("{METHOD} {tool}").into_boxed_str(),
            label,
            durations,
        }
    }
}

/// The metadata of the metrics a call records, as `metrics`' macros would give them.
static CALL_METADATA: Metadata<'static> =
    Metadata::new(module_path!(), metrics::Level::INFO, Some(module_path!()));

/// How a call ended, for `error.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Ok,
    Rejected,
    ToolError,
    RateLimited,
}

impl Outcome {
    /// Every outcome, in the order of [`Outcome::index`].
    const ALL: [Self; 4] = [Self::Ok, Self::Rejected, Self::ToolError, Self::RateLimited];

    const fn index(self) -> usize {
        self as usize
    }

    /// The `error.type` of a failed call: the conventions' `tool_error` for an `isError`
    /// result, refined for a rejection.
    const fn error_type(self) -> Option<&'static str> {
        match self {
            Self::Ok => None,
            Self::Rejected => Some("invalid_arguments"),
            Self::ToolError => Some("tool_error"),
            Self::RateLimited => Some("rate_limited"),
        }
    }
}

/// A future polled inside a span it borrows: what `tracing`'s `Instrument` does, without the
/// clone of the span (with a subscriber installed, a call into it and a count kept on each
/// side) that owning it would take.
pub(crate) struct InSpan<'s, F> {
    pub(crate) span: &'s tracing::Span,
    pub(crate) future: F,
}

impl<F: Future + Unpin> Future for InSpan<'_, F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let this = &mut *self;
        let _in_span = this.span.enter();
        std::pin::Pin::new(&mut this.future).poll(cx)
    }
}

/// The time since a call started, read from the clock only when a histogram records it: a
/// recorder's handle converts the value it records, the no-op handle of an application
/// without a recorder does not.
pub(crate) struct Elapsed(pub(crate) super::Instant);

impl metrics::IntoF64 for Elapsed {
    fn into_f64(self) -> f64 {
        super::Instant::now()
            .saturating_duration_since(self.0)
            .as_secs_f64()
    }
}

/// Records the end of a call: its outcome on the span, and its duration under its outcome's
/// key (which counts it too).
pub(crate) fn record_call(
    span: &tracing::Span,
    tool: &ToolTelemetry,
    outcome: Outcome,
    elapsed: Elapsed,
) {
    if let Some(error_type) = outcome.error_type() {
        span.record("error.type", error_type);
    }
    metrics::with_recorder(|recorder| {
        recorder
            .register_histogram(&tool.durations[outcome.index()], &CALL_METADATA)
            .record(elapsed);
    });
}

/// Records one issue of a rejected call: an event and the issue counter.
pub(crate) fn record_issue(tool: &SharedString, field: &str, code: &'static str) {
    tracing::info!(
        target: REJECTION_TARGET,
        tool = &**tool,
        field,
        code,
        "argument rejected"
    );
    metrics::counter!(
        ISSUES,
        "gen_ai.tool.name" => tool.clone(),
        "field" => field.to_owned(),
        "code" => code,
    )
    .increment(1);
}

/// Records a tool error: an event and the error counter.
pub(crate) fn record_tool_error(tool: &SharedString, code: &str, class: &'static str) {
    tracing::info!(
        target: TOOL_ERROR_TARGET,
        tool = &**tool,
        code,
        class,
        "tool error"
    );
    metrics::counter!(
        TOOL_ERRORS,
        "gen_ai.tool.name" => tool.clone(),
        "code" => code.to_owned(),
        "class" => class,
    )
    .increment(1);
}

/// Records a call refused by a rate limit.
pub(crate) fn record_rate_limited(tool: &SharedString) {
    metrics::counter!(RATE_LIMITED, "gen_ai.tool.name" => tool.clone()).increment(1);
}

/// Records a loop escalation.
pub(crate) fn record_loop(tool: &SharedString, stop: bool) {
    metrics::counter!(LOOPS, "gen_ai.tool.name" => tool.clone(), "stop" => if stop { "true" } else { "false" })
        .increment(1);
}

/// Records the values repaired in a call's arguments, each at its declared path, and the
/// keys dropped from them.
pub(crate) fn record_leniency(
    tool: &SharedString,
    schema: &Value,
    leniency: &crate::tool::output::Leniency,
) {
    for (path, kind) in &leniency.repairs {
        metrics::counter!(
            ARGUMENT_REPAIRS,
            "gen_ai.tool.name" => tool.clone(),
            "field" => declared_path(schema, path),
            "kind" => kind.as_str(),
        )
        .increment(1);
    }
    if leniency.ignored > 0 {
        metrics::counter!(IGNORED_KEYS, "gen_ai.tool.name" => tool.clone())
            .increment(u64::try_from(leniency.ignored).unwrap_or(u64::MAX));
    }
}

/// Records a repair: a successful call after `retries` rejected ones.
pub(crate) fn record_repair(tool: &SharedString, retries: u32) {
    tracing::info!(
        target: REPAIR_TARGET,
        tool = &**tool,
        retries,
        "call repaired"
    );
    metrics::counter!(REPAIRS, "gen_ai.tool.name" => tool.clone()).increment(1);
    metrics::histogram!(REPAIR_RETRIES, "gen_ai.tool.name" => tool.clone())
        .record(f64::from(retries));
}

/// A fresh correlation id: 16 hex digits, unique in the process and unpredictable across
/// processes (a random seed per process mixed with a counter).
pub(crate) fn correlation_id() -> String {
    use std::hash::BuildHasher as _;
    static SEED: LazyLock<foldhash::quality::RandomState> = LazyLock::new(Default::default);
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut id = String::with_capacity(16);
    let _ = write!(id, "{:016x}", SEED.hash_one(n));
    id
}

/// The declared path of an issue found at `path`: each step named as the tool's schema names
/// it, an array index as `[]`, a map key as `*`, and a key the schema does not declare
/// as `<unknown>` (where the path stops). Built from the schema's names alone, so no
/// text of the caller's can reach it, however the path was written.
pub(crate) fn declared_path(schema: &Value, path: &str) -> String {
    let mut out = String::new();
    let mut nodes = expand(schema, schema);
    for step in steps(path) {
        let next: Vec<&Value> = match step {
            Step::Index => {
                out.push_str("[]");
                nodes
                    .iter()
                    .filter_map(|node| node.get("items"))
                    .flat_map(|items| expand(schema, items))
                    .collect()
            }
            Step::Key(key) => {
                let declared = nodes.iter().find_map(|node| {
                    node.get("properties")?
                        .as_object()?
                        .get_key_value(key.as_ref())
                });
                if let Some((name, _)) = declared {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                    nodes
                        .iter()
                        .filter_map(|node| node.get("properties")?.get(name.as_str()))
                        .flat_map(|property| expand(schema, property))
                        .collect()
                } else {
                    let maps: Vec<&Value> = nodes
                        .iter()
                        .filter_map(|node| node.get("additionalProperties"))
                        .filter(|map| map.is_object())
                        .flat_map(|map| expand(schema, map))
                        .collect();
                    if !out.is_empty() {
                        out.push('.');
                    }
                    if maps.is_empty() {
                        out.push_str(UNKNOWN_FIELD);
                        return out;
                    }
                    out.push_str(MAP_KEY);
                    maps
                }
            }
        };
        nodes = next;
    }
    if out.is_empty() {
        out.push_str("(root)");
    }
    out
}

/// The most `$ref`s and branches followed from one node, against a schema that refers to
/// itself.
const MAX_EXPANDED: usize = 64;

/// `node` and every schema it stands for: the target of its `$ref`, the branches of its
/// `allOf`, `anyOf` and `oneOf`, each expanded in turn.
fn expand<'a>(root: &'a Value, node: &'a Value) -> Vec<&'a Value> {
    let mut out = Vec::new();
    let mut todo = vec![node];
    while let Some(node) = todo.pop() {
        if out.len() >= MAX_EXPANDED {
            break;
        }
        out.push(node);
        if let Some(target) = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            todo.push(target);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array) {
                todo.extend(branches);
            }
        }
    }
    out
}

enum Step<'a> {
    Key(Cow<'a, str>),
    Index,
}

/// The steps of a path as the validator writes it: `a.b[2].c`, a key that is not a plain
/// name quoted in brackets (`a["x.y"]`).
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            rest = after;
        } else if let Some(after) = rest.strip_prefix('[') {
            if let Some(quoted) = after.strip_prefix('"') {
                // A quoted key: up to the closing `"]`, with JSON escapes.
                let end = quoted.find("\"]").unwrap_or(quoted.len());
                let raw = &quoted[..end];
                let key = serde_json::from_str::<String>(&format!("\"{raw}\""))
                    .map_or(Cow::Borrowed(raw), Cow::Owned);
                out.push(Step::Key(key));
                rest = quoted.get(end + 2..).unwrap_or("");
            } else {
                let end = after.find(']').unwrap_or(after.len());
                out.push(Step::Index);
                rest = after.get(end + 1..).unwrap_or("");
            }
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            out.push(Step::Key(Cow::Borrowed(&rest[..end])));
            rest = &rest[end..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn declared_paths_hold_only_the_schemas_names() {
        let schema = json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "name": {"type": "string"}
            },
            "$defs": {"Item": {"type": "object", "properties": {"sku": {"type": "string"}}}}
        });
        assert_eq!(declared_path(&schema, "name"), "name");
        assert_eq!(declared_path(&schema, "items[3].sku"), "items[].sku");
        assert_eq!(declared_path(&schema, "labels.secret-key"), "labels.*");
        assert_eq!(
            declared_path(&schema, "labels[\"a.b\"]"),
            "labels.*",
            "a quoted key"
        );
        assert_eq!(declared_path(&schema, "password=hunter2"), UNKNOWN_FIELD);
        assert_eq!(
            declared_path(&schema, "items[0].sk u.x"),
            format!("items[].{UNKNOWN_FIELD}")
        );
        assert_eq!(declared_path(&schema, ""), "(root)");
    }

    #[test]
    fn correlation_ids_differ() {
        let a = correlation_id();
        let b = correlation_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 16);
    }
}
