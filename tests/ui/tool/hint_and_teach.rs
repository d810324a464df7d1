use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Greets.
#[tool(agent_limit = 5, hint = "Filter by name.", teach = teach)]
fn greet(args: Args) -> Vec<String> {
    vec![args.name]
}

fn teach(_: &guardrails::present::Truncated<'_>) -> String {
    String::new()
}

fn main() {}
