use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(length(min = 20, max = 3))]
    name: String,
}

fn main() {}
