//! The baseline: the task tracker's `list_tasks` and `create_task` served by rmcp alone, as a
//! careful rmcp user would serve them (one hyper connection loop with `TCP_NODELAY`), without
//! any guardrail: arguments read with plain serde, results serialized as they are. The same
//! handler functions do the work, so the difference is what guardrails adds.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use guardrails::present::Truncate as _;
use hyper_util::rt::TokioIo;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use tokio::net::TcpListener;

use crate::task_tracker::{self, CreateTask, ListTasks, Tracker};

/// The plain rmcp server of the task tracker's two busiest tools.
#[derive(Clone)]
pub struct PlainTracker {
    tracker: Arc<Tracker>,
}

fn object_schema() -> Arc<JsonObject> {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), "object".into());
    Arc::new(schema)
}

fn read<T: serde::de::DeserializeOwned>(arguments: Option<JsonObject>) -> Result<T, ErrorData> {
    serde_json::from_value(Value::Object(arguments.unwrap_or_default()))
        .map_err(|e| ErrorData::invalid_params(e.to_string(), None))
}

fn result(value: Value) -> CallToolResponse {
    let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    result.into()
}

impl ServerHandler for PlainTracker {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("list_tasks", "Lists tasks.", object_schema()),
            Tool::new("create_task", "Creates a task.", object_schema()),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match &*request.name {
            "list_tasks" => {
                let args: ListTasks = read(request.arguments)?;
                let (head, total) = task_tracker::list_tasks::handler(&self.tracker, args).head(50);
                let items = serde_json::to_value(&head).unwrap_or_default();
                Ok(result(serde_json::json!({
                    "items": items, "shown": head.len(), "total": total,
                })))
            }
            "create_task" => {
                let args: CreateTask = read(request.arguments)?;
                let task = task_tracker::create_task::handler(&self.tracker, args);
                Ok(result(serde_json::to_value(task).unwrap_or_default()))
            }
            other => Err(ErrorData::invalid_params(
                format!("unknown tool {other}"),
                None,
            )),
        }
    }
}

/// Serves the plain rmcp tracker on a loopback port; its address and state.
///
/// # Panics
/// When no loopback port can be bound.
pub async fn serve(tasks: u64) -> (SocketAddr, Arc<Tracker>) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let tracker = Arc::new(Tracker::seeded(tasks));
    let plain = PlainTracker {
        tracker: Arc::clone(&tracker),
    };
    let service = StreamableHttpService::new(
        move || Ok(plain.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let service = service.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request| {
                    let service = service.clone();
                    async move { Ok::<_, Infallible>(service.handle(request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    (addr, tracker)
}
