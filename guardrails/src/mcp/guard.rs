//! Guarding the native tools of an rmcp `ToolRouter`: [`guard_router`] and [`RouterGuard`].

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::future::{Future, ready};
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex, PoisonError, RwLock, Weak};
use std::task::{Context, Poll};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

use crate::call::schema::SchemaCheck;
use crate::call::{self, Admitted, Completion, GuardConfig, Served, Who};
use crate::contract::Contract;
use crate::message::{
    ByteCut, Filter, RepairNotice, Truncated, TruncationNotice, paging_name, refine_advice_with,
};
use crate::operate::{Operations, RateLimit, ToolFacts, ToolTelemetry};
use crate::profile::SchemaProfile;
use crate::render::RenderOptions;
use crate::text::json_text;
use crate::tool::CallSettings;
use crate::tool::budget::{Budget, Cut};
use crate::validation::{ArgsInfo, SchemaArgs, SchemaError, SchemaOptions};

use crate::call::reading::ArgsReader;

/// Guards every tool of an rmcp `ToolRouter`, rendering messages as XML-style tags: the
/// router, with each tool's `inputSchema` made strict and its arguments checked against it
/// before the handler runs. The same as `RouterGuard::new().guard(router)`; see
/// [`RouterGuard`] for the render format and limits on results.
///
/// Build the guarded router once and clone it (its routes are shared): the validators are
/// compiled here. The router must be the one the server serves: rmcp's default
/// `#[tool_handler]` asks `Self::tool_router()` on every request, not a field. On a
/// `#[tool_router]` impl, [`#[guarded]`](macro@crate::guarded) guards that function itself,
/// for every shape of server.
///
/// # Panics
/// When a tool's input schema does not compile (a reference to another document, an invalid
/// keyword): a server that cannot check a tool's arguments does not start.
#[must_use]
pub fn guard_router<S: Send + Sync + 'static>(router: ToolRouter<S>) -> ToolRouter<S> {
    RouterGuard::new().guard(router)
}

/// Limits on the result of one native tool: an agent limit on a list, and a byte cap and a
/// token budget on the whole payload (tokens as
/// [`estimate_tokens`](crate::present::estimate_tokens) counts them).
///
/// ```
/// use guardrails::mcp::ResultLimits;
///
/// let limits = ResultLimits::new().agent_limit(50).max_bytes(16 * 1024).max_tokens(4_000);
/// # let _ = limits;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResultLimits {
    /// The most items of a list result that reach the model.
    pub(crate) agent_limit: Option<usize>,
    /// The most bytes of text that reach the model.
    pub(crate) max_bytes: Option<usize>,
    /// The most tokens of text that reach the model, as
    /// [`estimate_tokens`](crate::present::estimate_tokens) counts them.
    pub(crate) max_tokens: Option<usize>,
}

impl ResultLimits {
    /// No limit.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            agent_limit: None,
            max_bytes: None,
            max_tokens: None,
        }
    }

    /// Shows at most `max` items of a list result (at least one).
    #[must_use]
    pub const fn agent_limit(mut self, max: usize) -> Self {
        self.agent_limit = Some(if max == 0 { 1 } else { max });
        self
    }

    /// Cuts the text of a result to `max` bytes.
    #[must_use]
    pub const fn max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = Some(max);
        self
    }

    /// Cuts the text of a result to `max` tokens, as
    /// [`estimate_tokens`](crate::present::estimate_tokens) counts them (at least one).
    #[must_use]
    pub const fn max_tokens(mut self, max: usize) -> Self {
        self.max_tokens = Some(if max == 0 { 1 } else { max });
        self
    }

    const fn is_none(&self) -> bool {
        self.agent_limit.is_none() && self.max_bytes.is_none() && self.max_tokens.is_none()
    }

    const fn budget(&self) -> Budget {
        Budget::new(self.max_bytes, self.max_tokens)
    }
}

/// How [`guard_router`] guards a router: the format of its messages and the limits on the
/// results of some of its tools.
///
/// Every native tool of the router is guarded (a `#[guardrails::tool]` method in it is left to
/// its own pipeline, which checks its calls already, with the coaching its declarations give):
///
/// - its advertised `inputSchema` is made strict ([`strict_schema`](crate::validation::strict_schema):
///   every object that says nothing of other keys closed where serde closes it, at the object
///   and not in the branches of a flattened or tagged enum, local `$ref`s inlined, integer
///   formats made bounds), and a call's arguments are checked against it before the handler
///   runs; string `format`s are annotations unless [`assert_formats`](Self::assert_formats)
///   is set;
/// - a call that does not validate gets every issue in one tool result with `isError: true`,
///   coached as the derived tools' are, through the same routines: each issue's path, code,
///   what was sent, what is expected, how to fix it, a did-you-mean for unknown keys and
///   mistyped tags, a field sent at the wrong level pointed to its place, each enum
///   representation's mistakes worded as the derive words them (the issues of the variant a
///   tag names at their paths, that variant's fields for a key it does not take), a valid
///   example built from the schema and checked against it (none rather than one that does
///   not validate), and the recovery directive;
/// - under [`#[guarded]`](macro@crate::guarded), which knows each tool's argument type, a call
///   the schema refuses only for what that type decides, and that serde reads into it, reaches
///   the tool as sent (an alias, a string the type reads itself, a `Deserialize` written by
///   hand), and is logged on the audit target; a key serde drops and a rule the schema
///   declares are still refused;
/// - a valid call reaches the tool unchanged, and its result comes back unchanged unless a
///   limit of [`tool`](Self::tool) cuts it or a repair of its arguments is reported (a text
///   block and `_meta` receipts, where the tool repairs calls); an error result the tool
///   returns itself (`isError: true`) is never cut, and gets nothing else: its failure is
///   classified in telemetry, not in its `_meta`;
/// - everything else (an unknown tool, a protocol error) is left to rmcp.
///
/// An agent limit cuts a list result: a structured result that is an object with one array
/// (what rmcp's `Json<T>` returns for a struct with one list), or a text result that is a JSON
/// array. Past the limit only the first items are kept, and a teaching block says how many of
/// how many are shown and which of the tool's optional parameters narrow the next call, with
/// the values they accept, read from its schema. A byte cap or a token budget keeps the items
/// that fit, or cuts a text at a character boundary, and says so.
///
/// A complete server is in the [module docs](crate::mcp). Limits name tools of the router:
///
/// ```
/// use guardrails::mcp::{ResultLimits, RouterGuard};
/// use guardrails::{GuardConfig, RenderFormat};
/// # use rmcp::handler::server::router::tool::ToolRouter;
/// # struct Server;
/// # let router: ToolRouter<Server> = ToolRouter::new();
///
/// let guard = RouterGuard::new()
///     .config(GuardConfig::new().format(RenderFormat::Markdown))
///     .tool("search", ResultLimits::new().agent_limit(20).max_bytes(8 * 1024));
/// // This router has no `search` tool.
/// let error = guard.try_guard(router).unwrap_err();
/// assert!(error.to_string().contains("`search`, which is not a tool of the router"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct RouterGuard {
    /// The guardrails every kind of server sets the same way.
    config: GuardConfig,
    limits: BTreeMap<String, ResultLimits>,
    schema: SchemaOptions,
    tool_rate_limits: BTreeMap<String, RateLimit>,
    /// The tools whose own argument type can be asked whether it reads a call's arguments,
    /// by name (what [`#[guarded]`](macro@crate::guarded) registers; see [`with_readers`]).
    readers: BTreeMap<String, ArgsReader>,
}

/// `guard`, each tool of `readers` let through when its own argument type reads a call the
/// schema refuses only for what that type decides (see the module `reading`): what
/// [`#[guarded]`](macro@crate::guarded) guards a router with, the type of each tool's
/// `Parameters<T>` known where the tool is written.
#[doc(hidden)]
#[must_use]
pub fn with_readers(mut guard: RouterGuard, readers: &[(&str, ArgsReader)]) -> RouterGuard {
    for (name, read) in readers {
        guard.readers.insert((*name).to_owned(), *read);
    }
    guard
}

impl RouterGuard {
    /// Guards every tool, rendering messages as XML-style tags, without limits.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Refuses a string that breaks its `format` (`date-time`, `uuid`, `email`, …). By default
    /// a format is an annotation, as JSON Schema 2020-12 makes it: the types a native tool
    /// reads its arguments into are often more lenient than the format they advertise (chrono
    /// reads `2024-01-02 03:04:05Z`, uuid reads the simple and `urn:` forms), and the guard
    /// never refuses what the tool accepts. Integer formats (`int32`, `uint8`, …) are always
    /// checked, as the bounds of the type they name, and so is a whole number written as a
    /// float (`3.0`) where an integer is read: JSON Schema counts it an integer, serde refuses
    /// it, so the guard coaches it ("send 3").
    #[must_use]
    pub fn assert_formats(mut self) -> Self {
        self.schema = self.schema.assert_formats(true);
        self
    }

    /// Reads a whole number written as a float (`5.0`, `1e2`, `-0.0`) as an integer, as JSON
    /// Schema counts it, for tools whose servers read it so (pydantic, zod, JavaScript): by
    /// default it is refused where the schema says `integer`, as serde refuses it.
    #[must_use]
    pub fn schema_integers(mut self) -> Self {
        self.schema = self.schema.schema_integers(true);
        self
    }

    /// Limits the calls of tool `name`, for each caller, beside any limit of the whole router.
    #[must_use]
    pub fn tool_rate_limit(mut self, name: impl Into<String>, limit: RateLimit) -> Self {
        self.tool_rate_limits.insert(name.into(), limit);
        self
    }

    /// Sets the limits on the results of tool `name`.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, limits: ResultLimits) -> Self {
        self.limits.insert(name.into(), limits);
        self
    }

    /// Sets the guardrails of every call: the format of messages, audit mode, repairs, ignored
    /// keys, the loop breaker, rate limits, known-good contracts, the schema profile and the
    /// state store, all in one [`GuardConfig`] (see its methods for what each does to native
    /// tools), the configuration a [`Server`](crate::Server) and the proxy take too. A second
    /// call replaces the first.
    ///
    /// ```
    /// use guardrails::mcp::RouterGuard;
    /// use guardrails::operate::RateLimit;
    /// use guardrails::{GuardConfig, RepairPolicy};
    /// # use rmcp::handler::server::router::tool::ToolRouter;
    /// # struct Server;
    /// # let router: ToolRouter<Server> = ToolRouter::new();
    ///
    /// let config = GuardConfig::new()
    ///     .repair(RepairPolicy::On)
    ///     .rate_limit(RateLimit::per_second(20));
    /// let router = RouterGuard::new().config(config).guard(router);
    /// # let _ = router;
    /// ```
    ///
    /// The limits on results, the per-tool rate limits and the reading of the schemas
    /// ([`assert_formats`](Self::assert_formats), [`schema_integers`](Self::schema_integers))
    /// are the guard's own and stay as they are.
    #[must_use]
    pub fn config(mut self, config: GuardConfig) -> Self {
        self.config = config;
        self
    }

    /// The render options of the guard's messages: a native tool's schema is the
    /// `inputSchema` the client already has, so its rejections go without a schema summary.
    fn render(&self) -> RenderOptions {
        self.config.render.clone().with_schema_summary(false)
    }

    /// How the calls of a tool with contract `awareness` are answered. Native tools check no
    /// output: the route's own result comes back as it wrote it.
    fn settings(&self, awareness: Option<crate::contract::Awareness>) -> CallSettings {
        self.config.settings(self.render(), awareness, false)
    }

    /// The router with every tool guarded.
    ///
    /// # Panics
    /// When a tool's input schema does not compile, or limits were set for a tool the router
    /// does not have; [`try_guard`](Self::try_guard) returns these as errors.
    #[must_use]
    pub fn guard<S: Send + Sync + 'static>(self, router: ToolRouter<S>) -> ToolRouter<S> {
        match self.try_guard(router) {
            Ok(router) => router,
            Err(error) => panic!("{error}"),
        }
    }

    /// The router with every tool guarded.
    ///
    /// A route this guard, or one with the same settings, guarded already is left as it is:
    /// guarding twice checks each call once.
    ///
    /// # Errors
    /// A tool's input schema does not compile, limits were set for a tool the router does
    /// not have, or a tool was guarded already with other settings (a format, limits or mode
    /// that would be silently ignored).
    pub fn try_guard<S: Send + Sync + 'static>(
        self,
        mut router: ToolRouter<S>,
    ) -> Result<ToolRouter<S>, GuardError> {
        if let Some(name) = self
            .limits
            .keys()
            .chain(self.tool_rate_limits.keys())
            .find(|name| !router.map.contains_key(name.as_str()))
        {
            let mut available: Vec<String> = router.map.keys().map(ToString::to_string).collect();
            available.sort();
            return Err(GuardError::UnknownTool {
                name: name.clone(),
                available,
            });
        }
        let operations = Arc::new(
            self.config.operations(
                self.tool_rate_limits
                    .iter()
                    .map(|(name, limit)| (name.as_str(), *limit)),
            ),
        );
        for (name, route) in &mut router.map {
            let limits = self.limits.get(name.as_ref()).copied().unwrap_or_default();
            // A `#[guardrails::tool]` method's own pipeline checks its calls, with the coaching
            // its declarations give; limits on it are the tool's own.
            if super::is_derived_schema(&route.attr.input_schema) {
                if limits.is_none() {
                    continue;
                }
                return Err(GuardError::DerivedTool {
                    tool: name.to_string(),
                });
            }
            if let Some(guarded) = guarded_by(&route.attr.input_schema) {
                if guarded.limits == limits
                    && guarded.settings.audit == self.config.audit
                    && guarded.settings.render == self.render()
                    && guarded.schema_options == self.schema
                    && guarded.settings.repair == self.config.repair
                    && guarded.settings.ignore_keys == self.config.ignore_keys
                    && guarded.profile == self.config.profile
                {
                    continue;
                }
                return Err(GuardError::AlreadyGuarded {
                    tool: name.to_string(),
                });
            }
            let args = SchemaArgs::with_options(&route.attr.input_schema, self.schema).map_err(
                |source| GuardError::Schema {
                    tool: name.to_string(),
                    source,
                },
            )?;
            // Audited, the tool keeps its own schema: nothing changes for the client.
            let schema = Arc::new(if self.config.audit {
                (*route.attr.input_schema).clone()
            } else {
                self.config.profile.advertise(args.schema())
            });
            if !self.config.audit
                && let Some(output) = &route.attr.output_schema
            {
                route.attr.output_schema =
                    Some(Arc::new(self.config.profile.for_output().advertise(output)));
            }
            let destructive = route
                .attr
                .annotations
                .as_ref()
                .is_some_and(|hints| hints.destructive_hint == Some(true));
            let awareness = self.config.known_good.as_ref().and_then(|known_good| {
                known_good.awareness(
                    &Contract::from_definition(&route.attr),
                    &self.config.awareness,
                )
            });
            let guard = NativeTool::new(
                name.to_string(),
                args,
                limits,
                self.settings(awareness),
                self.schema,
                Arc::clone(&schema),
            )
            .operated_by(
                Arc::clone(&operations),
                route.attr.annotations.as_ref().is_some_and(|hints| {
                    hints.idempotent_hint == Some(true) || hints.read_only_hint == Some(true)
                }),
            )
            .destructive(destructive)
            .advertised_as(self.config.profile)
            .read_by(self.readers.get(name.as_ref()).copied());
            let guard = Arc::new(guard);
            register(&schema, &guard);
            route.attr.input_schema = schema;
            let inner = Arc::clone(&route.call);
            route.call = Arc::new(move |ctx: ToolCallContext<'_, S>| guard.call(&inner, ctx));
        }
        Ok(router)
    }
}

/// The guarded routes alive, by the address of the schema each advertises: an entry holds a
/// weak reference to that schema, so its address is not reused while the entry exists.
type Registry = HashMap<usize, (Weak<JsonObject>, Weak<NativeTool>)>;

static GUARDED: LazyLock<Mutex<Registry>> = LazyLock::new(Mutex::default);

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    GUARDED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records that the route advertising `schema` is guarded by `tool`.
fn register(schema: &Arc<JsonObject>, tool: &Arc<NativeTool>) {
    let mut guarded = registry();
    // Forget routers that are gone, before the map would grow.
    if guarded.len() == guarded.capacity() {
        guarded.retain(|_, (schema, _)| schema.strong_count() > 0);
    }
    guarded.insert(
        Arc::as_ptr(schema) as usize,
        (Arc::downgrade(schema), Arc::downgrade(tool)),
    );
}

/// The guard of the route that advertises `schema`, when it is one guarded here.
fn guarded_by(schema: &Arc<JsonObject>) -> Option<Arc<NativeTool>> {
    let guarded = registry();
    let (weak, tool) = guarded.get(&(Arc::as_ptr(schema) as usize))?;
    weak.upgrade()
        .filter(|kept| Arc::ptr_eq(kept, schema))
        .and(tool.upgrade())
}

/// The guarded routers that `#[guarded]` built, one per unguarded router function (keyed by
/// the type of that function, which is one per impl and per instance of a generic impl).
static ROUTERS: LazyLock<RwLock<Routers>> = LazyLock::new(RwLock::default);

type Routers = HashMap<TypeId, Box<dyn Any + Send + Sync>>;

/// The guarded router of the unguarded router function `unguarded`, built and guarded with
/// `guard` on the first call and shared by every later one: what `#[guarded]` makes
/// `Self::tool_router()` return, so that rmcp's handler, which asks for the router on each
/// request, gets it without compiling a validator again.
///
/// # Panics
/// When the router cannot be guarded ([`RouterGuard::guard`]): a server that cannot check its
/// tools' arguments does not serve them.
#[doc(hidden)]
pub fn guarded_router<S, F>(unguarded: F, guard: impl FnOnce() -> RouterGuard) -> ToolRouter<S>
where
    S: Send + Sync + 'static,
    F: FnOnce() -> ToolRouter<S> + 'static,
{
    let key = TypeId::of::<F>();
    let find = |routers: &Routers| routers.get(&key)?.downcast_ref::<ToolRouter<S>>().cloned();
    if let Some(router) = find(&ROUTERS.read().unwrap_or_else(PoisonError::into_inner)) {
        return router;
    }
    // Built outside the lock: `guard` is the user's code, and may ask for another router.
    let router = guard().guard(unguarded());
    let mut routers = ROUTERS.write().unwrap_or_else(PoisonError::into_inner);
    // A router another thread built meanwhile is kept, so that every caller shares one.
    if let Some(router) = find(&routers) {
        return router;
    }
    routers.insert(key, Box::new(router.clone()));
    router
}

/// Why a router could not be guarded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GuardError {
    /// A tool's input schema does not compile.
    #[error("tool `{tool}`: {source}")]
    Schema {
        /// The tool.
        tool: String,
        /// What is wrong with its schema.
        source: SchemaError,
    },
    /// A tool was guarded already, with other settings: a router guarded by `#[guarded]`
    /// (whose `Self::tool_router()` returns it guarded) passed to a guard of its own.
    #[error(
        "tool `{tool}` is guarded already, with other settings: guard it once (with \
         `#[guarded]`, set the settings in `#[guarded(guard = …)]` and drop the other guard)"
    )]
    AlreadyGuarded {
        /// The tool.
        tool: String,
    },
    /// Limits were set for a tool written with `#[guardrails::tool]`, whose limits are its own.
    #[error(
        "limits set for `{tool}`, a `#[guardrails::tool]`: set them on the tool \
         (`#[tool(agent_limit = .., max_bytes = .., max_tokens = ..)]`)"
    )]
    DerivedTool {
        /// The tool.
        tool: String,
    },
    /// Limits were set for a tool the router does not have.
    #[error("limits set for `{name}`, which is not a tool of the router (its tools: {})", available.join(", "))]
    UnknownTool {
        /// The name given.
        name: String,
        /// The router's tools.
        available: Vec<String>,
    },
}

/// One guarded native tool: what its calls are checked against and how its results are cut.
/// Its calls run the one pipeline ([`call`](crate::call)): [`admit`] before the tool's own
/// future, [`Completion::finish`] after it.
struct NativeTool {
    /// How its arguments are checked.
    check: SchemaCheck,
    /// How its calls are answered: render options, contract awareness, audit, repair, ignored keys.
    settings: CallSettings,
    limits: ResultLimits,
    filters: Vec<Filter>,
    paging: Vec<&'static str>,
    /// How the schema was read (whether formats are asserted).
    schema_options: SchemaOptions,
    /// The schema the route advertises, kept so that its address identifies the route as
    /// guarded for as long as this guard lives.
    _schema: Arc<JsonObject>,
    /// The schema the arguments are checked against, whose names telemetry's paths are made of.
    checked_schema: Value,
    /// The tool's name and the keys of its metrics.
    telemetry: ToolTelemetry,
    /// Whether the tool may run twice with the same effect (annotated idempotent or read-only).
    repeatable: bool,
    /// The loop breaker's memory and the pending repairs, shared by the guard's tools.
    operations: Arc<Operations>,
    /// Under a profile that makes every property required: the portable schema the calls are
    /// read against (a `null` for an optional property is the property left out).
    openai_reading: Option<JsonObject>,
    /// The profile its guard advertises the schemas in.
    profile: SchemaProfile,
}

type Inner<S> = rmcp::handler::server::tool::DynCallToolHandler<S>;
type CallFuture<'a> =
    futures_util::future::BoxFuture<'a, Result<CallToolResponse, rmcp::ErrorData>>;

impl NativeTool {
    fn new(
        name: String,
        args: SchemaArgs,
        limits: ResultLimits,
        settings: CallSettings,
        schema_options: SchemaOptions,
        schema: Arc<JsonObject>,
    ) -> Self {
        let mut filters = Vec::new();
        let mut paging = Vec::new();
        for (property, accepts) in args.optional_properties() {
            match paging_name(&property) {
                Some(name) => paging.push(name),
                None => filters.push(Filter {
                    name: property.into(),
                    accepts,
                }),
            }
        }
        Self {
            checked_schema: Value::Object(args.schema().clone()),
            telemetry: ToolTelemetry::new(&name),
            repeatable: false,
            operations: Arc::default(),
            openai_reading: None,
            profile: SchemaProfile::Portable,
            check: SchemaCheck::new(name, args),
            settings,
            limits,
            filters,
            paging,
            schema_options,
            _schema: schema,
        }
    }

    /// The tool's name.
    fn name(&self) -> &str {
        &self.check.name
    }

    /// This tool, its calls observed by `operations`; `repeatable` when it may run twice
    /// with the same effect (annotated idempotent or read-only).
    fn operated_by(mut self, operations: Arc<Operations>, repeatable: bool) -> Self {
        self.operations = operations;
        self.repeatable = repeatable;
        self
    }

    /// This tool, annotated `destructive` or not (a repair policy may spare it).
    fn destructive(mut self, destructive: bool) -> Self {
        self.check.destructive = destructive;
        self
    }

    /// This tool, advertised under `profile`.
    fn advertised_as(mut self, profile: SchemaProfile) -> Self {
        self.profile = profile;
        // Audited, the tool keeps its own schema, and its calls their nulls.
        self.openai_reading = (profile.null_is_absent() && !self.settings.audit)
            .then(|| SchemaProfile::Portable.advertise(self.check.args.schema()));
        self
    }

    /// This tool, a call its schema refuses let through when `reader` reads it as sent.
    fn read_by(mut self, reader: Option<ArgsReader>) -> Self {
        self.check.reader = reader;
        self
    }

    /// How a call of this tool is served, by `caller`.
    fn served<'a>(&'a self, caller: Who<'a>) -> Served<'a> {
        let mut served = Served::operated(&self.settings, &self.operations, self.facts(), caller);
        // Set in place: the served call is not moved again.
        served.reading = self.openai_reading.as_ref();
        served
    }

    /// A call: through the pipeline to the tool's own call, its result cut to the limits.
    /// Without limits a valid call is the tool's own future.
    fn call<'a, S: Send + Sync + 'static>(
        self: &Arc<Self>,
        inner: &Arc<Inner<S>>,
        mut ctx: ToolCallContext<'a, S>,
    ) -> CallFuture<'a> {
        // A call without arguments is checked as `{}`, and reaches the tool as it came.
        let sent = ctx.arguments.take();
        let was_sent = sent.is_some();
        if self.operations.is_shared() {
            return self.call_shared(inner, ctx, sent);
        }
        let admitted = {
            let request = &ctx.request_context;
            let ask = || super::caller_of(request);
            let served = self.served(Who::Ask(&ask));
            // Without a shared store, the operations keep their state in the process, so admitting is never
            // pending: polled once where it stands (not moved, as `now_or_never` would move
            // it), and no state machine wraps the tool's own future.
            let admitting = std::pin::pin!(call::admit(
                &self.check,
                &served,
                Value::Object(sent.unwrap_or_default()),
                |_| None,
            ));
            admitting.poll(&mut Context::from_waker(std::task::Waker::noop()))
        };
        match admitted {
            Poll::Pending => Box::pin(ready(Err(rmcp::ErrorData::internal_error(
                "the guard's operations were not ready",
                None,
            )))),
            Poll::Ready(Admitted::Answered(output)) => {
                Box::pin(ready(Ok(super::call_result(output).into())))
            }
            Poll::Ready(Admitted::Pass(pass)) => {
                if was_sent {
                    ctx.arguments = Some(pass.args);
                }
                Box::pin(Running {
                    tool: Arc::clone(self),
                    future: inner(ctx),
                    completion: pass.completion,
                })
            }
        }
    }

    /// A call admitted through the shared store, whose answers take a round trip: the
    /// admission is awaited before the tool's own future.
    fn call_shared<'a, S: Send + Sync + 'static>(
        self: &Arc<Self>,
        inner: &Arc<Inner<S>>,
        mut ctx: ToolCallContext<'a, S>,
        sent: Option<JsonObject>,
    ) -> CallFuture<'a> {
        let tool = Arc::clone(self);
        let inner = Arc::clone(inner);
        Box::pin(async move {
            let was_sent = sent.is_some();
            let caller = super::caller_of(&ctx.request_context);
            let admitted = {
                let served = tool.served(Who::Known(caller));
                call::admit(
                    &tool.check,
                    &served,
                    Value::Object(sent.unwrap_or_default()),
                    |_| None,
                )
                .await
            };
            match admitted {
                Admitted::Answered(output) => Ok(super::call_result(output).into()),
                Admitted::Pass(pass) => {
                    if was_sent {
                        ctx.arguments = Some(pass.args);
                    }
                    Running {
                        tool,
                        future: inner(ctx),
                        completion: pass.completion,
                    }
                    .await
                }
            }
        })
    }

    /// What the operations layer knows of this tool.
    fn facts(&self) -> ToolFacts<'_> {
        ToolFacts {
            telemetry: &self.telemetry,
            schema: &self.checked_schema,
            example: &self.check.example,
            repeatable: self.repeatable,
            format: self.settings.render.format,
            echo_values: self.settings.render.echo_values,
        }
    }

    /// The tool's response to a call: completed by the pipeline (recorded, counted), cut to
    /// the limits, and told of the repairs made to its arguments. The tool's own error
    /// result comes back as the tool wrote it, its classification only in telemetry.
    fn complete(&self, completion: &Completion, response: CallToolResponse) -> CallToolResponse {
        let result = match response {
            CallToolResponse::Complete(result) => result,
            // A task, or a request for the client's input: the call ends here for the guard
            // (recorded, counted), and its repairs go in the answer's `_meta`, where a client
            // reads them; the task's result is the tool's to write.
            other => return self.complete_without_result(completion, other),
        };
        let failed = result.is_error == Some(true);
        completion.finish_result(&self.served(Who::Known(None)), failed);
        let mut result = if failed || self.limits.is_none() {
            result
        } else {
            self.present(result)
        };
        let repairs = &completion.repairs;
        if !repairs.is_empty() {
            let notice = RepairNotice::new(self.name(), repairs);
            result
                .content
                .push(ContentBlock::text(crate::render::repairs(
                    &notice,
                    &self.settings.render,
                )));
            result.meta.get_or_insert_with(Default::default).insert(
                super::REPAIRS_META_KEY.to_owned(),
                crate::render::repairs_value(repairs),
            );
        }
        CallToolResponse::Complete(result)
    }

    /// The tool's answer that is not a result yet ([`NativeTool::complete`]).
    fn complete_without_result(
        &self,
        completion: &Completion,
        mut response: CallToolResponse,
    ) -> CallToolResponse {
        completion.finish_result(&self.served(Who::Known(None)), false);
        let repairs = &completion.repairs;
        if !repairs.is_empty() {
            let meta = match &mut response {
                CallToolResponse::Task(task) => Some(&mut task.meta),
                CallToolResponse::InputRequired(input) => Some(&mut input.meta),
                _ => None,
            };
            if let Some(meta) = meta {
                meta.get_or_insert_with(Default::default).insert(
                    super::REPAIRS_META_KEY.to_owned(),
                    crate::render::repairs_value(repairs),
                );
            }
        }
        response
    }

    /// A successful result cut to the limits, with a teaching block when anything was cut.
    fn present(&self, mut result: CallToolResult) -> CallToolResult {
        // A structured object with one list: rmcp's `Json<T>` of a struct holding the items.
        if let Some(structured) = &mut result.structured_content
            && let Some(object) = structured.as_object_mut()
        {
            let mut lists = object.iter_mut().filter(|(_, v)| v.is_array());
            if let (Some((_, Value::Array(items))), None) = (lists.next(), lists.next()) {
                if let Some(notice) = self.cut_items(items) {
                    // The text is the object as cut, written from where it is kept.
                    let text = json_text(structured);
                    result.content = vec![ContentBlock::text(text), ContentBlock::text(notice)];
                }
                return result;
            }
        }
        // A structured list: rmcp's `Json<Vec<T>>`. Cut where it is kept, or the uncut list
        // would still reach the client, and rmcp would put it back as the first text block for
        // a client older than 2026-07-28, which gets no non-object `structuredContent`.
        if let Some(structured) = &mut result.structured_content
            && let Value::Array(items) = structured
        {
            if let Some(notice) = self.cut_items(items) {
                let text = json_text(structured);
                result.content = vec![ContentBlock::text(text), ContentBlock::text(notice)];
            }
            return result;
        }
        let Some(first) = result.content.first().and_then(ContentBlock::as_text) else {
            return result;
        };
        let first = &first.text;
        if first.trim_start().starts_with('[')
            && let Ok(Value::Array(mut items)) = serde_json::from_str::<Value>(first)
        {
            if let Some(notice) = self.cut_items(&mut items) {
                result.content[0] = ContentBlock::text(json_text(&Value::Array(items)));
                result.content.insert(1, ContentBlock::text(notice));
            }
            return result;
        }
        let head = self.limits.budget().head(first).len();
        if head < first.len() {
            let notice = crate::render::byte_cut(
                &ByteCut {
                    tool: self.name(),
                    shown: head,
                    total: first.len(),
                    advice: refine_advice_with(&self.filters),
                },
                &self.settings.render,
            );
            // A structured string (rmcp's `Json<String>`) is cut where it is kept too, for the
            // same reason as a structured list.
            if let Some(structured) = &mut result.structured_content
                && let Value::String(text) = structured
            {
                let kept = self.limits.budget().head(text).len();
                text.truncate(kept);
                let text = json_text(structured);
                result.content = vec![ContentBlock::text(text), ContentBlock::text(notice)];
                return result;
            }
            let head = first[..head].to_owned();
            result.content[0] = ContentBlock::text(head);
            result.content.insert(1, ContentBlock::text(notice));
        }
        result
    }

    /// Cuts `items` to the agent limit and the byte cap; the teaching block when any was cut.
    fn cut_items(&self, items: &mut Vec<Value>) -> Option<String> {
        let total = items.len();
        let limit = self.limits.agent_limit.unwrap_or(usize::MAX);
        items.truncate(limit);
        let (fits, cut) = self
            .limits
            .budget()
            .fitting(items, &Value::Array(Vec::new()));
        items.truncate(fits);
        let shown = items.len();
        if shown == total {
            return None;
        }
        let truncated = Truncated {
            tool: self.name(),
            shown,
            total,
            limit: limit.min(total),
            by_bytes: cut == Some(Cut::Bytes),
            by_tokens: cut == Some(Cut::Tokens),
            args: &ArgsInfo::UNDECLARED,
        };
        let notice = TruncationNotice::with_parameters(
            &truncated,
            self.filters.clone(),
            self.paging.clone(),
        );
        Some(crate::render::truncation(&notice, &self.settings.render))
    }
}

/// A valid call of a native tool running: the tool's own future polled inside the call's
/// span, its response completed by the guard ([`NativeTool::complete`]) once it is ready.
/// Written out rather than as an `async` block instrumented with a clone of the span: one
/// span, entered where it is kept, and no state machine around the tool's future.
struct Running<'a> {
    tool: Arc<NativeTool>,
    future: CallFuture<'a>,
    /// Read in place when the response is ready: a future is not polled again once ready.
    completion: Completion,
}

impl Future for Running<'_> {
    type Output = Result<CallToolResponse, rmcp::ErrorData>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let in_span = this.completion.call.as_ref().map(|call| call.span.enter());
        let response = match this.future.as_mut().poll(cx) {
            Poll::Ready(Ok(response)) => response,
            Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
            Poll::Pending => return Poll::Pending,
        };
        drop(in_span);
        Poll::Ready(Ok(this.tool.complete(&this.completion, response)))
    }
}
