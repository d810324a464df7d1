use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    room: String,
    #[serde(alias = "room")]
    room_id: String,
}

fn main() {}
