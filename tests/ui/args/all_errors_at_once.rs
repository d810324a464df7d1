use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(lenght(max = 3))]
    a: String,
    #[guard(range(min = 9, max = 1))]
    b: u32,
    #[guard(pattern = "(")]
    c: String,
}

fn main() {}
