use guardrails::ToolArgs;

#[derive(ToolArgs)]
#[serde(tag = "kind", untagged)]
enum Action {
    Create { name: String },
    Delete { id: u32 },
}

fn main() {}
