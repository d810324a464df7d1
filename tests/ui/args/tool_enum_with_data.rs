use guardrails::ToolEnum;

#[derive(ToolEnum)]
enum Status {
    Open,
    Closed(String),
}

fn main() {}
