//! The call pipeline: the whole sequence of one call of a tool, whatever kind of tool it is.
//!
//! ```text
//! start ─► arguments an object? ─► rate limit ─► profile's reading ─► ignored keys dropped
//!   ─► check, repairing where declared ─┬─ refused ─► let through? (audit, the tool's own type)
//!                                       │              └─ no ─► rejection: contract notice,
//!                                       │                 receipts, loop breaker ─► finish
//!                                       ▼
//!   handler ─► output (presenter or result limits, output check) ─► receipts ─► finish
//! ```
//!
//! Every stage is written here, once, and reaches derived tools (`#[tool]`, served by a
//! [`Server`](crate::Server) or as a method of an rmcp router), native tools (an rmcp route
//! under a [`RouterGuard`](crate::mcp::RouterGuard) or `#[guarded]`) and the proxy. Two things
//! differ between the kinds of tool, and sit behind a trait or a function each:
//!
//! - how arguments are checked ([`Check`]): the validator an arguments type derives
//!   ([`derived`]), or the check of a JSON Schema ([`schema`]);
//! - how the handler runs and its output is presented: generated code's handler and presenter
//!   ([`run`]), or a native route's own future and its result limits (`mcp::guard`), which
//!   call [`admit`] and [`Admitted::complete`].
//!
//! The pipeline knows nothing of transports: a server or a guard says who calls and how its
//! tools are set up in a [`Served`].

pub(crate) mod config;
pub(crate) mod derived;
#[cfg(feature = "rmcp")]
pub(crate) mod reading;
#[cfg(feature = "rmcp")]
pub(crate) mod schema;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::pin;

use futures_util::FutureExt as _;
use serde_json::{Map, Value};

use crate::contract::{Awareness, Relevance};
use crate::message::{ContractNotice, Failure, Rejection, ToolError};
use crate::operate::{Caller, InSpan, Observed, Operations, ToolFacts};
use crate::render::RenderOptions;
use crate::tool::CallOutput;
use crate::tool::cursor::{CURSOR_FIELD, Page};
use crate::tool::leniency::RepairPolicy;
#[cfg(feature = "rmcp")]
use crate::tool::output::Leniency;
use crate::tool::presenter::present_page;
use crate::tool::run::{BoxFuture, CallSettings, PANIC_MESSAGE, Presented, Presenter};
use crate::tool::spec::ToolSpec;
use crate::validation::{ArgsInfo, Cx, Issue, Kind, Repair, Report, ToolArgs};

pub use config::GuardConfig;
pub(crate) use derived::Derived;

/// A guarded tool on server state `S`. Implemented by `#[tool]`, which turns a function into a
/// value of a type that implements this trait.
pub trait Tool<S>: Send + Sync + 'static {
    /// The tool's definition and guardrails.
    fn spec(&self) -> &'static ToolSpec;

    /// Runs one call through the pipeline: check, run the handler, present. The
    /// arguments are any JSON value (an object, `null` for none; anything else is rejected). Never panics, whatever the input or
    /// the handler does.
    fn call<'a>(
        &'a self,
        state: &'a S,
        arguments: Value,
        served: &'a Served<'a>,
    ) -> BoxFuture<'a, CallOutput>;
}

/// Where one call is served: its tool's settings, and what the server or guard keeps across
/// calls. A server makes one per call; generated code hands it to [`run`].
#[doc(hidden)]
pub struct Served<'a> {
    pub(crate) settings: &'a CallSettings,
    /// The operations layer: telemetry, the loop breaker, rate limits. `None` for a derived
    /// tool called as a method of an rmcp router, which no server operates.
    pub(crate) operated: Option<Operated<'a>>,
    /// Under a profile that makes every property required: the portable schema the call is
    /// read against, a `null` for an optional property being the property left out.
    pub(crate) reading: Option<&'a Map<String, Value>>,
}

/// The operations layer of a served call.
pub(crate) struct Operated<'a> {
    pub(crate) operations: &'a Operations,
    pub(crate) facts: ToolFacts<'a>,
    pub(crate) caller: Who<'a>,
}

/// Who calls: known when the call starts, or asked of the transport only when it counts (a
/// rate limit, a rejection waiting for its repair, a rejected call).
#[derive(Clone, Copy)]
pub(crate) enum Who<'a> {
    Known(Caller),
    #[cfg_attr(
        not(feature = "rmcp"),
        expect(dead_code, reason = "only a transport asks who calls")
    )]
    Ask(&'a (dyn Fn() -> Caller + Sync)),
}

impl Who<'_> {
    fn get(self) -> Caller {
        match self {
            Who::Known(caller) => caller,
            Who::Ask(ask) => ask(),
        }
    }
}

impl<'a> Served<'a> {
    /// A call no server operates: validated and presented under `settings`, observed by
    /// nothing (a derived tool called as a method of an rmcp router).
    #[must_use]
    pub fn detached(settings: &'a CallSettings) -> Self {
        Self {
            settings,
            operated: None,
            reading: None,
        }
    }

    /// Calls served by `operations`, for the tool of which they know `facts`.
    pub(crate) fn operated(
        settings: &'a CallSettings,
        operations: &'a Operations,
        facts: ToolFacts<'a>,
        caller: Who<'a>,
    ) -> Self {
        Self {
            settings,
            operated: Some(Operated {
                operations,
                facts,
                caller,
            }),
            reading: None,
        }
    }

    /// This call, read against `portable` (see [`Served::reading`]).
    pub(crate) fn read_against(mut self, portable: Option<&'a Map<String, Value>>) -> Self {
        self.reading = portable;
        self
    }
}

/// How a route's arguments are checked: by the validator an arguments type derives, or
/// against a JSON Schema. The pipeline around the check is the same for both.
pub(crate) trait Check {
    /// What a call that passes reaches the handler as.
    type Args;
    /// Whether the check takes the arguments by value, so that a rejected call's are gone:
    /// the loop breaker then digests every call's arguments before they are checked; else
    /// only a rejected call's, as checked.
    const CONSUMES: bool;

    /// The tool's name.
    fn name(&self) -> &str;
    /// The declaration a rejection is worded from.
    fn info(&self) -> &'static ArgsInfo;
    /// The example a rejection shows (`null` for none).
    fn example(&self) -> &Value;
    /// Whether the tool declares the top-level key `key`, which is then never dropped as
    /// ignored.
    fn declares(&self, key: &str) -> bool;
    /// The prefixes and names of the keys the tool itself ignores.
    fn ignores(&self) -> (&[&'static str], &[&'static str]) {
        (&[], &[])
    }
    /// Whether the tool's calls are repaired, under the server's `policy` for the tools that
    /// say nothing themselves.
    fn repairs(&self, policy: RepairPolicy) -> bool;
    /// Checks `arguments`, repairing them when `repair`; the issues echo the values sent
    /// when `echo`. A call this check refuses may still be let through
    /// ([`Check::let_through`]).
    fn check(&self, arguments: Map<String, Value>, echo: bool, repair: bool)
    -> Checked<Self::Args>;
    /// The arguments of a call the check refused with `report`, when the tool takes them
    /// anyway (audit mode, or the tool's own reading of its arguments), logged as such.
    /// `arguments` are the arguments as checked, or as sent when the check consumed them.
    fn let_through(
        &self,
        arguments: Map<String, Value>,
        report: &Report,
        audit: bool,
    ) -> Result<Self::Args, Map<String, Value>>;
}

/// What a check made of a call.
pub(crate) struct Checked<A> {
    pub(crate) result: Result<A, Refused>,
    /// The repairs made to the arguments.
    pub(crate) repairs: Vec<Repair>,
}

/// A refused call: its report, and its arguments as checked unless the check consumed them.
pub(crate) struct Refused {
    pub(crate) report: Report,
    pub(crate) arguments: Option<Map<String, Value>>,
}

/// What the pipeline makes of a call before its handler.
pub(crate) enum Admitted<A> {
    /// Answered without the handler (rejected, rate limited, not an object), and finished.
    Answered(CallOutput),
    /// For the handler.
    Pass(Pass<A>),
}

/// A call for the handler, with what its completion needs.
pub(crate) struct Pass<A> {
    pub(crate) args: A,
    pub(crate) completion: Completion,
}

impl<A> Pass<A> {
    /// The handler's part taken out: the arguments, and what completes the call.
    pub(crate) fn split(self) -> (A, Completion) {
        (self.args, self.completion)
    }
}

/// What completes a call once its handler returned.
pub(crate) struct Completion {
    pub(crate) call: Option<Observed>,
    pub(crate) repairs: Vec<Repair>,
    pub(crate) ignored: usize,
    aware: Option<(Awareness, Relevance)>,
}

impl Completion {
    /// The contract notice a failure carries, when the tool's awareness annotates every error.
    fn notice_for_failures(&self) -> Option<ContractNotice<'_>> {
        self.aware
            .as_ref()
            .filter(|(contract, _)| contract.all_errors())
            .map(|(contract, relevance)| ContractNotice::new(contract, relevance))
    }

    /// Ends the call whose output is `output`: the receipts of the repairs made to its
    /// arguments, then the operations layer's record.
    pub(crate) fn finish(self, served: &Served<'_>, name: &str, output: CallOutput) -> CallOutput {
        let options = &served.settings.render;
        let mut output = output.leniency(name, &self.repairs, self.ignored, options);
        if let (Some(operated), Some(call)) = (&served.operated, &self.call) {
            operated
                .operations
                .finish(call, &operated.facts, &mut output);
        }
        output
    }

    /// Ends the call of a tool that wrote its result itself (a native tool's), failed when
    /// `is_error`: the operations layer's record alone, the repairs counted. The result gets
    /// the receipts where its tool's guard writes them.
    #[cfg(feature = "rmcp")]
    pub(crate) fn finish_result(&self, served: &Served<'_>, is_error: bool) {
        let (Some(operated), Some(call)) = (&served.operated, &self.call) else {
            return;
        };
        let leniency = Leniency {
            repairs: crate::tool::output::repaired_fields(&self.repairs),
            ignored: self.ignored,
        };
        operated
            .operations
            .finish_result(call, &operated.facts, is_error, &leniency);
    }
}

/// The stages of a call before its handler, for a tool whose arguments `check` checks:
/// start, the arguments' shape, the rate limit, the profile's reading, the ignored keys, the
/// check with its repairs, letting a refused call through, and the rejection. `prepare` runs
/// on the arguments once the ignored keys are dropped (a paged tool takes its cursor out
/// there), and may add one issue.
pub(crate) async fn admit<C: Check>(
    check: &C,
    served: &Served<'_>,
    arguments: Value,
    prepare: impl FnOnce(&mut Map<String, Value>) -> Option<Issue>,
) -> Admitted<C::Args> {
    let settings = served.settings;
    let options = &settings.render;
    let name = check.name();
    // Who calls is read now only when it counts; a rejected call reads it below.
    let asked = served
        .operated
        .as_ref()
        .is_some_and(|operated| C::CONSUMES || operated.operations.wants_caller());
    let caller = match &served.operated {
        Some(operated) if asked => operated.caller.get(),
        _ => None,
    };
    // A check that consumes the arguments has them digested for the loop breaker first, and
    // kept when the call may repeat a rejected one; the others digest a rejected call's only.
    let mut call = served.operated.as_ref().map(|operated| {
        let sent = C::CONSUMES.then_some(&arguments);
        operated
            .operations
            .start(operated.facts.telemetry, caller, sent)
    });
    let kept = match (&served.operated, &call) {
        (Some(operated), Some(observed)) if C::CONSUMES => operated
            .operations
            .may_repeat(observed)
            .await
            .then(|| arguments.clone()),
        _ => None,
    };
    // A rate limit answers before the arguments' shape is looked at.
    let shape = match arguments {
        Value::Object(arguments) => Ok(arguments),
        Value::Null => Ok(Map::new()),
        other => Err(other),
    };
    if let Some(operated) = &served.operated
        && operated.operations.has_limits()
        && let Some(limited) = operated
            .operations
            .check_limits(name, caller, options)
            .await
    {
        return answered(served, limited, None, call).await;
    }
    let mut arguments = match shape {
        Ok(arguments) => arguments,
        Err(other) => {
            let output = not_an_object(check, &other, options);
            return answered(served, output, Some(kept.unwrap_or(other)), call).await;
        }
    };
    if let Some(portable) = served.reading {
        crate::profile::read_openai_call(&mut arguments, portable);
    }
    // Contract awareness: only a tool whose contract changed has any. Which arguments were
    // sent is noted before the check takes them.
    let aware = settings
        .contract
        .as_ref()
        .map(|contract| (contract.clone(), contract.relevance(&arguments)));
    let ignored = drop_ignored(check, settings, &mut arguments);
    let issue = prepare(&mut arguments);
    let repair = check.repairs(settings.repair);
    let (result, repairs) = {
        let _in_span = call.as_ref().map(|call| call.span.enter());
        check_stage(
            check,
            arguments,
            issue,
            options.echo_values,
            repair,
            settings.audit,
        )
    };
    let (report, checked_arguments) = match result {
        Ok(args) => {
            return Admitted::Pass(Pass {
                args,
                completion: Completion {
                    call,
                    repairs,
                    ignored,
                    aware,
                },
            });
        }
        Err(refused) => refused,
    };
    let checked_arguments = checked_arguments.map(Value::Object);
    if let (Some(operated), Some(observed)) = (&served.operated, &mut call)
        && !C::CONSUMES
    {
        let caller = if asked { caller } else { operated.caller.get() };
        let arguments = checked_arguments.as_ref().unwrap_or(&Value::Null);
        operated
            .operations
            .rejected_with(observed, caller, name, arguments);
    }
    let output = rejection(check, options, &report, aware.as_ref(), &repairs, ignored);
    // The arguments, for the corrected call should the same call come again.
    answered(served, output, kept.or(checked_arguments), call).await
}

/// A call answered without its handler, keeping `arguments` for a corrected call: settled
/// with the shared store, if any, then finished.
async fn answered<A>(
    served: &Served<'_>,
    mut output: CallOutput,
    arguments: Option<Value>,
    mut call: Option<Observed>,
) -> Admitted<A> {
    if let Some(arguments) = arguments {
        output.keep_arguments(arguments);
    }
    if let (Some(operated), Some(call)) = (&served.operated, &mut call) {
        operated.operations.settle(call, &output).await;
        operated
            .operations
            .finish(call, &operated.facts, &mut output);
    }
    Admitted::Answered(output)
}

/// The rejection of a call `report` refused, with its contract notice and the receipts of the
/// repairs made and the keys ignored.
fn rejection<C: Check>(
    check: &C,
    options: &RenderOptions,
    report: &Report,
    aware: Option<&(Awareness, Relevance)>,
    repairs: &[Repair],
    ignored: usize,
) -> CallOutput {
    let name = check.name();
    let notice = aware.map(|(contract, relevance)| ContractNotice::new(contract, relevance));
    let rejection =
        Rejection::new(name, report, check.info(), check.example()).with_contract(notice);
    CallOutput::rejection(&rejection, options).leniency(name, repairs, ignored, options)
}

/// A refused call: its report, and its arguments as checked (or as sent) when they are kept.
type Refusal = (Report, Option<Map<String, Value>>);

/// The check, with `issue` found before it, and a refused call let through where the tool
/// takes it anyway.
#[inline]
fn check_stage<C: Check>(
    check: &C,
    arguments: Map<String, Value>,
    issue: Option<Issue>,
    echo: bool,
    repair: bool,
    audit: bool,
) -> (Result<C::Args, Refusal>, Vec<Repair>) {
    // Audited, a check that consumes the arguments is given a copy to read refused ones.
    let sent = (C::CONSUMES && audit).then(|| arguments.clone());
    let Checked { result, repairs } = check.check(arguments, echo, repair);
    let result = match (result, issue) {
        (Ok(args), None) => Ok(args),
        (Ok(_), Some(issue)) => {
            let mut report = Report::new();
            report.push(issue);
            Err(Refused {
                report,
                arguments: None,
            })
        }
        (Err(mut refused), Some(issue)) => {
            refused.report.push(issue);
            Err(refused)
        }
        (Err(refused), None) => Err(refused),
    };
    let result = match result {
        Ok(args) => Ok(args),
        Err(Refused { report, arguments }) => match arguments.or(sent) {
            Some(arguments) => match check.let_through(arguments, &report, audit) {
                Ok(args) => Ok(args),
                Err(arguments) => Err((report, Some(arguments))),
            },
            None => Err((report, None)),
        },
    };
    (result, repairs)
}

/// Drops the keys the tool or the server ignores from `arguments`, except those the tool
/// declares; how many were dropped. A tool that declares none pays two emptiness tests.
fn drop_ignored<C: Check>(
    check: &C,
    settings: &CallSettings,
    arguments: &mut Map<String, Value>,
) -> usize {
    let (prefixes, names) = check.ignores();
    if prefixes.is_empty() && names.is_empty() && settings.ignore_keys.is_empty() {
        return 0;
    }
    let before = arguments.len();
    arguments.retain(|key, _| {
        let ignored = crate::tool::leniency::matches_any(key, prefixes, names)
            || settings.ignore_keys.matches(key);
        !ignored || check.declares(key)
    });
    before - arguments.len()
}

/// The rejection of a call whose arguments are not a JSON object: one `type` issue at the
/// root, rendered like any other invalid arguments.
fn not_an_object<C: Check>(check: &C, arguments: &Value, options: &RenderOptions) -> CallOutput {
    let info = check.info();
    let mut cx = if options.echo_values {
        Cx::new()
    } else {
        Cx::withholding_values()
    };
    cx.type_mismatch(&Kind::Object(info), arguments);
    let report = cx.into_report();
    let rejection = Rejection::new(check.name(), &report, info, check.example());
    CallOutput::rejection(&rejection, options)
}

/// The pipeline of one call of a derived tool; generated code passes the handler and the
/// presenter.
pub async fn run<A, O, F, Fut>(
    spec: &'static ToolSpec,
    served: &Served<'_>,
    arguments: Value,
    handler: F,
    present: Presenter<O>,
) -> CallOutput
where
    A: ToolArgs,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
{
    let admitted = admit(&Derived::<A>::of(spec), served, arguments, |_| None).await;
    derived_call(spec, served, admitted, handler, present).await
}

/// The pipeline of one call of a `paged` tool: the `cursor` argument is taken out before the
/// arguments are checked (the handler never sees it), checked against the other arguments,
/// and the output is presented from the page it points to.
pub async fn run_paged<A, O, F, Fut>(
    spec: &'static ToolSpec,
    served: &Served<'_>,
    arguments: Value,
    handler: F,
) -> CallOutput
where
    A: ToolArgs,
    O: crate::present::Truncate,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
{
    let mut page = None;
    let admitted = admit(&Derived::<A>::of(spec), served, arguments, |arguments| {
        let cursor = arguments.remove(CURSOR_FIELD);
        // Bound to the call once the ignored keys are gone: a client's own key that changes
        // on every call must not make every cursor belong to another call.
        let (bound, issue) = match Page::of_call(spec.name(), arguments, cursor.as_ref()) {
            Ok(bound) => (bound, None),
            Err(issue) => (Page::first(arguments), Some(*issue)),
        };
        page = Some(bound);
        issue
    })
    .await;
    let present = move |spec, output, options: &RenderOptions| {
        let page = page.unwrap_or_else(|| Page::first(&Map::new()));
        present_page(spec, output, options, page)
    };
    derived_call(spec, served, admitted, handler, present).await
}

/// A derived tool's call once admitted: the handler and the presenter, the output check, and
/// the call's completion.
async fn derived_call<A, O, F, Fut, P>(
    spec: &'static ToolSpec,
    served: &Served<'_>,
    admitted: Admitted<A>,
    handler: F,
    present: P,
) -> CallOutput
where
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
    P: FnOnce(&'static ToolSpec, O, &RenderOptions) -> Presented,
{
    let pass = match admitted {
        Admitted::Answered(output) => return output,
        Admitted::Pass(pass) => pass,
    };
    let settings = served.settings;
    let options = &settings.render;
    let (args, completion) = pass.split();
    let outcome = handle(
        spec,
        options,
        args,
        handler,
        present,
        completion.call.as_ref(),
    )
    .await;
    let outcome = outcome.and_then(|output| match &output.structured {
        Some(structured) if settings.check_output_schema => {
            crate::tool::conformance::check(spec, structured).map(|()| output)
        }
        _ => Ok(output),
    });
    let output = match outcome {
        Ok(output) => output,
        Err(error) => {
            let notice = if error.is_error() {
                completion.notice_for_failures()
            } else {
                None
            };
            let failure = Failure::new(spec.name(), &error).with_contract(notice);
            CallOutput::failure(&failure, options)
        }
    };
    completion.finish(served, spec.name(), output)
}

/// The handler, then the presenter, in the call's span; a panic of either is an `INTERNAL`
/// error that says nothing of it.
async fn handle<A, O, F, Fut, P>(
    spec: &'static ToolSpec,
    options: &RenderOptions,
    args: A,
    handler: F,
    present: P,
    call: Option<&Observed>,
) -> Presented
where
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
    P: FnOnce(&'static ToolSpec, O, &RenderOptions) -> Presented,
{
    // The handler's future may hold references into the state; a panic leaves nothing
    // half-updated that this pipeline would read again, so asserting unwind safety is sound here.
    let future = pin!(AssertUnwindSafe(async move { handler(args).await }).catch_unwind());
    let outcome = match call {
        Some(call) => {
            InSpan {
                span: &call.span,
                future,
            }
            .await
        }
        None => future.await,
    };
    let _in_span = call.map(|call| call.span.enter());
    match outcome {
        Ok(Ok(output)) => {
            // A `Serialize` implementation of the output can panic too.
            std::panic::catch_unwind(AssertUnwindSafe(|| present(spec, output, options)))
                .unwrap_or_else(|_| Err(ToolError::internal(PANIC_MESSAGE)))
        }
        Ok(Err(error)) => Err(error),
        Err(_panic) => Err(ToolError::internal(PANIC_MESSAGE)),
    }
}
