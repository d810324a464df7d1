use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Greets.
#[tool(read_only, read_only = false)]
fn greet(args: Args) -> String {
    args.name
}

fn main() {}
