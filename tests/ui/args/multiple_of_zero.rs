use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(multiple_of = 0)]
    step: u32,
}

fn main() {}
