//! The presenter benchmarks' tool: a collection of rows under an agent limit of 50.

use guardrails::{ToolArgs, tool};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    id: u64,
    title: String,
    assignee: String,
}

/// Arguments of `list_rows`.
#[derive(Debug, Deserialize, ToolArgs)]
pub(crate) struct ListRows {
    /// Only rows of this person.
    assignee: Option<String>,
}

/// Lists rows.
#[tool(agent_limit = 50)]
pub(crate) fn list_rows(args: ListRows) -> Vec<Row> {
    let _ = args.assignee;
    Vec::new()
}

/// `n` rows, built once, outside any timed loop.
pub(crate) fn rows(n: u64) -> Vec<Row> {
    (0..n)
        .map(|id| Row {
            id,
            title: format!("Row number {id}"),
            assignee: format!("person{}", id % 7),
        })
        .collect()
}
