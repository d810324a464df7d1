use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Greets.
#[tool(agent_limit = 0)]
fn greet(args: Args) -> Vec<String> {
    vec![args.name]
}

fn main() {}
