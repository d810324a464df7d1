//! What a tool is before it is called: its MCP definition (name, title, description, behaviour
//! hints, schemas) and its guardrails (agent limit, byte cap, token budget, output check), in one
//! [`ToolSpec`] that `#[tool]` builds in a `static`. Its [`Contract`] is read from it.

use serde_json::{Map, Value};

use super::leniency::RepairPolicy;
use super::rate::RateLimit;
use crate::contract::{Contract, ContractSource, Declared, Hints, ServerContract};
use crate::message::{ToolError, Truncated};
use crate::validation::{ArgsInfo, ProbedPolicy, Report, ToolArgs};

/// A tool's behaviour hints, as advertised in MCP's `annotations`. `None` leaves a hint out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Annotations {
    /// The tool does not change its environment.
    pub(crate) read_only: Option<bool>,
    /// The tool may destroy or overwrite data.
    pub(crate) destructive: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    pub(crate) idempotent: Option<bool>,
    /// The tool reaches outside systems (the web, third parties).
    pub(crate) open_world: Option<bool>,
}

impl Annotations {
    /// No hints.
    pub(crate) const NONE: Self = Self {
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
    #[cfg(feature = "rmcp")]
    #[must_use]
    pub(crate) const fn is_empty(self) -> bool {
        self.read_only.is_none()
            && self.destructive.is_none()
            && self.idempotent.is_none()
            && self.open_world.is_none()
    }
}

/// What the model is told after a truncated result, besides "N of total shown".
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Teaching {
    /// The tool's own filter parameters with their valid values, from its arguments type.
    Filters,
    /// A fixed hint written by the tool's author.
    Hint(&'static str),
    /// A function that writes the whole block.
    Teach(fn(&Truncated<'_>) -> String),
}

/// An agent limit: the most items of a collection result that reach the model.
/// `#[non_exhaustive]`, so that a limit can gain a setting: build it with [`AgentLimit::new`].
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct AgentLimit {
    /// The most items shown.
    pub max: usize,
    /// What the model is told when items are left out.
    pub teaching: Teaching,
}

impl AgentLimit {
    /// At most `max` items reach the model; `teaching` tells it what to do about the rest.
    #[must_use]
    pub const fn new(max: usize, teaching: Teaching) -> Self {
        Self { max, teaching }
    }
}

/// What an [`OutputCheck`] decides about a tool's output.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OutputVerdict {
    /// The output is delivered as it is.
    Pass,
    /// The output is delivered with this advice after it, as written.
    Advise(String),
    /// The output is delivered, followed by the output policy's verdict on the passages it
    /// flagged, rendered in the server's format.
    Flagged(Box<crate::policy::Verdict>),
    /// The output is withheld; the model receives this error instead.
    Block(ToolError),
}

impl OutputVerdict {
    /// The text block a server appends to a delivered output for this verdict, in the format
    /// of `options`: the advice as written, or the flagged passages rendered; `None` when the
    /// output passes as it is or is withheld.
    #[must_use]
    pub fn advice(&self, options: &crate::render::options::RenderOptions) -> Option<String> {
        match self {
            Self::Advise(advice) => Some(advice.clone()),
            Self::Flagged(verdict) => {
                let advice =
                    crate::message::PolicyAdvice::new(verdict, crate::message::DELIVERED_WITH_CARE);
                Some(crate::render::policy_advice(&advice, options))
            }
            Self::Pass | Self::Block(_) => None,
        }
    }
}

/// The seam where an output policy plugs into a tool: it sees the text of every successful
/// result before it is delivered. Attach one with `#[tool(policy = PATH)]`, where `PATH` names a
/// `static` or `const` of a type implementing this trait, or a function
/// `fn(&str, &str) -> OutputVerdict` (tool name, output text).
pub trait OutputCheck: Send + Sync {
    /// Checks the output `text` of tool `tool`.
    fn check(&self, tool: &str, text: &str) -> OutputVerdict;
}

impl<F> OutputCheck for F
where
    F: Fn(&str, &str) -> OutputVerdict + Send + Sync,
{
    fn check(&self, tool: &str, text: &str) -> OutputVerdict {
        self(tool, text)
    }
}

/// Everything known about a tool before it is called: its MCP definition and its guardrails.
/// Built by `#[tool]` in a `static` (`Tool::spec`, `Server::spec`, `Server::specs`); read its
/// name, texts, schemas and example here, and what it promises as a whole from its
/// [`contract`](Self::contract).
#[derive(Clone, Copy)]
pub struct ToolSpec {
    name: &'static str,
    title: Option<&'static str>,
    description: &'static str,
    annotations: Annotations,
    agent_limit: Option<AgentLimit>,
    paged: bool,
    max_bytes: Option<usize>,
    max_tokens: Option<usize>,
    rate_limit: Option<RateLimit>,
    repair: Option<RepairPolicy>,
    ignore_prefixes: &'static [&'static str],
    ignore_names: &'static [&'static str],
    policy: Option<&'static dyn OutputCheck>,
    args: fn() -> &'static ArgsInfo,
    input_schema: fn() -> &'static schemars::Schema,
    example: fn() -> Result<&'static Value, Report>,
    built_example: fn() -> &'static Value,
    output_schema: fn() -> Option<&'static Map<String, Value>>,
    /// The argument fields whose text a policy checks, learnt from the validator.
    arg_policies: fn() -> Vec<ProbedPolicy>,
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("description", &self.description)
            .field("annotations", &self.annotations)
            .field("agent_limit", &self.agent_limit)
            .field("paged", &self.paged)
            .field("max_bytes", &self.max_bytes)
            .field("max_tokens", &self.max_tokens)
            .field("repair", &self.repair)
            .field("policy", &self.policy.is_some())
            .finish_non_exhaustive()
    }
}

fn no_output_schema() -> Option<&'static Map<String, Value>> {
    None
}

impl ToolSpec {
    /// A tool named `name` described by `description`, taking arguments of type `A`.
    ///
    /// # Panics
    /// When `name` breaks the MCP rule for tool names (1 to 128 characters, each an ASCII
    /// letter, a digit, `_`, `-` or `.`):
    /// in a `static` or `const`, as `#[tool]` builds it, that is a compile error.
    #[doc(hidden)]
    #[must_use]
    pub const fn new<A: ToolArgs>(name: &'static str, description: &'static str) -> Self {
        assert!(
            super::is_valid_tool_name(name),
            "a tool name has 1 to 128 characters, each an ASCII letter, a digit, `_`, `-` or `.`"
        );
        Self {
            name,
            title: None,
            description,
            annotations: Annotations::NONE,
            agent_limit: None,
            paged: false,
            max_bytes: None,
            max_tokens: None,
            rate_limit: None,
            repair: None,
            ignore_prefixes: &[],
            ignore_names: &[],
            policy: None,
            args: A::info,
            input_schema: A::schema,
            example: A::checked_example,
            built_example: A::example,
            output_schema: no_output_schema,
            arg_policies: crate::validation::policy_text::probe_policies::<A>,
        }
    }

    /// Sets the human-readable title.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets the behaviour hints.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets the agent limit.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_agent_limit(mut self, limit: AgentLimit) -> Self {
        self.agent_limit = Some(limit);
        self
    }

    /// Makes the agent limit page: past it, the result carries a cursor to the next page, and
    /// `input_schema` (the arguments' schema with the `cursor` property) is advertised.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_paging(mut self, input_schema: fn() -> &'static schemars::Schema) -> Self {
        self.paged = true;
        self.input_schema = input_schema;
        self
    }

    /// Sets the byte cap of the payload.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = Some(max);
        self
    }

    /// Sets the token budget of the payload, in tokens as
    /// [`estimate_tokens`](crate::present::estimate_tokens) counts them.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_max_tokens(mut self, max: usize) -> Self {
        self.max_tokens = Some(max);
        self
    }

    /// Limits the calls of the tool, for each caller (see
    /// [`RateLimit`](RateLimit)).
    #[must_use]
    pub(crate) const fn with_rate_limit(mut self, limit: RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// Limits the calls of the tool to `calls` per `seconds`, for each caller: what
    /// `#[tool(rate_limit = "10/min")]` generates.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_rate_limit_per(self, calls: u32, seconds: u64) -> Self {
        self.with_rate_limit(RateLimit::new(
            calls,
            std::time::Duration::from_secs(seconds),
        ))
    }

    /// Sets whether the tool's calls are repaired, whatever the server says (see
    /// [`RepairPolicy`]): what `#[tool(repair)]` generates.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_repair(mut self, policy: RepairPolicy) -> Self {
        self.repair = Some(policy);
        self
    }

    /// Ignores the keys of a call's arguments that start with one of `prefixes` or are one of
    /// `names` (see [`IgnoreKeys`](crate::IgnoreKeys)): what
    /// `#[tool(ignore_keys(prefix = "_", names("x")))]` generates.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_ignored_keys(
        mut self,
        prefixes: &'static [&'static str],
        names: &'static [&'static str],
    ) -> Self {
        self.ignore_prefixes = prefixes;
        self.ignore_names = names;
        self
    }

    /// Whether the tool's calls are repaired, when the tool says (`None`: as the server says).
    #[must_use]
    pub(crate) const fn repair(&self) -> Option<RepairPolicy> {
        self.repair
    }

    /// The prefixes and the names of the keys the tool ignores.
    #[must_use]
    pub(crate) const fn ignored_keys(&self) -> (&'static [&'static str], &'static [&'static str]) {
        (self.ignore_prefixes, self.ignore_names)
    }

    /// Attaches an output check.
    #[doc(hidden)]
    #[must_use]
    pub const fn with_policy(mut self, policy: &'static dyn OutputCheck) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Sets where the output schema comes from.
    #[doc(hidden)]
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
    pub(crate) const fn annotations(&self) -> Annotations {
        self.annotations
    }

    /// The agent limit, if any.
    #[must_use]
    pub(crate) const fn agent_limit(&self) -> Option<AgentLimit> {
        self.agent_limit
    }

    /// The tool's rate limit, if any.
    #[must_use]
    pub(crate) const fn rate_limit(&self) -> Option<RateLimit> {
        self.rate_limit
    }

    /// The byte cap of the payload, if any.
    #[must_use]
    pub(crate) const fn max_bytes(&self) -> Option<usize> {
        self.max_bytes
    }

    /// The token budget of the payload, if any (see
    /// [`estimate_tokens`](crate::present::estimate_tokens)).
    #[must_use]
    pub(crate) const fn max_tokens(&self) -> Option<usize> {
        self.max_tokens
    }

    /// The byte cap and the token budget of the payload.
    pub(crate) const fn budget(&self) -> super::budget::Budget {
        super::budget::Budget::new(self.max_bytes, self.max_tokens)
    }

    /// The output check, if any.
    #[must_use]
    pub(crate) fn policy(&self) -> Option<&'static dyn OutputCheck> {
        self.policy
    }

    /// What the arguments type declares.
    #[must_use]
    pub(crate) fn args(&self) -> &'static ArgsInfo {
        (self.args)()
    }

    /// The JSON Schema of the arguments (the MCP `inputSchema`).
    #[must_use]
    pub fn input_schema(&self) -> &'static schemars::Schema {
        (self.input_schema)()
    }

    /// The example of the arguments that rejections show: the arguments type's example when it
    /// passes its own validator, every rule included ([`ToolArgs::checked_example`]); `null`
    /// when a rule rejects it, so that no rejection shows an example that is rejected again
    /// ([`Server::tool`](crate::Server::tool) refuses such a tool).
    #[must_use]
    pub fn example(&self) -> &'static Value {
        static NONE: Value = Value::Null;
        (self.example)().unwrap_or(&NONE)
    }

    /// The report of the arguments type's own example, when a rule the derive cannot see (a
    /// `custom` or struct-level `check`) rejects it; `None` when it passes.
    #[must_use]
    pub(crate) fn example_rejection(&self) -> Option<Report> {
        (self.example)().err()
    }

    /// The example the arguments type builds, whether its validator passes it or not.
    pub(crate) fn built_example(&self) -> &'static Value {
        (self.built_example)()
    }

    /// The JSON Schema of the structured result (the MCP `outputSchema`), when the output type
    /// provides one.
    #[must_use]
    pub fn output_schema(&self) -> Option<&'static Map<String, Value>> {
        (self.output_schema)()
    }
}

impl ToolSpec {
    /// The contract of this tool: what its declarations promise, as the lockfile records it.
    #[must_use]
    pub fn contract(&self) -> Contract {
        Contract::from_spec(self)
    }
}

impl Contract {
    /// The contract of a tool, from what its declarations say.
    #[must_use]
    pub fn from_spec(spec: &ToolSpec) -> Self {
        let hints = spec.annotations();
        Contract::declared(&Declared {
            name: spec.name(),
            title: spec.title(),
            description: spec.description(),
            hints: Hints {
                read_only: hints.read_only,
                destructive: hints.destructive,
                idempotent: hints.idempotent,
                open_world: hints.open_world,
            },
            args: spec.args(),
            output_schema: spec.output_schema(),
            agent_limit: spec.agent_limit().map(|l| l.max),
            max_bytes: spec.max_bytes(),
            max_tokens: spec.max_tokens(),
            policy: spec.policy().is_some(),
            arg_policies: (spec.arg_policies)(),
        })
    }
}

impl ServerContract {
    /// The contracts of these tools.
    #[must_use]
    pub fn from_specs<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        specs.into_iter().map(Contract::from_spec).collect()
    }
}

impl ContractSource for [&ToolSpec] {
    fn server_contract(&self) -> ServerContract {
        ServerContract::from_specs(self.iter().copied())
    }
}

impl<const N: usize> ContractSource for [&ToolSpec; N] {
    fn server_contract(&self) -> ServerContract {
        ServerContract::from_specs(self.iter().copied())
    }
}

impl ContractSource for Vec<&ToolSpec> {
    fn server_contract(&self) -> ServerContract {
        ServerContract::from_specs(self.iter().copied())
    }
}
