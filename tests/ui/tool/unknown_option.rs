use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Greets.
#[tool(agent_limt = 5)]
fn greet(args: Args) -> String {
    args.name
}

fn main() {}
