use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[serde(skip)]
    #[guard(length(max = 3))]
    cache: String,
}

fn main() {}
