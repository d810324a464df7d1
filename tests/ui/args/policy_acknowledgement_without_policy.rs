use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    summary: String,
    #[serde(default)]
    #[guard(acknowledges_policy)]
    confirm: bool,
}

fn main() {}
