use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
enum Action {
    Create { name: String },
    Rename(String),
}

fn main() {}
