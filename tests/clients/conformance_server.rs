//! The task tracker over Streamable HTTP, plus the two fixture tools the MCP conformance suite
//! calls (`test_simple_text`, `test_error_handling`), each a guarded tool like any other.
//!
//! ```sh
//! cargo run --example conformance_server -- 127.0.0.1:18765
//! ```

use guardrails::{ToolArgs, ToolError, tool};
use guardrails_tests::task_tracker::{self, Tracker};
use serde::Deserialize;

/// No arguments.
#[derive(Debug, Deserialize, ToolArgs)]
struct NoArgs {}

/// Returns a short text (conformance fixture).
#[tool(read_only)]
fn test_simple_text(_state: &Tracker, _args: NoArgs) -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails with a tool error (conformance fixture).
#[tool(read_only)]
fn test_error_handling(_state: &Tracker, _args: NoArgs) -> Result<String, ToolError> {
    Err(
        ToolError::internal("This tool intentionally returns an error for testing.")
            .recovery("Nothing to fix: this fixture always fails."),
    )
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18765".to_owned());
    eprintln!("conformance server: Streamable HTTP at http://{addr}/mcp");
    task_tracker::server(1_000)
        .tool(test_simple_text)
        .tool(test_error_handling)
        .serve_http(addr.as_str())
        .await
}
