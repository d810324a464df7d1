use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(lenght(min = 1))]
    name: String,
}

fn main() {}
