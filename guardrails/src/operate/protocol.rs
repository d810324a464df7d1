//! Failures of a request before any tool runs: a tool that does not exist, arguments that are
//! not an object, a method the server does not know. Counted and classified like a tool's
//! failures, without the name or the value the caller sent.

use serde_json::Value;

use super::{FAILURE_META_KEY, classify, telemetry};

/// Counter of requests that failed before any tool ran, labelled `error.type`
/// (`unknown_tool`, `invalid_params`, `method_not_found`): what clients get wrong about the
/// server itself. Its event (target `guardrails::protocol`, level `INFO`) carries the same label
/// and the error's correlation id, never the name or the value sent.
pub(crate) const PROTOCOL_ERRORS: &str = "guardrails.protocol.errors";

/// The target of the event of a request that failed before any tool ran.
pub(crate) const PROTOCOL_TARGET: &str = "guardrails::protocol";

/// A request that failed before any tool ran (read by the rmcp adapter).
#[cfg_attr(not(feature = "rmcp"), expect(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProtocolError {
    /// `tools/call` of a tool the server does not have.
    UnknownTool,
    /// A known method whose params do not have its shape (`arguments` that are not an object).
    InvalidParams,
    /// A method the server does not know.
    MethodNotFound,
}

#[cfg_attr(not(feature = "rmcp"), expect(dead_code))]
impl ProtocolError {
    fn error_type(self) -> &'static str {
        match self {
            Self::UnknownTool => "unknown_tool",
            Self::InvalidParams => "invalid_params",
            Self::MethodNotFound => "method_not_found",
        }
    }

    fn code(self) -> &'static str {
        match self {
            Self::UnknownTool => "UNKNOWN_TOOL",
            Self::InvalidParams => "INVALID_PARAMS",
            Self::MethodNotFound => "METHOD_NOT_FOUND",
        }
    }

    fn guidance(self) -> &'static str {
        match self {
            Self::UnknownTool => {
                "Call only a tool that tools/list names, with its name exactly as listed."
            }
            Self::InvalidParams => {
                "Send the params the method takes: for tools/call, `name` and an `arguments` object."
            }
            Self::MethodNotFound => {
                "Call only the methods of the capabilities the server announced."
            }
        }
    }

    /// Counts the failure, logs it, and returns its classification for the error's `data`
    /// (under [`FAILURE_META_KEY`]).
    pub(crate) fn record(self) -> (&'static str, Value) {
        let id = telemetry::correlation_id();
        tracing::info!(
            target: PROTOCOL_TARGET,
                    error_type = self.error_type(),
            correlation_id = id.as_str(),
            "a request failed before any tool ran"
        );
        metrics::counter!(PROTOCOL_ERRORS, "error.type" => self.error_type()).increment(1);
        let failure =
            classify::failure_meta("protocol", self.code(), false, None, &id, self.guidance());
        (FAILURE_META_KEY, failure)
    }
}
