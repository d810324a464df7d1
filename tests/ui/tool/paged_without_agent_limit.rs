use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: Option<String>,
}

/// Lists names.
#[tool(read_only, paged)]
fn list_names(args: Args) -> Vec<String> {
    args.name.into_iter().collect()
}

fn main() {}
