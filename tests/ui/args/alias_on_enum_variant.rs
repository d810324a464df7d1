use guardrails::ToolEnum;

#[derive(serde::Deserialize, ToolEnum)]
enum Status {
    #[serde(alias = "open")]
    Todo,
    Done,
}

fn main() {}
