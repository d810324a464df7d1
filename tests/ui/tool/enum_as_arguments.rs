use guardrails::{ToolArgs, tool};

/// What to do.
#[derive(serde::Deserialize, ToolArgs)]
#[serde(tag = "action", rename_all = "snake_case")]
enum Action {
    /// Creates an item.
    Create {
        /// Its name.
        name: String,
    },
    /// Deletes an item.
    Delete {
        /// Its id.
        id: u32,
    },
}

/// Acts on an item.
#[tool]
fn act(args: Action) -> String {
    match args {
        Action::Create { name } => name,
        Action::Delete { id } => id.to_string(),
    }
}

fn main() {}
