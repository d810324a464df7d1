//! The receipts of a repaired call: what the model sent, how it was read, what to send next
//! time.

use crate::validation::Repair;

/// What the model is told after each repaired call, besides one line per repair.
pub(crate) const REPAIRED_ADVICE: &str =
    "The call ran with the values as read above. Send them with their own types next time.";

/// The repairs made to the arguments of one call of `tool`, as the model is told about them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub(crate) struct RepairNotice<'a> {
    /// The tool called.
    pub tool: &'a str,
    /// The repairs, in the order of the arguments.
    pub repairs: &'a [Repair],
}

impl<'a> RepairNotice<'a> {
    /// The notice of `repairs` made to a call of `tool`.
    #[must_use]
    pub(crate) fn new(tool: &'a str, repairs: &'a [Repair]) -> Self {
        Self { tool, repairs }
    }
}
