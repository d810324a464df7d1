use guardrails::ToolArgs;

#[derive(serde::Deserialize, ToolArgs)]
struct Card {
    number: String,
}

#[derive(serde::Deserialize, ToolArgs)]
struct Args {
    #[guard(sensitive)]
    card: Card,
}

fn main() {}
