use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    #[guard(sensitive, policy = "base")]
    note: String,
}

fn main() {}
