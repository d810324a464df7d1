//! Contract awareness as a part of a message: the changes since the contract a model was
//! calibrated on, carried by the error of a call that may have failed because of them.

use serde_json::Value;

use crate::contract::{Awareness, ChangeSeverity, Delta, Relevance, value_text};
use crate::text::cut;
use crate::validation::Report;

/// The most characters of a before or after value shown to the model.
pub(crate) use crate::contract::MAX_VALUE_CHARS;

/// What the model is told to do with the changes.
pub(crate) const INSTRUCTIONS: &str = "Review the contract changes below and adjust your next call accordingly. These changes may explain why your previous arguments were rejected.";

/// The contract changes one failed call is told about.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub(crate) struct ContractNotice<'a> {
    /// The tool whose contract changed.
    pub tool: &'a str,
    /// How many relevant changes the tool has.
    pub change_count: usize,
    /// The highest severity among them.
    pub max_severity: ChangeSeverity,
    /// The changes shown, most relevant to the call first.
    pub deltas: Vec<&'a Delta>,
    awareness: &'a Awareness,
}

impl<'a> ContractNotice<'a> {
    /// The notice of a failed call whose arguments had `relevance` to the tool's changes
    /// ([`Awareness::chosen`]).
    #[must_use]
    pub(crate) fn new(awareness: &'a Awareness, relevance: &Relevance) -> Self {
        Self {
            tool: awareness.tool(),
            change_count: awareness.change_count(),
            max_severity: awareness.max_severity(),
            deltas: awareness.chosen(relevance),
            awareness,
        }
    }

    /// The notice of a rejected call: only the changes that can explain its `report`
    /// ([`Awareness::explaining`]), counted and shown within the caps; `None` when none can.
    /// The tool's other changes are neither shown nor counted: they cannot be why the call
    /// was rejected.
    #[must_use]
    pub(crate) fn explaining(awareness: &'a Awareness, report: &Report) -> Option<Self> {
        let explaining = awareness.explaining(report);
        let max_severity = explaining.first()?.severity;
        Some(Self {
            tool: awareness.tool(),
            change_count: explaining.len(),
            max_severity,
            deltas: awareness.bounded(explaining),
            awareness,
        })
    }

    /// The awareness the notice was chosen from.
    #[must_use]
    pub(crate) fn awareness(&self) -> &'a Awareness {
        self.awareness
    }

    /// How many changes are not shown.
    #[must_use]
    pub(crate) fn omitted(&self) -> usize {
        self.change_count - self.deltas.len()
    }

    /// The note that opens the block.
    #[must_use]
    pub(crate) fn system_note(&self) -> String {
        format!(
            "IMPORTANT: The contract of tool \"{}\" has changed since your last calibration.",
            self.tool
        )
    }
}

/// A before or after value as text, cut to `max_chars`: compact JSON, or `(absent)`.
#[must_use]
pub(crate) fn delta_value(value: Option<&Value>, max_chars: usize) -> String {
    cut(&value_text(value), max_chars).into_owned()
}

/// A value as it is when short, as a cut preview when long.
#[must_use]
pub(crate) fn bounded_json(value: Option<&Value>) -> Value {
    match value {
        None => Value::Null,
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() <= MAX_VALUE_CHARS {
                v.clone()
            } else {
                Value::String(cut(&text, MAX_VALUE_CHARS).into_owned())
            }
        }
    }
}
