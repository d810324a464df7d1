//! Declared leniency: the slips a tool repairs ([`RepairPolicy`]) and the keys it ignores
//! ([`IgnoreKeys`]). Both are off unless a tool, a server or a router guard declares them;
//! everything else stays as strict as ever.

use std::borrow::Cow;

/// Which tools' calls are repaired: a number, a boolean, an array or an object sent as a
/// string where the field's type leaves one reading of it (see
/// [`Repair`](crate::validation::Repair) for exactly what is and is never repaired).
///
/// A tool declares it with `#[tool(repair)]` (or `#[tool(repair(destructive))]` on a tool
/// annotated `destructive`); a [`Server`](crate::Server) or a
/// [`RouterGuard`](crate::mcp::RouterGuard) sets it for its tools that say nothing. A tool
/// annotated destructive (`destructiveHint: true`) is repaired only under
/// [`RepairPolicy::IncludingDestructive`]: a call that deletes or overwrites runs only as the
/// model sent it, unless its author says otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum RepairPolicy {
    /// Nothing is repaired: a slip is a rejection that says how to fix it.
    #[default]
    Off,
    /// The calls of tools not annotated destructive are repaired.
    On,
    /// Every tool's calls are repaired, destructive ones included.
    IncludingDestructive,
}

impl RepairPolicy {
    /// Whether a tool, `destructive` or not, is repaired under this policy.
    #[must_use]
    pub(crate) const fn applies(self, destructive: bool) -> bool {
        match self {
            Self::Off => false,
            Self::On => !destructive,
            Self::IncludingDestructive => true,
        }
    }
}

/// Keys of a call's arguments that are dropped before they are checked: keys some clients add
/// on their own (`_`-prefixed metadata, a workflow tool's defaults), which would otherwise
/// make every call of that client an `unknown_field` rejection. Declared by prefix or by name,
/// at the top level of the arguments; a key the tool declares as a field is never dropped,
/// and a key that is neither declared nor ignored is still refused and named.
///
/// A tool declares them with `#[tool(ignore_keys(prefix = "_", names("trace_id")))]`; a
/// [`Server`](crate::Server) or a [`RouterGuard`](crate::mcp::RouterGuard) for all its
/// tools, with [`GuardConfig::ignore_keys`](crate::GuardConfig::ignore_keys). Each dropped key is counted in telemetry
/// (`guardrails.tool.ignored_keys`), never named there.
///
/// ```
/// use guardrails::{GuardConfig, IgnoreKeys, Server};
///
/// // `_client_meta` and `trace_id` are dropped; `trace` is refused as an unknown key.
/// let ignore = IgnoreKeys::new().prefix("_").name("trace_id");
/// let server = Server::new(()).config(GuardConfig::new().ignore_keys(ignore));
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct IgnoreKeys {
    prefixes: Vec<Cow<'static, str>>,
    names: Vec<Cow<'static, str>>,
}

impl IgnoreKeys {
    /// No key ignored.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            prefixes: Vec::new(),
            names: Vec::new(),
        }
    }

    /// Ignores every key that starts with `prefix`. An empty prefix is ignored itself: it
    /// would make every key welcome, which is turning strictness off.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<Cow<'static, str>>) -> Self {
        let prefix = prefix.into();
        if !prefix.is_empty() {
            self.prefixes.push(prefix);
        }
        self
    }

    /// Ignores the key `name`.
    #[must_use]
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.names.push(name.into());
        self
    }

    /// Whether no key is ignored.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.prefixes.is_empty() && self.names.is_empty()
    }

    /// Whether `key` is one of the keys ignored.
    #[must_use]
    pub(crate) fn matches(&self, key: &str) -> bool {
        matches_any(key, &self.prefixes, &self.names)
    }
}

/// Whether `key` starts with one of `prefixes` or is one of `names`.
pub(crate) fn matches_any(
    key: &str,
    prefixes: &[impl AsRef<str>],
    names: &[impl AsRef<str>],
) -> bool {
    prefixes
        .iter()
        .any(|p| !p.as_ref().is_empty() && key.starts_with(p.as_ref()))
        || names.iter().any(|n| n.as_ref() == key)
}
