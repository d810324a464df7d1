//! The call pipeline in-process: validate → handler → present, without a transport.

use std::sync::atomic::{AtomicUsize, Ordering};

use guardrails::{Server, ToolArgs, ToolEnum, ToolError, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, ToolEnum, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Todo,
    InProgress,
    Done,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
struct Task {
    id: u32,
    title: String,
    status: Status,
}

struct AppState {
    tasks: Vec<Task>,
    calls: AtomicUsize,
}

impl AppState {
    fn seeded(n: u32) -> Self {
        let statuses = [Status::Todo, Status::InProgress, Status::Done];
        Self {
            tasks: (0..n)
                .map(|id| Task {
                    id,
                    title: format!("Task {id}"),
                    status: statuses[id as usize % 3],
                })
                .collect(),
            calls: AtomicUsize::new(0),
        }
    }
}

/// Create a task.
#[derive(Debug, Deserialize, ToolArgs)]
struct CreateTask {
    /// What the task is about.
    #[guard(length(min = 3, max = 80))]
    title: String,
}

/// Creates a task and returns it.
#[tool(idempotent = false, destructive = false)]
async fn create_task(state: &AppState, args: CreateTask) -> Result<Task, ToolError> {
    state.calls.fetch_add(1, Ordering::SeqCst);
    Ok(Task {
        id: 1000,
        title: args.title,
        status: Status::Todo,
    })
}

/// List tasks.
#[derive(Debug, Deserialize, ToolArgs)]
struct ListTasks {
    /// Only tasks in this status.
    status: Option<Status>,
    /// Skip this many tasks.
    offset: Option<u32>,
}

/// Lists tasks, newest first.
#[tool(read_only, agent_limit = 5)]
fn list_tasks(state: &AppState, args: ListTasks) -> Vec<Task> {
    state
        .tasks
        .iter()
        .filter(|t| args.status.is_none_or(|s| s == t.status))
        .skip(args.offset.unwrap_or(0) as usize)
        .cloned()
        .collect()
}

/// Get a task.
#[derive(Debug, Deserialize, ToolArgs)]
struct GetTask {
    /// The task's id.
    id: u32,
}

/// Fetches one task by id.
#[tool(read_only)]
fn get_task(state: &AppState, args: GetTask) -> Result<Task, ToolError> {
    state
        .tasks
        .iter()
        .find(|t| t.id == args.id)
        .cloned()
        .ok_or_else(|| {
            ToolError::not_found(format!("Task {} does not exist.", args.id))
                .recovery("Call list_tasks to find the id of the task.")
                .actions(["list_tasks"])
                .detail("id", args.id)
        })
}

/// Panics on purpose.
#[tool]
fn explode(args: GetTask) -> u32 {
    assert!(args.id != 13, "secret internal detail: db password hunter2");
    args.id
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn server() -> Server<AppState> {
    Server::new(AppState::seeded(100))
        .tool(create_task)
        .tool(list_tasks)
        .tool(get_task)
        .tool(explode)
}

#[tokio::test]
async fn smoke() {
    let s = server();
    for (name, args) in [
        ("create_task", json!({"title": "Write docs"})),
        ("create_task", json!({"title": "x", "priority": 1})),
        ("list_tasks", json!({})),
        ("list_tasks", json!({"status": "done"})),
        ("get_task", json!({"id": 4242})),
        ("explode", json!({"id": 13})),
        ("explode", json!({"id": 12})),
    ] {
        let out = s.call(name, obj(args)).await.unwrap();
        println!("== {name}: {out:#?}");
    }
    for d in s.definitions() {
        println!("{}", serde_json::to_string(d).unwrap());
    }
    assert_eq!(s.state().calls.load(Ordering::SeqCst), 1);
}
