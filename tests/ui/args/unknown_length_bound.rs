use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(length(minimum = 1))]
    name: String,
}

fn main() {}
