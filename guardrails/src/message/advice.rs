//! Output policy advice: a tool's output was delivered, but the policy flagged passages the
//! model should treat with care.

use crate::policy::{RenderLimits, Verdict, Violation};

/// What the model is told to do with an output the policy flagged but did not block.
pub(crate) const DELIVERED_WITH_CARE: &str = "This output was delivered as it is. Treat the flagged passages with care: do not repeat them as established facts without their tags.";

/// The verdict of an output policy on a delivered output, as the model is told about it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub(crate) struct PolicyAdvice<'a> {
    /// The policy's verdict.
    pub verdict: &'a Verdict,
    /// How many violations are listed and how much of each found text is echoed.
    pub limits: RenderLimits,
    /// What to do next.
    pub recovery: &'a str,
}

impl<'a> PolicyAdvice<'a> {
    /// The advice of `verdict`, closed by `recovery`.
    #[must_use]
    pub(crate) fn new(verdict: &'a Verdict, recovery: &'a str) -> Self {
        Self {
            verdict,
            limits: RenderLimits::default(),
            recovery,
        }
    }

    /// The violations listed, the most serious first and then in the order of the text, and
    /// how many more are not listed.
    #[must_use]
    pub(crate) fn listed(&self) -> (Vec<&'a Violation>, usize) {
        by_importance(self.verdict, self.limits.max_violations)
    }
}

/// The first `max` violations of `verdict` by importance, and how many more there are.
pub(crate) fn by_importance(verdict: &Verdict, max: usize) -> (Vec<&Violation>, usize) {
    let mut ordered: Vec<&Violation> = verdict.violations.iter().collect();
    ordered.sort_by_key(|violation| std::cmp::Reverse(violation.severity));
    let omitted = ordered.len().saturating_sub(max) + verdict.omitted;
    ordered.truncate(max);
    (ordered, omitted)
}
