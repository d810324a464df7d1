//! Policies as output checks of `#[tool(policy = …)]`: a tool's successful output is checked
//! before delivery, like any text an agent would read.
//!
//! - BLOCKED (a critical violation): the output is withheld and the model receives an
//!   `OUTPUT_POLICY` tool error naming the rules that were broken;
//! - PENDING (warnings only) or advisories: the output is delivered, followed by the policy's
//!   advice (`<output_policy>` in XML, or the server's other format) so the model can see what
//!   to treat with care;
//! - APPROVED without violations: the output is delivered as it is.

use std::sync::LazyLock;

use super::spec::{OutputCheck, OutputVerdict};
use crate::message::ToolError;
use crate::policy::{
    OUTPUT_POLICY_CODE, Policy, Profile, RuleSeverity, Status, Verdict as PolicyVerdict,
};

/// The most rule names an `OUTPUT_POLICY` error lists.
const MAX_RULES_LISTED: usize = 10;

fn output_verdict(tool: &str, verdict: PolicyVerdict) -> OutputVerdict {
    match verdict.status {
        Status::Blocked => {
            let mut rules: Vec<&str> = Vec::new();
            for violation in verdict
                .violations
                .iter()
                .filter(|v| v.severity == RuleSeverity::Critical)
            {
                if !rules.contains(&violation.rule.as_str()) && rules.len() < MAX_RULES_LISTED {
                    rules.push(&violation.rule);
                }
            }
            OutputVerdict::Block(
                ToolError::custom(
                    OUTPUT_POLICY_CODE,
                    format!(
                        "The output of {tool} broke {} of the output policy and was withheld.",
                        crate::text::count(verdict.critical, "critical rule", "critical rules")
                    ),
                )
                .recovery(
                    "Narrow the request (filters, fewer items) so the result leaves out the flagged text, or ask the user how to proceed.",
                )
                .detail("rules", rules.join(", ")),
            )
        }
        _ if verdict.violations.is_empty() => OutputVerdict::Pass,
        _ => OutputVerdict::Flagged(Box::new(verdict)),
    }
}

impl OutputCheck for Policy {
    fn check(&self, tool: &str, text: &str) -> OutputVerdict {
        output_verdict(tool, Policy::check(self, text))
    }
}

impl OutputCheck for Profile {
    fn check(&self, tool: &str, text: &str) -> OutputVerdict {
        OutputCheck::check(self.policy(), tool, text)
    }
}

/// A policy built on first use, e.g. `static POLICY: LazyLock<Policy> = LazyLock::new(…)`.
impl<F: FnOnce() -> Policy + Send> OutputCheck for LazyLock<Policy, F> {
    fn check(&self, tool: &str, text: &str) -> OutputVerdict {
        OutputCheck::check(&**self, tool, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn critical_blocks_warnings_advise_clean_passes() {
        let policy = Profile::Decision;
        match OutputCheck::check(&policy, "report", "This will save $50,000 annually.") {
            OutputVerdict::Block(error) => {
                assert_eq!(error.code().as_str(), OUTPUT_POLICY_CODE);
                assert!(error.message().contains("report"));
            }
            other => panic!("expected a block, got {other:?}"),
        }
        match OutputCheck::check(&policy, "report", "Roughly two weeks of work remain.") {
            OutputVerdict::Flagged(verdict) => {
                assert_eq!(verdict.critical, 0, "{verdict:?}");
                assert!(!verdict.violations.is_empty(), "{verdict:?}");
            }
            other => panic!("expected advice, got {other:?}"),
        }
        let clean = "Work may finish next quarter [AI estimation based on current velocity].";
        assert!(matches!(
            OutputCheck::check(&policy, "report", clean),
            OutputVerdict::Pass
        ));
    }
}
