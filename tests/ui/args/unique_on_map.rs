use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    #[guard(unique)]
    labels: std::collections::BTreeMap<String, String>,
}

fn main() {}
