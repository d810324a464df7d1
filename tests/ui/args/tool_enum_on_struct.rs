use guardrails::ToolEnum;

#[derive(ToolEnum)]
struct Status {
    open: bool,
}

fn main() {}
