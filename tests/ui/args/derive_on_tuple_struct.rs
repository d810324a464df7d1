use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args(String, u32);

fn main() {}
