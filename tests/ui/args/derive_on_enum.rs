use guardrails::ToolArgs;

#[derive(ToolArgs)]
enum Args {
    Create,
    Delete,
}

fn main() {}
