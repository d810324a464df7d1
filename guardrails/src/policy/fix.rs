//! Automatic fixes: the substitutions of the violations that carry one.

use serde::Serialize;

use super::verdict::{Verdict, Violation};

/// One substitution made by an automatic fix.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// The rule whose fix this is.
    pub rule: String,
    /// Byte offset of the replaced text in the original text.
    pub start: usize,
    /// Byte offset just past the replaced text in the original text.
    pub end: usize,
    /// 1-based line of the replaced text in the original text.
    pub line: usize,
    /// 1-based column of the replaced text in the original text, in characters.
    pub column: usize,
    /// The replaced text.
    pub found: String,
    /// What replaced it.
    pub replacement: String,
}

/// The outcome of [`Policy::fix`](super::Policy::fix).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct FixOutcome {
    /// The corrected text.
    pub text: String,
    /// Every substitution made, in the order of the original text.
    pub changes: Vec<Change>,
    /// The verdict on the original text.
    pub before: Verdict,
    /// The verdict on the corrected text: what is left to correct by hand.
    pub after: Verdict,
}

/// Applies the fixes of `verdict` to `text`, left to right, skipping any that overlaps one
/// already applied.
pub(crate) fn apply_fixes(text: &str, verdict: &Verdict) -> (String, Vec<Change>) {
    let mut fixable: Vec<(&Violation, usize, usize, &str)> = verdict
        .violations
        .iter()
        .filter_map(|violation| {
            let found = violation.found.as_ref()?;
            let replacement = violation.fix.as_deref()?;
            Some((violation, found.start, found.end, replacement))
        })
        .collect();
    // Violations come in order of position then rule; at one start the longer text wins, as
    // it is the more specific rule's. The sort is stable, so rule order breaks the last ties.
    fixable.sort_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)));

    let mut corrected = String::with_capacity(text.len());
    let mut changes = Vec::new();
    let mut copied_up_to = 0;
    for (violation, start, end, replacement) in fixable {
        if start < copied_up_to {
            continue;
        }
        let (Some(before), Some(found)) = (text.get(copied_up_to..start), text.get(start..end))
        else {
            continue;
        };
        corrected.push_str(before);
        corrected.push_str(replacement);
        copied_up_to = end;
        let (line, column) = violation
            .found
            .as_ref()
            .map_or((0, 0), |occurrence| (occurrence.line, occurrence.column));
        changes.push(Change {
            rule: violation.rule.clone(),
            start,
            end,
            line,
            column,
            found: found.to_owned(),
            replacement: replacement.to_owned(),
        });
    }
    corrected.push_str(text.get(copied_up_to..).unwrap_or_default());
    (corrected, changes)
}
