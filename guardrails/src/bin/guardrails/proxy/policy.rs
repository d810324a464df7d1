//! Output policies on the text an agent writes into a tool's arguments and on a tool's results.

use std::fmt::Write as _;

use guardrails::policy::RuleSeverity;
use guardrails::{ErrorCode, OutputCheck, OutputVerdict, ToolError};
use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{MAX_PROBLEM_CHARS, Proxy, cut};

impl Proxy {
    /// The refusal of a call whose text breaks an output policy on one of `tool`'s fields: each
    /// critical violation, and each warning (the proxy has no acknowledgement to wait for), with
    /// the rule's alternative where it has one. `None` lets the call through.
    pub(super) fn policy_refusal(
        &self,
        tool: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
    ) -> Option<ToolError> {
        let mut found = Vec::new();
        for (_, field, policy) in self.0.settings.policies.iter().filter(|(t, ..)| t == tool) {
            let texts: Vec<(String, &str)> = match arguments.and_then(|a| a.get(field)) {
                Some(Value::String(text)) => vec![(field.clone(), text.as_str())],
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| Some((format!("{field}[{i}]"), item.as_str()?)))
                    .collect(),
                _ => Vec::new(),
            };
            for (path, text) in texts {
                let verdict = policy.check(text);
                // Critical violations first, then warnings, each in the order of the text.
                let mut serious: Vec<_> = verdict
                    .violations
                    .iter()
                    .filter(|violation| violation.severity >= RuleSeverity::Warning)
                    .collect();
                serious.sort_by_key(|violation| std::cmp::Reverse(violation.severity));
                for violation in serious {
                    let mut line = format!(
                        "`{path}`: {} ({})",
                        cut(&violation.message, MAX_PROBLEM_CHARS),
                        cut(&violation.rule, MAX_PROBLEM_CHARS)
                    );
                    if let Some(alternative) = &violation.alternative {
                        let _ = write!(
                            line,
                            "; write instead: {}",
                            cut(alternative, MAX_PROBLEM_CHARS)
                        );
                    }
                    found.push(line);
                }
            }
        }
        if found.is_empty() {
            return None;
        }
        tracing::info!(
            tool,
            violations = found.len(),
            "a call held back by an output policy"
        );
        Some(
            ToolError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "The text of this call breaks the output policy: {}.",
                    found.join("; ")
                ),
            )
            .recovery(
                "Rewrite the text named above to follow each rule, then call the tool again.",
            ),
        )
    }

    /// A successful result of `tool` checked against its output policy, as the presenter of a
    /// derived tool checks one: delivered, delivered with advice after it, or withheld behind the
    /// policy's tool error. The text checked is the result's first text block.
    pub(super) fn police_result(
        &self,
        tool: &str,
        mut result: CallToolResult,
    ) -> Result<CallToolResult, ToolError> {
        let Some(policy) = self.0.settings.result_policies.get(tool) else {
            return Ok(result);
        };
        if result.is_error == Some(true) {
            return Ok(result);
        }
        let Some(text) = result
            .content
            .iter()
            .find_map(|block| block.as_text().map(|text| text.text.clone()))
        else {
            return Ok(result);
        };
        match OutputCheck::check(policy, tool, &text) {
            verdict @ (OutputVerdict::Advise(_) | OutputVerdict::Flagged(_)) => {
                if let Some(advice) = verdict.advice(&self.0.settings.render) {
                    result.content.push(rmcp::model::ContentBlock::text(advice));
                }
            }
            OutputVerdict::Block(error) => {
                tracing::info!(tool, "a result withheld by its output policy");
                return Err(error);
            }
            _ => {}
        }
        Ok(result)
    }
}
