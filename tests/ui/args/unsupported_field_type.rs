use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    timeout: std::time::Duration,
}

fn main() {}
