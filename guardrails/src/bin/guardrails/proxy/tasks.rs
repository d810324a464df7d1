//! Tasks (the `io.modelcontextprotocol/tasks` extension): a guarded call the upstream runs as a
//! task, and the task's result checked on its way to the client as a plain call's is.
//!
//! A call that passed the guard may come back as a task (`CreateTaskResult`) rather than a
//! result; its result then reaches the client later, in `tasks/get` or in a task status
//! notification. The proxy remembers each task's tool, so that a completed task's result is
//! checked against the tool's `outputSchema` and result policy exactly as a plain call's result
//! is, wherever it is read.

use std::collections::{HashMap, VecDeque};
use std::sync::PoisonError;

use rmcp::model::{CallToolResult, DetailedTask, JsonObject, TaskPayload};
use serde_json::Value;

use super::Proxy;

/// The most tasks whose tool the proxy remembers: the oldest is forgotten past it.
const MAX_TASKS_REMEMBERED: usize = 10_000;

/// The tool of each task the upstream created for a call, oldest first.
#[derive(Default)]
pub(super) struct TaskTools {
    tools: HashMap<String, String>,
    order: VecDeque<String>,
}

impl Proxy {
    /// Remembers that the upstream runs the call of `tool` as the task `task_id`.
    pub(super) fn remember_task(&self, task_id: &str, tool: &str) {
        let mut tasks = self.0.tasks.write().unwrap_or_else(PoisonError::into_inner);
        if tasks
            .tools
            .insert(task_id.to_owned(), tool.to_owned())
            .is_none()
        {
            tasks.order.push_back(task_id.to_owned());
        }
        while tasks.order.len() > MAX_TASKS_REMEMBERED {
            if let Some(oldest) = tasks.order.pop_front() {
                tasks.tools.remove(&oldest);
            }
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
        let tool = self
            .0
            .tasks
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .tools
            .get(&task.task.task_id)
            .cloned();
        let settings = &self.0.settings;
        let Some(tool) = tool else {
            // A task the proxy did not see created (or forgot): its tool is unknown, so a result
            // policy cannot be applied to it; with any result policy set, it is withheld.
            if !settings.result_policies.is_empty() {
                tracing::warn!(task = %task.task.task_id, "the result of a task of an unknown tool is withheld");
                let error = guardrails::ToolError::new(
                    guardrails::ErrorCode::Internal,
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
                .check_output(&tool, read)
                .and_then(|read| self.police_result(&tool, read))
                .unwrap_or_else(|error| self.tool_error(&tool, &error)),
            Err(error) => {
                tracing::warn!(tool, %error, "the upstream's task result is not a tool result");
                let error = guardrails::ToolError::new(
                    guardrails::ErrorCode::Internal,
                    "The server behind this tool finished the task with a result that is not a tool result.",
                )
                .recovery("Do not rely on this task's result; tell the user the server returned a malformed result.");
                self.tool_error(&tool, &error)
            }
        };
        *result = as_object(&answer);
        task
    }
}

/// A tool result as the JSON object a task's `result` holds.
fn as_object(result: &CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}
