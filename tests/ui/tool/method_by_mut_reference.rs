use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

struct AppState {
    greeted: usize,
}

impl AppState {
    /// Greets.
    #[tool]
    fn greet(&mut self, args: Args) -> String {
        self.greeted += 1;
        args.name
    }
}

fn main() {}
