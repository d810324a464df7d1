use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(policy = "base")]
    summary: String,
    #[serde(default)]
    #[guard(acknowledges_policy)]
    confirm: bool,
    #[serde(default)]
    #[guard(acknowledges_policy)]
    confirm_again: bool,
}

fn main() {}
