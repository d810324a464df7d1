//! Tasks (the `io.modelcontextprotocol/tasks` extension): a guarded call the upstream runs as a
//! task, and the task's result checked on its way to the client as a plain call's is.
//!
//! A call that passed the guard may come back as a task (`CreateTaskResult`) rather than a
//! result; its result then reaches the client later, in `tasks/get` or in a task status
//! notification. The proxy remembers each task's tool, so that a completed task's result is
//! checked against the tool's `outputSchema` and result policy exactly as a plain call's result
//! is, wherever it is read; the upstream's progress on the call, which goes on reaching the
//! client under its own token until the task ends; and the client that started it, whose task
//! it is alone: another client's `tasks/get`, `tasks/update` and `tasks/cancel` are answered as
//! for an unknown task, and the task's status notifications go to its client only.
//!
//! A client that did not declare tasks never sees one: when the upstream answers its call with
//! a task anyway (an upstream that several clients share is told of tasks whoever declares
//! them), the proxy follows the task to its end with rmcp's `tasks/get` and answers the plain
//! call with its result, checked as any result; it cancels the task when the client cancels
//! the call or goes away.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::hash::BuildHasher as _;
use std::sync::PoisonError;
use std::time::Duration;

use guardrails::{ErrorCode, ToolError};
use rmcp::model::{
    CallToolResult, CancelTaskParams, CreateTaskResult, DetailedTask, GetTaskParams, JsonObject,
    ProgressToken, RequestMetaObject, TaskPayload,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleClient, RoleServer};
use serde_json::Value;

use super::capabilities::relayed_meta;
use super::{MAX_NAME_CHARS, Proxy, cut};

/// The most tasks whose tool the proxy remembers: the oldest is forgotten past it.
const MAX_TASKS_REMEMBERED: usize = 10_000;

/// The client a task belongs to, as its requests name it: over Streamable HTTP its session
/// (revisions before 2026-07-28), else its credentials (the `Authorization` header, hashed),
/// else no one in particular; over stdio, the one client there is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Owner {
    Session(String),
    Credentials(u64),
    Unnamed,
}

/// How long a status notification of a task the proxy does not know waits for the task to be
/// remembered, before it is dropped.
const UNKNOWN_TASK_WAIT: Duration = Duration::from_secs(1);

/// What the proxy knows of a task the upstream created for a call.
struct TaskEntry {
    /// The tool called.
    tool: String,
    /// The client that called it.
    owner: Owner,
    /// Where the task's status notifications go: the connection of the call.
    client: Option<Peer<RoleServer>>,
    /// The upstream's progress token of the call, while its progress reaches the client: until
    /// the task ends, or is forgotten.
    progress: Option<ProgressToken>,
}

/// The tasks the upstream created for calls, oldest first.
#[derive(Default)]
pub(super) struct TaskTools {
    tasks: HashMap<String, TaskEntry>,
    order: VecDeque<String>,
}

/// A task the upstream created for a client's call.
pub(super) struct NewTask<'a> {
    pub(super) tool: &'a str,
    pub(super) owner: Owner,
    pub(super) client: Option<Peer<RoleServer>>,
    /// The upstream's progress token of the call, whose route outlives it.
    pub(super) progress: Option<ProgressToken>,
}

/// The error of a task request for a task that is not the client's: the error rmcp's task
/// manager answers for a task it does not have, so that another client's task cannot be told
/// from one that does not exist.
fn unknown_task(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("unknown task: {}", cut(task_id, MAX_NAME_CHARS)),
        None,
    )
}

impl Proxy {
    /// The client that sends the request of `context`, as a task's owner.
    pub(super) fn owner_of(&self, context: &RequestContext<RoleServer>) -> Owner {
        let Some(parts) = context.extensions.get::<http::request::Parts>() else {
            return Owner::Unnamed;
        };
        if let Some(session) = parts.headers.get("mcp-session-id") {
            return Owner::Session(String::from_utf8_lossy(session.as_bytes()).into_owned());
        }
        match parts.headers.get(http::header::AUTHORIZATION) {
            Some(credentials) => {
                Owner::Credentials(self.0.owner_keys.hash_one(credentials.as_bytes()))
            }
            None => Owner::Unnamed,
        }
    }

    /// What `read` reads of the entry of the task `task_id`; `None` for a task the proxy does
    /// not know.
    fn read_task<R>(&self, task_id: &str, read: impl FnOnce(&TaskEntry) -> R) -> Option<R> {
        self.0
            .tasks
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .tasks
            .get(task_id)
            .map(read)
    }

    /// The `_meta` a request of the client of `context` about the task `task_id` goes to the
    /// upstream with, when the upstream created that task for a call of this client; else
    /// [`unknown_task`], so that another client's task cannot be told from one that does not
    /// exist.
    pub(super) fn own_task_meta(
        &self,
        context: &RequestContext<RoleServer>,
        task_id: &str,
    ) -> Result<Option<RequestMetaObject>, ErrorData> {
        let owner = self.owner_of(context);
        if self.read_task(task_id, |entry| entry.owner == owner) == Some(true) {
            Ok(relayed_meta(&context.meta))
        } else {
            Err(unknown_task(task_id))
        }
    }

    /// The connection the status notifications of the task `task_id` go to; `None` for a task
    /// the proxy does not know. A task not known yet is waited for a moment: the upstream may
    /// tell of a task before the answer of the call that created it arrives.
    pub(super) async fn client_of(&self, task_id: &str) -> Option<Peer<RoleServer>> {
        let known = || self.read_task(task_id, |entry| entry.client.clone());
        let wait = async {
            loop {
                let remembered = self.0.task_remembered.notified();
                if let Some(client) = known() {
                    return client;
                }
                remembered.await;
            }
        };
        tokio::time::timeout(UNKNOWN_TASK_WAIT, wait)
            .await
            .ok()
            .flatten()
    }

    /// Remembers that the upstream runs a call as the task `task_id`.
    pub(super) fn remember_task(&self, task_id: &str, task: NewTask<'_>) {
        let mut forgotten = Vec::new();
        {
            let mut tasks = self.0.tasks.write().unwrap_or_else(PoisonError::into_inner);
            let entry = TaskEntry {
                tool: task.tool.to_owned(),
                owner: task.owner,
                client: task.client,
                progress: task.progress,
            };
            match tasks.tasks.insert(task_id.to_owned(), entry) {
                None => tasks.order.push_back(task_id.to_owned()),
                Some(replaced) => forgotten.extend(replaced.progress),
            }
            while tasks.order.len() > MAX_TASKS_REMEMBERED {
                if let Some(oldest) = tasks.order.pop_front()
                    && let Some(entry) = tasks.tasks.remove(&oldest)
                {
                    forgotten.extend(entry.progress);
                }
            }
        }
        self.0.task_remembered.notify_waiters();
        for token in &forgotten {
            self.forget_progress(token);
        }
    }

    /// The task `task_id` reached a terminal status: its progress is no longer relayed.
    pub(super) fn task_ended(&self, task_id: &str) {
        let token = self
            .0
            .tasks
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .tasks
            .get_mut(task_id)
            .and_then(|entry| entry.progress.take());
        if let Some(token) = token {
            self.forget_progress(&token);
        }
    }

    /// `task` as the client may see it: a completed task's result checked against its tool's
    /// `outputSchema` and result policy, as a plain call's result is, and replaced by the tool
    /// error that says why when it fails them. A task of a tool the proxy checks nothing of
    /// passes as it came.
    pub(super) fn checked_task(&self, mut task: DetailedTask) -> DetailedTask {
        let TaskPayload::Completed { result } = &mut task.payload else {
            return task;
        };
        let tool = self.read_task(&task.task.task_id, |entry| entry.tool.clone());
        let settings = &self.0.settings;
        let Some(tool) = tool else {
            // A task the proxy did not see created (or forgot): its tool is unknown, so a result
            // policy cannot be applied to it; with any result policy set, it is withheld.
            if !settings.result_policies.is_empty() {
                tracing::warn!(task = %task.task.task_id, "the result of a task of an unknown tool is withheld");
                let error = ToolError::new(
                    ErrorCode::Internal,
                    "The result of this task cannot be checked: the proxy does not know its tool.",
                )
                .recovery("Call the tool again, and read the new task's result.");
                *result = as_object(&self.tool_error("task", &error));
            }
            return task;
        };
        let checked = self
            .0
            .outputs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(&tool)
            || settings.result_policies.contains_key(&tool);
        if !checked {
            return task;
        }
        let answer = match serde_json::from_value::<CallToolResult>(Value::Object(result.clone())) {
            Ok(read) => self
                .checked_result(&tool, read)
                .unwrap_or_else(|error| self.tool_error(&tool, &error)),
            Err(error) => {
                tracing::warn!(tool, %error, "the upstream's task result is not a tool result");
                self.tool_error(&tool, &malformed_task_result())
            }
        };
        *result = as_object(&answer);
        task
    }
}

/// How often a followed task is read when the upstream suggests nothing, and the bounds of
/// what it suggests.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(10);
const MAX_POLL: Duration = Duration::from_secs(5);

/// How a followed task ended without a result for its call.
pub(super) enum Unfollowed {
    /// The client cancelled the call (or went away): the task is cancelled.
    Cancelled,
    /// The task failed with a protocol error, which answers the call as it would have.
    Error(ErrorData),
    /// The tool error that answers the call instead.
    Tool(ToolError),
}

/// Cancels the upstream's task `task_id` when dropped armed: the call that followed it was
/// cancelled, timed out, or dropped with its client's connection.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    task_id: String,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (peer, task_id) = (self.peer.clone(), std::mem::take(&mut self.task_id));
        tracing::info!(task = %task_id, "the upstream's task is cancelled: its call is no longer awaited");
        runtime.spawn(async move {
            let cancel = peer.cancel_task(CancelTaskParams::new(task_id));
            let _ = tokio::time::timeout(MAX_POLL, cancel).await;
        });
    }
}

impl Proxy {
    /// Follows the task `created`, which the upstream answered a call of `tool` with, to its
    /// end by `tasks/get` every poll interval it suggests, for a client that did not declare
    /// tasks: the task's result, checked as the tool's, answers the call. The task is
    /// cancelled when `cancelled` completes (the client cancelled the call), at `deadline`,
    /// when it asks for input (the client cannot answer `tasks/update`), and when this future
    /// is dropped before its end.
    pub(super) async fn follow(
        &self,
        peer: &Peer<RoleClient>,
        created: CreateTaskResult,
        tool: &str,
        cancelled: impl Future<Output = ()>,
        deadline: tokio::time::Instant,
    ) -> Result<CallToolResult, Unfollowed> {
        let mut task = created.task;
        let mut abandon = CancelOnDrop {
            peer: peer.clone(),
            task_id: task.task_id.clone(),
            armed: true,
        };
        let timed_out = || {
            tracing::warn!(tool, task = %abandon.task_id, "the upstream's task did not end in time");
            Unfollowed::Tool(self.timeout_error())
        };
        tokio::pin!(cancelled);
        loop {
            let wait = task
                .poll_interval_ms
                .map_or(DEFAULT_POLL, Duration::from_millis)
                .clamp(MIN_POLL, MAX_POLL);
            let read = async {
                tokio::time::sleep(wait).await;
                peer.get_task(GetTaskParams::new(task.task_id.clone()))
                    .await
            };
            let read = tokio::select! {
                read = read => read,
                () = &mut cancelled => return Err(Unfollowed::Cancelled),
                () = tokio::time::sleep_until(deadline) => return Err(timed_out()),
            };
            let detailed = match read {
                Ok(read) => read.task,
                Err(rmcp::service::ServiceError::McpError(error)) => {
                    return Err(Unfollowed::Error(error));
                }
                Err(error) => {
                    return Err(Unfollowed::Tool(super::upstream::upstream_failed(
                        tool, &error,
                    )));
                }
            };
            match detailed.payload {
                TaskPayload::InputRequired { .. } => {
                    tracing::warn!(tool, task = %task.task_id, "the upstream's task asks for input a client without tasks cannot give");
                    return Err(Unfollowed::Tool(
                        ToolError::new(
                            ErrorCode::Unavailable,
                            "The server behind this tool asked for more input during the call, which this client cannot give: it did not declare tasks.",
                        )
                        .recovery("Call the tool with arguments that leave nothing to ask, or from a client that has tasks."),
                    ));
                }
                TaskPayload::Completed { result } => {
                    abandon.armed = false;
                    return match serde_json::from_value::<CallToolResult>(Value::Object(result)) {
                        Ok(result) => self.checked_result(tool, result).map_err(Unfollowed::Tool),
                        Err(error) => {
                            tracing::warn!(tool, %error, "the upstream's task result is not a tool result");
                            Err(Unfollowed::Tool(malformed_task_result()))
                        }
                    };
                }
                TaskPayload::Failed { error } => {
                    abandon.armed = false;
                    return Err(
                        match serde_json::from_value::<ErrorData>(Value::Object(error)) {
                            Ok(error) => Unfollowed::Error(error),
                            Err(_) => Unfollowed::Tool(ToolError::new(
                                ErrorCode::Internal,
                                "The server behind this tool failed the call.",
                            )),
                        },
                    );
                }
                TaskPayload::Cancelled => {
                    abandon.armed = false;
                    return Err(Unfollowed::Tool(
                        ToolError::new(
                            ErrorCode::Unavailable,
                            "The server behind this tool cancelled the call.",
                        )
                        .recovery("Call the tool again later."),
                    ));
                }
                // Working, or a status of a later revision: read again, until the deadline.
                _ => task = detailed.task,
            }
        }
    }
}

/// The tool error of a task that completed with something other than a tool result.
fn malformed_task_result() -> ToolError {
    ToolError::new(
        ErrorCode::Internal,
        "The server behind this tool finished the task with a result that is not a tool result.",
    )
    .recovery(
        "Do not rely on this task's result; tell the user the server returned a malformed result.",
    )
}

/// A tool result as the JSON object a task's `result` holds.
fn as_object(result: &CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;
    use std::time::Duration;

    use guardrails::policy::{Policy, Rule};
    use guardrails::{GuardConfig, RenderFormat, RenderOptions};
    use rmcp::model::{ContentBlock, Task, TaskStatus};

    use super::*;
    use crate::proxy::Settings;

    /// A proxy (its upstream never started) with `policies` on tools' results.
    fn proxy(policies: &[(&str, Policy)]) -> Proxy {
        Proxy::new(Settings {
            command: vec!["upstream".into()],
            url: None,
            timeout: Duration::from_secs(1),
            start_timeout: Duration::from_secs(1),
            render: RenderOptions::from(RenderFormat::Xml),
            guards: GuardConfig::new(),
            schema_integers: false,
            limits: BTreeMap::new(),
            approved: None,
            policies: Vec::new(),
            result_policies: policies
                .iter()
                .map(|(tool, policy)| ((*tool).to_owned(), policy.clone()))
                .collect(),
            probe: rmcp::model::ClientCapabilities::default(),
            shared: false,
        })
    }

    /// A task of `tool`, of the one client there is.
    fn owned(tool: &str) -> NewTask<'_> {
        NewTask {
            tool,
            owner: Owner::Unnamed,
            client: None,
            progress: None,
        }
    }

    fn no_dollars() -> Policy {
        Policy::builder()
            .critical(Rule::forbidden("dollar", r"\$[\d,]+"))
            .build()
            .expect("the rule compiles")
    }

    /// The task `id`, completed with a text result.
    fn completed(id: &str, text: &str) -> DetailedTask {
        let result = as_object(&CallToolResult::success(vec![ContentBlock::text(text)]));
        let task = Task::new(
            id,
            TaskStatus::Completed,
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:01Z",
        );
        DetailedTask::new(task, TaskPayload::Completed { result })
    }

    fn result_of(task: &DetailedTask) -> CallToolResult {
        let TaskPayload::Completed { result } = &task.payload else {
            panic!("the task is not completed: {task:?}");
        };
        serde_json::from_value(Value::Object(result.clone())).expect("a tool result")
    }

    fn text_of(result: &CallToolResult) -> String {
        result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|text| text.text.clone()))
            .collect()
    }

    #[test]
    fn a_task_result_that_breaks_its_tools_result_policy_is_withheld() {
        let proxy = proxy(&[("quote", no_dollars())]);
        proxy.remember_task("t1", owned("quote"));
        proxy.remember_task("t2", owned("quote"));
        let withheld = result_of(&proxy.checked_task(completed("t1", "It costs $40,000.")));
        assert_eq!(withheld.is_error, Some(true));
        assert!(text_of(&withheld).contains("dollar"), "{withheld:?}");
        assert!(!text_of(&withheld).contains("$40,000"), "{withheld:?}");
        let clean = result_of(&proxy.checked_task(completed("t2", "It costs little.")));
        assert_ne!(clean.is_error, Some(true));
        assert_eq!(text_of(&clean), "It costs little.");
    }

    #[test]
    fn a_task_result_that_breaks_its_tools_output_schema_is_a_tool_error() {
        let proxy = proxy(&[]);
        let schema = serde_json::json!({"type": "object", "required": ["total"]});
        proxy.0.outputs.write().unwrap().insert(
            "sum".to_owned(),
            Arc::new(jsonschema::validator_for(&schema).unwrap()),
        );
        proxy.remember_task("t1", owned("sum"));
        let checked = result_of(&proxy.checked_task(completed("t1", "3")));
        assert_eq!(checked.is_error, Some(true));
        assert!(text_of(&checked).contains("outputSchema"), "{checked:?}");
    }

    #[test]
    fn a_task_of_an_unknown_tool_is_withheld_only_where_results_are_policed() {
        let text = "It costs $40,000.";
        let policed = proxy(&[("quote", no_dollars())]);
        let withheld = result_of(&policed.checked_task(completed("t9", text)));
        assert_eq!(withheld.is_error, Some(true));
        assert!(!text_of(&withheld).contains("$40,000"), "{withheld:?}");
        let unpoliced = proxy(&[]);
        let passed = result_of(&unpoliced.checked_task(completed("t9", text)));
        assert_eq!(text_of(&passed), text);
    }

    #[test]
    fn a_task_not_completed_or_of_a_tool_with_no_checks_passes_as_it_came() {
        let proxy = proxy(&[("quote", no_dollars())]);
        proxy.remember_task("t1", owned("echo"));
        let task = completed("t1", "It costs $40,000.");
        assert_eq!(proxy.checked_task(task.clone()), task);
        let working = DetailedTask::new(
            Task::new(
                "t2",
                TaskStatus::Working,
                "2026-01-01T00:00:00Z",
                "2026-01-01T00:00:00Z",
            ),
            TaskPayload::Working,
        );
        assert_eq!(proxy.checked_task(working.clone()), working);
    }

    #[test]
    fn the_oldest_task_is_forgotten_past_the_most_remembered() {
        let proxy = proxy(&[("quote", no_dollars())]);
        for n in 0..=MAX_TASKS_REMEMBERED {
            proxy.remember_task(&format!("t{n}"), owned("echo"));
        }
        let tasks = proxy.0.tasks.read().unwrap();
        assert_eq!(tasks.tasks.len(), MAX_TASKS_REMEMBERED);
        assert!(!tasks.tasks.contains_key("t0"));
        assert_eq!(
            tasks.tasks.get("t1").map(|entry| entry.tool.as_str()),
            Some("echo")
        );
        assert_eq!(tasks.order.len(), MAX_TASKS_REMEMBERED);
    }
}
