//! A rejected call: every issue found in its arguments, what the tool accepts, a valid example
//! and the recovery directive.

use std::fmt::Write as _;

use serde_json::Value;

use super::ContractNotice;
use crate::validation::{ArgsInfo, Issue, IssueCode, Report};

/// The directive that closes every rejected call.
pub(crate) const RECOVERY: &str =
    "Fix the fields above and call the tool again. Do not explain the error.";

/// A call whose arguments did not validate, as the model is told about it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub(crate) struct Rejection<'a> {
    /// The tool that was called.
    pub tool: &'a str,
    /// Every issue found.
    pub report: &'a Report,
    /// What the tool's arguments type declares (for the schema summary).
    pub args: &'a ArgsInfo,
    /// A complete valid example of the arguments; `null` when none could be built, and then
    /// no example is shown.
    pub example: &'a Value,
    /// What changed in the tool's contract since the model was calibrated on it, when anything
    /// relevant did.
    pub contract: Option<ContractNotice<'a>>,
}

impl<'a> Rejection<'a> {
    /// The rejection of a call to `tool` whose arguments (of the type `args` describes) have
    /// the issues of `report`.
    #[must_use]
    pub(crate) fn new(
        tool: &'a str,
        report: &'a Report,
        args: &'a ArgsInfo,
        example: &'a Value,
    ) -> Self {
        Self {
            tool,
            report,
            args,
            example,
            contract: None,
        }
    }

    /// Adds the contract notice of the tool, narrowed to the changes that can explain this
    /// rejection's issues ([`ContractNotice::explaining`]): none, and the rejection carries no
    /// contract block.
    #[must_use]
    pub(crate) fn with_contract(mut self, contract: Option<ContractNotice<'a>>) -> Self {
        self.contract =
            contract.and_then(|notice| ContractNotice::explaining(notice.awareness(), self.report));
        self
    }

    /// The issues listed when at most `max` are (at least one is), and how many are not.
    #[must_use]
    pub(crate) fn listed(&self, max: usize) -> (&'a [Issue], usize) {
        let issues = self.report.issues();
        let shown = &issues[..issues.len().min(max.max(1))];
        (shown, self.report.len() - shown.len())
    }

    /// Advice grouped by the kinds of issue found, ending with the example.
    #[must_use]
    pub(crate) fn suggestions(&self) -> Vec<String> {
        let mut out = suggestions(self.report);
        if self.example.is_null() {
            out.pop();
        }
        out
    }

    /// One line per field of the tool: name, kind, requiredness, description and what it
    /// accepts.
    #[must_use]
    pub(crate) fn summary_lines(&self) -> Vec<String> {
        summary_lines(self.args)
    }
}

/// What an issue says was sent.
#[must_use]
pub(crate) fn received_text(issue: &Issue) -> &str {
    issue.received.as_deref().unwrap_or("(missing)")
}

fn summary_lines(info: &ArgsInfo) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(d) = info.description {
        lines.push(format!("Description: {d}"));
    }
    let required: Vec<&str> = info.required().collect();
    if !required.is_empty() {
        lines.push(format!("Required fields: {}", required.join(", ")));
    }
    for field in info.wire_fields() {
        let need = if field.required {
            "required"
        } else {
            "optional"
        };
        let mut line = format!("- {} ({}, {need})", field.name, (field.kind)().json_type());
        if let Some(d) = field.description {
            let _ = write!(line, ": {}", d.trim_end_matches('.'));
        }
        let _ = write!(line, ". Accepts {}.", field.fix());
        lines.push(line);
    }
    lines
}

fn suggestions(report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let paths = |code: IssueCode| -> Vec<&str> {
        report
            .issues()
            .iter()
            .filter(|i| i.code == code)
            .map(Issue::location)
            .collect()
    };
    let missing = paths(IssueCode::Missing);
    if !missing.is_empty() {
        out.push(format!(
            "Add the missing required fields: {}.",
            missing.join(", ")
        ));
    }
    let unknown = paths(IssueCode::UnknownField);
    if !unknown.is_empty() {
        out.push(format!(
            "Remove the fields this tool does not have: {}.",
            unknown.join(", ")
        ));
    }
    if report.has(IssueCode::Type) {
        out.push("Send each value with the JSON type its field expects.".into());
    }
    if [
        IssueCode::TooShort,
        IssueCode::TooLong,
        IssueCode::TooSmall,
        IssueCode::TooLarge,
    ]
    .into_iter()
    .any(|c| report.has(c))
    {
        out.push("Keep numbers and lengths within the allowed ranges.".into());
    }
    if report.has(IssueCode::Enum) {
        out.push("Use only the allowed values listed for each field.".into());
    }
    if report.has(IssueCode::Pattern) || report.has(IssueCode::Format) {
        out.push("Match the required pattern or format exactly.".into());
    }
    if report.has(IssueCode::NotUnique) {
        out.push("Remove repeated items from lists that must be distinct.".into());
    }
    if report.has(IssueCode::MultipleOf) {
        out.push("Round numbers to the required step.".into());
    }
    if report.has(IssueCode::Policy) {
        out.push("Rewrite the text the output policy flags with its approved alternative.".into());
    }
    if report.has(IssueCode::Cursor) {
        out.push(
            "Send a cursor exactly as the previous result gave it, with the same other arguments, or leave it out to start from the first page."
                .into(),
        );
    }
    out.push("Start from the valid example and change only what you need.".into());
    out
}
