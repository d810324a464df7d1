//! A task tracker with every guardrail on: the state, tools and server of the `task_tracker`
//! example. The test support library compiles this same file as `guardrails_tests::task_tracker`,
//! so the tests, the contract lockfiles and the conformance server exercise these declarations.
//!
//! - `list_tasks` returns thousands of tasks under an agent limit of 50, with a teaching block
//!   that names its real filters;
//! - `read_tasks` reads tasks in full a page at a time, each page within a budget of 1,500
//!   tokens, cut at a task, with a cursor to the next page;
//! - `create_task` takes strict arguments, and its free-text `description` is held to the
//!   `decision` output policy and, for a task created `blocked`, required by a rule across
//!   fields (`#[guard(check = ..)]`);
//! - `update_task` and `delete_task` fail with `NOT_FOUND` and `FORBIDDEN` errors that carry a
//!   recovery and the tools to call instead;
//! - `export_tasks` takes a nested `filter` (a filter sent beside it is pointed to its place)
//!   and an access token that no message ever echoes (`#[guard(sensitive)]`);
//! - `schedule_task` takes an enum with data (`recurrence`, tagged by `kind`: a field of another
//!   kind is named as such) and a flattened struct (`requested_by`, shared by the tools that
//!   check who asks).
//!
//! The tasks live in the memory of the process. Run as several nodes behind a load balancer,
//! each node keeps a task list of its own; the ids a node gives carry its number
//! (`NODE_ID_SPAN`), so that a call naming another node's task is answered `NOT_FOUND` with
//! the node that keeps it, rather than changing a task of the same id on this node. Served over
//! HTTP without a node number, a process draws one (`drawn_node`): behind a round-robin
//! balancer, nodes started alike still give ids of their own.

use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

use guardrails::contract::{AwarenessConfig, KnownGood};
use guardrails::present::Paged;
use guardrails::{FieldIssue, GuardConfig, Server, ToolArgs, ToolEnum, ToolError, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToolEnum, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not started.
    Todo,
    /// Being worked on.
    InProgress,
    /// Finished.
    Done,
    /// Waiting on something.
    Blocked,
}

/// A task.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Task {
    /// Its identifier.
    pub id: u64,
    /// Short title.
    pub title: String,
    /// Longer description.
    pub description: Option<String>,
    /// Where it stands.
    pub status: Status,
    /// Who works on it.
    pub assignee: String,
    /// Who created it: the only person who may delete it.
    pub owner: String,
    /// Due date, `YYYY-MM-DD`.
    pub due: String,
    /// Priority from 1 (highest) to 5.
    pub priority: u8,
    /// Labels.
    pub labels: Vec<String>,
}

/// The people tasks are seeded for.
pub const PEOPLE: [&str; 5] = ["ada", "grace", "linus", "margaret", "alan"];
const LABELS: [&str; 6] = ["backend", "frontend", "docs", "ops", "security", "research"];
const STATUSES: [Status; 4] = [
    Status::Todo,
    Status::InProgress,
    Status::Done,
    Status::Blocked,
];

/// The ids of node `n`'s tasks are `n * NODE_ID_SPAN + 1` and up: node 0 (a single process)
/// numbers its tasks from 1, node 2 from 2,000,000,001.
pub const NODE_ID_SPAN: u64 = 1_000_000_000;

/// The largest node number given by hand (`--node N`).
pub const MAX_NODE: u64 = 999;

/// The largest node number of all: every id stays an integer that JSON numbers hold exactly
/// (below 2^53).
pub const MAX_DRAWN_NODE: u64 = (1 << 53) / NODE_ID_SPAN - 1;

/// A node number drawn at random above those given by hand (`MAX_NODE + 1` to
/// [`MAX_DRAWN_NODE`], about nine million): what a node served over HTTP without `--node`
/// takes, so that its ids differ from every other node's unless two draws meet (about one
/// chance in nine million for two nodes). Number nodes by hand to rule that out.
#[must_use]
pub fn drawn_node() -> u64 {
    use std::hash::{BuildHasher as _, RandomState};
    // The standard library's hasher keys are drawn from the operating system's randomness.
    let random = RandomState::new().hash_one(std::process::id());
    MAX_NODE + 1 + random % (MAX_DRAWN_NODE - MAX_NODE)
}

/// The tracker's state: tasks in memory, of one node.
#[derive(Debug)]
pub struct Tracker {
    tasks: RwLock<Vec<Task>>,
    next_id: AtomicU64,
    node: u64,
}

impl Tracker {
    /// A tracker with `n` deterministic tasks, the only node (its ids start at 1).
    #[must_use]
    pub fn seeded(n: u64) -> Self {
        Self::seeded_on_node(0, n)
    }

    /// The tracker of node `node` (at most [`MAX_DRAWN_NODE`]) of several behind a load balancer,
    /// with `n` deterministic tasks: the same tasks as every node's, under ids of its own.
    #[must_use]
    pub fn seeded_on_node(node: u64, n: u64) -> Self {
        let node = node.min(MAX_DRAWN_NODE);
        let n = n.min(NODE_ID_SPAN / 2);
        let first = node * NODE_ID_SPAN;
        let tasks = (1..=n).map(|k| seed_task(first + k, k)).collect();
        Self {
            tasks: RwLock::new(tasks),
            next_id: AtomicU64::new(first + n + 1),
            node,
        }
    }

    /// The node this tracker is.
    #[must_use]
    pub fn node(&self) -> u64 {
        self.node
    }

    /// The error for a task `id` that this node does not have: another node's task, or one
    /// that does not exist.
    fn missing(&self, id: u64) -> ToolError {
        let owner = id / NODE_ID_SPAN;
        if owner == self.node {
            return not_found(id);
        }
        ToolError::not_found(format!(
            "Task {id} is kept by node {owner}, and this server is node {}: each node keeps its own tasks.",
            self.node
        ))
        .recovery("Call list_tasks to find the task on this server, or send the call to the server of the node that keeps it.")
        .actions(["list_tasks"])
        .detail("id", id)
        .detail("node", owner)
    }

    /// The task with this id.
    #[must_use]
    pub fn get(&self, id: u64) -> Option<Task> {
        self.read().iter().find(|task| task.id == id).cloned()
    }

    /// How many tasks there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether there are no tasks.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Task>> {
        // A handler that panicked while holding the lock left the data intact: every write
        // below is a single push, assignment or removal.
        self.tasks
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Task>> {
        self.tasks
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn usize_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The `k`-th seeded task, under the id `id`.
fn seed_task(id: u64, k: u64) -> Task {
    let i = usize_of(k);
    let day_of_year = (i * 7) % 365;
    let (month, day) = month_day(day_of_year);
    Task {
        id,
        title: format!("Task {k}: {} work item", LABELS[i % LABELS.len()]),
        description: None,
        status: STATUSES[i % STATUSES.len()],
        assignee: PEOPLE[i % PEOPLE.len()].to_owned(),
        owner: PEOPLE[(i / 3) % PEOPLE.len()].to_owned(),
        due: format!("2026-{month:02}-{day:02}"),
        priority: u8::try_from(i % 5).unwrap_or(0) + 1,
        labels: vec![
            LABELS[i % LABELS.len()].to_owned(),
            LABELS[(i / 2) % LABELS.len()].to_owned(),
        ]
        .into_iter()
        .fold(Vec::new(), |mut acc, l| {
            if !acc.contains(&l) {
                acc.push(l);
            }
            acc
        }),
    }
}

/// The month and day of a zero-based day of 2026 (not a leap year).
fn month_day(day_of_year: usize) -> (usize, usize) {
    const LENGTHS: [usize; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut rest = day_of_year % 365;
    for (month, length) in LENGTHS.iter().enumerate() {
        if rest < *length {
            return (month + 1, rest + 1);
        }
        rest -= length;
    }
    (12, 31)
}

/// Filters for `list_tasks`; every one is optional.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct ListTasks {
    /// Only tasks in this status.
    pub status: Option<Status>,
    /// Only tasks assigned to this person (a lowercase handle such as `ada`).
    #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$")]
    pub assignee: Option<String>,
    /// Only tasks due before this date.
    #[guard(format = "date")]
    pub due_before: Option<String>,
    /// Only tasks of this priority, from 1 (highest) to 5.
    #[guard(range(min = 1, max = 5))]
    pub priority: Option<u8>,
    /// Only tasks carrying this label.
    #[guard(length(min = 1, max = 32))]
    pub label: Option<String>,
    /// Skip this many matching tasks (for paging).
    pub offset: Option<u32>,
}

impl ListTasks {
    fn matches(&self, task: &Task) -> bool {
        self.status.is_none_or(|s| s == task.status)
            && self.assignee.as_deref().is_none_or(|a| a == task.assignee)
            && self
                .due_before
                .as_deref()
                .is_none_or(|d| task.due.as_str() < d)
            && self.priority.is_none_or(|p| p == task.priority)
            && self
                .label
                .as_deref()
                .is_none_or(|l| task.labels.iter().any(|t| t == l))
    }
}

/// Lists tasks, oldest first. Use the filters: there are thousands of tasks.
#[tool(read_only, agent_limit = 50)]
pub fn list_tasks(state: &Tracker, args: ListTasks) -> Paged<std::vec::IntoIter<Task>> {
    let matching: Vec<Task> = state
        .read()
        .iter()
        .filter(|t| args.matches(t))
        .cloned()
        .collect();
    // `total` counts every match, the ones before the offset too.
    Paged::new(matching.into_iter(), args.offset.unwrap_or(0))
}

/// Arguments of `read_tasks`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct ReadTasks {
    /// Only tasks assigned to this person (a lowercase handle such as `ada`).
    #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$")]
    pub assignee: Option<String>,
    /// Only tasks in this status.
    pub status: Option<Status>,
}

/// Reads tasks in full, descriptions included, oldest first: a page holds what fits in 1,500
/// tokens, and `next_cursor` continues it.
#[tool(read_only, agent_limit = 50, paged, max_tokens = 1_500)]
pub fn read_tasks(state: &Tracker, args: ReadTasks) -> Vec<Task> {
    state
        .read()
        .iter()
        .filter(|t| {
            args.assignee.as_deref().is_none_or(|a| a == t.assignee)
                && args.status.is_none_or(|s| s == t.status)
        })
        .cloned()
        .collect()
}

fn default_priority() -> u8 {
    3
}

fn default_status() -> Status {
    Status::Todo
}

/// Arguments of `create_task`.
#[derive(Debug, Deserialize, ToolArgs)]
#[guard(check(blocked_says_why, fields(status, description)))]
pub struct CreateTask {
    /// Short title.
    #[guard(length(min = 3, max = 120))]
    pub title: String,
    /// Longer description. Held to the decision policy: no invented figures, no guarantees.
    #[guard(length(max = 2000), policy = "decision")]
    pub description: Option<String>,
    /// Who works on it (a lowercase handle such as `ada`).
    #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$", example = "ada")]
    pub assignee: String,
    /// Due date.
    #[guard(format = "date")]
    pub due: String,
    /// Priority from 1 (highest) to 5; 3 when absent.
    #[serde(default = "default_priority")]
    #[guard(range(min = 1, max = 5))]
    pub priority: u8,
    /// Initial status; `todo` when absent.
    #[serde(default = "default_status")]
    pub status: Status,
    /// Labels, each distinct.
    #[serde(default)]
    #[guard(length(max = 10), unique)]
    pub labels: Vec<String>,
}

/// A rule across fields: a task created `blocked` says what blocks it, in its description.
/// It reads only these two fields, so it is heard whatever else the call got wrong.
fn blocked_says_why(status: Status, description: Option<&str>) -> Result<(), FieldIssue> {
    let said = description.is_some_and(|d| !d.trim().is_empty());
    if status == Status::Blocked && !said {
        return Err(
            FieldIssue::new("description", "A blocked task says what blocks it.")
                .expected("a description of what blocks the task"),
        );
    }
    Ok(())
}

/// Creates a task and returns it. The creator (the assignee) owns it.
#[tool(idempotent = false)]
pub fn create_task(state: &Tracker, args: CreateTask) -> Task {
    let task = Task {
        id: state.next_id.fetch_add(1, Ordering::Relaxed),
        title: args.title,
        description: args.description,
        status: args.status,
        owner: args.assignee.clone(),
        assignee: args.assignee,
        due: args.due,
        priority: args.priority,
        labels: args.labels,
    };
    state.write().push(task.clone());
    task
}

/// Arguments of `update_task`: the task and the fields to change.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct UpdateTask {
    /// The task to change.
    #[guard(range(min = 1))]
    pub id: u64,
    /// A new title.
    #[guard(length(min = 3, max = 120))]
    pub title: Option<String>,
    /// A new status.
    pub status: Option<Status>,
    /// A new assignee.
    #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$")]
    pub assignee: Option<String>,
    /// A new due date.
    #[guard(format = "date")]
    pub due: Option<String>,
    /// A new priority.
    #[guard(range(min = 1, max = 5))]
    pub priority: Option<u8>,
}

fn not_found(id: u64) -> ToolError {
    ToolError::not_found(format!("Task {id} does not exist."))
        .recovery("Call list_tasks with filters to find the id of the task, then call again.")
        .actions(["list_tasks"])
        .detail("id", id)
}

/// Changes the given fields of a task and returns it.
#[tool(idempotent)]
pub fn update_task(state: &Tracker, args: UpdateTask) -> Result<Task, ToolError> {
    let mut tasks = state.write();
    let task = tasks
        .iter_mut()
        .find(|t| t.id == args.id)
        .ok_or_else(|| state.missing(args.id))?;
    if let Some(title) = args.title {
        task.title = title;
    }
    if let Some(status) = args.status {
        task.status = status;
    }
    if let Some(assignee) = args.assignee {
        task.assignee = assignee;
    }
    if let Some(due) = args.due {
        task.due = due;
    }
    if let Some(priority) = args.priority {
        task.priority = priority;
    }
    Ok(task.clone())
}

/// Arguments of `delete_task`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct DeleteTask {
    /// The task to delete.
    #[guard(range(min = 1))]
    pub id: u64,
    /// Who asks: only the task's owner may delete it.
    #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$", example = "ada")]
    pub requested_by: String,
}

/// What `delete_task` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    /// The deleted task's id.
    pub id: u64,
}

/// Deletes a task. Only its owner may delete it.
#[tool(destructive, idempotent)]
pub fn delete_task(state: &Tracker, args: DeleteTask) -> Result<Deleted, ToolError> {
    let mut tasks = state.write();
    let index = tasks
        .iter()
        .position(|t| t.id == args.id)
        .ok_or_else(|| state.missing(args.id))?;
    let owner = &tasks[index].owner;
    if *owner != args.requested_by {
        return Err(ToolError::forbidden(format!(
            "Only the owner of task {} may delete it.",
            args.id
        ))
        .recovery(format!(
            "Ask {owner} to delete it, or mark it done with update_task instead."
        ))
        .actions(["update_task", "list_tasks"])
        .detail("owner", owner.clone()));
    }
    tasks.remove(index);
    Ok(Deleted { id: args.id })
}

/// Arguments of `task_report`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct TaskReport {
    /// Whose tasks to report on (a lowercase handle such as `ada`).
    #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$", example = "ada")]
    pub assignee: String,
    /// Only tasks in this status.
    pub status: Option<Status>,
}

/// A plain-text status report of one person's tasks, with their descriptions. The report quotes
/// text agents wrote, so it is held to the decision policy before delivery: an output that breaks
/// a critical rule is withheld, warnings are delivered with the policy's advice.
#[tool(read_only, max_bytes = 16_384, policy = guardrails::policy::Profile::Decision)]
pub fn task_report(state: &Tracker, args: TaskReport) -> String {
    use std::fmt::Write as _;
    let tasks = state.read();
    let mine: Vec<&Task> = tasks
        .iter()
        .filter(|t| t.assignee == args.assignee && args.status.is_none_or(|s| s == t.status))
        .collect();
    let mut report = format!("{} task(s) assigned to {}.\n", mine.len(), args.assignee);
    for task in mine.iter().rev().take(20) {
        let _ = writeln!(
            report,
            "- #{} {} ({}, due {}){}",
            task.id,
            task.title,
            task.status.as_str(),
            task.due,
            task.description
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        );
    }
    report
}

/// Which tasks `export_tasks` sends; every filter is optional.
#[derive(Debug, Default, Deserialize, ToolArgs)]
pub struct ExportFilter {
    /// Only tasks in this status.
    pub status: Option<Status>,
    /// Only tasks assigned to this person (a lowercase handle such as `ada`).
    #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$")]
    pub assignee: Option<String>,
    /// Only tasks carrying this label.
    #[guard(length(min = 1, max = 32))]
    pub label: Option<String>,
}

/// Where `export_tasks` sends the tasks.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct Destination {
    /// The endpoint that receives the export.
    #[guard(format = "url")]
    pub url: String,
    /// The endpoint's access token. Sensitive: never echoed in an error.
    #[guard(sensitive, length(min = 24, max = 128))]
    pub token: String,
}

/// Arguments of `export_tasks`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct ExportTasks {
    /// Which tasks to export (all of them when empty).
    #[serde(default)]
    pub filter: ExportFilter,
    /// Where to send them.
    pub destination: Destination,
}

/// What `export_tasks` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Exported {
    /// How many tasks were exported.
    pub count: usize,
    /// The endpoint they were sent to.
    pub url: String,
}

/// Exports the tasks that match a filter to an endpoint. (This example counts them and sends
/// nothing.)
#[tool(read_only)]
pub fn export_tasks(state: &Tracker, args: ExportTasks) -> Exported {
    let filter = &args.filter;
    let count = state
        .read()
        .iter()
        .filter(|t| {
            filter.status.is_none_or(|s| s == t.status)
                && filter.assignee.as_deref().is_none_or(|a| a == t.assignee)
                && filter
                    .label
                    .as_deref()
                    .is_none_or(|l| t.labels.iter().any(|t| t == l))
        })
        .count();
    Exported {
        count,
        url: args.destination.url,
    }
}

/// A day of the week.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToolEnum)]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    /// Monday.
    Mon,
    /// Tuesday.
    Tue,
    /// Wednesday.
    Wed,
    /// Thursday.
    Thu,
    /// Friday.
    Fri,
    /// Saturday.
    Sat,
    /// Sunday.
    Sun,
}

/// How often a task comes back: the `kind` names the variant, and each kind has its own fields.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Recurrence {
    /// On some days of each week, a number of times.
    Weekly {
        /// The days of the week, each once.
        #[guard(length(min = 1, max = 7), unique)]
        days: Vec<Weekday>,
        /// How many weeks, from 1 to 52.
        #[guard(range(min = 1, max = 52))]
        count: u8,
    },
    /// Every day until a date.
    Daily {
        /// The last day, `YYYY-MM-DD`.
        #[guard(format = "date")]
        until: String,
    },
    /// On a day of each month, from 1 to 28.
    Monthly {
        /// The day of the month.
        #[guard(range(min = 1, max = 28))]
        day: u8,
    },
}

/// Who asks: flattened into the arguments of the tools that check it, so it is sent beside
/// their own fields.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct Requester {
    /// Who asks (a lowercase handle such as `ada`): only a task's owner may change it.
    #[guard(pattern = "^[a-z][a-z0-9_]{1,31}$", example = "ada")]
    pub requested_by: String,
}

/// Arguments of `schedule_task`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct ScheduleTask {
    /// The task that comes back.
    #[guard(range(min = 1))]
    pub id: u64,
    /// How often it comes back.
    pub recurrence: Recurrence,
    /// Who asks.
    #[serde(flatten)]
    pub requester: Requester,
}

/// What `schedule_task` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Scheduled {
    /// The task's id.
    pub id: u64,
    /// When it comes back, in words.
    pub schedule: String,
}

/// Makes a task come back on a schedule. Only its owner may.
#[tool(idempotent)]
pub fn schedule_task(state: &Tracker, args: ScheduleTask) -> Result<Scheduled, ToolError> {
    let task = state.get(args.id).ok_or_else(|| state.missing(args.id))?;
    if task.owner != args.requester.requested_by {
        return Err(ToolError::forbidden(format!(
            "Only the owner of task {} may schedule it.",
            args.id
        ))
        .recovery(format!("Ask {} to schedule it.", task.owner))
        .detail("owner", task.owner));
    }
    let schedule = match args.recurrence {
        Recurrence::Weekly { days, count } => {
            let days: Vec<String> = days.iter().map(|d| format!("{d:?}")).collect();
            format!("every {} for {count} weeks", days.join(", "))
        }
        Recurrence::Daily { until } => format!("every day until {until}"),
        Recurrence::Monthly { day } => format!("on day {day} of each month"),
    };
    Ok(Scheduled {
        id: args.id,
        schedule,
    })
}

/// The contracts of the last release, which clients were calibrated on: `create_task` then
/// took an `owner` instead of an `assignee` and no required `due` date. Embedded at compile
/// time, so start-up reads no file.
pub const KNOWN_GOOD_LOCKFILE: &str = include_str!("task_tracker.v1.lock");

/// The task tracker server with every guardrail on: strict arguments, coaching errors, agent
/// limits, an output policy on free text, and contract awareness against the last release.
///
/// # Panics
/// Never at run time: the embedded lockfile is checked by the test suite.
#[must_use]
pub fn server(tasks: u64) -> Server<Tracker> {
    server_on(std::sync::Arc::new(Tracker::seeded(tasks)))
}

/// [`server`] as node `node` of several behind a load balancer ([`Tracker::seeded_on_node`]).
#[must_use]
pub fn server_of_node(node: u64, tasks: u64) -> Server<Tracker> {
    server_on(std::sync::Arc::new(Tracker::seeded_on_node(node, tasks)))
}

/// [`server`] on a tracker the caller shares (to look at its tasks while it serves).
#[must_use]
pub fn server_on(tracker: std::sync::Arc<Tracker>) -> Server<Tracker> {
    let server = Server::from_arc(tracker)
        .name("task-tracker")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions(
            "A task tracker. list_tasks shows at most 50 tasks per call: use its filters. \
             Errors explain how to fix the call.",
        )
        .tool(list_tasks)
        .tool(read_tasks)
        .tool(create_task)
        .tool(update_task)
        .tool(delete_task)
        .tool(task_report)
        .tool(export_tasks)
        .tool(schedule_task);
    server.config(guards())
}

/// The guardrails the tracker is served with: the errors of a tool that changed since the
/// embedded lockfile carry what changed. Add a knob to it and give it to
/// [`Server::config`] to serve the tracker with more.
#[must_use]
pub fn guards() -> GuardConfig {
    match KnownGood::from_lockfile_str(KNOWN_GOOD_LOCKFILE) {
        Ok(known_good) => GuardConfig::new()
            .known_good(known_good)
            .contract_awareness(AwarenessConfig::default()),
        // A broken embedded lockfile only costs the awareness blocks, never the server.
        Err(_) => GuardConfig::new(),
    }
}
