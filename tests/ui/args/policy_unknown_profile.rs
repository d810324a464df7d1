use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(policy = "decisoin")]
    summary: String,
}

fn main() {}
