//! Operating guarded tools: value-free telemetry, failure classification with correlation ids,
//! the loop breaker and repairs.
//!
//! Every call a [`Server`](crate::Server) or a [`RouterGuard`](crate::mcp::RouterGuard) serves
//! is a `tracing` span and a few `metrics` records, named after the OpenTelemetry semantic
//! conventions for MCP:
//!
//! - the span `tools/call` (target `guardrails::call`, level `INFO`; `otel.name` is
//!   `tools/call {tool}`), with `mcp.method.name`, `gen_ai.operation.name` (`execute_tool`),
//!   `gen_ai.tool.name`, and for a call that failed `error.type` (`invalid_arguments`,
//!   `tool_error`, `rate_limited`) and `guardrails.correlation_id`; its duration is the span's;
//! - an event per issue of a rejected call (target `guardrails::rejection`): the tool, the
//!   declared path of the field (`items[].sku`; a key the tool does not declare is
//!   `<unknown>`, a map's key `*`) and the issue code;
//! - an event per tool error (target `guardrails::tool_error`): the tool, the code and the
//!   class; an event per repaired call (target `guardrails::repair`);
//! - through the `metrics` facade (nothing is recorded until the application installs a
//!   recorder): the histogram `mcp.server.operation.duration` (seconds) of every call, whose
//!   count is the calls by tool and outcome (`error.type`); the counters
//!   `guardrails.tool.issues` (labelled `gen_ai.tool.name`, `field`, `code`),
//!   `guardrails.tool.errors` (`gen_ai.tool.name`, `code`, `class`),
//!   `guardrails.tool.rate_limited`, `guardrails.tool.loops` (`gen_ai.tool.name`, `stop`),
//!   `guardrails.tool.repairs`, `guardrails.tool.argument_repairs` (`gen_ai.tool.name`,
//!   `field`, `kind`) and `guardrails.tool.ignored_keys`; the histogram
//!   `guardrails.tool.repair.retries` (rejected calls before each repair);
//! - a request that fails before any tool runs (an unknown tool, arguments that are not an
//!   object, an unknown method) is counted in `guardrails.protocol.errors` by `error.type`,
//!   with an event (target `guardrails::protocol`), and its JSON-RPC error's `data` carries its
//!   classification under `dev.guardrails/failure` (class `protocol`).
//!
//! No value the caller sent, no key it made up, no message text is in any of them: only names
//! the tool declares, codes, classes, counts and durations. The README shows how to export
//! them to OpenTelemetry and Prometheus.
//!
//! Every rejected call, and every failed call of a [`Server`](crate::Server)'s tools, carries in
//! its result's `_meta`, under the key `dev.guardrails/failure`, a classification a model can act on and an
//! operator can find in the logs by its correlation id. An error result a native tool returns
//! itself comes back as the tool wrote it: its failure is recorded in telemetry only.

mod caller;
mod classify;
mod limits;
mod loops;
mod protocol;
#[cfg(feature = "redis")]
mod redis_store;
mod state;
mod telemetry;

use serde_json::Value;

pub use crate::tool::rate::RateLimit;
#[cfg(feature = "rmcp")]
pub use crate::tool::run::blocking_limit::set_max_blocking_calls;
pub(crate) use caller::Caller;
#[cfg(feature = "rmcp")]
pub(crate) use caller::{CallerKey, CallerKind};
pub(crate) use classify::FAILURE_META_KEY;
pub(crate) use limits::Limits;
pub use loops::LoopBreaker;
pub(crate) use loops::arguments_digest;
#[cfg(feature = "rmcp")]
pub(crate) use protocol::ProtocolError;
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use state::{StateError, StateStore};
pub(crate) use telemetry::{InSpan, Outcome, ToolTelemetry, call_span};

use crate::message::RepeatedCall;
use crate::render::RenderFormat;
use crate::tool::CallOutput;
use crate::tool::output::Signal;
use crate::validation::correction::{self, Findings};

/// The clock of the loop breaker.
#[cfg(not(feature = "rmcp"))]
pub(crate) use std::time::Instant;
/// The clock of the loop breaker and the rate limits: tokio's, which tests pause and advance.
#[cfg(feature = "rmcp")]
pub(crate) use tokio::time::Instant;

/// What a server or a router guard keeps across calls: the loop breaker's memory and the
/// rejections waiting for their repair.
#[derive(Debug, Default)]
pub(crate) struct Operations {
    loops: Option<loops::Loops>,
    repairs: loops::Repairs,
    limits: Limits,
    /// The store the limits and the loop memory are shared through, if any.
    shared: Option<state::Shared>,
}

/// What the operations layer knows of the tool being called.
pub(crate) struct ToolFacts<'a> {
    /// The tool's name and the keys of its metrics.
    pub(crate) telemetry: &'a ToolTelemetry,
    /// The tool's input schema, whose names the declared paths are made of.
    pub(crate) schema: &'a Value,
    /// The tool's valid example (`null` when it has none).
    pub(crate) example: &'a Value,
    /// Whether the tool may run twice with the same effect (annotated idempotent or read-only).
    pub(crate) repeatable: bool,
    /// The format of the server's messages.
    pub(crate) format: RenderFormat,
    /// Whether the server's messages echo values the caller sent.
    pub(crate) echo_values: bool,
}

/// One call being observed.
pub(crate) struct Observed {
    pub(crate) span: tracing::Span,
    start: Instant,
    caller: Caller,
    digest: Option<loops::Digest>,
    /// The digest of the caller, the tool and the arguments alone, with the digest.
    arguments_key: Option<u64>,
    /// How many times a rejected call was seen, as the shared store counted it
    /// ([`Operations::settle`]); `None` to count it in the process.
    seen: Option<u32>,
}

impl Operations {
    pub(crate) fn new(loops: LoopBreaker, limits: Limits) -> Self {
        Self {
            loops: loops::Loops::new(loops),
            repairs: loops::Repairs::default(),
            limits,
            shared: None,
        }
    }

    /// Whether a shared store keeps the limits and the loop memory: admitting a call then
    /// waits for it.
    #[cfg(feature = "rmcp")]
    pub(crate) fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// Keeps the limits and the loop memory in `store`, shared with other nodes.
    pub(crate) fn with_store(mut self, store: Option<std::sync::Arc<dyn StateStore>>) -> Self {
        self.shared = store.map(state::Shared::new);
        self
    }

    /// [`Operations::over_limit`], asked of the shared store when there is one: one budget
    /// per caller across the nodes that share it.
    pub(crate) async fn check_limits(
        &self,
        tool: &str,
        caller: Caller,
        options: &crate::render::RenderOptions,
    ) -> Option<CallOutput> {
        let Some(shared) = &self.shared else {
            return self.over_limit(tool, caller, options);
        };
        if self.limits.is_empty() {
            return None;
        }
        let who = caller.map_or_else(|| "process".to_owned(), |caller| caller.hex());
        let (own, all) = self.limits.of(tool);
        let mut wait = None;
        // A call refused by the tool's limit does not count against the server's.
        for (scope, limit) in [(tool, own), ("*", all)] {
            let Some(limit) = limit else { continue };
            match shared.admit(&format!("rate:{scope}:{who}"), limit).await {
                Some(None) => {}
                Some(Some(refused)) => {
                    wait = Some(refused);
                    break;
                }
                None => return self.over_limit(tool, caller, options),
            }
        }
        wait.map(|wait| self.limited(tool, wait, options))
    }

    /// The answer to a call of `tool` by `caller` over a rate limit: a `RATE_LIMITED` tool
    /// error that says when to call again (the handler does not run); `None` lets it through.
    pub(crate) fn over_limit(
        &self,
        tool: &str,
        caller: Caller,
        options: &crate::render::RenderOptions,
    ) -> Option<CallOutput> {
        if self.limits.is_empty() {
            return None;
        }
        self.limits
            .check(tool, caller)
            .err()
            .map(|wait| self.limited(tool, wait, options))
    }

    /// The answer to a call of `tool` over a limit, to call again after `wait`.
    #[expect(clippy::unused_self, reason = "one of the operations layer's answers")]
    fn limited(
        &self,
        tool: &str,
        wait: std::time::Duration,
        options: &crate::render::RenderOptions,
    ) -> CallOutput {
        let words = in_words(wait);
        let error = crate::message::ToolError::rate_limited(format!("Too many calls of {tool}: {words}."))
            .recovery(format!(
                "Wait, then call again: {words}. Do not retry at once; other tools can be called meanwhile."
            ))
            .retry_after(wait);
        let mut output = CallOutput::tool_error(tool, &error, options);
        output.signal = Signal::Limited { retry_after: wait };
        output
    }

    /// Starts observing a call of `tool` by `caller` with `arguments` (any JSON value: a call
    /// whose arguments are not an object is rejected, and remembered as sent). Without the
    /// arguments, give them to [`Operations::rejected_with`] should the call be rejected.
    pub(crate) fn start(
        &self,
        tool: &ToolTelemetry,
        caller: Caller,
        arguments: Option<&Value>,
    ) -> Observed {
        let digest = arguments.filter(|_| self.loops.is_some()).map(|arguments| {
            arguments_digest(self.shared.is_some(), caller, &tool.label, arguments)
        });
        Observed {
            span: call_span(tool),
            start: Instant::now(),
            caller,
            arguments_key: digest.as_ref().map(loops::Digest::finish),
            digest,
            seen: None,
        }
    }

    /// Whether the call may be a repeat of a rejected one: the same caller sent the same
    /// arguments to the same tool within the loop breaker's window, and they were rejected.
    /// Such a call keeps its arguments ([`CallOutput::keep_arguments`]), for the corrected
    /// call should it be rejected again; no other call pays for a copy of them.
    pub(crate) async fn may_repeat(&self, call: &Observed) -> bool {
        let (Some(loops), Some(key)) = (&self.loops, call.arguments_key) else {
            return false;
        };
        if let Some(shared) = &self.shared
            && let Some(rejected) = shared.peek(&format!("args:{key:016x}")).await
        {
            return rejected > 0;
        }
        loops.was_rejected(key, Instant::now())
    }

    /// Counts a rejected call in the shared store, if there is one, before
    /// [`Operations::finish`] answers it: the loop breaker then sees the call's repeats on
    /// every node. Without a store, or when it fails, the process counts it in `finish`.
    pub(crate) async fn settle(&self, call: &mut Observed, output: &CallOutput) {
        let (Some(shared), Some(loops)) = (&self.shared, &self.loops) else {
            return;
        };
        let (Signal::Rejected(findings), Some(digest)) = (&output.signal, call.digest.clone())
        else {
            return;
        };
        let window = loops.window();
        if let Some(key) = call.arguments_key
            && shared
                .count(&format!("args:{key:016x}"), window)
                .await
                .is_none()
        {
            return;
        }
        let digest = loops::call_digest(digest, findings.issues().map(|(_, code)| code.as_str()));
        call.seen = shared.count(&format!("loop:{digest:016x}"), window).await;
    }

    /// Whether any rate limit is set: without one, [`Operations::check_limits`] lets every
    /// call through, and a call need not wait for it.
    pub(crate) fn has_limits(&self) -> bool {
        !self.limits.is_empty()
    }

    /// Whether a call that is not rejected needs to know who makes it: a rate limit is kept
    /// per caller, and a rejection waits for its repair. A rejected call always does (see
    /// [`Operations::rejected_with`]).
    pub(crate) fn wants_caller(&self) -> bool {
        !self.limits.is_empty() || self.repairs.any_pending()
    }

    /// Gives the loop breaker and the repair count the caller and the arguments of a rejected
    /// call started without them.
    pub(crate) fn rejected_with(
        &self,
        call: &mut Observed,
        caller: Caller,
        tool: &str,
        arguments: &Value,
    ) {
        call.caller = caller;
        if self.loops.is_some() {
            let digest = arguments_digest(self.shared.is_some(), caller, tool, arguments);
            call.arguments_key = Some(digest.finish());
            call.digest = Some(digest);
        }
    }

    /// Ends the observation of a call whose output is `output`: records it, classifies a
    /// failure in the output's `_meta`, and answers a repeated invalid call with an
    /// escalation.
    pub(crate) fn finish(&self, call: &Observed, tool: &ToolFacts<'_>, output: &mut CallOutput) {
        // The events of a failure belong to the call's span.
        let _in_span = output.is_error.then(|| call.span.enter());
        // The clock is read again only where a duration is recorded: not at all without a
        // metrics recorder.
        let elapsed = telemetry::Elapsed(call.start);
        // The signal is read once, here.
        let signal = std::mem::take(&mut output.signal);
        if output.leniency != crate::tool::output::Leniency::default() {
            telemetry::record_leniency(&tool.telemetry.label, tool.schema, &output.leniency);
        }
        let outcome = match &signal {
            Signal::None => {
                let (outcome, id) = self.unsignalled(call, tool, output.is_error);
                if let Some(id) = id {
                    output.failure = Some(classify::failure_meta(
                        "application",
                        "TOOL_ERROR",
                        false,
                        None,
                        &id,
                        "Read the message above before deciding whether to call again.",
                    ));
                }
                outcome
            }
            Signal::Rejected(findings) => {
                self.rejected(call, tool, findings, Instant::now(), output);
                Outcome::Rejected
            }
            Signal::Limited { retry_after } => {
                let id = correlate(&call.span);
                let code = crate::message::tool_error::ErrorCode::RateLimited;
                telemetry::record_tool_error(&tool.telemetry.label, code.as_str(), "rate_limited");
                telemetry::record_rate_limited(&tool.telemetry.label);
                // The handler did not run: a later call is safe whatever the tool does.
                output.failure = Some(classify::failure_meta(
                    "rate_limited",
                    code.as_str(),
                    true,
                    Some(*retry_after),
                    &id,
                    "Wait until retryNotBefore, then call again; do not retry at once.",
                ));
                Outcome::RateLimited
            }
            Signal::Failed { code, retry_after } => {
                let id = correlate(&call.span);
                let class = classify::class_of(code);
                telemetry::record_tool_error(&tool.telemetry.label, code.as_str(), class);
                let retryable = classify::retryable(code, tool.repeatable);
                output.failure = Some(classify::failure_meta(
                    class,
                    code.as_str(),
                    retryable,
                    *retry_after,
                    &id,
                    if retryable {
                        "Wait as the message says, then call again."
                    } else {
                        "Follow the recovery above; do not send the same call again."
                    },
                ));
                Outcome::ToolError
            }
        };
        telemetry::record_call(&call.span, tool.telemetry, outcome, elapsed);
    }

    /// Ends the observation of a call whose result its tool wrote itself (a native tool's): the
    /// record [`Operations::finish`] makes of an output no stage signalled, without an output.
    /// A failed call (`is_error`) is classified in telemetry only, as the tool's own result
    /// says nothing of it.
    #[cfg(feature = "rmcp")]
    pub(crate) fn finish_result(
        &self,
        call: &Observed,
        tool: &ToolFacts<'_>,
        is_error: bool,
        leniency: &crate::tool::output::Leniency,
    ) {
        let _in_span = is_error.then(|| call.span.enter());
        let elapsed = telemetry::Elapsed(call.start);
        if *leniency != crate::tool::output::Leniency::default() {
            telemetry::record_leniency(&tool.telemetry.label, tool.schema, leniency);
        }
        let (outcome, _) = self.unsignalled(call, tool, is_error);
        telemetry::record_call(&call.span, tool.telemetry, outcome, elapsed);
    }

    /// The outcome of a call no stage signalled: a tool error when `is_error` (recorded, with
    /// the correlation id its classification carries), else a success, which repairs a
    /// rejection of the same caller.
    fn unsignalled(
        &self,
        call: &Observed,
        tool: &ToolFacts<'_>,
        is_error: bool,
    ) -> (Outcome, Option<String>) {
        if is_error {
            let id = correlate(&call.span);
            telemetry::record_tool_error(&tool.telemetry.label, "TOOL_ERROR", "application");
            return (Outcome::ToolError, Some(id));
        }
        if let Some(caller) = call.caller
            && let Some(retries) =
                self.repairs
                    .succeeded(caller, &tool.telemetry.label, Instant::now())
        {
            telemetry::record_repair(&tool.telemetry.label, retries);
        }
        (Outcome::Ok, None)
    }

    /// Records a rejected call's issues, counts it for the loop breaker and for repairs, and
    /// classifies it; a repeated call's text becomes the escalation.
    fn rejected(
        &self,
        call: &Observed,
        tool: &ToolFacts<'_>,
        findings: &Findings,
        now: Instant,
        output: &mut CallOutput,
    ) {
        let id = correlate(&call.span);
        let fields: Vec<(String, &'static str)> = findings
            .issues()
            .map(|(path, code)| (telemetry::declared_path(tool.schema, path), code.as_str()))
            .collect();
        for (field, code) in &fields {
            telemetry::record_issue(&tool.telemetry.label, field, code);
        }
        if let Some(caller) = call.caller {
            self.repairs.rejected(caller, &tool.telemetry.label, now);
        }
        let seen = match (&self.loops, call.digest.clone()) {
            // Counted by the shared store already.
            (Some(_), Some(_)) if call.seen.is_some() => call.seen.unwrap_or(1),
            (Some(loops), Some(digest)) => {
                if let Some(key) = call.arguments_key {
                    loops.note_rejected(key, now);
                }
                let digest = loops::call_digest(digest, fields.iter().map(|(_, c)| *c));
                loops.observe(digest, now)
            }
            _ => 1,
        };
        let stop = self.loops.as_ref().is_some_and(|l| seen >= l.stop_after());
        let guidance = if stop {
            STOP_GUIDANCE
        } else if seen > 1 {
            REPEAT_GUIDANCE
        } else {
            FIX_GUIDANCE
        };
        if seen > 1 {
            telemetry::record_loop(&tool.telemetry.label, stop);
            // The model reads the paths as it sent them, as in the full message;
            // telemetry above read only the declared ones.
            let sent: Vec<(String, &str)> = findings
                .issues()
                .map(|(path, code)| {
                    let path = if path.is_empty() { "(root)" } else { path };
                    (
                        crate::text::cut(path, MAX_PATH_CHARS).into_owned(),
                        code.as_str(),
                    )
                })
                .collect();
            let write_only = correction::write_only_names(tool.schema);
            let corrected = correction::correct(findings, &write_only, tool.echo_values);
            let label = &*tool.telemetry.label;
            let repeat =
                RepeatedCall::new(label, &sent, seen, stop, corrected.as_ref(), tool.example);
            output.text = vec![crate::render::repeated_call(&repeat, tool.format)];
            // The report in `_meta` carries the corrected call too, as data.
            if let Some(corrected) = &corrected
                && let Some(Value::Object(error)) = output
                    .report
                    .as_mut()
                    .and_then(|report| report.get_mut("error"))
            {
                error.insert(
                    "correctedCall".into(),
                    corrected.to_value(&tool.telemetry.label),
                );
                error.insert("repeated".into(), Value::from(seen));
            }
        }
        output.failure = Some(classify::failure_meta(
            "validation",
            "INVALID_ARGUMENTS",
            !stop,
            None,
            &id,
            guidance,
        ));
    }
}

/// A new correlation id, recorded on the call's span.
fn correlate(span: &tracing::Span) -> String {
    let id = telemetry::correlation_id();
    span.record("guardrails.correlation_id", id.as_str());
    id
}

/// The most characters of a path the escalation echoes.
const MAX_PATH_CHARS: usize = 64;

const FIX_GUIDANCE: &str = "Fix the fields listed above and call the tool again.";
const REPEAT_GUIDANCE: &str =
    "This exact call was rejected before: send the corrected call shown, not the same one.";
const STOP_GUIDANCE: &str = "Stop calling this tool with these arguments and ask the user how to proceed: the same invalid call was rejected several times.";

/// A delay in words a model acts on: "retry in 12 s", "retry in 3 min".
fn in_words(delay: std::time::Duration) -> String {
    let secs = delay.as_secs() + u64::from(delay.subsec_nanos() > 0);
    match secs {
        0 | 1 => "retry in 1 s".to_owned(),
        s if s < 120 => format!("retry in {s} s"),
        s => format!("retry in {} min", s.div_ceil(60)),
    }
}
