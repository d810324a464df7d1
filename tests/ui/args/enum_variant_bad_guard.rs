use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
#[serde(tag = "kind")]
enum Action {
    Create {
        #[guard(length(min = 5, max = 2))]
        name: String,
    },
    Delete { id: u32 },
}

fn main() {}
