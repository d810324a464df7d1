use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(range(min = 18, max = 120), example = 15)]
    age: u8,
}

fn main() {}
