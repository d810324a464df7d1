use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Deletes.
#[tool(destructive, repair)]
fn delete(args: Args) -> String {
    args.name
}

fn main() {}
