use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(policy = "base")]
    summary: String,
    #[guard(acknowledges_policy)]
    confirm: String,
}

fn main() {}
