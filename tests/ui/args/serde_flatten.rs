use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Inner {
    a: String,
}

#[derive(ToolArgs)]
struct Args {
    #[serde(flatten)]
    inner: Inner,
}

fn main() {}
