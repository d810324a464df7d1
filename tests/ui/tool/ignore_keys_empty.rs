use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Reads.
#[tool(ignore_keys(prefix = ""))]
fn read(args: Args) -> String {
    args.name
}

fn main() {}
