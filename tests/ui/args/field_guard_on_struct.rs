use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
#[guard(length(max = 3))]
struct Args {
    name: String,
}

fn main() {}
