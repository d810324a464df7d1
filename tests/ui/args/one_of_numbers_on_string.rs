use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    #[guard(one_of(1, 2))]
    name: String,
}

fn main() {}
