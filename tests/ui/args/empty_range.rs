use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(range(min = 1.0, exclusive_max = 1.0))]
    ratio: f64,
}

fn main() {}
