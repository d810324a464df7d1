use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Paging {
    limit: u8,
}

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    title: String,
    #[serde(flatten)]
    #[guard(non_empty)]
    page: Paging,
}

fn main() {}
