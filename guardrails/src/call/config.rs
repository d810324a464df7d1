//! The guardrails every kind of server sets the same way: one configuration that a
//! [`Server`](crate::Server), a [`RouterGuard`](crate::mcp::RouterGuard) and the command line's
//! proxy take, so that a knob is spelt once and reaches every path of a call.

use std::fmt;
use std::sync::Arc;

use crate::contract::{Awareness, AwarenessConfig, KnownGood};
use crate::operate::{Limits, LoopBreaker, Operations, RateLimit, StateStore};
use crate::profile::SchemaProfile;
use crate::render::{RenderFormat, RenderOptions};
use crate::tool::leniency::{IgnoreKeys, RepairPolicy};
use crate::tool::run::CallSettings;

/// How a server's calls are guarded, whatever serves them: the rendering of messages, audit
/// mode, repairs, ignored keys, the loop breaker, rate limits, the contracts clients were
/// calibrated on, the profile schemas are advertised in and the store state is shared
/// through.
///
/// The one place these knobs are set: [`Server::config`](crate::Server::config) and
/// [`RouterGuard::config`](crate::mcp::RouterGuard::config) take one whole, and so does the
/// command line's proxy. Each method below says how its knob acts on derived tools (the
/// `#[tool]`s of a [`Server`](crate::Server)) and on native tools (the rmcp tools of a router a
/// [`RouterGuard`](crate::mcp::RouterGuard) or [`#[guarded]`](macro@crate::guarded) guards).
///
/// ```
/// use guardrails::mcp::RouterGuard;
/// use guardrails::operate::RateLimit;
/// use guardrails::{GuardConfig, RenderFormat, RepairPolicy, Server};
///
/// let config = GuardConfig::new()
///     .format(RenderFormat::Markdown)
///     .repair(RepairPolicy::On)
///     .rate_limit(RateLimit::per_minute(60));
/// // The same guardrails for a server of derived tools and for a native rmcp router.
/// let server = Server::new(()).config(config.clone());
/// let guard = RouterGuard::new().config(config);
/// # let _ = (server, guard);
/// ```
#[derive(Clone, Default)]
pub struct GuardConfig {
    pub(crate) render: RenderOptions,
    pub(crate) audit: bool,
    pub(crate) repair: RepairPolicy,
    pub(crate) ignore_keys: IgnoreKeys,
    pub(crate) loops: LoopBreaker,
    pub(crate) rate_limit: Option<RateLimit>,
    pub(crate) known_good: Option<KnownGood>,
    pub(crate) awareness: AwarenessConfig,
    pub(crate) profile: SchemaProfile,
    pub(crate) store: Option<Arc<dyn StateStore>>,
}

impl fmt::Debug for GuardConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GuardConfig")
            .field("render", &self.render)
            .field("audit", &self.audit)
            .field("repair", &self.repair)
            .field("ignore_keys", &self.ignore_keys)
            .field("loop_breaker", &self.loops)
            .field("rate_limit", &self.rate_limit)
            .field("known_good", &self.known_good.is_some())
            .field("contract_awareness", &self.awareness)
            .field("schema_profile", &self.profile)
            .field("state_store", &self.store.is_some())
            .finish()
    }
}

impl GuardConfig {
    /// The defaults: XML-style messages, enforcing, no repair, no ignored keys, the loop
    /// breaker on, no rate limit, no known-good contracts, the portable schema profile, the
    /// process's own state.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Renders messages in `format` (XML-style tags by default): rejections, tool errors and
    /// teaching blocks. The other render options stay as they are.
    #[must_use]
    pub fn format(mut self, format: RenderFormat) -> Self {
        self.render.format = format;
        self
    }

    /// Renders messages with `options`: `RenderOptions::new(format).with_…`, or a
    /// [`RenderFormat`] alone, which converts. The schema summary is for derived arguments
    /// only: a native tool's schema is the `inputSchema` the client already has, and its
    /// rejections go without one.
    ///
    /// ```
    /// use guardrails::{GuardConfig, RenderFormat, RenderOptions};
    ///
    /// let config = GuardConfig::new()
    ///     .render_options(RenderOptions::new(RenderFormat::Json).with_echo_values(false));
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn render_options(mut self, options: impl Into<RenderOptions>) -> Self {
        self.render = options.into();
        self
    }

    /// Audit mode, to adopt the guard on a live server: nothing the guard would refuse is
    /// refused. Each such call is logged through `tracing` (target `guardrails::audit`, level
    /// `WARN`: the tool, each issue's path and code, never a value sent).
    ///
    /// - A derived tool whose arguments serde reads into their type (it implements
    ///   `Deserialize`) runs with what serde read, as it would without the guard; a call serde
    ///   refuses too is answered with the coaching message, as always, and the log says which
    ///   calls were let through (`let_through`).
    /// - A native tool gets the call as it came, and its advertised `inputSchema` stays its
    ///   own, so clients see no change either; limits on results still apply. Most calls the
    ///   log names are the model's slips (a misspelt key, a value out of range) that serde
    ///   ignored or that failed later in the handler; the rest are behaviours of serde that a
    ///   schema cannot express (an alias, `#[serde(other)]`, a lenient `deserialize_with`,
    ///   duplicates in a set), which [`#[guarded]`](macro@crate::guarded) lets through (logged
    ///   with `let_through = true`) and a guard that knows only the schema refuses: see the
    ///   crate's README for how each shows.
    ///
    /// Switch to enforcing (`.audit(false)`, the default) once the log is quiet.
    ///
    /// ```
    /// use guardrails::mcp::RouterGuard;
    /// use guardrails::{GuardConfig, Server};
    /// # use rmcp::handler::server::router::tool::ToolRouter;
    /// # struct Native;
    /// # let router: ToolRouter<Native> = ToolRouter::new();
    ///
    /// let server = Server::new(()).config(GuardConfig::new().audit(true));
    /// let router = RouterGuard::new().config(GuardConfig::new().audit(true)).guard(router);
    /// # let _ = (server, router);
    /// ```
    #[must_use]
    pub fn audit(mut self, on: bool) -> Self {
        self.audit = on;
        self
    }

    /// Repairs the slips whose meaning is not in doubt (off by default): a number, a boolean,
    /// an array or an object sent as a string where the field's type (a derived tool) or the
    /// tool's schema (a native tool, see [`SchemaArgs::repair`](crate::validation::SchemaArgs::repair))
    /// leaves one reading of it is read as that value. The repaired call is checked like any
    /// other, so a repair never lets through what the checks refuse, and reaches the tool
    /// repaired. A string field is never repaired, nor a `sensitive` or `no_repair` one; a
    /// tool annotated destructive only under [`RepairPolicy::IncludingDestructive`]. A derived
    /// tool that says what it wants (`#[tool(repair)]`) decides for itself; this policy is for
    /// the tools that say nothing.
    ///
    /// The result tells the model one line per repair ("`limit` was the string \"25\": read
    /// as 25; send numbers unquoted"), `_meta` carries the receipts under
    /// `dev.guardrails/repairs` (see [`CallOutput::repairs`](crate::CallOutput::repairs)), and
    /// telemetry counts them (`guardrails.tool.argument_repairs`). See
    /// [`Repair`](crate::validation::Repair).
    ///
    /// ```
    /// use guardrails::{GuardConfig, RepairPolicy, Server};
    ///
    /// let server = Server::new(()).config(GuardConfig::new().repair(RepairPolicy::On));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn repair(mut self, policy: RepairPolicy) -> Self {
        self.repair = policy;
        self
    }

    /// Drops the keys `keys` declares from every call's arguments before they are checked:
    /// keys some clients add on their own, which would otherwise make every call of theirs an
    /// `unknown_field` rejection. A derived tool drops them beside those it ignores itself
    /// (`#[tool(ignore_keys(..))]`). A key a tool declares (a field of a derived tool, a
    /// property of a native tool's schema) is never dropped; a key neither declared nor
    /// ignored is refused and named as always. The tool gets the call without the dropped
    /// keys, and each is counted in telemetry (`guardrails.tool.ignored_keys`).
    ///
    /// ```
    /// use guardrails::{GuardConfig, IgnoreKeys, Server};
    ///
    /// let server = Server::new(()).config(GuardConfig::new().ignore_keys(IgnoreKeys::new().prefix("_")));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn ignore_keys(mut self, keys: IgnoreKeys) -> Self {
        self.ignore_keys = keys;
        self
    }

    /// How the same invalid call arriving again is answered (on by default; see
    /// [`LoopBreaker`]), for derived and native tools alike. Setting it on a
    /// [`Server`](crate::Server) forgets the calls remembered so far.
    #[must_use]
    pub fn loop_breaker(mut self, config: LoopBreaker) -> Self {
        self.loops = config;
        self
    }

    /// Limits the calls of all tools together, for each caller: over Streamable HTTP, as
    /// [`HttpConfig::with_caller`](crate::mcp::HttpConfig::with_caller) tells them apart (the
    /// application's name for it, its bearer token, its session or its connection); a stdio
    /// connection; the process for calls made in process. A tool's own limit
    /// (`#[tool(rate_limit = "10/min")]` on a derived tool,
    /// [`RouterGuard::tool_rate_limit`](crate::mcp::RouterGuard::tool_rate_limit) for a native
    /// one) applies too. A call over a limit is answered with a `RATE_LIMITED` tool error that
    /// says when to call again, and the tool does not run. See [`RateLimit`].
    ///
    /// ```
    /// use guardrails::operate::RateLimit;
    /// use guardrails::{GuardConfig, Server};
    ///
    /// let server = Server::new(()).config(GuardConfig::new().rate_limit(RateLimit::per_second(20)));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// Gives the contracts clients were last calibrated on, usually a lockfile embedded with
    /// `include_str!` (see [`KnownGood`]). Each tool is diffed against them once, when the
    /// server or guard is built and for tools added later: a rejected call of a tool whose
    /// contract changed since carries a `<contract_awareness>` block naming the changes that
    /// can explain it; other tools' messages stay as they are, and pay nothing. A derived
    /// tool's contract comes from its declarations, a native tool's from its definition
    /// ([`Contract::from_definition`](crate::contract::Contract::from_definition)).
    ///
    /// ```no_run
    /// # use guardrails::contract::KnownGood;
    /// # const RELEASE_1_4_LOCK: &str = "";
    /// # fn main() -> Result<(), guardrails::contract::ContractError> {
    /// // In a real server: include_str!("../release-1.4.lock")
    /// let known_good = KnownGood::from_lockfile_str(RELEASE_1_4_LOCK)?;
    /// let config = guardrails::GuardConfig::new().known_good(known_good);
    /// let server = guardrails::Server::new(()).config(config);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn known_good(mut self, known_good: KnownGood) -> Self {
        self.known_good = Some(known_good);
        self
    }

    /// Which contract deltas messages carry (default: BREAKING and RISKY, at most 5,
    /// validation errors only); takes effect with [`known_good`](Self::known_good). A native
    /// tool's own error result comes back as the tool wrote it, so only its rejections carry
    /// them.
    #[must_use]
    pub fn contract_awareness(mut self, config: AwarenessConfig) -> Self {
        self.awareness = config;
        self
    }

    /// Advertises the tools' schemas in `profile` ([`SchemaProfile::Portable`] unless set): the
    /// form that the code turning the server's tools into a model's tools reads (see
    /// [`profile`](crate::profile)). Calls are checked against the strict schema whatever the
    /// profile; under [`SchemaProfile::OpenAi`], which makes every property required, a `null`
    /// sent for an optional property that does not accept `null` is read as the property left
    /// out. A [`Server`](crate::Server) can serve some clients another profile
    /// ([`Server::schema_profile_for_client`](crate::Server::schema_profile_for_client)).
    ///
    /// ```
    /// use guardrails::profile::SchemaProfile;
    /// use guardrails::{GuardConfig, Server};
    ///
    /// let server = Server::new(()).config(GuardConfig::new().schema_profile(SchemaProfile::Strict));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Keeps the rate limits and the loop breaker's memory in `store`, which the other nodes
    /// of the deployment share: behind N nodes, a caller (see
    /// [`HttpConfig::with_caller`](crate::mcp::HttpConfig::with_caller)) then has one budget
    /// and one loop memory, not N. Each limit is one atomic step of the store, and a rejected
    /// call one or two counters; a store that fails or takes more than 250 ms never fails a
    /// call: the process's own state answers, with a warning and a count
    /// (`guardrails.state.fallbacks`). Repair counts stay in the process. The calls of derived
    /// and native tools alike are counted there; a guard without a store waits for none.
    /// Setting it on a [`Server`](crate::Server) forgets the state kept so far.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use guardrails::operate::{RateLimit, RedisStore};
    /// use guardrails::{GuardConfig, Server};
    ///
    /// let store = RedisStore::open("redis://127.0.0.1:6379/")?;
    /// let config = GuardConfig::new()
    ///     .rate_limit(RateLimit::per_minute(60))
    ///     .state_store(store);
    /// let server = Server::new(()).config(config);
    /// # let _ = server;
    /// # Ok(()) }
    /// # #[cfg(not(feature = "redis"))]
    /// # fn main() {}
    /// ```
    #[must_use]
    pub fn state_store(mut self, store: impl StateStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// How the calls of a tool with contract awareness `contract` are answered; `render` the
    /// options the server renders with (a guard of native tools leaves the schema summary
    /// out).
    pub(crate) fn settings(
        &self,
        render: RenderOptions,
        contract: Option<Awareness>,
        check_outputs: bool,
    ) -> CallSettings {
        CallSettings::new(render)
            .with_contract(contract)
            .with_output_schema_check(check_outputs)
            .with_audit(self.audit)
            .with_repair(self.repair)
            .with_ignored_keys(self.ignore_keys.clone())
    }

    /// The operations layer of these settings, with `per_tool` rate limits beside the whole
    /// server's: memory and limits start empty.
    pub(crate) fn operations<'a>(
        &self,
        per_tool: impl IntoIterator<Item = (&'a str, RateLimit)>,
    ) -> Operations {
        Operations::new(self.loops, Limits::new(per_tool, self.rate_limit))
            .with_store(self.store.clone())
    }
}
