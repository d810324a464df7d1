use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(length(min = 3, max = 20), example = "ab")]
    username: String,
}

fn main() {}
