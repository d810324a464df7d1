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
    /// [`GuardConfig::audit`](crate::GuardConfig::audit)) and, when serde reads them into the arguments
    /// type, runs anyway.
    pub(crate) audit: bool,
    /// Which tools' calls are repaired, for a tool that says nothing itself (see
    /// [`GuardConfig::repair`](crate::GuardConfig::repair)).
    pub(crate) repair: RepairPolicy,
    /// The keys dropped from every call's arguments before they are checked, beside those
    /// the tool ignores itself (see [`GuardConfig::ignore_keys`](crate::GuardConfig::ignore_keys)).
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
/// call. Each such handler takes a thread of its own, so at most
/// [`max_blocking_calls`](crate::operate::set_max_blocking_calls) of them run at once in the
/// process; the others wait for one to end without taking a thread. Elsewhere (no runtime, a
/// current-thread runtime, which has no other thread to move them to) it simply runs.
/// Generated code calls this for every handler that is not `async`.
///
/// It runs in place rather than on the blocking pool (`spawn_blocking`) because a handler
/// borrows the server's state for the call, and a task of the pool cannot hold a borrow.
pub async fn blocking<T>(handler: impl FnOnce() -> T) -> T {
    #[cfg(feature = "rmcp")]
    {
        use tokio::runtime::{Handle, RuntimeFlavor};
        if Handle::try_current()
            .is_ok_and(|runtime| runtime.runtime_flavor() == RuntimeFlavor::MultiThread)
        {
            return blocking_limit::PROCESS.run(handler).await;
        }
    }
    handler()
}

/// The bound on synchronous handlers running at once in a process.
#[cfg(feature = "rmcp")]
pub(crate) mod blocking_limit {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::sync::{Semaphore, SemaphorePermit};

    /// The process's bound, which [`set_max_blocking_calls`] sets.
    pub(crate) static PROCESS: BlockingLimit = BlockingLimit::new(DEFAULT_MAX_BLOCKING_CALLS);

    /// The default of [`set_max_blocking_calls`]: as many as the HTTP server's default of
    /// requests in flight, so that a server over HTTP with its default limits never waits
    /// here.
    pub(crate) const DEFAULT_MAX_BLOCKING_CALLS: usize = 64;

    /// Sets how many synchronous handlers (tools whose handler is not `async`) run at once in
    /// the process, across servers: each runs on a thread of its own while it blocks
    /// (`tokio::task::block_in_place`), so this bounds the threads that handlers take, which
    /// tokio would otherwise add one per blocking call, up to its blocking pool's limit (512
    /// by default). A call past it waits, without a thread, for a running handler to end.
    /// Default: 64; at least 1.
    ///
    /// Choose the number of handlers that can usefully block at once: the size of the
    /// connection pool a handler waits on, or the number of cores for handlers that compute.
    /// Lowering it while handlers run takes effect as they end.
    ///
    /// ```
    /// guardrails::operate::set_max_blocking_calls(16);
    /// ```
    pub fn set_max_blocking_calls(max: usize) {
        PROCESS.set_max(max);
    }

    /// A bound on handlers running at once that can be raised or lowered while they run.
    pub(crate) struct BlockingLimit {
        permits: Semaphore,
        /// The bound now.
        max: Mutex<usize>,
        /// Permits still to forget after the bound was lowered below the handlers running:
        /// each running handler that ends pays one instead of giving its permit back.
        debt: AtomicUsize,
    }

    impl BlockingLimit {
        pub(crate) const fn new(max: usize) -> Self {
            Self {
                permits: Semaphore::const_new(max),
                max: Mutex::new(max),
                debt: AtomicUsize::new(0),
            }
        }

        pub(crate) fn set_max(&self, max: usize) {
            let max = max.clamp(1, Semaphore::MAX_PERMITS);
            let mut now = self
                .max
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if max > *now {
                let grow = max - *now;
                let paid = self.pay(grow);
                self.permits.add_permits(grow - paid);
            } else {
                let shrink = *now - max;
                let forgotten = self.permits.forget_permits(shrink);
                self.debt.fetch_add(shrink - forgotten, Ordering::AcqRel);
            }
            *now = max;
        }

        /// Cancels up to `n` of the debt; returns how much was cancelled.
        fn pay(&self, n: usize) -> usize {
            let mut paid = 0;
            let _ = self
                .debt
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |debt| {
                    paid = debt.min(n);
                    Some(debt - paid)
                });
            paid
        }

        /// Runs `handler` in place once a permit is free, giving the permit back (or paying
        /// the debt with it) when it returns or panics.
        pub(crate) async fn run<T>(&self, handler: impl FnOnce() -> T) -> T {
            struct Running<'a> {
                limit: &'a BlockingLimit,
                permit: Option<SemaphorePermit<'a>>,
            }
            impl Drop for Running<'_> {
                fn drop(&mut self) {
                    if let Some(permit) = self.permit.take()
                        && self.limit.pay(1) == 1
                    {
                        permit.forget();
                    }
                }
            }
            let Ok(permit) = self.permits.acquire().await else {
                unreachable!("the semaphore is never closed");
            };
            let _running = Running {
                limit: self,
                permit: Some(permit),
            };
            tokio::task::block_in_place(handler)
        }

        /// Permits free now.
        #[cfg(test)]
        fn free(&self) -> usize {
            self.permits.available_permits()
        }
    }

    #[cfg(test)]
    mod tests {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::time::Duration;

        use super::BlockingLimit;

        /// Runs `calls` handlers that each block for 20 ms under `limit`, and returns how many
        /// ran at once at most.
        async fn most_at_once(limit: &'static BlockingLimit, calls: usize) -> usize {
            let running = Arc::new(AtomicUsize::new(0));
            let most = Arc::new(AtomicUsize::new(0));
            let tasks: Vec<_> = (0..calls)
                .map(|_| {
                    let (running, most) = (Arc::clone(&running), Arc::clone(&most));
                    tokio::spawn(async move {
                        limit
                            .run(|| {
                                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                                most.fetch_max(now, Ordering::SeqCst);
                                std::thread::sleep(Duration::from_millis(20));
                                running.fetch_sub(1, Ordering::SeqCst);
                            })
                            .await;
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
            most.load(Ordering::SeqCst)
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn at_most_the_bound_of_blocking_handlers_run_at_once_and_all_run() {
            static LIMIT: BlockingLimit = BlockingLimit::new(3);
            let most = most_at_once(&LIMIT, 12).await;
            assert!(most <= 3, "{most} handlers ran at once");
            assert_eq!(LIMIT.free(), 3, "every permit given back");
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn a_bound_lowered_while_handlers_run_holds_once_they_end() {
            static LIMIT: BlockingLimit = BlockingLimit::new(4);
            let started = Arc::new(std::sync::Barrier::new(3));
            let release = Arc::new(std::sync::Barrier::new(3));
            let tasks: Vec<_> = (0..2)
                .map(|_| {
                    let (started, release) = (Arc::clone(&started), Arc::clone(&release));
                    tokio::spawn(async move {
                        LIMIT
                            .run(|| {
                                started.wait();
                                release.wait();
                            })
                            .await;
                    })
                })
                .collect();
            tokio::task::block_in_place(|| started.wait());
            // Two run, two permits free: lowered to 1, the two free ones are forgotten and
            // one of the running handlers' is owed.
            LIMIT.set_max(1);
            assert_eq!(LIMIT.free(), 0);
            tokio::task::block_in_place(|| release.wait());
            for task in tasks {
                task.await.unwrap();
            }
            assert_eq!(LIMIT.free(), 1, "the debt paid by a handler that ended");
            assert_eq!(most_at_once(&LIMIT, 6).await, 1);
            LIMIT.set_max(3);
            assert_eq!(LIMIT.free(), 3);
            let most = most_at_once(&LIMIT, 12).await;
            assert!(most <= 3, "{most} handlers ran at once");
        }
    }
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
