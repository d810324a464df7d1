//! The call pipeline: the one path every call of a tool takes.
//!
//! ```text
//! arguments ─► validate ─┬─ invalid ─► rendered report (isError: true); the handler never runs
//!                        ▼
//!             handler(state, typed args) ─┬─ Err(ToolError) / panic ─► rendered error
//!                                         ▼
//!             present: agent limit, serialize what is shown, byte cap, output check
//! ```
//!
//! The pipeline knows nothing of transports: it turns a map of arguments into a [`CallOutput`],
//! which the rmcp adapter (feature `rmcp`) turns into an MCP result.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;

use futures_util::FutureExt as _;
use serde_json::{Map, Value};

use super::cursor::{CURSOR_FIELD, Page};
use super::leniency::{IgnoreKeys, RepairPolicy, drop_ignored, matches_any};
use super::output::CallOutput;
pub use super::presenter::Presented;
use super::presenter::present_page;
use super::spec::ToolSpec;
use crate::contract::Awareness;
use crate::message::{ContractNotice, Failure, Rejection, ToolError};
use crate::present::Truncate;
use crate::render::RenderOptions;
use crate::validation::{Cx, Issue, Report, ToolArgs};

/// A boxed future that can move between threads, as tools return from [`Tool::call`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a tool finds the state it declares: a tool whose handler takes `&AppState` runs on any
/// server state `S: StateRef<AppState>`. Every type provides itself; implement it for your
/// server type when the tool's state is one of its fields.
///
/// ```
/// # struct Db;
/// struct AppServer { db: Db }
/// impl guardrails::StateRef<Db> for AppServer {
///     fn state(&self) -> &Db { &self.db }
/// }
/// ```
pub trait StateRef<T: ?Sized> {
    /// The tool's state.
    fn state(&self) -> &T;
}

impl<T> StateRef<T> for T {
    fn state(&self) -> &T {
        self
    }
}

/// How the calls of one tool are answered: the server's render options and, for a tool whose
/// contract changed since the known-good lockfile, its contract awareness. A server builds one
/// per tool, once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct CallSettings {
    /// How messages are rendered.
    pub render: RenderOptions,
    /// The tool's contract awareness; `None` renders errors as they are.
    pub contract: Option<Awareness>,
    /// Whether each structured result is checked against the tool's output schema, a
    /// mismatch becoming an `INTERNAL` error that names the path: on in debug builds (and so
    /// in tests), off in release builds, where it costs nothing. See
    /// [`Server::check_output_schemas`](crate::Server::check_output_schemas).
    pub check_output_schema: bool,
    /// Audit mode: a call whose arguments do not validate is logged (see
    /// [`Server::audit`](crate::Server::audit)) and, when serde reads them into the arguments
    /// type, runs anyway.
    pub audit: bool,
    /// Which tools' calls are repaired, for a tool that says nothing itself (see
    /// [`Server::repair`](crate::Server::repair)).
    pub repair: RepairPolicy,
    /// The keys dropped from every call's arguments before they are checked, beside those
    /// the tool ignores itself (see [`Server::ignore_keys`](crate::Server::ignore_keys)).
    pub ignore_keys: IgnoreKeys,
}

impl Default for CallSettings {
    fn default() -> Self {
        Self::new(RenderOptions::default())
    }
}

impl CallSettings {
    /// Settings that render with `render` and carry no contract awareness; structured
    /// results are checked against their schema in debug builds.
    #[must_use]
    pub fn new(render: RenderOptions) -> Self {
        Self {
            render,
            contract: None,
            check_output_schema: cfg!(debug_assertions),
            audit: false,
            repair: RepairPolicy::Off,
            ignore_keys: IgnoreKeys::new(),
        }
    }

    /// Sets which tools' calls are repaired, for the tools that say nothing themselves.
    #[must_use]
    pub fn with_repair(mut self, policy: RepairPolicy) -> Self {
        self.repair = policy;
        self
    }

    /// Sets the keys dropped from every call's arguments before they are checked.
    #[must_use]
    pub fn with_ignored_keys(mut self, keys: IgnoreKeys) -> Self {
        self.ignore_keys = keys;
        self
    }

    /// Turns audit mode on or off.
    #[must_use]
    pub fn with_audit(mut self, on: bool) -> Self {
        self.audit = on;
        self
    }

    /// Turns the check of structured results against the output schema on or off.
    #[must_use]
    pub fn with_output_schema_check(mut self, on: bool) -> Self {
        self.check_output_schema = on;
        self
    }

    /// Sets the contract awareness.
    #[must_use]
    pub fn with_contract(mut self, contract: Option<Awareness>) -> Self {
        self.contract = contract;
        self
    }
}

impl From<RenderOptions> for CallSettings {
    fn from(render: RenderOptions) -> Self {
        Self::new(render)
    }
}

/// A guarded tool on server state `S`. Implemented by `#[tool]`, which turns a function into a
/// value of a type that implements this trait.
pub trait Tool<S>: Send + Sync + 'static {
    /// The tool's definition and guardrails.
    fn spec(&self) -> &'static ToolSpec;

    /// Runs one call: validate, run the handler, present. Never panics, whatever the input or
    /// the handler does.
    fn call<'a>(
        &'a self,
        state: &'a S,
        arguments: Map<String, Value>,
        settings: &'a CallSettings,
    ) -> BoxFuture<'a, CallOutput>;
}

/// The message of the error a panicking handler is reported as. It says nothing of the panic:
/// its payload may hold internals.
const PANIC_MESSAGE: &str = "The tool failed unexpectedly while handling this call.";

/// The presenter of a tool's output: generated code passes the one its options call for.
pub type Presenter<O> = fn(&'static ToolSpec, O, &RenderOptions) -> Presented;

/// The pipeline of one call; generated code passes the handler and the presenter.
pub async fn run<A, O, F, Fut>(
    spec: &'static ToolSpec,
    settings: &CallSettings,
    arguments: Map<String, Value>,
    handler: F,
    present: Presenter<O>,
) -> CallOutput
where
    A: ToolArgs,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
{
    pipeline(spec, settings, arguments, None, 0, handler, present).await
}

/// The pipeline of one call of a `paged` tool: the `cursor` argument is taken out before the
/// arguments are validated (the handler never sees it), checked against the other arguments,
/// and the output is presented from the page it points to.
pub async fn run_paged<A, O, F, Fut>(
    spec: &'static ToolSpec,
    settings: &CallSettings,
    mut arguments: Map<String, Value>,
    handler: F,
) -> CallOutput
where
    A: ToolArgs,
    O: Truncate,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
{
    let cursor = arguments.remove(CURSOR_FIELD);
    // The keys the tool ignores go before the cursor is bound to the call: a client's own key
    // that changes on every call must not make every cursor belong to another call.
    let ignored = drop_declared::<A>(spec, settings, &mut arguments);
    let (page, issue) = match Page::of_call(spec.name(), &arguments, cursor.as_ref()) {
        Ok(page) => (page, None),
        Err(issue) => (Page::first(&arguments), Some(*issue)),
    };
    let present =
        move |spec, output, options: &RenderOptions| present_page(spec, output, options, page);
    pipeline(spec, settings, arguments, issue, ignored, handler, present).await
}

/// Drops the keys the tool or the server ignores from `arguments`, except the fields `A`
/// declares; how many were dropped. A tool that declares none pays two emptiness tests.
fn drop_declared<A: ToolArgs>(
    spec: &ToolSpec,
    settings: &CallSettings,
    arguments: &mut Map<String, Value>,
) -> usize {
    let (prefixes, names) = spec.ignored_keys();
    if prefixes.is_empty() && names.is_empty() && settings.ignore_keys.is_empty() {
        return 0;
    }
    drop_ignored(arguments, A::info(), |key| {
        matches_any(key, prefixes, names) || settings.ignore_keys.matches(key)
    })
}

/// Validate, then the handler, then the presenter; `issue` is one more issue found before
/// validation (in an argument the arguments type does not declare); `ignored_before`, the keys
/// the tool ignores already dropped.
async fn pipeline<A, O, F, Fut, P>(
    spec: &'static ToolSpec,
    settings: &CallSettings,
    mut arguments: Map<String, Value>,
    issue: Option<Issue>,
    ignored_before: usize,
    handler: F,
    present: P,
) -> CallOutput
where
    A: ToolArgs,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
    P: FnOnce(&'static ToolSpec, O, &RenderOptions) -> Presented,
{
    let options = &settings.render;
    // Contract awareness: only a tool whose contract changed has any, so every other tool
    // pays this one `None` check. Which arguments were sent is noted before validation takes
    // them.
    let aware = settings
        .contract
        .as_ref()
        .map(|contract| (contract, contract.relevance(&arguments)));
    let notice = || aware.as_ref().map(|(c, r)| ContractNotice::new(c, r));
    let cx = if options.echo_values {
        Cx::new()
    } else {
        Cx::withholding_values()
    };
    // Declared leniency: keys the tool or the server ignores are dropped, and slips are
    // repaired where declared. A tool that declares neither pays two emptiness tests and a
    // flag.
    let ignored = ignored_before + drop_declared::<A>(spec, settings, &mut arguments);
    let repair = spec
        .repair()
        .unwrap_or(settings.repair)
        .applies(spec.annotations().destructive == Some(true));
    let cx = cx.repairing(repair);
    // Audited, the call as sent is kept to be read by serde should it not validate.
    let sent = settings.audit.then(|| Value::Object(arguments.clone()));
    let (validated, repairs) = A::validate_repairing(arguments, cx);
    let validated = match (validated, issue) {
        (Ok(args), None) => Ok(args),
        (Ok(_), Some(issue)) => {
            let mut report = Report::new();
            report.push(issue);
            Err(report)
        }
        (Err(mut report), Some(issue)) => {
            report.push(issue);
            Err(report)
        }
        (Err(report), None) => Err(report),
    };
    let validated = match (validated, sent) {
        (Err(report), Some(sent)) => {
            let unchecked = A::from_value_unchecked(sent);
            audit_log(spec.name(), &report, unchecked.is_some());
            unchecked.ok_or(report)
        }
        (validated, _) => validated,
    };
    let args = match validated {
        Ok(args) => args,
        Err(report) => {
            let rejection = Rejection::new(spec.name(), &report, A::info(), spec.example())
                .with_contract(notice());
            let output = CallOutput::rejection(&rejection, options);
            return output.leniency(spec.name(), &repairs, ignored, options);
        }
    };
    let outcome = handle(spec, options, args, handler, present)
        .await
        .and_then(|output| match &output.structured {
            Some(structured) if settings.check_output_schema => {
                super::conformance::check(spec, structured).map(|()| output)
            }
            _ => Ok(output),
        });
    let output = match outcome {
        Ok(output) => output,
        Err(error) => {
            let annotate = aware.as_ref().is_some_and(|(c, _)| c.all_errors()) && error.is_error();
            let failure = Failure::new(spec.name(), &error).with_contract(if annotate {
                notice()
            } else {
                None
            });
            CallOutput::failure(&failure, options)
        }
    };
    output.leniency(spec.name(), &repairs, ignored, options)
}

/// The pipeline after validation: the handler, then the presenter.
async fn handle<A, O, F, Fut, P>(
    spec: &'static ToolSpec,
    options: &RenderOptions,
    args: A,
    handler: F,
    present: P,
) -> Presented
where
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
    P: FnOnce(&'static ToolSpec, O, &RenderOptions) -> Presented,
{
    // The handler's future may hold references into the state; a panic leaves nothing
    // half-updated that this pipeline would read again, so asserting unwind safety is sound here.
    let outcome = AssertUnwindSafe(async move { handler(args).await })
        .catch_unwind()
        .await;
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

/// Runs a synchronous handler where it cannot stall other calls. On a multi-threaded tokio
/// runtime (what `#[tokio::main]` starts, and what a server is served on) the handler runs in
/// place while the runtime moves this thread's other tasks to another thread
/// (`tokio::task::block_in_place`): a handler that blocks for seconds delays only its own
/// call. Elsewhere (no runtime, a current-thread runtime, which has no other thread to move
/// them to) it simply runs. Generated code calls this for every handler that is not `async`.
///
/// It runs in place rather than on the blocking pool (`spawn_blocking`) because a handler
/// borrows the server's state for the call, and a task of the pool cannot hold a borrow.
pub fn blocking<T>(handler: impl FnOnce() -> T) -> T {
    #[cfg(feature = "rmcp")]
    {
        use tokio::runtime::{Handle, RuntimeFlavor};
        if Handle::try_current()
            .is_ok_and(|runtime| runtime.runtime_flavor() == RuntimeFlavor::MultiThread)
        {
            return tokio::task::block_in_place(handler);
        }
    }
    handler()
}

/// Turns whatever a handler returns into `Result<O, ToolError>`, choosing by the returned type:
/// a `Result<T, E>` whose error converts into [`ToolError`] passes through, any other value is
/// a success. Generated code calls `(&PhantomData::<R>).outcome_kind()`, which method
/// resolution sends to [`FallibleKind`](outcome::FallibleKind) for results and to
/// [`ValueKind`](outcome::ValueKind) for the rest.
#[expect(
    clippy::unused_self,
    clippy::unnecessary_wraps,
    reason = "generated code picks these by method resolution on a tag value, and needs one signature for both tags"
)]
pub(crate) mod outcome {
    use std::marker::PhantomData;

    use crate::message::ToolError;

    /// The handler returns a `Result` whose error converts into a [`ToolError`].
    pub struct Fallible;
    /// The handler returns a `Result` whose error does not convert into a [`ToolError`]: the
    /// tool does not compile, with a message that says what to do.
    pub struct Unconvertible;
    /// The handler returns a plain value.
    pub struct Infallible;

    /// Chosen for `Result<T, E>` with `E: Into<ToolError>`: generated code calls
    /// `(&&&PhantomData::<R>).outcome_kind()`, and this impl is the first that method
    /// resolution tries.
    pub trait FallibleKind {
        /// The tag of the return type.
        fn outcome_kind(&self) -> Fallible {
            Fallible
        }
    }
    impl<T, E: Into<ToolError>> FallibleKind for &&PhantomData<Result<T, E>> {}

    /// Chosen for any other `Result<T, E>`, one dereference later.
    pub trait UnconvertibleKind {
        /// The tag of the return type.
        fn outcome_kind(&self) -> Unconvertible {
            Unconvertible
        }
    }
    impl<T, E> UnconvertibleKind for &PhantomData<Result<T, E>> {}

    /// Chosen for every other type, one dereference later still.
    pub trait ValueKind {
        /// The tag of the return type.
        fn outcome_kind(&self) -> Infallible {
            Infallible
        }
    }
    impl<T> ValueKind for PhantomData<T> {}

    /// What the error type of a handler's `Result` must be. Nothing implements it: it exists
    /// for its message, which a handler whose error does not convert into a [`ToolError`]
    /// gets instead of the conversion's.
    #[diagnostic::on_unimplemented(
        message = "a tool's handler cannot fail with `{Self}`: its error must convert into `guardrails::ToolError`",
        label = "this handler's error type is `{Self}`",
        note = "return `Result<_, ToolError>` and build the error with a constructor that sets its code, e.g. `ToolError::not_found(\"Task 42 does not exist.\")` or `ToolError::internal(..)`, or `.map_err(..)` it",
        note = "for an error type of your own, implement `From<YourError> for guardrails::ToolError`; `std::io::Error` converts already, and `anyhow::Error` with the feature `anyhow`"
    )]
    pub trait HandlerError {
        /// Never called: no type implements the trait.
        fn into_tool_error(self) -> ToolError;
    }

    impl Fallible {
        /// Converts the returned result.
        ///
        /// # Errors
        /// The handler's error, converted.
        pub fn convert<T, E: Into<ToolError>>(
            self,
            returned: Result<T, E>,
        ) -> Result<T, ToolError> {
            returned.map_err(Into::into)
        }

        /// The type of a successful output.
        #[must_use]
        pub fn output<T, E>(&self, _: PhantomData<Result<T, E>>) -> PhantomData<T> {
            PhantomData
        }
    }

    impl Unconvertible {
        /// Does not compile: `E` is no [`HandlerError`].
        ///
        /// # Errors
        /// The handler's error.
        pub fn convert<T, E: HandlerError>(self, returned: Result<T, E>) -> Result<T, ToolError> {
            returned.map_err(HandlerError::into_tool_error)
        }

        /// The type of a successful output.
        #[must_use]
        pub fn output<T, E>(&self, _: PhantomData<Result<T, E>>) -> PhantomData<T> {
            PhantomData
        }
    }

    impl Infallible {
        /// Wraps the returned value.
        ///
        /// # Errors
        /// Never.
        pub fn convert<T>(self, returned: T) -> Result<T, ToolError> {
            Ok(returned)
        }

        /// The type of a successful output.
        #[must_use]
        pub fn output<T>(&self, _: PhantomData<T>) -> PhantomData<T> {
            PhantomData
        }
    }
}

/// Logs a call that the guard refuses, or would refuse in audit mode: the tool, how many
/// issues, each issue's path and code (`ids.to:missing`; an unknown key's path is the key,
/// cut short and escaped), and whether the call was let through; never a value sent.
pub(crate) fn audit_log(tool: &str, report: &Report, let_through: bool) {
    use std::fmt::Write as _;
    let mut issues = String::new();
    for issue in report.issues() {
        if !issues.is_empty() {
            issues.push_str(", ");
        }
        let _ = write!(issues, "{}:{}", issue.location(), issue.code);
    }
    tracing::warn!(
        target: "guardrails::audit",
        tool,
        issues = report.issues().len() + report.omitted(),
        codes = ?issues,
        let_through,
        "a call the guard would refuse",
    );
}
