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
/// [`Server::config`](crate::Server::config) and
/// [`RouterGuard::config`](crate::mcp::RouterGuard::config) take one whole; each knob is
/// also a method of the same name on both, which sets that knob alone. What each knob does
/// for a kind of server is documented on that server's method (a native tool keeps its own
/// schema in audit mode, a derived tool's handler runs with what serde read).
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

    /// Renders messages in `format`, the other render options as they are.
    #[must_use]
    pub fn format(mut self, format: RenderFormat) -> Self {
        self.render.format = format;
        self
    }

    /// Renders messages with `options` (a [`RenderFormat`] converts).
    #[must_use]
    pub fn render_options(mut self, options: impl Into<RenderOptions>) -> Self {
        self.render = options.into();
        self
    }

    /// Audit mode: nothing the guard would refuse is refused; each such call is logged
    /// (target `guardrails::audit`). See [`Server::audit`](crate::Server::audit) and
    /// [`RouterGuard::audit`](crate::mcp::RouterGuard::audit).
    #[must_use]
    pub fn audit(mut self, on: bool) -> Self {
        self.audit = on;
        self
    }

    /// Which calls have the slips whose meaning is not in doubt repaired. See
    /// [`Server::repair`](crate::Server::repair).
    #[must_use]
    pub fn repair(mut self, policy: RepairPolicy) -> Self {
        self.repair = policy;
        self
    }

    /// The keys dropped from every call's arguments before they are checked. See
    /// [`Server::ignore_keys`](crate::Server::ignore_keys).
    #[must_use]
    pub fn ignore_keys(mut self, keys: IgnoreKeys) -> Self {
        self.ignore_keys = keys;
        self
    }

    /// How the same invalid call arriving again is answered (see [`LoopBreaker`]).
    #[must_use]
    pub fn loop_breaker(mut self, config: LoopBreaker) -> Self {
        self.loops = config;
        self
    }

    /// The limit of the calls of all tools together, per caller. See
    /// [`Server::rate_limit`](crate::Server::rate_limit).
    #[must_use]
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// The contracts clients were calibrated on. See
    /// [`Server::known_good`](crate::Server::known_good).
    #[must_use]
    pub fn known_good(mut self, known_good: KnownGood) -> Self {
        self.known_good = Some(known_good);
        self
    }

    /// Which contract deltas rejections carry; takes effect with
    /// [`known_good`](Self::known_good).
    #[must_use]
    pub fn contract_awareness(mut self, config: AwarenessConfig) -> Self {
        self.awareness = config;
        self
    }

    /// The form the tools' schemas are advertised in. See
    /// [`Server::schema_profile`](crate::Server::schema_profile).
    #[must_use]
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Keeps the rate limits and the loop breaker's memory in `store`, shared with the other
    /// nodes of a deployment. See [`Server::state_store`](crate::Server::state_store).
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
