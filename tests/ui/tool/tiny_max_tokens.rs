use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Greets.
#[tool(max_tokens = 10)]
fn greet(args: Args) -> String {
    args.name
}

fn main() {}
