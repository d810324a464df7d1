use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(pattern = "^[a-z]+$")]
    names: Vec<String>,
}

fn main() {}
