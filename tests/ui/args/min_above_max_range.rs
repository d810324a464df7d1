use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(range(min = 120, max = 18))]
    age: u8,
}

fn main() {}
