//! rmcp's own client connected in process to a server, over `tokio::io::duplex`, for the tests
//! that drive a server as an MCP client would.

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServerHandler, ServiceExt as _};
use serde_json::Value;

use crate::testing::object;

/// Serves `server` on one end of an in-process pipe and returns rmcp's client on the other,
/// after the handshake.
///
/// # Panics
/// When the handshake fails.
pub async fn connect<S: ServerHandler>(server: S) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("handshake")
}

/// A `tools/call` of `name` with `args`, which must be a JSON object.
#[must_use]
pub fn call(name: &'static str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(object(args))
}

/// The text of content block `index` of a result, or `""` when it is not text.
#[must_use]
pub fn text(result: &CallToolResult, index: usize) -> &str {
    result.content[index]
        .as_text()
        .map(|t| t.text.as_str())
        .unwrap_or_default()
}

/// The names of the tools `client`'s server lists, in the order it lists them.
///
/// # Panics
/// When listing fails.
pub async fn tool_names(client: &RunningService<RoleClient, ()>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}
