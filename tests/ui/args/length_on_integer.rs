use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(length(max = 3))]
    count: u32,
}

fn main() {}
