use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(length(min = 1))]
    #[guard(length(max = 9))]
    name: String,
}

fn main() {}
