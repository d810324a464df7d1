use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(unique)]
    name: String,
}

fn main() {}
