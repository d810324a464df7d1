//! Tools whose contract changed since the lockfile (a "rug pull"): what the model is shown of
//! them, and the answer to their calls.

use std::sync::Arc;

use guardrails::__private::mcp_call_result as call_result;
use guardrails::CallOutput;
use guardrails::ToolError;
use guardrails::contract::{Awareness, AwarenessConfig, Contract, Delta};
use rmcp::model::{CallToolResult, JsonObject, Tool};
use serde_json::Value;

use super::Proxy;

/// What the model is shown in place of a title or a description that changed since the
/// lockfile, under `--on-change refuse`.
const WITHHELD: &str = "(withheld until the change is approved)";

/// Whether the change at `path` is of text the model reads: a title or a description.
fn is_text(path: &str) -> bool {
    matches!(path.rsplit('.').next(), Some("description" | "title"))
}

/// `tool` as a tool refused for a change is listed: with the title and description of the
/// lockfile (none for a tool the lockfile does not hold), and its schemas without any
/// `title` or `description`, so that no text that awaits review reaches the model.
pub(super) fn approved_text(mut tool: Tool, approved: Option<&Contract>) -> Tool {
    tool.description = Some(
        approved
            .map(|contract| contract.description().to_owned())
            .unwrap_or_default()
            .into(),
    );
    tool.title = approved.and_then(|contract| contract.title().map(str::to_owned));
    if let Some(annotations) = &mut tool.annotations {
        annotations.title = None;
    }
    let mut input = (*tool.input_schema).clone();
    strip_text(&mut input);
    tool.input_schema = Arc::new(input);
    if let Some(output) = &tool.output_schema {
        let mut output = (**output).clone();
        strip_text(&mut output);
        tool.output_schema = Some(Arc::new(output));
    }
    tool
}

/// Removes every `title` and `description` string of a schema, at any depth.
fn strip_text(schema: &mut JsonObject) {
    schema.retain(|key, value| !((key == "title" || key == "description") && value.is_string()));
    for value in schema.values_mut() {
        strip_value(value);
    }
}

fn strip_value(value: &mut Value) {
    match value {
        Value::Object(object) => strip_text(object),
        Value::Array(items) => items.iter_mut().for_each(strip_value),
        _ => {}
    }
}

impl Proxy {
    /// The answer to every call of a tool whose contract changed since the lockfile: a
    /// `CONTRACT_CHANGED` tool error with a `<contract_awareness>` block of every change, the
    /// new text of a title or a description withheld (it is what awaits review).
    pub(super) fn refusal(&self, current: &Contract, mut deltas: Vec<Delta>) -> CallToolResult {
        for delta in &mut deltas {
            if is_text(&delta.path) && delta.after.is_some() {
                delta.after = Some(Value::from(WITHHELD));
            }
        }
        let config = AwarenessConfig::default().with_all_severities(true);
        let awareness = Awareness::new(current, deltas, &config);
        let error = ToolError::custom(
            "CONTRACT_CHANGED",
            "This tool's description or schema changed since it was approved, so it is not called.",
        )
        .recovery(
            "Do not call this tool. Tell the user that its contract changed since the lockfile \
             and needs their review; use the other tools meanwhile.",
        );
        let options = &self.0.settings.render;
        call_result(match &awareness {
            Some(awareness) => {
                CallOutput::tool_error_with_contract(current.name(), &error, awareness, options)
            }
            None => CallOutput::tool_error(current.name(), &error, options),
        })
    }
}
