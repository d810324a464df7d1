use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Greets.
#[tool]
fn greet(_state: &AppState, args: Args, _extra: u32) -> String {
    args.name
}

fn main() {}
