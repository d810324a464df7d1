//! A server of guarded tools on a shared state: the registry, the one entry point of every
//! call, and the known-good contracts that make errors of changed tools self-healing. No
//! transport lives here: [`Server::call`] runs a call in process, and the rmcp adapter
//! ([`crate::mcp`], feature `rmcp`) serves the same server over stdio or Streamable HTTP.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::call::{GuardConfig, Served, Tool, Who};
use crate::contract::{AwarenessConfig, Contract, ContractSource, KnownGood, ServerContract};
use crate::operate::{
    Caller, LoopBreaker, Operations, RateLimit, StateStore, ToolFacts, ToolTelemetry,
};
use crate::profile::SchemaProfile;
use crate::render::{RenderFormat, RenderOptions};
use crate::text::cut;
use crate::tool::leniency::{IgnoreKeys, RepairPolicy};
use crate::tool::{CallOutput, CallSettings, ToolSpec};

/// The most characters of an unknown tool's name that an error echoes back.
const MAX_TOOL_NAME_CHARS: usize = 64;

/// The name, version and texts a server announces when a client connects.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) instructions: Option<String>,
}

/// A registered tool and how its calls are answered.
pub(crate) struct Entry<S> {
    pub(crate) tool: Arc<dyn Tool<S>>,
    /// The server's render options and, when the tool changed since the known-good lockfile,
    /// its contract awareness.
    pub(crate) settings: CallSettings,
    /// The tool's name and the keys of its metrics, built once.
    pub(crate) telemetry: Arc<ToolTelemetry>,
}

impl<S> Clone for Entry<S> {
    fn clone(&self) -> Self {
        Self {
            tool: Arc::clone(&self.tool),
            settings: self.settings.clone(),
            telemetry: Arc::clone(&self.telemetry),
        }
    }
}

pub(crate) struct ToolSet<S> {
    pub(crate) entries: Vec<Entry<S>>,
    pub(crate) by_name: HashMap<&'static str, usize>,
}

impl<S> Clone for ToolSet<S> {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
            by_name: self.by_name.clone(),
        }
    }
}

/// A call to a tool that no server tool has the name of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool: {name}")]
#[non_exhaustive]
pub struct UnknownTool {
    /// The name called, cut to a bounded length (it comes from the caller).
    pub name: String,
    /// The names of the server's tools.
    pub available: Vec<&'static str>,
}

/// A server of guarded tools on a shared state.
///
/// Cloning is cheap (the state and the tools are shared), which is what the HTTP transport does
/// for each session.
///
/// ```no_run
/// # use guardrails::{Server, ToolArgs, tool};
/// # #[derive(serde::Deserialize, ToolArgs)] struct Ping {}
/// # /// Replies.
/// # #[tool] fn ping(_args: Ping) -> String { "pong".into() }
/// # struct AppState;
/// # impl AppState { fn seeded() -> Self { AppState } }
/// # async fn serve() -> std::io::Result<()> {
/// Server::new(AppState::seeded())
///     .name(env!("CARGO_PKG_NAME"))
///     .version(env!("CARGO_PKG_VERSION"))
///     .tool(ping)
///     .serve_stdio()
///     .await
/// # }
/// ```
pub struct Server<S> {
    pub(crate) state: Arc<S>,
    pub(crate) tools: Arc<ToolSet<S>>,
    pub(crate) identity: Arc<Identity>,
    /// The guardrails of every call: rendering, audit, repair, ignored keys, the loop breaker,
    /// rate limits, known-good contracts, the schema profile, the state store.
    config: GuardConfig,
    /// Whether structured results are checked against their output schema.
    check_outputs: bool,
    /// The clients (by the start of their name, lowercase) served another schema profile
    /// than the configuration's.
    profiles_by_client: Arc<Vec<(String, SchemaProfile)>>,
    /// The loop breaker's memory, the rate limits' state and the rejections waiting for
    /// their repair, shared by the clones that serve each session.
    operations: Arc<Operations>,
}

impl<S> Clone for Server<S> {
    fn clone(&self) -> Self {
        Self {
            state: Arc::clone(&self.state),
            tools: Arc::clone(&self.tools),
            identity: Arc::clone(&self.identity),
            config: self.config.clone(),
            check_outputs: self.check_outputs,
            profiles_by_client: Arc::clone(&self.profiles_by_client),
            operations: Arc::clone(&self.operations),
        }
    }
}

impl<S: 'static> fmt::Debug for Server<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.specs().map(ToolSpec::name).collect();
        f.debug_struct("Server")
            .field("identity", &self.identity)
            .field("tools", &names)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<S: 'static> Server<S> {
    /// The specs of the tools, in the order they were added (for
    /// [`assert_lockfile`](crate::contract::assert_lockfile)).
    pub fn specs(&self) -> impl Iterator<Item = &'static ToolSpec> + '_ {
        self.tools.entries.iter().map(|e| e.tool.spec())
    }
}

impl<S: Send + Sync + 'static> Server<S> {
    /// A server with no tools on `state`. It announces itself as `guardrails-server`; set your
    /// own name and version with [`Server::name`] and [`Server::version`].
    pub fn new(state: S) -> Self {
        Self::from_arc(Arc::new(state))
    }

    /// Like [`Server::new`], for a state that is already shared.
    pub fn from_arc(state: Arc<S>) -> Self {
        Self {
            state,
            tools: Arc::new(ToolSet {
                entries: Vec::new(),
                by_name: HashMap::new(),
            }),
            identity: Arc::new(Identity {
                name: "guardrails-server".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                title: None,
                instructions: None,
            }),
            config: GuardConfig::default(),
            check_outputs: cfg!(debug_assertions),
            profiles_by_client: Arc::default(),
            operations: Arc::default(),
        }
        .operate()
    }

    /// Adds a tool.
    ///
    /// Clients list the tools (`tools/list`) in the order they were added, the same on every
    /// call: the order is the author's (put the tools a model should consider first first),
    /// and a client that caches or compares the list sees no change that is not one.
    ///
    /// # Panics
    /// When a tool of the same name was added before: two tools cannot share a name, and
    /// finding out at startup beats serving the wrong one. When the tool's own example fails
    /// its validation (a `custom` or struct-level `check` rejects it, see
    /// [`ToolArgs::checked_example`](crate::ToolArgs::checked_example)): every rejection would
    /// tell the model to start from a call that is rejected again. The message names the tool
    /// and each issue; give an explicit example that passes (`#[guard(example = ..)]` on the
    /// field, or on the struct).
    #[must_use]
    pub fn tool<T: Tool<S>>(mut self, tool: T) -> Self {
        let spec = tool.spec();
        if let Some(report) = spec.example_rejection() {
            panic!("{}", example_refusal(spec, &report));
        }
        let settings = self.settings_of(spec);
        let set = Arc::make_mut(&mut self.tools);
        assert!(
            !set.by_name.contains_key(spec.name()),
            "two tools are named `{}`",
            spec.name()
        );
        set.by_name.insert(spec.name(), set.entries.len());
        set.entries.push(Entry {
            tool: Arc::new(tool),
            settings,
            telemetry: Arc::new(ToolTelemetry::new(spec.name())),
        });
        self.operate()
    }

    /// Sets the name announced to clients.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).name = name.into();
        self
    }

    /// Sets the version announced to clients.
    #[must_use]
    pub fn version(mut self, version: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).version = version.into();
        self
    }

    /// Sets the human-readable title announced to clients.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).title = Some(title.into());
        self
    }

    /// Sets the instructions given to clients when they connect.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.identity).instructions = Some(instructions.into());
        self
    }

    /// Sets the format of error messages and teaching blocks (XML-style tags by default).
    #[must_use]
    pub fn format(mut self, format: RenderFormat) -> Self {
        self.config.render.format = format;
        self.refresh()
    }

    /// Sets every render option: `RenderOptions::new(format).with_…`, or a format alone.
    #[must_use]
    pub fn render_options(mut self, options: impl Into<RenderOptions>) -> Self {
        self.config.render = options.into();
        self.refresh()
    }

    /// The render options.
    #[must_use]
    pub fn options(&self) -> &RenderOptions {
        &self.config.render
    }

    /// The shared state.
    #[must_use]
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The names of the tools, in the order they were added.
    pub(crate) fn tool_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.specs().map(ToolSpec::name)
    }

    /// The spec of the tool named `name`.
    #[must_use]
    pub fn spec(&self, name: &str) -> Option<&'static ToolSpec> {
        let &index = self.tools.by_name.get(name)?;
        Some(self.tools.entries[index].tool.spec())
    }

    /// Calls a tool in process, without a transport: the same pipeline a client's call runs.
    ///
    /// The arguments are any JSON value: a `json!({…})` as it is, or the map of a transport.
    /// An object is validated as the tool's arguments; `null` stands for no arguments, as an
    /// absent `arguments` does in MCP; anything else is rejected like any invalid arguments
    /// (an `isError` result that says an object is expected), never a panic.
    ///
    /// ```
    /// # use guardrails::{Server, ToolArgs, tool};
    /// #[derive(serde::Deserialize, ToolArgs)]
    /// struct Greet {
    ///     name: String,
    /// }
    ///
    /// /// Greets someone.
    /// #[tool]
    /// fn greet(args: Greet) -> String {
    ///     format!("Hello, {}!", args.name)
    /// }
    ///
    /// # fn main() -> Result<(), guardrails::UnknownTool> {
    /// # let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # runtime.block_on(async {
    /// let server = Server::new(()).tool(greet);
    /// let output = server.call("greet", serde_json::json!({"name": "Ada"})).await?;
    /// assert_eq!(output.text, ["Hello, Ada!"]);
    /// let rejected = server.call("greet", serde_json::json!(["Ada"])).await?;
    /// assert!(rejected.is_error);
    /// # Ok(()) })
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`UnknownTool`] when no tool has this name (a transport answers it as an invalid-params
    /// error).
    pub async fn call(
        &self,
        name: &str,
        arguments: impl Into<Value>,
    ) -> Result<CallOutput, UnknownTool> {
        self.call_from(name, arguments.into(), None, None).await
    }

    /// [`Server::call`] by `caller`, as far as the transport says who calls: the loop breaker
    /// remembers rejected calls per caller, and repairs are counted per caller. `reading`:
    /// the portable schema a call of a client served the openai profile is read against.
    pub(crate) async fn call_from(
        &self,
        name: &str,
        arguments: Value,
        caller: Caller,
        reading: Option<&Map<String, Value>>,
    ) -> Result<CallOutput, UnknownTool> {
        let Some(&index) = self.tools.by_name.get(name) else {
            return Err(self.unknown(name));
        };
        let entry = &self.tools.entries[index];
        let spec = entry.tool.spec();
        let hints = spec.annotations();
        let facts = ToolFacts {
            telemetry: &entry.telemetry,
            schema: spec.input_schema().as_value(),
            example: spec.example(),
            repeatable: hints.idempotent == Some(true) || hints.read_only == Some(true),
            format: self.config.render.format,
            echo_values: entry.settings.render.echo_values,
        };
        let served = Served::operated(&entry.settings, &self.operations, facts, Who::Known(caller))
            .read_against(reading);
        Ok(entry.tool.call(&self.state, arguments, &served).await)
    }

    pub(crate) fn unknown(&self, name: &str) -> UnknownTool {
        UnknownTool {
            name: cut(name, MAX_TOOL_NAME_CHARS).into_owned(),
            available: self.tool_names().collect(),
        }
    }

    /// Gives the contracts clients were last calibrated on, usually a lockfile embedded with
    /// `include_str!`. Each tool is diffed against them once, here and for tools added later;
    /// the errors of a tool that changed carry a `<contract_awareness>` block, other tools'
    /// errors stay as they are.
    ///
    /// ```no_run
    /// # use guardrails::contract::KnownGood;
    /// # const RELEASE_1_4_LOCK: &str = "";
    /// # fn main() -> Result<(), guardrails::contract::ContractError> {
    /// // In a real server: include_str!("../release-1.4.lock")
    /// let known_good = KnownGood::from_lockfile_str(RELEASE_1_4_LOCK)?;
    /// let server = guardrails::Server::new(()).known_good(known_good);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn known_good(mut self, known_good: KnownGood) -> Self {
        self.config.known_good = Some(known_good);
        self.refresh()
    }

    /// Sets which deltas errors carry (default: BREAKING and RISKY, at most 5, validation
    /// errors only). Takes effect with [`Server::known_good`], given before or after.
    #[must_use]
    pub fn contract_awareness(mut self, config: AwarenessConfig) -> Self {
        self.config.awareness = config;
        self.refresh()
    }

    /// Checks every structured result against the tool's advertised output schema (the MCP
    /// specification says a server MUST return results that conform to it): a result that
    /// does not becomes an `INTERNAL` tool error naming the path where it breaks the schema,
    /// so that the tool's tests fail rather than a client that validates results.
    ///
    /// On by default in debug builds, and so in tests; off by default in release builds, where
    /// it then costs nothing. Each tool's validator is compiled once. A result cut by the
    /// agent limit or the byte cap is checked too: the envelope `{"items", "shown", "total"}`
    /// is what the schema describes.
    ///
    /// ```
    /// let server = guardrails::Server::new(()).check_output_schemas(true);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn check_output_schemas(mut self, on: bool) -> Self {
        self.check_outputs = on;
        self.refresh()
    }

    /// Audit mode, to adopt the guard on a live server: a call whose arguments do not
    /// validate is logged through `tracing` (target `guardrails::audit`, level `WARN`: the
    /// tool, each issue's path and code, never a value sent) and, when serde reads the
    /// arguments into their type (it implements `Deserialize`), the handler runs with what
    /// serde read, as it would without the guard. A call serde refuses too is answered with
    /// the coaching message, as always; the log says which calls were let through
    /// (`let_through`). Turn it off once the log is quiet.
    ///
    /// ```
    /// let server = guardrails::Server::new(()).audit(true);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn audit(mut self, on: bool) -> Self {
        self.config.audit = on;
        self.refresh()
    }

    /// Repairs the calls of the tools that say nothing themselves (`#[tool(repair)]` decides
    /// for its own tool): a number, a boolean, an array or an object sent as a string where
    /// the field's type leaves one reading of it is read as that value, and the repaired call
    /// is checked like any other, so a repair never lets through what the checks refuse. A
    /// string field is never repaired, nor a `sensitive` or `no_repair` one; a tool annotated
    /// destructive only under [`RepairPolicy::IncludingDestructive`]. The result tells the
    /// model one line per repair ("`limit` was the string \"25\": read as 25; send numbers
    /// unquoted"), `_meta` carries the receipts
    /// ([`REPAIRS_META_KEY`](crate::mcp::REPAIRS_META_KEY)), and telemetry counts them
    /// (`guardrails.tool.argument_repairs`). Off by default. See
    /// [`Repair`](crate::validation::Repair).
    ///
    /// ```
    /// use guardrails::RepairPolicy;
    ///
    /// let server = guardrails::Server::new(()).repair(RepairPolicy::On);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn repair(mut self, policy: RepairPolicy) -> Self {
        self.config.repair = policy;
        self.refresh()
    }

    /// Drops the keys `keys` declares from every call's arguments before they are checked,
    /// beside those a tool ignores itself (`#[tool(ignore_keys(..))]`): keys some clients add
    /// on their own, which would otherwise make every call of theirs an `unknown_field`
    /// rejection. A key a tool declares as a field is never dropped; a key neither declared
    /// nor ignored is refused and named as always. Each dropped key is counted in telemetry
    /// (`guardrails.tool.ignored_keys`).
    ///
    /// ```
    /// use guardrails::IgnoreKeys;
    ///
    /// let server = guardrails::Server::new(()).ignore_keys(IgnoreKeys::new().prefix("_"));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn ignore_keys(mut self, keys: IgnoreKeys) -> Self {
        self.config.ignore_keys = keys;
        self.refresh()
    }

    /// Advertises the tools' schemas in `profile` ([`SchemaProfile::Portable`] unless set): the
    /// form that the code turning this server's tools into a model's tools reads (see
    /// [`profile`](crate::profile)). Calls are checked against the strict schema whatever the
    /// profile.
    ///
    /// ```
    /// use guardrails::profile::SchemaProfile;
    ///
    /// let server = guardrails::Server::new(()).schema_profile(SchemaProfile::Strict);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.config.profile = profile;
        self
    }

    /// Advertises the tools' schemas in `profile` to the clients whose name (the `clientInfo`
    /// they give when they connect) starts with `client_name`, compared without case; the
    /// first match of several wins. A client that gives no name gets the server's profile.
    /// Under [`SchemaProfile::OpenAi`], a `null` such a client sends for an optional property
    /// that does not accept `null` is read as the property left out.
    ///
    /// ```
    /// use guardrails::profile::SchemaProfile;
    ///
    /// let server = guardrails::Server::new(())
    ///     .schema_profile_for_client("gemini-cli", SchemaProfile::Gemini);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn schema_profile_for_client(
        mut self,
        client_name: impl Into<String>,
        profile: SchemaProfile,
    ) -> Self {
        Arc::make_mut(&mut self.profiles_by_client)
            .push((client_name.into().to_lowercase(), profile));
        self
    }

    #[cfg(feature = "rmcp")]
    /// Whether some client may be served a profile under which calls are read (`null` as left
    /// out): a valid call of any other server pays nothing for profiles.
    pub(crate) fn may_read_openai_calls(&self) -> bool {
        self.config.profile.null_is_absent()
            || self
                .profiles_by_client
                .iter()
                .any(|(_, p)| p.null_is_absent())
    }

    #[cfg(feature = "rmcp")]
    /// The profile the tools are advertised in to a client of this name.
    pub(crate) fn profile_for(&self, client_name: Option<&str>) -> SchemaProfile {
        let Some(name) = client_name else {
            return self.config.profile;
        };
        self.profiles_by_client
            .iter()
            .find(|(prefix, _)| {
                name.len() >= prefix.len()
                    && name.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
            })
            .map_or(self.config.profile, |(_, profile)| *profile)
    }

    /// Sets how the same invalid call arriving again is answered (on by default; see
    /// [`LoopBreaker`]). Forgets the calls remembered so far.
    #[must_use]
    pub fn loop_breaker(mut self, config: LoopBreaker) -> Self {
        self.config.loops = config;
        self.operate()
    }

    /// Limits the calls of all tools together, for each caller (over Streamable HTTP, as
    /// `HttpConfig::with_caller` tells them apart: the application's name for it, its bearer
    /// token, its session or its connection; a stdio connection; the process for calls made
    /// in process).
    /// A tool's own limit (`#[tool(rate_limit = "10/min")]`) applies too. A call over a limit
    /// is answered with a `RATE_LIMITED` tool error that says when to call again, and the
    /// handler does not run. See [`RateLimit`].
    ///
    /// ```
    /// use guardrails::operate::RateLimit;
    ///
    /// let server = guardrails::Server::new(()).rate_limit(RateLimit::per_second(20));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.config.rate_limit = Some(limit);
        self.operate()
    }

    /// Keeps the rate limits and the loop breaker's memory in `store`, which other nodes of
    /// the deployment share: behind N nodes, a caller (see
    /// `HttpConfig::with_caller`) then has one budget and one loop memory, not N. Each limit
    /// is one atomic step of the store, and a rejected call one or two counters; a store that
    /// fails or takes more than 250 ms never fails a call: the process's own state answers, with
    /// a warning and a count (`guardrails.state.fallbacks`). Repair
    /// counts stay in the process. Forgets the state kept so far.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use guardrails::operate::{RateLimit, RedisStore};
    ///
    /// let store = RedisStore::open("redis://127.0.0.1:6379/")?;
    /// let server = guardrails::Server::new(())
    ///     .rate_limit(RateLimit::per_minute(60))
    ///     .state_store(store);
    /// # let _ = server;
    /// # Ok(()) }
    /// # #[cfg(not(feature = "redis"))]
    /// # fn main() {}
    /// ```
    #[must_use]
    pub fn state_store(mut self, store: impl StateStore) -> Self {
        self.config.store = Some(Arc::new(store));
        self.operate()
    }

    /// Sets every guardrail of [`GuardConfig`] at once, replacing what the methods of the same
    /// names set before: the configuration a [`RouterGuard`](crate::mcp::RouterGuard) and the
    /// proxy take too. Forgets the state kept so far, as [`Server::rate_limit`] does.
    ///
    /// ```
    /// use guardrails::{GuardConfig, RepairPolicy, Server};
    ///
    /// let server = Server::new(()).config(GuardConfig::new().repair(RepairPolicy::On));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn config(mut self, config: GuardConfig) -> Self {
        self.config = config;
        self.operate().refresh()
    }

    /// Builds the operations layer anew from the tools and the settings: memory and limits
    /// start empty.
    fn operate(mut self) -> Self {
        let per_tool = self
            .specs()
            .filter_map(|spec| Some((spec.name(), spec.rate_limit()?)));
        self.operations = Arc::new(self.config.operations(per_tool));
        self
    }

    /// How the calls of the tool `spec` are answered under the current options.
    fn settings_of(&self, spec: &ToolSpec) -> CallSettings {
        let contract = self
            .config
            .known_good
            .as_ref()
            .and_then(|k| k.awareness(&Contract::from_spec(spec), &self.config.awareness));
        self.config
            .settings(self.config.render.clone(), contract, self.check_outputs)
    }

    /// Rebuilds every tool's settings after the options or the known-good contracts changed.
    fn refresh(mut self) -> Self {
        let settings: Vec<CallSettings> = self
            .tools
            .entries
            .iter()
            .map(|e| self.settings_of(e.tool.spec()))
            .collect();
        let set = Arc::make_mut(&mut self.tools);
        for (entry, settings) in set.entries.iter_mut().zip(settings) {
            entry.settings = settings;
        }
        self
    }
}

/// Why a server refuses the tool `spec`, whose own example `report` rejects.
fn example_refusal(spec: &ToolSpec, report: &crate::validation::Report) -> String {
    let example = serde_json::to_string(spec.built_example()).unwrap_or_default();
    let mut out = format!(
        "the example of tool `{}` fails its own validation, so every rejection would show a call that is rejected again: {}",
        spec.name(),
        cut(&example, 400)
    );
    for issue in report.issues() {
        let at = if issue.path.is_empty() {
            "(arguments)"
        } else {
            &issue.path
        };
        let _ = write!(out, "\n  {at}: {}", issue.message);
    }
    out.push_str("\ngive an explicit example that passes: `#[guard(example = ..)]` on the field, or on the struct with the fields it sets as a JSON object");
    out
}

impl<S: 'static> ContractSource for Server<S> {
    fn server_contract(&self) -> ServerContract {
        ServerContract::from_specs(self.specs()).with_schema_profile(self.config.profile)
    }
}
