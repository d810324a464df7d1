//! `#[tool]` handlers may return `impl Trait`: an iterator in `Iter<…>` (paged, with the
//! items' output schema) and `impl Serialize` (no output schema), synchronous or `async`.

use guardrails::present::Iter;
use guardrails::{Server, ToolArgs, ToolError, tool};
use serde_json::json;

#[derive(Clone, serde::Serialize, schemars::JsonSchema)]
struct Task {
    id: u64,
    title: String,
}

struct Tracker {
    tasks: Vec<Task>,
}

/// Filters.
#[derive(serde::Deserialize, ToolArgs)]
struct ListTasks {
    /// Only ids at least this.
    from: Option<u64>,
}

/// Lists tasks.
#[tool(read_only, agent_limit = 2, paged)]
fn list_tasks(state: &Tracker, args: ListTasks) -> Iter<impl Iterator<Item = &Task>> {
    let from = args.from.unwrap_or(0);
    Iter(state.tasks.iter().filter(move |t| t.id >= from))
}

/// Counts tasks.
#[tool(read_only)]
fn count_tasks(state: &Tracker, _args: ListTasks) -> impl serde::Serialize {
    json!({"count": state.tasks.len()})
}

/// Counts tasks, or fails.
#[tool(read_only)]
async fn try_count(state: &Tracker, args: ListTasks) -> Result<impl serde::Serialize, ToolError> {
    if args.from == Some(0) {
        return Err(ToolError::invalid_argument("from must be above 0"));
    }
    tokio::task::yield_now().await;
    Ok(state.tasks.len())
}

fn server() -> Server<Tracker> {
    let tasks = (1..=5)
        .map(|id| Task {
            id,
            title: format!("task {id}"),
        })
        .collect();
    Server::new(Tracker { tasks })
        .tool(list_tasks)
        .tool(count_tasks)
        .tool(try_count)
}

#[tokio::test]
async fn an_iterator_in_iter_is_paged_and_advertises_its_items() {
    let schema = list_tasks
        .spec()
        .output_schema()
        .expect("the items' schema");
    assert_eq!(
        schema["properties"]["items"]["items"]["properties"]["title"]["type"],
        "string"
    );
    let output = server()
        .call("list_tasks", json!({"from": 2}))
        .await
        .unwrap();
    assert!(!output.is_error, "{:?}", output.text);
    let structured = output.structured.unwrap();
    assert_eq!(structured["shown"], 2);
    assert_eq!(structured["total"], 4);
    assert!(structured["next_cursor"].is_string());
}

#[tokio::test]
async fn impl_serialize_is_served_without_an_output_schema() {
    assert!(count_tasks.spec().output_schema().is_none());
    assert!(try_count.spec().output_schema().is_none());
    let server = server();
    let output = server.call("count_tasks", json!({})).await.unwrap();
    assert!(
        output.text.join("").contains("\"count\":5"),
        "{:?}",
        output.text
    );
    let output = server.call("try_count", json!({"from": 1})).await.unwrap();
    assert_eq!(output.text, ["5"]);
    let failed = server.call("try_count", json!({"from": 0})).await.unwrap();
    assert!(failed.is_error);
}
