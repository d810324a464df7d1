//! What a call produced, before a transport turns it into its own result type.

use serde_json::Value;

use crate::message::{Failure, Rejection, ToolError};
use crate::render::RenderOptions;

/// What a call produced, before a transport turns it into its own result type.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallOutput {
    /// Text blocks, in order: the data (or the rendered error), then any teaching block.
    pub text: Vec<String>,
    /// The structured result, when the output is a JSON object.
    pub structured: Option<Value>,
    /// Whether the call failed (MCP `isError`).
    pub is_error: bool,
    /// The structured report of a rejected or failed call, beside the text the model reads:
    /// the object the JSON format renders ([`rejection_report`](crate::render::rejection_report),
    /// [`failure_report`](crate::render::failure_report)). The rmcp adapter puts it in the
    /// result's `_meta`, under [`REPORT_META_KEY`](crate::mcp::REPORT_META_KEY), never in
    /// `structuredContent`, which must conform to the tool's output schema.
    pub report: Option<Value>,
}

impl CallOutput {
    /// A successful output of text blocks.
    #[must_use]
    pub fn text(text: Vec<String>) -> Self {
        Self {
            text,
            structured: None,
            is_error: false,
            report: None,
        }
    }

    /// The rendered failure of a call.
    #[must_use]
    pub fn failure(failure: &Failure<'_>, options: &RenderOptions) -> Self {
        Self {
            text: vec![crate::render::failure(failure, options)],
            structured: None,
            is_error: failure.error.is_error(),
            report: Some(crate::render::failure_report(failure)),
        }
    }

    /// The rendered rejection of a call, with its structured report.
    #[must_use]
    pub fn rejection(rejection: &Rejection<'_>, options: &RenderOptions) -> Self {
        Self {
            text: vec![crate::render::rejection(rejection, options)],
            structured: None,
            is_error: true,
            report: Some(crate::render::rejection_report(rejection, options)),
        }
    }

    /// The rendered `error` of tool `tool`.
    #[must_use]
    pub fn tool_error(tool: &str, error: &ToolError, options: &RenderOptions) -> Self {
        Self::failure(&Failure::new(tool, error), options)
    }
}
