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
fn greet<T: Default>(args: Args) -> String {
    args.name
}

fn main() {}
