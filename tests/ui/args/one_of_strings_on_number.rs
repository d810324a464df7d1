use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    #[guard(one_of("a", "b"))]
    count: u8,
}

fn main() {}
