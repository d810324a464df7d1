use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
#[serde(untagged)]
enum Target {
    ById { id: u32 },
    ByName { name: String },
}

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    title: String,
    #[serde(flatten)]
    target: Target,
}

fn main() {}
