use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    #[guard(multiple_of = 2)]
    name: String,
}

fn main() {}
