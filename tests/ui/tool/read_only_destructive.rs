use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Deletes.
#[tool(read_only, destructive)]
fn delete(args: Args) -> String {
    args.name
}

fn main() {}
