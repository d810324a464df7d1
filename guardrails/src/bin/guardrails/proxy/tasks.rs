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

use rmcp::model::{CallToolResult, DetailedTask, JsonObject, ProgressToken, TaskPayload};
use serde_json::Value;

use super::Proxy;

/// The most tasks whose tool the proxy remembers: the oldest is forgotten past it.
const MAX_TASKS_REMEMBERED: usize = 10_000;

/// What the proxy knows of a task the upstream created for a call.
struct TaskEntry {
    /// The tool called.
    tool: String,
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

impl Proxy {
    /// Remembers that the upstream runs the call of `tool` as the task `task_id`, and that its
    /// progress reaches the client under the route of the upstream's token `progress`.
    pub(super) fn remember_task(&self, task_id: &str, tool: &str, progress: Option<ProgressToken>) {
        let mut forgotten = Vec::new();
        {
            let mut tasks = self.0.tasks.write().unwrap_or_else(PoisonError::into_inner);
            let entry = TaskEntry {
                tool: tool.to_owned(),
                progress,
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
        let tool = self
            .0
            .tasks
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .tasks
            .get(&task.task.task_id)
            .map(|entry| entry.tool.clone());
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
        })
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
        proxy.remember_task("t1", "quote", None);
        proxy.remember_task("t2", "quote", None);
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
        proxy.remember_task("t1", "sum", None);
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
        proxy.remember_task("t1", "echo", None);
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
            proxy.remember_task(&format!("t{n}"), "echo", None);
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
