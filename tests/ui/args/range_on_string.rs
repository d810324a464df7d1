use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(range(min = 1))]
    name: String,
}

fn main() {}
