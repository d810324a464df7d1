use guardrails::{ToolArgs, tool};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

/// Greets.
#[tool]
fn greet(args: Args) -> Result<String, String> {
    if args.name.is_empty() {
        return Err("no name".to_owned());
    }
    Ok(args.name)
}

fn main() {}
