use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(policy = "base")]
    count: u32,
}

fn main() {}
