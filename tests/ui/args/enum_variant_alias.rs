use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
#[serde(tag = "kind")]
enum Action {
    #[serde(alias = "make")]
    Create { name: String },
    Delete { id: u32 },
}

fn main() {}
