//! Self-healing context: the `<contract_awareness>` block that errors of a changed tool carry.
//!
//! The deltas of each tool are computed once, when the server is built, from the known-good
//! lockfile embedded in the binary, sorted and frozen behind an `Arc`. A call only chooses.
//! A rejected call is told only the changes that can explain its issues
//! ([`Awareness::explaining`]): those of the arguments it sent wrong, missed, or misspelt
//! (an unknown key whose did-you-mean is a changed argument, or the old name of a removed
//! one); a typo on an argument that did not change gets no block at all. Other errors (with
//! [`AwarenessConfig::all_errors`]) get the deltas of the arguments they sent or missed first,
//! then the tool's own, then the rest ([`Awareness::chosen`]). Both are capped in count and in
//! characters; the message of the failed call carries them as a part of its own (see
//! [`crate::message::ContractNotice`]). A tool without relevant deltas has no [`Awareness`]
//! at all, so its error path is the one it would have without this module.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::diff::{ChangeSeverity, Delta, diff_tool, value_text};
use super::model::Contract;
use super::{ContractError, ServerContract};
use crate::text::did_you_mean;
use crate::validation::{IssueCode, Report};

/// The contracts clients were last calibrated on: a lockfile embedded in the server binary.
///
/// ```no_run
/// use guardrails::contract::KnownGood;
/// # const RELEASE_LOCK: &str = "";
/// # fn main() -> Result<(), guardrails::contract::ContractError> {
/// // In a server: `include_str!("../guardrails.lock")`, the lockfile of the last release.
/// let known_good = KnownGood::from_lockfile_str(RELEASE_LOCK)?;
/// let config = guardrails::GuardConfig::new().known_good(known_good);
/// let server = guardrails::Server::new(()).config(config);
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct KnownGood {
    contracts: Arc<ServerContract>,
}

impl KnownGood {
    /// Reads the lockfile text.
    ///
    /// # Errors
    /// What [`ServerContract::from_lockfile`] reports.
    pub fn from_lockfile_str(text: &str) -> Result<Self, ContractError> {
        ServerContract::from_lockfile(text).map(Self::from)
    }

    /// The known-good contracts.
    #[must_use]
    pub fn contracts(&self) -> &ServerContract {
        &self.contracts
    }

    /// The changes of one tool since the known-good contracts: its diff, or one SAFE delta
    /// when the tool is new.
    #[must_use]
    pub fn deltas(&self, current: &Contract) -> Vec<Delta> {
        match self.contracts.tools.get(&current.name) {
            Some(old) => diff_tool(old, current),
            None => vec![Delta {
                severity: ChangeSeverity::Safe,
                path: current.name.clone(),
                tool: current.name.clone(),
                argument: None,
                before: None,
                after: Some(Value::from(current.name.as_str())),
                description: "Tool added.".to_owned(),
            }],
        }
    }

    /// The awareness of one tool, whose contract is now `current`, under `config`; `None` when
    /// no delta passes its severity filter: such a tool's errors are rendered exactly as
    /// without awareness. `Contract::from_spec(tool.spec())` gives a tool's current contract.
    #[must_use]
    pub(crate) fn awareness(
        &self,
        current: &Contract,
        config: &AwarenessConfig,
    ) -> Option<Awareness> {
        Awareness::new(current, self.deltas(current), config)
    }
}

/// Known-good contracts already in memory.
impl From<ServerContract> for KnownGood {
    fn from(contracts: ServerContract) -> Self {
        Self {
            contracts: Arc::new(contracts),
        }
    }
}

/// Which deltas errors carry, and which errors carry them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AwarenessConfig {
    /// Include SAFE and COSMETIC deltas too (by default only BREAKING and RISKY ones, which can
    /// explain a rejected call).
    pub(crate) all_severities: bool,
    /// The most deltas in one block; the rest are counted.
    pub(crate) max_deltas: usize,
    /// Annotate every error result of a changed tool (handler errors, blocked outputs), not only
    /// rejected arguments.
    pub(crate) all_errors: bool,
    /// The most characters of delta text (paths, descriptions, before and after values) one
    /// block lists; the deltas past it are counted. The first delta is always listed.
    pub(crate) max_chars: usize,
}

impl Default for AwarenessConfig {
    fn default() -> Self {
        Self {
            all_severities: false,
            max_deltas: 5,
            all_errors: false,
            max_chars: 1_000,
        }
    }
}

impl AwarenessConfig {
    /// Includes every severity, or only BREAKING and RISKY.
    #[must_use]
    pub fn with_all_severities(mut self, on: bool) -> Self {
        self.all_severities = on;
        self
    }

    /// Sets the most deltas in one block (at least one).
    #[must_use]
    pub fn with_max_deltas(mut self, max: usize) -> Self {
        self.max_deltas = max.max(1);
        self
    }

    /// Annotates every error result, or only rejected arguments.
    #[must_use]
    pub fn with_all_errors(mut self, on: bool) -> Self {
        self.all_errors = on;
        self
    }

    /// Sets the most characters of delta text one block lists.
    #[must_use]
    pub fn with_max_chars(mut self, max: usize) -> Self {
        self.max_chars = max;
        self
    }

    fn admits(self, severity: ChangeSeverity) -> bool {
        self.all_severities || severity >= ChangeSeverity::Risky
    }
}

/// One delta, with the argument it is about.
#[derive(Debug)]
struct Entry {
    delta: Delta,
    /// Index into `ToolAwareness::args`, for a delta about an argument.
    arg: Option<usize>,
}

#[derive(Debug)]
struct ToolAwareness {
    tool: String,
    config: AwarenessConfig,
    /// Sorted by severity, highest first, then in diff order.
    entries: Vec<Entry>,
    /// The arguments the deltas are about, with whether the current contract requires them
    /// (a required argument that a call leaves out is one it "missed").
    args: Vec<(String, bool)>,
    /// Every argument name a call may have meant: the current ones and the removed ones, for
    /// telling which argument a misspelt key was.
    names: Vec<String>,
    max_severity: ChangeSeverity,
}

/// The frozen contract awareness of one tool: its relevant deltas, highest severity first.
///
/// Cheap to clone (an `Arc`). Two handles are equal when they share the same frozen state.
#[derive(Debug, Clone)]
pub struct Awareness(Arc<ToolAwareness>);

impl PartialEq for Awareness {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Awareness {}

impl Hash for Awareness {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(Arc::as_ptr(&self.0), state);
    }
}

/// Which of a tool's delta arguments a call sent or missed.
#[derive(Debug, Clone)]
pub(crate) struct Relevance(Vec<bool>);

impl Awareness {
    /// The awareness of tool `current` from its deltas, or `None` when none passes `config`.
    #[must_use]
    pub fn new(current: &Contract, deltas: Vec<Delta>, config: &AwarenessConfig) -> Option<Self> {
        let mut deltas: Vec<Delta> = deltas
            .into_iter()
            .filter(|d| d.tool == current.name && config.admits(d.severity))
            .collect();
        if deltas.is_empty() {
            return None;
        }
        // Stable: equal severities keep the diff's order, so the output is deterministic.
        deltas.sort_by_key(|d| std::cmp::Reverse(d.severity));
        let max_severity = deltas[0].severity;
        let mut args: Vec<(String, bool)> = Vec::new();
        let entries = deltas
            .into_iter()
            .map(|delta| {
                let arg = delta.argument.as_ref().map(|name| {
                    args.iter().position(|(n, _)| n == name).unwrap_or_else(|| {
                        let required = current.args.get(name).is_some_and(|f| f.required);
                        args.push((name.clone(), required));
                        args.len() - 1
                    })
                });
                Entry { delta, arg }
            })
            .collect();
        let mut names: Vec<String> = current.args.keys().cloned().collect();
        for (name, _) in &args {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        Some(Self(Arc::new(ToolAwareness {
            tool: current.name.clone(),
            config: *config,
            entries,
            args,
            names,
            max_severity,
        })))
    }

    /// Whether every error result is annotated, not only rejected arguments.
    #[must_use]
    pub(crate) fn all_errors(&self) -> bool {
        self.0.config.all_errors
    }

    /// Which delta arguments the call with `arguments` sent, or missed (required, absent).
    /// Taken before validation consumes the arguments.
    #[must_use]
    pub(crate) fn relevance(&self, arguments: &Map<String, Value>) -> Relevance {
        Relevance(
            self.0
                .args
                .iter()
                .map(|(name, required)| *required || arguments.contains_key(name))
                .collect(),
        )
    }

    /// The name of the tool.
    #[must_use]
    pub(crate) fn tool(&self) -> &str {
        &self.0.tool
    }

    /// How many deltas the tool has under the severity filter (a call shows at most
    /// [`AwarenessConfig::max_deltas`] of them).
    #[must_use]
    pub(crate) fn change_count(&self) -> usize {
        self.0.entries.len()
    }

    /// The highest severity among the deltas.
    #[must_use]
    pub(crate) fn max_severity(&self) -> ChangeSeverity {
        self.0.max_severity
    }

    /// The deltas a failed call shows, in order: deltas of the arguments it sent or missed,
    /// then the tool's own (annotations, limits, output), then other arguments', each group
    /// highest severity first; at most `max_deltas` and `max_chars`.
    #[must_use]
    pub(crate) fn chosen(&self, relevance: &Relevance) -> Vec<&Delta> {
        let group = |e: &Entry| match e.arg {
            Some(i) if relevance.0.get(i).copied().unwrap_or(false) => 0,
            None => 1,
            Some(_) => 2,
        };
        let mut chosen: Vec<&Entry> = self.0.entries.iter().collect();
        chosen.sort_by_key(|e| group(e));
        self.bounded(chosen.into_iter().map(|e| &e.delta))
    }

    /// Every delta that can explain the issues of a rejected call, highest severity first:
    /// those of each argument an issue is about (sent wrong, or missed), and of each argument
    /// an unknown key stands for (the old name of a removed argument, or a misspelling whose
    /// did-you-mean is a changed argument). Empty when no issue is about a changed argument: a
    /// typo on an argument that did not change is explained by its own issue, and the
    /// rejection carries no contract block. A block lists the first of them within
    /// `max_deltas` and `max_chars` of its [`AwarenessConfig`].
    #[must_use]
    pub(crate) fn explaining(&self, report: &Report) -> Vec<&Delta> {
        let mut implicated = vec![false; self.0.args.len()];
        for issue in report.issues() {
            let Some(argument) = top_level_argument(&issue.path) else {
                continue;
            };
            let meant = if issue.code == IssueCode::UnknownField
                && !issue.path.contains(['.', '['])
                && !self.0.args.iter().any(|(name, _)| *name == argument)
            {
                did_you_mean(&argument, self.0.names.iter().map(String::as_str)).map(str::to_owned)
            } else {
                Some(argument)
            };
            if let Some(i) =
                meant.and_then(|meant| self.0.args.iter().position(|(name, _)| *name == meant))
            {
                implicated[i] = true;
            }
        }
        self.0
            .entries
            .iter()
            .filter(|e| e.arg.is_some_and(|i| implicated[i]))
            .map(|e| &e.delta)
            .collect()
    }

    /// The first deltas of `deltas` within `max_deltas` and `max_chars` (at least one, when
    /// there is one).
    pub(crate) fn bounded<'a>(
        &self,
        deltas: impl IntoIterator<Item = &'a Delta>,
    ) -> Vec<&'a Delta> {
        let config = self.0.config;
        let mut chars = 0;
        let mut out = Vec::new();
        for delta in deltas.into_iter().take(config.max_deltas.max(1)) {
            chars += delta_chars(delta);
            if !out.is_empty() && chars > config.max_chars {
                break;
            }
            out.push(delta);
        }
        out
    }
}

/// The most characters of a before or after value shown to the model.
pub(crate) const MAX_VALUE_CHARS: usize = 240;

/// How many characters a delta adds to a block, as rendered: its path, description, and
/// before and after values as cut for display.
fn delta_chars(delta: &Delta) -> usize {
    let value = |v: Option<&Value>| value_text(v).chars().count().min(MAX_VALUE_CHARS + 1);
    delta.path.chars().count()
        + delta.description.chars().count()
        + value(delta.before.as_ref())
        + value(delta.after.as_ref())
}

/// The argument an issue path starts with: `lines` for `lines[3].quantity`, `weird key` for
/// `["weird key"].x`; `None` for the arguments object itself.
fn top_level_argument(path: &str) -> Option<String> {
    if let Some(quoted) = path.strip_prefix('[') {
        // A key that is not a plain name, as a JSON string: `["weird key"]`.
        let mut stream = serde_json::Deserializer::from_str(quoted).into_iter::<String>();
        return stream.next().and_then(Result::ok);
    }
    let end = path.find(['.', '[']).unwrap_or(path.len());
    (end > 0).then(|| path[..end].to_owned())
}
