//! What a call produced, before a transport turns it into its own result type.

use serde_json::Value;

use crate::message::{Failure, ToolError};
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
}

impl CallOutput {
    /// A successful output of text blocks.
    #[must_use]
    pub fn text(text: Vec<String>) -> Self {
        Self {
            text,
            structured: None,
            is_error: false,
        }
    }

    /// The rendered failure of a call.
    #[must_use]
    pub fn failure(failure: &Failure<'_>, options: &RenderOptions) -> Self {
        Self {
            text: vec![crate::render::failure(failure, options)],
            structured: None,
            is_error: failure.error.is_error(),
        }
    }

    /// The rendered `error` of tool `tool`.
    #[must_use]
    pub fn tool_error(tool: &str, error: &ToolError, options: &RenderOptions) -> Self {
        Self::failure(&Failure::new(tool, error), options)
    }
}
