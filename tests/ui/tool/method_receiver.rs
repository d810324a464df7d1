use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState;

impl AppState {
    /// Greets.
    #[tool]
    fn greet(&self, args: Args) -> String {
        args.name
    }
}

fn main() {}
