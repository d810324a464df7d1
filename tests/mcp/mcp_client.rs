//! Guarded tools served through rmcp, driven by rmcp's own client in-process over
//! `tokio::io::duplex`.

use guardrails::mcp::GuardedRoutes as _;
use guardrails::{ToolArgs, tool};
use guardrails_tests::client::{call, connect, text, tool_names};
use guardrails_tests::pipeline_server::{self, AppState};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ClientRequest, CustomRequest, ErrorCode};
use rmcp::service::ServiceError;
use rmcp::{ServerHandler, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};

#[tokio::test]
async fn the_server_announces_itself_and_lists_its_tools_with_schemas() {
    let client = connect(pipeline_server::server(10)).await;
    let info = client.peer_info().expect("initialized");
    let server_info = info.server_info.as_ref().expect("server info");
    assert_eq!(server_info.name, "task-tracker-test");
    assert_eq!(server_info.version, "1.2.3");
    let tools = client.list_all_tools().await.unwrap();
    let list = tools.iter().find(|t| t.name == "list_tasks").unwrap();
    assert_eq!(
        list.description.as_deref(),
        Some("Lists tasks, oldest first.")
    );
    assert_eq!(list.input_schema["additionalProperties"], false);
    // Advertised portable: an optional enum is `anyOf` its values and `null`.
    assert_eq!(
        list.input_schema["properties"]["status"]["anyOf"][0]["enum"][0],
        "todo"
    );
    let output = list
        .output_schema
        .as_ref()
        .expect("an agent-limited Vec<Task> has an output schema");
    assert_eq!(output["properties"]["items"]["type"], "array");
    assert_eq!(
        list.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    let fragile = tools.iter().find(|t| t.name == "fragile").unwrap();
    assert!(
        fragile.output_schema.is_none(),
        "a number has no object schema"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn validation_errors_are_tool_results_with_is_error() {
    let server = pipeline_server::server(10);
    let client = connect(server.clone()).await;
    let result = client
        .call_tool(call("create_task", json!({"title": "x", "asignee": "ada"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let message = text(&result, 0);
    assert!(message.contains("code=\"too_short\""), "{message}");
    assert!(message.contains("Did you mean \"assignee\"?"), "{message}");
    assert_eq!(server.state().calls(), 0);
    // The structured report rides in `_meta`, never in `structuredContent`, which must
    // conform to the tool's output schema.
    assert!(result.structured_content.is_none());
    let meta = result.meta.as_ref().expect("a report in _meta");
    let report = &meta[guardrails_tests::testing::meta::REPORT_META_KEY]["error"];
    assert_eq!(report["type"], "validation");
    assert_eq!(report["issues"][0]["field"], "title");
    assert_eq!(report["issues"][0]["code"], "too_short");
    assert_eq!(report["issues"][0]["received"], "\"x\"");
    assert!(report["validExample"].is_object());

    let result = client
        .call_tool(call(
            "create_task",
            json!({"title": "Write docs", "assignee": "ada"}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content.as_ref().unwrap()["id"], 10_000);
    assert!(result.meta.is_none());
    assert_eq!(server.state().calls(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_panicking_handler_does_not_stop_the_server() {
    let client = connect(pipeline_server::server(10)).await;
    let result = client
        .call_tool(call("fragile", json!({"id": 1})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result, 0).contains("INTERNAL"));
    assert!(!text(&result, 0).contains("hunter2"));
    let result = client
        .call_tool(call("fragile", json!({"id": 2})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text(&result, 0), "2");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn truncated_lists_carry_shown_total_and_a_teaching_block() {
    let client = connect(pipeline_server::server(1000)).await;
    let result = client
        .call_tool(call("list_tasks", json!({})))
        .await
        .unwrap();
    let structured = result.structured_content.as_ref().unwrap();
    assert_eq!(
        (structured["shown"].as_u64(), structured["total"].as_u64()),
        (Some(5), Some(1000))
    );
    assert!(text(&result, 1).contains("<filter name=\"status\">"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn structured_results_match_the_advertised_output_schemas() {
    let client = connect(pipeline_server::server(100)).await;
    let tools = client.list_all_tools().await.unwrap();
    for (name, args) in [
        (
            "create_task",
            json!({"title": "Write docs", "assignee": "ada"}),
        ),
        ("list_tasks", json!({})),
        ("list_tasks", json!({"status": "done"})),
        ("browse_tasks", json!({})),
        ("all_tasks", json!({})),
        ("get_task", json!({"id": 7})),
    ] {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let schema = Value::Object((**tool.output_schema.as_ref().unwrap()).clone());
        let result = client.call_tool(call(name, args)).await.unwrap();
        let structured = result.structured_content.as_ref().unwrap();
        assert!(
            jsonschema::is_valid(&schema, structured),
            "{name}: {structured} does not match {schema}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unknown_tools_and_methods_are_protocol_errors_counted_and_classified() {
    use guardrails_tests::telemetry::names::{PROTOCOL_ERRORS, PROTOCOL_TARGET};
    use guardrails_tests::testing::meta::FAILURE_META_KEY;
    let captured = guardrails_tests::telemetry::Captured::default();
    let installed = captured.install();
    let client = connect(pipeline_server::server(1)).await;
    let class = |error: &rmcp::ErrorData| {
        let failure = &error.data.as_ref().expect("data")[FAILURE_META_KEY];
        assert_eq!(failure["retryable"], false, "{failure}");
        assert!(failure["correlationId"].is_string(), "{failure}");
        (failure["class"].clone(), failure["code"].clone())
    };
    match client.call_tool(call("does_not_exist", json!({}))).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(class(&e), (json!("protocol"), json!("UNKNOWN_TOOL")));
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    let request = ClientRequest::CustomRequest(CustomRequest::new("foo/bar", None));
    match client.send_request(request).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
            assert_eq!(class(&e), (json!("protocol"), json!("METHOD_NOT_FOUND")));
        }
        other => panic!("expected -32601, got {other:?}"),
    }
    let not_an_object = json!({"name": "get_task", "arguments": ["sent-value-1d4"]});
    let request =
        ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(not_an_object)));
    match client.send_request(request).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(class(&e), (json!("protocol"), json!("INVALID_PARAMS")));
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    client.cancel().await.unwrap();
    drop(installed);
    for error_type in ["unknown_tool", "method_not_found", "invalid_params"] {
        assert_eq!(
            captured.counter(PROTOCOL_ERRORS, &[("error.type", error_type)]),
            1,
            "{:?}",
            captured.counters()
        );
    }
    let events = captured.events(PROTOCOL_TARGET);
    assert_eq!(events.len(), 3, "{events:?}");
    // Neither the name nor the value the caller sent (rmcp's own events aside).
    let ours: Vec<String> = captured
        .lines()
        .into_iter()
        .filter(|line| line.starts_with("event guardrails"))
        .collect();
    assert!(!ours.is_empty());
    for sent in ["does_not_exist", "foo/bar", "sent-value-1d4"] {
        assert!(
            ours.iter().all(|line| !line.contains(sent)),
            "{sent} logged: {ours:?}"
        );
    }
}

// A server written with rmcp's own macros, with guarded tools in the same router.

#[derive(Clone)]
struct Mixed {
    app: std::sync::Arc<AppState>,
    tool_router: ToolRouter<Self>,
}

impl guardrails::StateRef<AppState> for Mixed {
    fn state(&self) -> &AppState {
        &self.app
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[tool_router]
impl Mixed {
    #[rmcp::tool(description = "Adds two integers")]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Mixed {}

/// Arguments of `shout`.
#[derive(Deserialize, ToolArgs)]
struct Shout {
    /// Text to shout.
    #[guard(length(min = 1, max = 20))]
    text: String,
}

/// Shouts the text.
#[tool]
fn shout(args: Shout) -> String {
    args.text.to_uppercase()
}

#[tokio::test]
async fn guarded_tools_sit_beside_native_tools_in_one_router() {
    let router = Mixed::tool_router()
        .with_guarded(shout)
        .with_guarded(pipeline_server::get_task)
        .with_guarded(pipeline_server::list_tasks);
    let app = std::sync::Arc::new(AppState::seeded(20));
    let client = connect(Mixed {
        app: app.clone(),
        tool_router: router,
    })
    .await;

    let names: Vec<String> = tool_names(&client).await;
    assert_eq!(names, ["add", "get_task", "list_tasks", "shout"]);

    let r = client
        .call_tool(call("add", json!({"a": 2, "b": 40})))
        .await
        .unwrap();
    assert_eq!(text(&r, 0), "42");
    let r = client
        .call_tool(call("shout", json!({"text": "hi"})))
        .await
        .unwrap();
    assert_eq!(text(&r, 0), "HI");
    let r = client
        .call_tool(call("shout", json!({"text": ""})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r, 0).starts_with("<validation_error tool=\"shout\""));
    let r = client
        .call_tool(call("get_task", json!({"id": 99})))
        .await
        .unwrap();
    assert!(text(&r, 0).contains("code=\"NOT_FOUND\""));
    let r = client
        .call_tool(call("list_tasks", json!({})))
        .await
        .unwrap();
    assert_eq!(r.structured_content.as_ref().unwrap()["total"], 20);
    assert_eq!(
        app.calls(),
        2,
        "get_task and list_tasks ran on the shared state"
    );
    match client.call_tool(call("nope", json!({}))).await {
        Err(ServiceError::McpError(e)) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS),
        other => panic!("expected -32602, got {other:?}"),
    }
    client.cancel().await.unwrap();
}

/// `tools/list` lists the tools in the order the server added them, the same on every call:
/// a client that caches or diffs the list sees no spurious change, and the author decides
/// which tools a model reads first.
#[tokio::test]
async fn tools_are_listed_in_the_order_they_were_added() {
    let server = pipeline_server::server(10);
    let added: Vec<&str> = server.specs().map(guardrails::ToolSpec::name).collect();
    assert!(added.len() > 2);
    let client = connect(server).await;
    for _ in 0..3 {
        let listed: Vec<String> = tool_names(&client).await;
        assert_eq!(listed, added);
    }
    client.cancel().await.unwrap();

    // Not sorted: adding in another order lists in that order.
    let reversed = guardrails::Server::new(()).tool(shout).tool(ping);
    let client = connect(reversed).await;
    let listed: Vec<String> = tool_names(&client).await;
    assert_eq!(listed, ["shout", "ping"]);
    client.cancel().await.unwrap();
}

#[derive(Deserialize, ToolArgs)]
struct NoArgs {}

/// Replies.
#[tool]
fn ping(_args: NoArgs) -> String {
    "pong".to_owned()
}
