//! The task tracker example carries its lockfile, and the lockfile of the release before it;
//! a model calibrated on that release is told what changed and heals its call.
//!
//! `GUARDRAILS_UPDATE_LOCK=1 cargo test --test contracts example_contracts` rewrites both deliberately.

use guardrails::ToolArgs;
use guardrails::contract::{ServerContract, assert_lockfile};
use guardrails_tests::task_tracker::{self, Status, Task, Tracker};
use guardrails_tests::testing::object;
use serde::Deserialize;
use serde_json::json;

fn lockfile(name: &str) -> String {
    format!(
        "{}/examples/task_tracker/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn the_current_contracts_match_the_committed_lockfile() {
    assert_lockfile(&task_tracker::server(10), lockfile("task_tracker.lock"));
}

/// The release before: `create_task` took an `owner` and an optional `due`, and there was no
/// `export_tasks`, `schedule_task` or `read_tasks`. Its `CreateTask` is declared here on
/// purpose, beside the example's current one: the example no longer serves it, and only this
/// test needs it, to prove that the lockfile the example embeds is what that release declared.
mod v1 {
    use super::{Deserialize, Status, Task, ToolArgs, Tracker};
    use guardrails::tool;

    /// Arguments of `create_task`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(super) struct CreateTask {
        /// Short title.
        #[guard(length(min = 3, max = 120))]
        pub(super) title: String,
        /// Who owns and works on it.
        #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$", example = "ada")]
        pub(super) owner: String,
        /// Due date.
        #[guard(format = "date")]
        pub(super) due: Option<String>,
    }

    /// Creates a task and returns it. The creator (the assignee) owns it.
    #[tool(idempotent = false)]
    pub(super) fn create_task(_state: &Tracker, args: CreateTask) -> Task {
        Task {
            id: 1,
            title: args.title,
            description: None,
            status: Status::Todo,
            assignee: args.owner.clone(),
            owner: args.owner,
            due: args.due.unwrap_or_default(),
            priority: 3,
            labels: Vec::new(),
        }
    }
}

#[test]
fn the_previous_release_lockfile_is_what_v1_declared() {
    use guardrails::Tool;
    let current = task_tracker::server(10);
    let mut specs: Vec<&guardrails::ToolSpec> = current
        .specs()
        .filter(|s| {
            !matches!(
                s.name(),
                "create_task" | "export_tasks" | "schedule_task" | "read_tasks"
            )
        })
        .collect();
    specs.push(Tool::<Tracker>::spec(&v1::create_task));
    let contracts = ServerContract::from_specs(specs);
    assert_lockfile(&contracts, lockfile("task_tracker.v1.lock"));
    let embedded = ServerContract::from_lockfile(task_tracker::KNOWN_GOOD_LOCKFILE).unwrap();
    assert_eq!(
        embedded, contracts,
        "the server embeds the v1 lockfile as it is on disk"
    );
}

#[tokio::test]
async fn a_call_calibrated_on_the_previous_release_is_told_what_changed_and_heals() {
    let server = task_tracker::server(10);
    let stale = server
        .call(
            "create_task",
            object(json!({"title": "Ship the release", "owner": "ada"})),
        )
        .await
        .unwrap();
    assert!(stale.is_error);
    let text = &stale.text[0];
    assert!(text.contains("<contract_awareness>"), "{text}");
    for path in [
        "create_task.args.owner",
        "create_task.args.assignee",
        "create_task.args.due",
    ] {
        assert!(text.contains(path), "the block names {path}: {text}");
    }
    let healed = server
        .call(
            "create_task",
            object(json!({"title": "Ship the release", "assignee": "ada", "due": "2026-12-01"})),
        )
        .await
        .unwrap();
    assert!(!healed.is_error, "{:?}", healed.text);
    // Tools whose contract did not change pay nothing and say nothing.
    let other = server
        .call("delete_task", object(json!({"id": "x"})))
        .await
        .unwrap();
    assert!(other.is_error);
    assert!(
        !other.text[0].contains("contract_awareness"),
        "{}",
        other.text[0]
    );
}
