use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
#[serde(tag = "kind")]
enum Repeat {
    Weekly { count: u8 },
    Never,
}

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    title: String,
    #[serde(flatten)]
    repeat: Repeat,
}

fn main() {}
