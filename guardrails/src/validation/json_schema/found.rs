//! The issues of one check as they are collected, by the reading of the validator's errors
//! (`issues`) and of the unions no branch of matches (`union_issues`) alike.

use crate::validation::correction::Suggestion;
use crate::validation::report::{Issue, IssueCode, MAX_KEPT_ISSUES};

/// The issues of one check as they are found: the fields' own, and unknown keys, each kept up
/// to the report's cap and counted past it.
#[derive(Default)]
pub(super) struct Found {
    pub(super) fields: Vec<Issue>,
    pub(super) unknown: Vec<Issue>,
    pub(super) omitted: usize,
    /// The instance paths (JSON pointers) of the unions that failed.
    pub(super) failed_unions: Vec<String>,
    /// What unknown keys surely meant, for the corrected call.
    pub(super) suggestions: Vec<Suggestion>,
    /// Misplaced keys: the template of the field each belongs to, and the path it was sent at.
    pub(super) moves: Vec<(String, String)>,
}

impl Found {
    pub(super) fn push(&mut self, issue: Issue) {
        let list = if issue.code == IssueCode::UnknownField {
            &mut self.unknown
        } else {
            &mut self.fields
        };
        if list.len() < MAX_KEPT_ISSUES {
            list.push(issue);
        } else {
            self.omitted += 1;
        }
    }
}
