//! Self-healing context: the `<contract_awareness>` block that errors of a changed tool carry.
//!
//! The deltas of each tool are computed once, when the server is built, from the known-good
//! lockfile embedded in the binary; each delta is rendered then, in every format, and frozen
//! behind an `Arc`. A call only chooses and joins: deltas of the arguments it sent or missed
//! first, then the tool's own, then the rest, up to the cap. A tool without relevant deltas
//! has no [`Awareness`] at all, so its error path is the one it would have without this
//! module.

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::diff::{Delta, Severity, delta_xml, diff_tool, value_text};
use super::model::Contract;
use super::{ContractError, ServerContract};
use crate::render::{RenderFormat, code_span, escape_xml};
use crate::tool::ToolSpec;
use crate::validation::cut;

/// The most characters of a before or after value shown to the model.
const MAX_VALUE_CHARS: usize = 240;

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
                severity: Severity::Safe,
                path: current.name.clone(),
                tool: current.name.clone(),
                argument: None,
                before: None,
                after: Some(Value::from(current.name.as_str())),
                description: "Tool added.".to_owned(),
            }],
        }
    }

    /// The awareness of one tool under `config`, or `None` when no delta passes its severity
    /// filter: such a tool's errors are rendered exactly as without awareness.
    #[must_use]
    pub fn awareness(&self, spec: &ToolSpec, config: &AwarenessConfig) -> Option<Awareness> {
        let current = Contract::from_spec(spec);
        Awareness::new(&current, self.deltas(&current), config)
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

    fn admits(self, severity: Severity) -> bool {
        self.all_severities || severity >= Severity::Risky
    }
}

/// One delta, rendered in every format at start-up.
#[derive(Debug)]
struct Entry {
    delta: Delta,
    /// Index into `ToolAwareness::args`, for a delta about an argument.
    arg: Option<usize>,
    xml: String,
    markdown: String,
    json: Value,
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
    max_severity: Severity,
}

/// The frozen contract awareness of one tool: its relevant deltas, pre-rendered.
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
                Entry {
                    xml: delta_xml(&delta, MAX_VALUE_CHARS),
                    markdown: delta_markdown(&delta),
                    json: delta_json(&delta),
                    arg,
                    delta,
                }
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

    /// The entries a call shows, in order: deltas of the arguments it sent or missed, then the
    /// tool's own (annotations, limits, output), then other arguments', each group highest
    /// severity first; at most `max_deltas`.
    fn chosen(&self, relevance: &Relevance) -> Vec<&Entry> {
        let group = |e: &Entry| match e.arg {
            Some(i) if relevance.0.get(i).copied().unwrap_or(false) => 0,
            None => 1,
            Some(_) => 2,
        };
        let mut chosen: Vec<&Entry> = self.0.entries.iter().collect();
        chosen.sort_by_key(|e| group(e));
        chosen.truncate(self.0.config.max_deltas.max(1));
        chosen
    }

    /// Adds the awareness block to an error rendered in `format`: inside `<validation_error>`
    /// or `<tool_error>` before its closing tag, as a section after Markdown, as
    /// `error.contractAwareness` in JSON. Text that is not of the expected shape is left as it
    /// is rather than risk breaking it.
    pub fn annotate(&self, text: &mut String, relevance: &Relevance, format: RenderFormat) {
        let chosen = self.chosen(relevance);
        match format {
            RenderFormat::Markdown => {
                text.push('\n');
                text.push_str(&self.markdown(&chosen));
            }
            RenderFormat::Json => {
                if let Ok(Value::Object(mut root)) = serde_json::from_str::<Value>(text)
                    && let Some(Value::Object(error)) = root.get_mut("error")
                {
                    error.insert("contractAwareness".to_owned(), self.json(&chosen));
                    *text = Value::Object(root).to_string();
                }
            }
            RenderFormat::Xml => {
                let block = self.xml(&chosen);
                let close = ["</validation_error>", "</tool_error>"]
                    .into_iter()
                    .find(|tag| text.ends_with(tag));
                if let Some(tag) = close {
                    let at = text.len() - tag.len();
                    let mut inserted = block;
                    inserted.push('\n');
                    text.insert_str(at, &inserted);
                } else {
                    text.push('\n');
                    text.push_str(&block);
                }
            }
        }
    }

    fn counts(&self, chosen: &[&Entry]) -> (usize, usize) {
        let total = self.0.entries.len();
        (total, total - chosen.len())
    }

    fn xml(&self, chosen: &[&Entry]) -> String {
        let (total, omitted) = self.counts(chosen);
        let mut out = String::from("<contract_awareness>\n");
        let _ = writeln!(
            out,
            "<system_note>IMPORTANT: The contract of tool \"{}\" has changed since your last calibration.</system_note>",
            escape_xml(&self.0.tool)
        );
        let _ = writeln!(out, "<change_count>{total}</change_count>");
        let _ = writeln!(out, "<max_severity>{}</max_severity>", self.0.max_severity);
        let _ = writeln!(out, "<instructions>{INSTRUCTIONS}</instructions>");
        out.push_str("<contract_deltas>\n");
        for e in chosen {
            out.push_str(&e.xml);
        }
        out.push_str("</contract_deltas>\n");
        if omitted > 0 {
            let _ = writeln!(
                out,
                "<more_changes count=\"{omitted}\">{omitted} more change(s) not listed.</more_changes>"
            );
        }
        out.push_str("</contract_awareness>");
        out
    }

    fn markdown(&self, chosen: &[&Entry]) -> String {
        let (total, omitted) = self.counts(chosen);
        let mut out = String::from("## Contract changes\n\n");
        let _ = writeln!(
            out,
            "**Important:** the contract of tool {} has changed since your last calibration: {total} change(s), highest severity {}. {INSTRUCTIONS}\n",
            code_span(&self.0.tool),
            self.0.max_severity
        );
        for (n, e) in chosen.iter().enumerate() {
            let _ = write!(out, "{}. {}", n + 1, e.markdown);
        }
        if omitted > 0 {
            let _ = writeln!(out, "\n{omitted} more change(s) not listed.");
        }
        out
    }

    fn json(&self, chosen: &[&Entry]) -> Value {
        let (total, omitted) = self.counts(chosen);
        json!({
            "systemNote": format!(
                "IMPORTANT: The contract of tool \"{}\" has changed since your last calibration.",
                self.0.tool
            ),
            "changeCount": total,
            "maxSeverity": self.0.max_severity,
            "instructions": INSTRUCTIONS,
            "deltas": chosen.iter().map(|e| e.json.clone()).collect::<Vec<_>>(),
            "omitted": omitted,
        })
    }
}

const INSTRUCTIONS: &str = "Review the contract changes below and adjust your next call accordingly. These changes may explain why your previous arguments were rejected.";

fn bounded(value: Option<&Value>) -> String {
    cut(&value_text(value), MAX_VALUE_CHARS, false)
}

fn delta_markdown(d: &Delta) -> String {
    format!(
        "**{}** {}: {}\n   - Before: {}\n   - After: {}\n",
        d.severity,
        code_span(&d.path),
        d.description.replace('\n', " "),
        code_span(&bounded(d.before.as_ref())),
        code_span(&bounded(d.after.as_ref())),
    )
}

/// A value as it is when short, as a cut preview when long.
fn bounded_json(value: Option<&Value>) -> Value {
    match value {
        None => Value::Null,
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() <= MAX_VALUE_CHARS {
                v.clone()
            } else {
                Value::String(cut(&text, MAX_VALUE_CHARS, false))
            }
        }
    }
}

fn delta_json(d: &Delta) -> Value {
    json!({
        "severity": d.severity,
        "field": d.path,
        "description": d.description,
        "previous": bounded_json(d.before.as_ref()),
        "current": bounded_json(d.after.as_ref()),
    })
}
