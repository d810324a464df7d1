use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
enum Action {
    Create { name: String },
    Move(String, u32),
}

fn main() {}
