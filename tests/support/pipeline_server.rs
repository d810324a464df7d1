//! The server of the pipeline tests: a small task tracker whose tools each exercise one step of
//! the call pipeline (validation, agent limits and teaching, byte caps, a panicking handler,
//! output checks), called in process, over rmcp and over HTTP.
//!
//! It is not the `task_tracker` example, on purpose: its limits (an agent limit of 5, three
//! statuses, byte caps of a few hundred bytes) keep the tests' expected texts short, and it
//! counts handler runs. Its types are named apart from the example's (`Stage`, `TaskDraft`,
//! `TaskFilter`) so that each name means one declaration.

use std::sync::atomic::{AtomicUsize, Ordering};

use guardrails::present::{Iter, Truncated};
use guardrails::{OutputVerdict, Server, ToolArgs, ToolEnum, ToolError, tool};
use serde::{Deserialize, Serialize};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToolEnum, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Todo,
    InProgress,
    Done,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Task {
    pub id: u32,
    pub title: String,
    pub status: Stage,
    pub assignee: String,
}

pub struct AppState {
    pub tasks: Vec<Task>,
    /// How many times a handler ran: validation failures must never count.
    pub handler_calls: AtomicUsize,
}

impl AppState {
    /// `n` tasks, their statuses and assignees taken in turn.
    #[must_use]
    pub fn seeded(n: u32) -> Self {
        let statuses = [Stage::Todo, Stage::InProgress, Stage::Done];
        let people = ["ada", "grace", "linus"];
        Self {
            tasks: (0..n)
                .map(|id| Task {
                    id,
                    title: format!("Task {id}"),
                    status: statuses[id as usize % 3],
                    assignee: people[id as usize % 3].to_owned(),
                })
                .collect(),
            handler_calls: AtomicUsize::new(0),
        }
    }

    /// How many times a handler ran so far.
    pub fn calls(&self) -> usize {
        self.handler_calls.load(Ordering::SeqCst)
    }

    fn ran(&self) {
        self.handler_calls.fetch_add(1, Ordering::SeqCst);
    }
}

/// Arguments of `create_task`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct TaskDraft {
    /// What the task is about.
    #[guard(length(min = 3, max = 80))]
    pub title: String,
    /// Who does it.
    #[guard(pattern = "^[a-z]+$")]
    pub assignee: String,
}

/// Creates a task and returns it.
#[tool(destructive = false, idempotent = false)]
pub async fn create_task(state: &AppState, args: TaskDraft) -> Result<Task, ToolError> {
    state.ran();
    // A real handler would await its database here.
    tokio::task::yield_now().await;
    Ok(Task {
        id: 10_000,
        title: args.title,
        status: Stage::Todo,
        assignee: args.assignee,
    })
}

/// Arguments of `list_tasks`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct TaskFilter {
    /// Only tasks in this status.
    pub status: Option<Stage>,
    /// Only tasks of this person.
    #[guard(pattern = "^[a-z]+$")]
    pub assignee: Option<String>,
    /// Skip this many tasks.
    pub offset: Option<u32>,
}

fn matches(task: &Task, args: &TaskFilter) -> bool {
    args.status.is_none_or(|s| s == task.status)
        && args.assignee.as_deref().is_none_or(|a| a == task.assignee)
}

/// Lists tasks, oldest first.
#[tool(read_only, agent_limit = 5)]
pub fn list_tasks(state: &AppState, args: TaskFilter) -> Vec<Task> {
    state.ran();
    state
        .tasks
        .iter()
        .filter(|t| matches(t, &args))
        .skip(args.offset.unwrap_or(0) as usize)
        .cloned()
        .collect()
}

/// Lists tasks without copying them.
#[tool(
    read_only,
    agent_limit = 3,
    hint = "Ask the user which tasks matter most."
)]
pub fn browse_tasks(
    state: &AppState,
    args: TaskFilter,
) -> Iter<Box<dyn Iterator<Item = Task> + Send>> {
    state.ran();
    let tasks: Vec<Task> = state
        .tasks
        .iter()
        .filter(|t| matches(t, &args))
        .cloned()
        .collect();
    Iter(Box::new(tasks.into_iter()))
}

fn teach_briefly(t: &Truncated<'_>) -> String {
    format!(
        "{} of {} shown. Filter by: {}.",
        t.shown,
        t.total,
        t.filters()
            .iter()
            .map(|f| &*f.name)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Lists task titles, with a custom teaching block.
#[tool(read_only, agent_limit = 2, teach = teach_briefly)]
pub fn task_titles(state: &AppState, args: TaskFilter) -> Vec<String> {
    state
        .tasks
        .iter()
        .filter(|t| matches(t, &args))
        .map(|t| t.title.clone())
        .collect()
}

/// Arguments naming one task.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct TaskId {
    /// The task's id.
    pub id: u32,
}

/// Fetches one task by id.
#[tool(read_only)]
pub fn get_task(state: &AppState, args: TaskId) -> Result<Task, ToolError> {
    state.ran();
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

/// Fails for odd ids with a panic that holds a secret.
#[tool]
pub fn fragile(state: &AppState, args: TaskId) -> u32 {
    state.ran();
    assert!(args.id.is_multiple_of(2), "db password is hunter2");
    args.id
}

/// Echoes a long text, capped at 300 bytes.
#[tool(max_bytes = 300)]
pub fn long_text(args: TaskId) -> String {
    "é".repeat(args.id as usize)
}

/// Returns a big object, capped at 300 bytes.
#[tool(max_bytes = 300)]
pub fn big_object(state: &AppState, args: TaskId) -> Task {
    let mut task = state.tasks[0].clone();
    task.title = "x".repeat(args.id as usize);
    task
}

/// Lists every task, capped at 600 bytes.
#[tool(read_only, agent_limit = 50, max_bytes = 600)]
pub fn all_tasks(state: &AppState, _args: TaskFilter) -> &[Task] {
    &state.tasks
}

fn no_secrets(_tool: &str, text: &str) -> OutputVerdict {
    if text.contains("secret") {
        OutputVerdict::Block(ToolError::custom(
            "POLICY_VIOLATION",
            "The result holds a secret and was withheld.",
        ))
    } else {
        OutputVerdict::Pass
    }
}

/// Arguments of `echo`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct Echo {
    /// Text to echo.
    pub text: String,
}

/// Echoes text, unless it holds a secret.
#[tool(policy = no_secrets)]
pub fn echo(args: Echo) -> String {
    args.text
}

/// Advises against capitals; a policy as a `static` value.
struct NoShouting;

impl guardrails::OutputCheck for NoShouting {
    fn check(&self, _tool: &str, text: &str) -> OutputVerdict {
        if text.chars().any(char::is_uppercase) {
            OutputVerdict::Advise("Write the reply in lowercase.".into())
        } else {
            OutputVerdict::Pass
        }
    }
}

static NO_SHOUTING: NoShouting = NoShouting;

/// Echoes text, advising against capitals.
#[tool(policy = NO_SHOUTING)]
pub fn whisper(args: Echo) -> String {
    args.text
}

/// The server with every tool above, over `n` seeded tasks.
#[must_use]
pub fn server(n: u32) -> Server<AppState> {
    Server::new(AppState::seeded(n))
        .name("task-tracker-test")
        .version("1.2.3")
        .tool(create_task)
        .tool(list_tasks)
        .tool(browse_tasks)
        .tool(task_titles)
        .tool(get_task)
        .tool(fragile)
        .tool(long_text)
        .tool(big_object)
        .tool(all_tasks)
        .tool(echo)
        .tool(whisper)
}
