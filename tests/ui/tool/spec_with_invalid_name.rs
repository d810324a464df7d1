use guardrails::{ToolArgs, ToolSpec};

/// Arguments.
#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    /// A name.
    name: String,
}

static SPEC: ToolSpec = ToolSpec::new::<Args>("greet someone", "Greets.");

fn main() {
    let _ = &SPEC;
}
