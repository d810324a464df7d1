//! Tools and the call pipeline: what `#[tool]` generates, and the one path every call takes.
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

use crate::error::ToolError;
use crate::present::Truncated;
use crate::render::{RenderOptions, render_report};
use crate::validation::{ArgsInfo, ToolArgs};

/// A boxed future that can move between threads, as tools return from [`Tool::call`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A tool's behaviour hints, as advertised in MCP's `annotations`. `None` leaves a hint out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Annotations {
    /// The tool does not change its environment.
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data.
    pub destructive: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool reaches outside systems (the web, third parties).
    pub open_world: Option<bool>,
}

impl Annotations {
    /// No hints.
    pub const NONE: Self = Self {
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };

    /// No hints; set them with the methods below.
    #[must_use]
    pub const fn new() -> Self {
        Self::NONE
    }

    /// Sets the read-only hint.
    #[must_use]
    pub const fn read_only(mut self, hint: bool) -> Self {
        self.read_only = Some(hint);
        self
    }

    /// Sets the destructive hint.
    #[must_use]
    pub const fn destructive(mut self, hint: bool) -> Self {
        self.destructive = Some(hint);
        self
    }

    /// Sets the idempotent hint.
    #[must_use]
    pub const fn idempotent(mut self, hint: bool) -> Self {
        self.idempotent = Some(hint);
        self
    }

    /// Sets the open-world hint.
    #[must_use]
    pub const fn open_world(mut self, hint: bool) -> Self {
        self.open_world = Some(hint);
        self
    }

    /// Whether no hint is set.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.read_only.is_none()
            && self.destructive.is_none()
            && self.idempotent.is_none()
            && self.open_world.is_none()
    }
}

/// A function that writes the teaching block of a truncated result.
pub type TeachFn = fn(&Truncated<'_>) -> String;

/// What the model is told after a truncated result, besides "N of total shown".
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Teaching {
    /// The tool's own filter parameters with their valid values, from its arguments type.
    Filters,
    /// A fixed hint written by the tool's author.
    Hint(&'static str),
    /// A function that writes the whole block.
    Teach(TeachFn),
}

/// An agent limit: the most items of a collection result that reach the model.
#[derive(Debug, Clone, Copy)]
pub struct AgentLimit {
    /// The most items shown.
    pub max: usize,
    /// What the model is told when items are left out.
    pub teaching: Teaching,
}

/// What an [`OutputCheck`] decides about a tool's output.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// The output is delivered as it is.
    Pass,
    /// The output is delivered with this advice after it.
    Advise(String),
    /// The output is withheld; the model receives this error instead.
    Block(ToolError),
}

/// The seam where an output policy plugs into a tool: it sees the text of every successful
/// result before it is delivered. Attach one with `#[tool(policy = PATH)]`, where `PATH` names a
/// `static` or `const` of a type implementing this trait, or a function
/// `fn(&str, &str) -> Verdict` (tool name, output text).
pub trait OutputCheck: Send + Sync {
    /// Checks the output `text` of tool `tool`.
    fn check(&self, tool: &str, text: &str) -> Verdict;
}

impl<F> OutputCheck for F
where
    F: Fn(&str, &str) -> Verdict + Send + Sync,
{
    fn check(&self, tool: &str, text: &str) -> Verdict {
        self(tool, text)
    }
}

/// Everything known about a tool before it is called: its MCP definition and its guardrails.
/// Built by `#[tool]` in a `static`.
#[derive(Clone, Copy)]
pub struct ToolSpec {
    name: &'static str,
    title: Option<&'static str>,
    description: &'static str,
    annotations: Annotations,
    agent_limit: Option<AgentLimit>,
    max_bytes: Option<usize>,
    policy: Option<&'static dyn OutputCheck>,
    args: fn() -> &'static ArgsInfo,
    input_schema: fn() -> &'static schemars::Schema,
    example: fn() -> &'static Value,
    output_schema: fn() -> Option<&'static Map<String, Value>>,
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("description", &self.description)
            .field("annotations", &self.annotations)
            .field("agent_limit", &self.agent_limit)
            .field("max_bytes", &self.max_bytes)
            .field("policy", &self.policy.is_some())
            .finish_non_exhaustive()
    }
}

fn no_output_schema() -> Option<&'static Map<String, Value>> {
    None
}

impl ToolSpec {
    /// A tool named `name` described by `description`, taking arguments of type `A`.
    #[must_use]
    pub const fn new<A: ToolArgs>(name: &'static str, description: &'static str) -> Self {
        Self {
            name,
            title: None,
            description,
            annotations: Annotations::NONE,
            agent_limit: None,
            max_bytes: None,
            policy: None,
            args: A::info,
            input_schema: A::schema,
            example: A::example,
            output_schema: no_output_schema,
        }
    }

    /// Sets the human-readable title.
    #[must_use]
    pub const fn with_title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets the behaviour hints.
    #[must_use]
    pub const fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets the agent limit.
    #[must_use]
    pub const fn with_agent_limit(mut self, limit: AgentLimit) -> Self {
        self.agent_limit = Some(limit);
        self
    }

    /// Sets the byte cap of the payload.
    #[must_use]
    pub const fn with_max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = Some(max);
        self
    }

    /// Attaches an output check.
    #[must_use]
    pub const fn with_policy(mut self, policy: &'static dyn OutputCheck) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Sets where the output schema comes from.
    #[must_use]
    pub const fn with_output_schema(
        mut self,
        schema: fn() -> Option<&'static Map<String, Value>>,
    ) -> Self {
        self.output_schema = schema;
        self
    }

    /// The tool's name.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The human-readable title.
    #[must_use]
    pub const fn title(&self) -> Option<&'static str> {
        self.title
    }

    /// What the tool does, for the model.
    #[must_use]
    pub const fn description(&self) -> &'static str {
        self.description
    }

    /// The behaviour hints.
    #[must_use]
    pub const fn annotations(&self) -> Annotations {
        self.annotations
    }

    /// The agent limit, if any.
    #[must_use]
    pub const fn agent_limit(&self) -> Option<AgentLimit> {
        self.agent_limit
    }

    /// The byte cap of the payload, if any.
    #[must_use]
    pub const fn max_bytes(&self) -> Option<usize> {
        self.max_bytes
    }

    /// The output check, if any.
    #[must_use]
    pub fn policy(&self) -> Option<&'static dyn OutputCheck> {
        self.policy
    }

    /// What the arguments type declares.
    #[must_use]
    pub fn args(&self) -> &'static ArgsInfo {
        (self.args)()
    }

    /// The JSON Schema of the arguments (the MCP `inputSchema`).
    #[must_use]
    pub fn input_schema(&self) -> &'static schemars::Schema {
        (self.input_schema)()
    }

    /// A valid example of the arguments.
    #[must_use]
    pub fn example(&self) -> &'static Value {
        (self.example)()
    }

    /// The JSON Schema of the structured result (the MCP `outputSchema`), when the output type
    /// provides one.
    #[must_use]
    pub fn output_schema(&self) -> Option<&'static Map<String, Value>> {
        (self.output_schema)()
    }
}

/// What a call produced, before a transport turns it into its own result type.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallOutput {
    /// Text blocks, in order: the data (or the rendered error), then any teaching block.
    pub text: Vec<String>,
    /// The structured result, when the output is a JSON object.
    pub structured: Option<Value>,
    /// Whether the call failed (MCP `isError`).
    pub is_error: bool,
}

impl CallOutput {
    /// A successful output of text blocks.
    #[must_use]
    pub fn text(text: Vec<String>) -> Self {
        Self {
            text,
            structured: None,
            is_error: false,
        }
    }

    /// The rendered `error` of tool `tool`.
    #[must_use]
    pub fn tool_error(tool: &str, error: &ToolError, options: &RenderOptions) -> Self {
        Self {
            text: vec![error.render(tool, options)],
            structured: None,
            is_error: error.is_error(),
        }
    }
}

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
        options: &'a RenderOptions,
    ) -> BoxFuture<'a, CallOutput>;
}

/// The message of the error a panicking handler is reported as. It says nothing of the panic:
/// its payload may hold internals.
const PANIC_MESSAGE: &str = "The tool failed unexpectedly while handling this call.";

/// The pipeline of one call; generated code passes the handler and the presenter.
#[doc(hidden)]
pub async fn run<A, O, F, Fut>(
    spec: &'static ToolSpec,
    options: &RenderOptions,
    arguments: Map<String, Value>,
    handler: F,
    present: fn(&'static ToolSpec, O, &RenderOptions) -> CallOutput,
) -> CallOutput
where
    A: ToolArgs,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
{
    // Contract awareness: only a tool whose contract changed has any, so every other tool
    // pays this one `None` check. Which arguments were sent is noted before validation takes
    // them.
    let aware = options
        .contract
        .as_ref()
        .map(|contract| (contract, contract.relevance(&arguments)));
    let args = match A::validate(arguments) {
        Ok(args) => args,
        Err(report) => {
            let mut text = render_report(spec.name, &report, A::info(), A::example(), options);
            if let Some((contract, relevance)) = &aware {
                contract.annotate(&mut text, relevance, options.format);
            }
            return CallOutput {
                text: vec![text],
                structured: None,
                is_error: true,
            };
        }
    };
    let mut output = handle(spec, options, args, handler, present).await;
    if let Some((contract, relevance)) = &aware
        && output.is_error
        && contract.all_errors()
        && let Some(text) = output.text.first_mut()
    {
        contract.annotate(text, relevance, options.format);
    }
    output
}

/// The pipeline after validation: the handler, then the presenter.
async fn handle<A, O, F, Fut>(
    spec: &'static ToolSpec,
    options: &RenderOptions,
    args: A,
    handler: F,
    present: fn(&'static ToolSpec, O, &RenderOptions) -> CallOutput,
) -> CallOutput
where
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
{
    // The handler's future may hold references into the state; a panic leaves nothing
    // half-updated that this pipeline would read again, so asserting unwind safety is sound here.
    let outcome = AssertUnwindSafe(async move { handler(args).await })
        .catch_unwind()
        .await;
    let presented = match outcome {
        Ok(Ok(output)) => {
            std::panic::catch_unwind(AssertUnwindSafe(|| present(spec, output, options)))
        }
        Ok(Err(error)) => return CallOutput::tool_error(spec.name, &error, options),
        Err(_panic) => return panicked(spec, options),
    };
    // A `Serialize` implementation of the output can panic too.
    presented.unwrap_or_else(|_| panicked(spec, options))
}

fn panicked(spec: &ToolSpec, options: &RenderOptions) -> CallOutput {
    CallOutput::tool_error(spec.name, &ToolError::internal(PANIC_MESSAGE), options)
}

/// Turns whatever a handler returns into `Result<O, ToolError>`, choosing by the returned type:
/// a `Result<T, E>` whose error converts into [`ToolError`] passes through, any other value is
/// a success. Generated code calls `(&PhantomData::<R>).outcome_kind()`, which method
/// resolution sends to [`FallibleKind`](outcome::FallibleKind) for results and to
/// [`ValueKind`](outcome::ValueKind) for the rest.
#[doc(hidden)]
pub mod outcome {
    use std::marker::PhantomData;

    use crate::error::ToolError;

    /// The handler returns a `Result`.
    pub struct Fallible;
    /// The handler returns a plain value.
    pub struct Infallible;

    /// Chosen for `Result<T, E>`.
    pub trait FallibleKind {
        /// The tag of the return type.
        fn outcome_kind(&self) -> Fallible {
            Fallible
        }
    }
    impl<T, E> FallibleKind for PhantomData<Result<T, E>> {}

    /// Chosen for every other type, one auto-reference later.
    pub trait ValueKind {
        /// The tag of the return type.
        fn outcome_kind(&self) -> Infallible {
            Infallible
        }
    }
    impl<T> ValueKind for &PhantomData<T> {}

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
