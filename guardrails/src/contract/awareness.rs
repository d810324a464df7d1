//! Self-healing context: the `<contract_awareness>` block that errors of a changed tool carry.
//!
//! The deltas of each tool are computed once, when the server is built, from the known-good
//! lockfile embedded in the binary, sorted and frozen behind an `Arc`. A call only chooses:
//! deltas of the arguments it sent or missed first, then the tool's own, then the rest, up to
//! the cap ([`Awareness::chosen`]); the message of the failed call carries them as a part of
//! its own (see [`crate::message::ContractNotice`]). A tool without relevant deltas has no
//! [`Awareness`] at all, so its error path is the one it would have without this module.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::diff::{ChangeSeverity, Delta, diff_tool};
use super::model::Contract;
use super::{ContractError, ServerContract};

/// The contracts clients were last calibrated on: a lockfile embedded in the server binary.
///
/// ```ignore
/// let known_good = KnownGood::from_lockfile_str(include_str!("../guardrails.lock"))?;
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
        ServerContract::from_lockfile(text).map(Self::from_contracts)
    }

    /// Known-good contracts already in memory.
    #[must_use]
    pub fn from_contracts(contracts: ServerContract) -> Self {
        Self {
            contracts: Arc::new(contracts),
        }
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
        match self.contracts.get(&current.name) {
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
    pub fn awareness(&self, current: &Contract, config: &AwarenessConfig) -> Option<Awareness> {
        Awareness::new(current, self.deltas(current), config)
    }
}

/// Which deltas errors carry, and which errors carry them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AwarenessConfig {
    /// Include SAFE and COSMETIC deltas too (by default only BREAKING and RISKY ones, which can
    /// explain a rejected call).
    pub all_severities: bool,
    /// The most deltas in one block; the rest are counted.
    pub max_deltas: usize,
    /// Annotate every error result of a changed tool (handler errors, blocked outputs), not only
    /// rejected arguments.
    pub all_errors: bool,
}

impl Default for AwarenessConfig {
    fn default() -> Self {
        Self {
            all_severities: false,
            max_deltas: 5,
            all_errors: false,
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
pub struct Relevance(Vec<bool>);

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
        Some(Self(Arc::new(ToolAwareness {
            tool: current.name.clone(),
            config: *config,
            entries,
            args,
            max_severity,
        })))
    }

    /// The tool's deltas that errors may carry, highest severity first.
    pub fn deltas(&self) -> impl Iterator<Item = &Delta> {
        self.0.entries.iter().map(|e| &e.delta)
    }

    /// Whether every error result is annotated, not only rejected arguments.
    #[must_use]
    pub fn all_errors(&self) -> bool {
        self.0.config.all_errors
    }

    /// Which delta arguments the call with `arguments` sent, or missed (required, absent).
    /// Taken before validation consumes the arguments.
    #[must_use]
    pub fn relevance(&self, arguments: &Map<String, Value>) -> Relevance {
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
    pub fn tool(&self) -> &str {
        &self.0.tool
    }

    /// How many deltas the tool has under the severity filter (a call shows at most
    /// [`AwarenessConfig::max_deltas`] of them).
    #[must_use]
    pub fn change_count(&self) -> usize {
        self.0.entries.len()
    }

    /// The highest severity among the deltas.
    #[must_use]
    pub fn max_severity(&self) -> ChangeSeverity {
        self.0.max_severity
    }

    /// The deltas a call shows, in order: deltas of the arguments it sent or missed, then the
    /// tool's own (annotations, limits, output), then other arguments', each group highest
    /// severity first; at most `max_deltas`.
    #[must_use]
    pub fn chosen(&self, relevance: &Relevance) -> Vec<&Delta> {
        let group = |e: &Entry| match e.arg {
            Some(i) if relevance.0.get(i).copied().unwrap_or(false) => 0,
            None => 1,
            Some(_) => 2,
        };
        let mut chosen: Vec<&Entry> = self.0.entries.iter().collect();
        chosen.sort_by_key(|e| group(e));
        chosen.truncate(self.0.config.max_deltas.max(1));
        chosen.into_iter().map(|e| &e.delta).collect()
    }
}
