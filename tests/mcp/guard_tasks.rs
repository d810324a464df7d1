//! A native tool that answers a call with a task (the `io.modelcontextprotocol/tasks`
//! extension) under `RouterGuard`: the call is checked and repaired first, a refused call
//! creates no task, and the task reaches the client with the call's repairs in its `_meta`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use guardrails::RepairPolicy;
use guardrails::mcp::RouterGuard;
use guardrails_tests::testing::meta::REPAIRS_META_KEY;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::model::{
    CallToolResponse, ClientCapabilities, ClientConfig, CreateTaskResult, Implementation,
    ServerCapabilities, ServerConfig, Task, TaskStatus, Tool,
};
use rmcp::{ClientHandler, ServerHandler, ServiceExt as _, tool_handler};
use serde_json::json;

use guardrails_tests::client::call;
use guardrails_tests::testing::object;

/// A server whose `research` tool starts a task for each call it runs.
#[derive(Clone)]
struct Research {
    router: ToolRouter<Self>,
}

impl Research {
    fn new(started: Arc<AtomicUsize>) -> Self {
        let schema = object(json!({
            "type": "object",
            "properties": {"depth": {"type": "integer", "minimum": 1}},
            "required": ["depth"],
            "additionalProperties": false,
        }));
        let tool = Tool::new(
            "research",
            "Researches a topic, as a task",
            Arc::new(schema),
        );
        let route = ToolRoute::new_dyn(tool, move |_context| {
            let n = started.fetch_add(1, Ordering::SeqCst);
            let now = "2026-11-28T00:00:00Z";
            let task = Task::new(format!("task-{n}"), TaskStatus::Working, now, now);
            Box::pin(async move { Ok(CallToolResponse::Task(CreateTaskResult::new(task))) })
        });
        let router = ToolRouter::new().with_route(route);
        Self {
            router: RouterGuard::new()
                .config(guardrails::GuardConfig::new().repair(RepairPolicy::On))
                .guard(router),
        }
    }
}

#[tool_handler(router = self.router)]
impl ServerHandler for Research {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
    }
}

/// A client that declares the tasks extension.
#[derive(Clone)]
struct TasksClient;

impl ClientHandler for TasksClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("tasks-client", "1.0.0"),
        )
    }
}

#[tokio::test]
async fn a_task_answer_keeps_the_repairs_of_its_call_and_a_refused_call_starts_no_task() {
    let started = Arc::new(AtomicUsize::new(0));
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = Research::new(Arc::clone(&started));
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = TasksClient.serve(client_io).await.expect("handshake");

    // A number sent as a string: repaired, then the task starts, its receipts in `_meta`.
    let answer = client
        .call_tool_once(call("research", json!({"depth": "3"})))
        .await
        .unwrap();
    let CallToolResponse::Task(task) = answer else {
        panic!("a task, not {answer:?}");
    };
    assert_eq!(task.task.task_id, "task-0");
    let receipts = &task.meta.as_ref().expect("the call's receipts")[REPAIRS_META_KEY];
    assert_eq!(receipts[0]["field"], "depth", "{receipts}");
    assert_eq!(receipts[0]["kind"], "number_in_string", "{receipts}");

    // A clean call starts a task with nothing added.
    let answer = client
        .call_tool_once(call("research", json!({"depth": 2})))
        .await
        .unwrap();
    let CallToolResponse::Task(task) = answer else {
        panic!("a task, not {answer:?}");
    };
    assert!(task.meta.is_none(), "{:?}", task.meta);

    // A refused call is coached and starts no task.
    let answer = client
        .call_tool_once(call("research", json!({"depht": 2})))
        .await
        .unwrap();
    let CallToolResponse::Complete(result) = answer else {
        panic!("the coaching, not {answer:?}");
    };
    assert_eq!(result.is_error, Some(true));
    assert_eq!(started.load(Ordering::SeqCst), 2);
    client.cancel().await.unwrap();
}
