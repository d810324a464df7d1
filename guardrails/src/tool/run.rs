//! What a tool's pipeline is given and what generated code needs around it: the settings of
//! a tool's calls, where a tool finds its state, the presenter's type, how a synchronous
//! handler runs, and how a handler's return type becomes an outcome. The pipeline itself is
//! [`call`](crate::call).

use std::future::Future;
use std::pin::Pin;

use super::leniency::{IgnoreKeys, RepairPolicy};
pub use super::presenter::Presented;
use super::spec::ToolSpec;
use crate::contract::Awareness;
use crate::render::RenderOptions;
use crate::validation::Report;

/// A boxed future that can move between threads, as tools return from [`Tool::call`](crate::Tool::call).
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

/// How the calls of one tool are answered (crate-internal; generated code names only its
/// default): the server's render options and, for a tool whose
/// contract changed since the known-good lockfile, its contract awareness. A server builds one
/// per tool, once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub struct CallSettings {
    /// How messages are rendered.
    pub(crate) render: RenderOptions,
    /// The tool's contract awareness; `None` renders errors as they are.
    pub(crate) contract: Option<Awareness>,
    /// Whether each structured result is checked against the tool's output schema, a
    /// mismatch becoming an `INTERNAL` error that names the path: on in debug builds (and so
    /// in tests), off in release builds, where it costs nothing. See
    /// [`Server::check_output_schemas`](crate::Server::check_output_schemas).
    pub(crate) check_output_schema: bool,
    /// Audit mode: a call whose arguments do not validate is logged (see
    /// [`Server::audit`](crate::Server::audit)) and, when serde reads them into the arguments
    /// type, runs anyway.
    pub(crate) audit: bool,
    /// Which tools' calls are repaired, for a tool that says nothing itself (see
    /// [`Server::repair`](crate::Server::repair)).
    pub(crate) repair: RepairPolicy,
    /// The keys dropped from every call's arguments before they are checked, beside those
    /// the tool ignores itself (see [`Server::ignore_keys`](crate::Server::ignore_keys)).
    pub(crate) ignore_keys: IgnoreKeys,
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
    pub(crate) fn new(render: RenderOptions) -> Self {
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
    pub(crate) fn with_repair(mut self, policy: RepairPolicy) -> Self {
        self.repair = policy;
        self
    }

    /// Sets the keys dropped from every call's arguments before they are checked.
    #[must_use]
    pub(crate) fn with_ignored_keys(mut self, keys: IgnoreKeys) -> Self {
        self.ignore_keys = keys;
        self
    }

    /// Turns audit mode on or off.
    #[must_use]
    pub(crate) fn with_audit(mut self, on: bool) -> Self {
        self.audit = on;
        self
    }

    /// Turns the check of structured results against the output schema on or off.
    #[must_use]
    pub(crate) fn with_output_schema_check(mut self, on: bool) -> Self {
        self.check_output_schema = on;
        self
    }

    /// Sets the contract awareness.
    #[must_use]
    pub(crate) fn with_contract(mut self, contract: Option<Awareness>) -> Self {
        self.contract = contract;
        self
    }
}

/// The message of the error a panicking handler is reported as. It says nothing of the panic:
/// its payload may hold internals.
pub(crate) const PANIC_MESSAGE: &str = "The tool failed unexpectedly while handling this call.";

/// The presenter of a tool's output: generated code passes the one its options call for.
pub type Presenter<O> = fn(&'static ToolSpec, O, &RenderOptions) -> Presented;

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
    tracing::warn!(
        target: "guardrails::audit",
        tool,
        issues = report.issues().len() + report.omitted(),
        codes = ?issue_codes(report),
        let_through,
        "a call the guard would refuse",
    );
}

/// Each issue's path and code, `ids.to:missing, title:length`: what the audit target logs of a
/// report, never a value sent.
pub(crate) fn issue_codes(report: &Report) -> String {
    use std::fmt::Write as _;
    let mut issues = String::new();
    for issue in report.issues() {
        if !issues.is_empty() {
            issues.push_str(", ");
        }
        let _ = write!(issues, "{}:{}", issue.location(), issue.code);
    }
    issues
}
