use guardrails::present::Truncated;
use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: Option<String>,
}

fn teach(t: &Truncated<'_>) -> String {
    format!("{} of {}", t.shown, t.total)
}

/// Lists names.
#[tool(agent_limit = 10, paged, teach = teach)]
fn list_names(args: Args) -> Vec<String> {
    args.name.into_iter().collect()
}

fn main() {}
