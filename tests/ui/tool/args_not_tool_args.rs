use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

/// Not validated.
struct Loose {
    name: String,
}

/// Greets.
#[tool]
fn greet(args: Loose) -> String {
    args.name
}

fn main() {}
