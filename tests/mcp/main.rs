//! Serving over MCP: guarded tools driven by rmcp's own client, `guard_router` and `#[guarded]` on
//! native rmcp servers, both protocol revisions, stdio, and Streamable HTTP under hostile clients
//! and load.

mod corrected_call;
mod guard_parity;
mod guard_reading;
mod guard_router;
mod guard_router_differential;
mod guard_router_leniency;
mod guard_router_shapes;
mod guard_tasks;
mod guarded;
mod http;
mod http_callers;
mod http_limits;
mod http_load;
mod mcp_client;
mod mcp_mixed;
mod operate;
mod protocol_revisions;
/// The native server of every serde shape, which `guard_router_shapes` and `guard_reading` drive.
#[path = "../clients/serde_shapes_server.rs"]
mod serde_shapes_server;
mod stdio;
