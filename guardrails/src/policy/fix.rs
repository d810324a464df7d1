//! Automatic fixes: the substitutions of the violations that carry one.

use std::fmt;

use serde::Serialize;

use super::verdict::{Verdict, Violation};

/// One substitution made by an automatic fix. It displays itself as
/// `line 1, column 6: "$9,000" → "a moderate investment" (cost_figure)`, and serializes to its
/// rule, byte span (`start`, `end`), `line`, `column`, the text `found` and its `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Change {
    rule: String,
    start: usize,
    end: usize,
    line: usize,
    column: usize,
    found: String,
    replacement: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {} → {} ({})",
            self.line,
            self.column,
            crate::text::quote_json(&self.found),
            crate::text::quote_json(&self.replacement),
            crate::text::plain(&self.rule)
        )
    }
}

/// The outcome of [`Policy::fix`](super::Policy::fix).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct FixOutcome {
    /// The corrected text.
    pub text: String,
    /// Every substitution made, in the order of the original text.
    pub changes: Vec<Change>,
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
