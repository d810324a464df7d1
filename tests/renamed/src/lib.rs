//! Tools written against the runtime renamed `rails` in Cargo.toml: no crate named `guardrails`
//! is in scope here, so every path the derives and `#[tool]` generate goes through `::rails`.

use rails::{ToolArgs, ToolEnum, ToolError, tool};
use serde::Deserialize;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToolEnum)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Todo,
    Done,
}

/// How often a task comes back.
#[derive(Debug, PartialEq, Eq, Deserialize, ToolArgs)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Repeat {
    Never,
    Daily {
        /// Every this many days.
        #[guard(range(min = 1, max = 30))]
        every: u8,
    },
}

/// Arguments of `add_task`.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct AddTask {
    /// What to do.
    #[guard(length(min = 3, max = 40))]
    pub title: String,
    /// Where it stands.
    pub status: Status,
    /// How often it comes back.
    pub repeat: Option<Repeat>,
}

/// Adds a task and says what was added.
///
/// # Errors
/// `CONFLICT` for a task that is already done.
#[tool]
pub fn add_task(args: AddTask) -> Result<String, ToolError> {
    if args.status == Status::Done {
        return Err(ToolError::conflict("A new task cannot be done already."));
    }
    Ok(format!("Added {}.", args.title))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_derives_validate_through_the_renamed_dependency() {
        let args = AddTask::validate_value(json!({
            "title": "Write docs", "status": "todo", "repeat": {"kind": "daily", "every": 2}
        }))
        .expect("a valid call");
        assert_eq!(args.title, "Write docs");
        assert_eq!(args.repeat, Some(Repeat::Daily { every: 2 }));

        let Err(report) = AddTask::validate_value(json!({
            "title": "ab", "status": "doing", "repeat": {"kind": "daily", "every": 0}
        })) else {
            panic!("an invalid call was accepted");
        };
        let paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
        assert!(paths.contains(&"title"), "{paths:?}");
        assert!(paths.contains(&"status"), "{paths:?}");
        assert!(paths.contains(&"repeat.every"), "{paths:?}");
    }

    #[test]
    fn a_tool_is_served_through_the_renamed_dependency() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let server = rails::Server::new(()).tool(add_task);
        runtime.block_on(async {
            let ok = server
                .call("add_task", json!({"title": "Write docs", "status": "todo"}))
                .await
                .expect("a known tool");
            assert!(!ok.is_error);
            assert_eq!(ok.text, ["Added Write docs."]);

            let rejected = server
                .call("add_task", json!({"titel": "Write docs", "status": "todo"}))
                .await
                .expect("a known tool");
            assert!(rejected.is_error);
            assert!(
                rejected.text[0].contains("Did you mean \"title\"?"),
                "{rejected:?}"
            );

            let failed = server
                .call("add_task", json!({"title": "Write docs", "status": "done"}))
                .await
                .expect("a known tool");
            assert!(failed.is_error);
            assert!(failed.text[0].contains("CONFLICT"), "{failed:?}");
        });
    }
}
