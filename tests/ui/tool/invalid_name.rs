use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Greets.
#[tool(name = "greet someone")]
fn greet(args: Args) -> String {
    args.name
}

fn main() {}
