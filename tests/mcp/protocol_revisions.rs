//! Guarded servers reached by rmcp's client on both protocol revisions a client may speak:
//! 2026-07-28 (`server/discover`, no handshake) and 2025-11-25 (the `initialize` handshake).
//!
//! rmcp answers a method of a capability the server did not advertise with "method not found",
//! and strips a `structuredContent` that is not an object for a client older than 2026-07-28,
//! putting the value in the first text block instead. These tests pin what each client gets from
//! a `Server`, a `#[guarded]` server and a router guarded with limits.

#![expect(
    clippy::unused_self,
    reason = "tools are methods on `&self`, as rmcp's examples write them"
)]

use guardrails::mcp::{ResultLimits, RouterGuard};
use guardrails_tests::client::{call, text};
use guardrails_tests::pipeline_server;
use guardrails_tests::testing::meta::REPORT_META_KEY;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolResult, ClientConfig, ErrorCode, ProtocolVersion};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, RoleClient, RunningService, ServiceError,
};
use rmcp::{ServerHandler, ServiceExt as _, schemars, tool, tool_handler, tool_router};
use serde_json::{Value, json};

/// The two revisions, the newest first.
const REVISIONS: [ProtocolVersion; 2] =
    [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25];

/// rmcp's client connected in process to `server`, speaking `revision`.
async fn connect_at<S: ServerHandler>(
    server: S,
    revision: &ProtocolVersion,
) -> RunningService<RoleClient, ClientConfig> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let config = ClientConfig::default().with_protocol_version(revision.clone());
    let lifecycle = if revision.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![revision.clone()],
        }
    };
    let client = config
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("initialize or discover");
    let negotiated = &client.peer_info().expect("server info").protocol_version;
    assert_eq!(negotiated, revision);
    client
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SumRequest {
    a: i32,
    b: i32,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Count {
    /// How many names to list.
    n: u32,
}

/// A native server as rmcp's examples write one (the default `#[tool_handler]`), guarded by
/// `#[guarded]`.
#[derive(Clone)]
struct Names;

#[guardrails::guarded]
#[tool_router]
impl Names {
    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler]
impl ServerHandler for Names {}

/// A native server whose router, in a field, is guarded with a `RouterGuard` that cuts `names`
/// at 3 items and `letters` at 8 bytes; their structured results are a list and a string.
#[derive(Clone)]
struct Listing {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Listing {
    fn new() -> Self {
        let guard = RouterGuard::new()
            .tool("names", ResultLimits::new().agent_limit(3))
            .tool("letters", ResultLimits::new().max_bytes(8));
        Self {
            tool_router: guard.guard(Self::tool_router()),
        }
    }

    #[tool(description = "Lists names")]
    fn names(&self, Parameters(Count { n }): Parameters<Count>) -> Json<Vec<String>> {
        Json((1..=n).map(|i| format!("name {i}")).collect())
    }

    #[tool(description = "Spells the alphabet")]
    fn letters(&self) -> Json<String> {
        Json("abcdefghijklmnopqrstuvwxyz".to_owned())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Listing {}

/// The first text block read as JSON.
fn first_json(result: &CallToolResult) -> Value {
    serde_json::from_str(text(result, 0)).expect("the first block is JSON")
}

#[tokio::test]
async fn a_server_and_a_guarded_server_advertise_tools_and_serve_them_on_both_revisions() {
    for revision in &REVISIONS {
        let client = connect_at(pipeline_server::server(10), revision).await;
        let info = client.peer_info().expect("server info");
        assert!(info.capabilities.tools.is_some(), "{revision}");
        let tools = client.list_all_tools().await.expect("tools/list");
        assert!(tools.iter().any(|t| t.name == "list_tasks"), "{revision}");
        let result = client
            .call_tool(call("get_task", json!({"id": 1})))
            .await
            .expect("tools/call");
        assert_eq!(result.is_error, Some(false), "{revision}");
        // Only tools are advertised: rmcp answers the methods of the others "method not found".
        assert!(info.capabilities.prompts.is_none(), "{revision}");
        match client.list_prompts(None).await {
            Err(ServiceError::McpError(e)) => assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND),
            other => panic!("{revision}: expected -32601, got {other:?}"),
        }
        client.cancel().await.unwrap();

        let client = connect_at(Names, revision).await;
        let info = client.peer_info().expect("server info");
        assert!(info.capabilities.tools.is_some(), "{revision}");
        let tools = client.list_all_tools().await.expect("tools/list");
        let names: Vec<_> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["sum"], "{revision}");
        let sum = tools.iter().find(|t| t.name == "sum").expect("sum");
        assert_eq!(
            sum.input_schema["additionalProperties"], false,
            "{revision}"
        );
        let result = client
            .call_tool(call("sum", json!({"a": 1, "b": 2})))
            .await
            .expect("tools/call");
        assert_eq!(text(&result, 0), "3", "{revision}");
        let refused = client
            .call_tool(call("sum", json!({"a": 1, "b": 2, "c": 3})))
            .await
            .expect("tools/call");
        assert_eq!(refused.is_error, Some(true), "{revision}");
        assert!(
            text(&refused, 0).contains("code=\"unknown_field\""),
            "{revision}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_cut_result_of_a_server_reaches_both_revisions_with_its_teaching_block() {
    for revision in &REVISIONS {
        let client = connect_at(pipeline_server::server(1000), revision).await;
        let result = client
            .call_tool(call("list_tasks", json!({})))
            .await
            .unwrap();
        // The envelope is an object, which every revision keeps as `structuredContent`.
        let structured = result.structured_content.as_ref().expect("structured");
        assert_eq!(structured["shown"], 5, "{revision}");
        assert_eq!(structured["total"], 1000, "{revision}");
        assert_eq!(&first_json(&result), structured, "{revision}");
        assert_eq!(result.content.len(), 2, "{revision}");
        assert!(
            text(&result, 1).contains("<filter name=\"status\">"),
            "{revision}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn reports_in_meta_reach_both_revisions() {
    for revision in &REVISIONS {
        let client = connect_at(pipeline_server::server(10), revision).await;
        let rejected = client
            .call_tool(call("create_task", json!({"title": "x"})))
            .await
            .unwrap();
        assert_eq!(rejected.is_error, Some(true), "{revision}");
        assert!(rejected.structured_content.is_none(), "{revision}");
        let report = &rejected.meta.as_ref().expect("_meta")[REPORT_META_KEY]["error"];
        assert_eq!(report["type"], "validation", "{revision}");
        let failed = client
            .call_tool(call("get_task", json!({"id": 999_999})))
            .await
            .unwrap();
        assert_eq!(failed.is_error, Some(true), "{revision}");
        let report = &failed.meta.as_ref().expect("_meta")[REPORT_META_KEY]["error"];
        assert_eq!(report["code"], "NOT_FOUND", "{revision}");
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_guard_cuts_a_structured_list_where_each_revision_reads_it() {
    for revision in &REVISIONS {
        let client = connect_at(Listing::new(), revision).await;
        let result = client
            .call_tool(call("names", json!({"n": 10})))
            .await
            .unwrap();
        let shown = json!(["name 1", "name 2", "name 3"]);
        // The list the model reads first is the cut one, on both revisions.
        assert_eq!(first_json(&result), shown, "{revision}");
        assert_eq!(result.content.len(), 2, "{revision}: {:?}", result.content);
        assert!(
            text(&result, 1).starts_with(r#"<truncated tool="names" shown="3" total="10">"#),
            "{revision}: {}",
            text(&result, 1)
        );
        if revision.has_initialize() {
            // No list as `structuredContent` before 2026-07-28: rmcp strips it.
            assert_eq!(result.structured_content, None, "{revision}");
        } else {
            assert_eq!(result.structured_content, Some(shown), "{revision}");
        }
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_guard_cuts_a_structured_string_where_each_revision_reads_it() {
    for revision in &REVISIONS {
        let client = connect_at(Listing::new(), revision).await;
        let result = client
            .call_tool(rmcp::model::CallToolRequestParams::new("letters"))
            .await
            .unwrap();
        assert_eq!(first_json(&result), "abcdefgh", "{revision}");
        assert_eq!(result.content.len(), 2, "{revision}: {:?}", result.content);
        assert!(
            text(&result, 1).contains(r#"bytes_shown="8""#),
            "{revision}: {}",
            text(&result, 1)
        );
        let expected = (!revision.has_initialize()).then(|| json!("abcdefgh"));
        assert_eq!(result.structured_content, expected, "{revision}");
        client.cancel().await.unwrap();
    }
}
