use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[serde(rename = "name")]
    title: String,
    name: String,
}

fn main() {}
