use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args<T> {
    value: T,
}

fn main() {}
