//! The outcome of checking a text: a status and every violation, with where it is and what to
//! write instead.

use serde::Serialize;

use super::engine::{Engine, ScanOutcome};
use super::rule::{Rule, RuleSeverity};

/// Whether a checked text may be delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// No critical violation and no warning: the text may be delivered (advisories are only
    /// suggestions).
    Approved,
    /// Warnings but no critical violation: the text waits until the warnings are corrected or
    /// explicitly acknowledged.
    Pending,
    /// At least one critical violation: the text cannot be delivered until it is corrected.
    Blocked,
}

impl Status {
    /// The upper-case name: `APPROVED`, `PENDING` or `BLOCKED`.
    #[must_use]
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Status::Approved => "APPROVED",
            Status::Pending => "PENDING",
            Status::Blocked => "BLOCKED",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a violation is in the checked text, and what it says there.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Occurrence {
    /// The text found.
    pub text: String,
    /// Byte offset of its start.
    pub start: usize,
    /// Byte offset just past its end.
    pub end: usize,
    /// 1-based line of its start (lines end at `\n`).
    pub line: usize,
    /// 1-based column of its start, in characters (Unicode scalar values, so a combining mark
    /// counts as one).
    pub column: usize,
}

/// One violation of one rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Violation {
    /// The rule's name.
    pub rule: String,
    /// The rule's severity.
    pub severity: RuleSeverity,
    /// Why this is a violation: the rule's message, or a description of what it checks.
    pub message: String,
    /// What was found and where; `None` for a required pattern that occurs nowhere.
    pub found: Option<Occurrence>,
    /// The approved alternative: what to write instead.
    pub alternative: Option<String>,
    /// The text an automatic fix puts in place of the text found.
    pub fix: Option<String>,
}

/// The outcome of checking a text against a policy: its [`Status`] and its violations, in the
/// order of the text (violations of a required pattern that occurs nowhere come last).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Verdict {
    /// Whether the text may be delivered.
    pub status: Status,
    // The counts by severity ([`Verdict::count`]), listed violations and omitted ones alike.
    pub(crate) critical: usize,
    pub(crate) warnings: usize,
    pub(crate) advisories: usize,
    /// The violations: every one, or the first ones of a check with a cap
    /// ([`Policy::check_at_most`](super::Policy::check_at_most)).
    pub violations: Vec<Violation>,
    /// How many violations a capped check counted but did not list (0 otherwise).
    /// [`Verdict::count`] and the status include them.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Violations counted by severity.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    critical: usize,
    warnings: usize,
    advisories: usize,
}

impl Tally {
    fn add(&mut self, severity: RuleSeverity) {
        match severity {
            RuleSeverity::Critical => self.critical += 1,
            RuleSeverity::Warning => self.warnings += 1,
            RuleSeverity::Advisory => self.advisories += 1,
        }
    }
}

impl Verdict {
    fn from_tally(violations: Vec<Violation>, tally: Tally, omitted: usize) -> Verdict {
        let Tally {
            critical,
            warnings,
            advisories,
        } = tally;
        let status = if critical > 0 {
            Status::Blocked
        } else if warnings > 0 {
            Status::Pending
        } else {
            Status::Approved
        };
        Verdict {
            status,
            critical,
            warnings,
            advisories,
            violations,
            omitted,
        }
    }

    /// The number of violations of one severity: the listed ones and, after a capped check,
    /// the omitted ones too. The violations themselves are in [`Verdict::violations`].
    #[must_use]
    pub fn count(&self, severity: RuleSeverity) -> usize {
        match severity {
            RuleSeverity::Critical => self.critical,
            RuleSeverity::Warning => self.warnings,
            RuleSeverity::Advisory => self.advisories,
        }
    }
}

/// Turns byte offsets into lines and columns, walking forward so that a text with many
/// violations is still read once.
struct LineCounter<'t> {
    text: &'t str,
    offset: usize,
    line: usize,
    column: usize,
}

impl<'t> LineCounter<'t> {
    fn new(text: &'t str) -> Self {
        LineCounter {
            text,
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    /// Line and column of `offset`, which must not be before the previous one asked.
    fn locate(&mut self, offset: usize) -> (usize, usize) {
        let passed = self.text.get(self.offset..offset).unwrap_or_default();
        match memchr::memrchr(b'\n', passed.as_bytes()) {
            Some(last_newline) => {
                self.line += memchr::memchr_iter(b'\n', passed.as_bytes()).count();
                self.column = 1 + passed[last_newline + 1..].chars().count();
            }
            None => self.column += passed.chars().count(),
        }
        self.offset = offset;
        (self.line, self.column)
    }
}

/// Expands `{found}` in a fix with the text found.
pub(crate) fn expand_fix(replacement: &str, found: &str) -> String {
    replacement.replace("{found}", found)
}

/// Builds the verdict from what a scan found: drops the matches whose tag follows them, and
/// locates the others. Past `max` violations, the rest are only counted: neither located nor
/// copied, so their cost is a counter's.
pub(crate) fn assemble(
    rules: &[Rule],
    engine: &Engine,
    text: &str,
    scan: ScanOutcome,
    max: usize,
) -> Verdict {
    let mut counter = LineCounter::new(text);
    let total = scan.matches.len() + scan.missing_required.len();
    let mut violations = Vec::with_capacity(total.min(max));
    let mut tally = Tally::default();
    let mut omitted = 0;
    for found in scan.matches {
        if engine
            .tag_check(found.rule)
            .is_some_and(|check| check.is_satisfied(text, found.end))
        {
            continue;
        }
        let rule = &rules[found.rule];
        tally.add(rule.severity());
        if violations.len() == max {
            omitted += 1;
            continue;
        }
        let matched = text.get(found.start..found.end).unwrap_or_default();
        let (line, column) = counter.locate(found.start);
        violations.push(Violation {
            rule: rule.name().to_owned(),
            severity: rule.severity(),
            message: message_of(rule),
            alternative: rule.approved_alternative().map(str::to_owned),
            fix: rule
                .replacement()
                .map(|replacement| expand_fix(replacement, matched)),
            found: Some(Occurrence {
                text: matched.to_owned(),
                start: found.start,
                end: found.end,
                line,
                column,
            }),
        });
    }
    for missing in scan.missing_required {
        let rule = &rules[missing];
        tally.add(rule.severity());
        if violations.len() == max {
            omitted += 1;
            continue;
        }
        violations.push(Violation {
            rule: rule.name().to_owned(),
            severity: rule.severity(),
            message: message_of(rule),
            alternative: rule.approved_alternative().map(str::to_owned),
            fix: None,
            found: None,
        });
    }
    Verdict::from_tally(violations, tally, omitted)
}

fn message_of(rule: &Rule) -> String {
    rule.explanation()
        .map_or_else(|| rule.default_message(), str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters_and_newlines() {
        let text = "ab\ncdé\n\nxyz";
        let mut counter = LineCounter::new(text);
        assert_eq!(counter.locate(0), (1, 1));
        assert_eq!(counter.locate(1), (1, 2));
        assert_eq!(counter.locate(3), (2, 1));
        // 'é' is two bytes but one column.
        assert_eq!(counter.locate(7), (2, 4));
        assert_eq!(counter.locate(9), (4, 1));
        assert_eq!(counter.locate(11), (4, 3));
    }
}
