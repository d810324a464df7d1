//! A server whose long call runs as a task (the `io.modelcontextprotocol/tasks` extension, on
//! rmcp's `TaskManager`) for a client that declares tasks, and as a plain call for one that
//! does not: the upstream that `guardrails proxy`'s task tests drive through the proxy and
//! directly.
//!
//! - `research` (`topic`, `stages` from 1 to 5): one stage every 200 ms, each named in the
//!   task's status message (`Stage 2 of 3`); a task status notification on every change; the
//!   report as structured content under an `outputSchema`, except for the topic `malformed`,
//!   whose report breaks it (`stages` a string), and the topic `ambiguous`, which first asks
//!   the client which meaning it has (`input_required`, answered with `tasks/update`) and
//!   reports on `ambiguous (MEANING)`. `tasks/cancel` stops it between stages. A call with a
//!   progress token is told of each stage under it (`progress` 1 to `stages`, the stage's
//!   name), after the call was answered with its task as before.
//! - `tasks-created`: how many tasks the server has created.
//! - `tasks-cancelled`: how many of its tasks were cancelled.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, GetTaskParams, GetTaskResult, Implementation, InputRequest, JsonObject,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, ServerNotification, TaskStatusNotification, TaskStatusNotificationParams, Tool,
    UpdateTaskParams,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

/// How long one stage of the research takes.
const STAGE: Duration = Duration::from_millis(200);

/// The research server: its tasks, how many it created, and how many were cancelled.
#[derive(Clone, Default)]
pub struct Research {
    tasks: TaskManager,
    created: Arc<AtomicUsize>,
    cancelled: Arc<AtomicUsize>,
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(object) => Arc::new(object),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "research",
            "Researches a topic in stages; long, so it runs as a task when the client has tasks.",
            object(json!({
                "type": "object",
                "properties": {
                    "topic": {"type": "string", "minLength": 1},
                    "stages": {"type": "integer", "minimum": 1, "maximum": 5}
                },
                "required": ["topic", "stages"],
                "additionalProperties": false
            })),
        )
        .with_raw_output_schema(object(json!({
            "type": "object",
            "properties": {
                "topic": {"type": "string"},
                "stages": {"type": "integer"}
            },
            "required": ["topic", "stages"]
        }))),
        Tool::new(
            "tasks-created",
            "How many tasks the server has created.",
            object(json!({"type": "object", "properties": {}})),
        ),
        Tool::new(
            "tasks-cancelled",
            "How many of the server's tasks were cancelled.",
            object(json!({"type": "object", "properties": {}})),
        ),
    ]
}

/// The report of `stages` stages of research on `topic`; for the topic `malformed`, one that
/// breaks the tool's output schema.
fn report(topic: &str, stages: u64) -> CallToolResult {
    let stages = if topic == "malformed" {
        json!(stages.to_string())
    } else {
        json!(stages)
    };
    CallToolResult::structured(json!({"topic": topic, "stages": stages}))
}

/// The question a task on the topic `ambiguous` asks its client before it starts.
fn meaning_request() -> InputRequest {
    serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Which meaning of the topic?",
            "requestedSchema": {
                "type": "object",
                "properties": {"meaning": {"type": "string"}},
                "required": ["meaning"]
            }
        }
    }))
    .expect("an elicitation request")
}

impl Research {
    /// A server with no task yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Tells `peer` of the task `task_id` each time its status or message changes, until it
    /// ends.
    fn watch(&self, task_id: String, peer: Peer<RoleServer>) {
        let tasks = self.tasks.clone();
        tokio::spawn(async move {
            let mut last = None;
            loop {
                let Ok(task) = tasks.get_task(&task_id) else {
                    return;
                };
                let now = (task.status(), task.task.status_message.clone());
                if last.as_ref() != Some(&now) {
                    let done = task.status().is_terminal();
                    let notification = ServerNotification::TaskStatusNotification(
                        TaskStatusNotification::new(TaskStatusNotificationParams::new(task)),
                    );
                    if peer.send_notification(notification).await.is_err() || done {
                        return;
                    }
                    last = Some(now);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
    }
}

impl ServerHandler for Research {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new("research-server", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "tasks-created" {
            let created = self.created.load(Ordering::SeqCst);
            return Ok(
                CallToolResult::success(vec![ContentBlock::text(created.to_string())]).into(),
            );
        }
        if request.name == "tasks-cancelled" {
            let cancelled = self.cancelled.load(Ordering::SeqCst);
            return Ok(
                CallToolResult::success(vec![ContentBlock::text(cancelled.to_string())]).into(),
            );
        }
        if request.name != "research" {
            return Err(ErrorData::invalid_params(
                format!("there is no tool named {}", request.name),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let (Some(topic), Some(stages)) = (
            arguments.get("topic").and_then(Value::as_str),
            arguments.get("stages").and_then(Value::as_u64),
        ) else {
            return Err(ErrorData::invalid_params(
                "research takes a topic and a number of stages",
                None,
            ));
        };
        if !(1..=5).contains(&stages) {
            return Err(ErrorData::invalid_params("stages is from 1 to 5", None));
        }
        let topic = topic.to_owned();
        let tasks = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        if !tasks {
            for _ in 0..stages {
                tokio::time::sleep(STAGE).await;
            }
            return Ok(report(&topic, stages).into());
        }
        self.created.fetch_add(1, Ordering::SeqCst);
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| (token, context.peer.clone()));
        let cancelled = Arc::clone(&self.cancelled);
        let options = TaskOptions::new()
            .with_poll_interval_ms(50)
            .with_status_message(format!("Stage 1 of {stages}"));
        let task = self.tasks.spawn(options, move |task| {
            Box::pin(async move {
                let topic = if topic == "ambiguous" {
                    let answer = task.request_input("meaning", meaning_request()).await?;
                    let meaning = answer
                        .pointer("/content/meaning")
                        .and_then(Value::as_str)
                        .unwrap_or("unsaid");
                    format!("{topic} ({meaning})")
                } else {
                    topic
                };
                for stage in 1..=stages {
                    let name = format!("Stage {stage} of {stages}");
                    if stage > 1 {
                        task.set_status_message(name.clone());
                    }
                    if let Some((token, peer)) = &progress {
                        #[expect(clippy::cast_precision_loss, reason = "at most 5 stages")]
                        let (done, total) = (stage as f64, stages as f64);
                        let params = ProgressNotificationParam::new(token.clone(), done)
                            .with_total(total)
                            .with_message(name);
                        let _ = peer.notify_progress(params).await;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(STAGE) => {}
                        () = task.cancelled() => {
                            cancelled.fetch_add(1, Ordering::SeqCst);
                            return Err(TaskExit::Cancelled);
                        }
                    }
                }
                Ok(report(&topic, stages))
            })
        });
        self.watch(task.task_id.clone(), context.peer.clone());
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks
            .get_task(&request.task_id)
            .map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }
}
