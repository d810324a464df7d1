use guardrails::ToolArgs;

#[derive(ToolArgs)]
#[serde(rename_all = "camelcase")]
struct Args {
    due_before: String,
}

fn main() {}
