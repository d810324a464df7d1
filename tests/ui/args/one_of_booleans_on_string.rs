use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    #[guard(one_of(true))]
    name: String,
}

fn main() {}
