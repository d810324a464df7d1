use guardrails::ToolArgs;

/// Arguments that also derive `JsonSchema`, which `ToolArgs` implements already.
#[derive(serde::Deserialize, schemars::JsonSchema, ToolArgs)]
struct Args {
    /// A name.
    #[guard(length(min = 1))]
    name: String,
}

fn main() {}
