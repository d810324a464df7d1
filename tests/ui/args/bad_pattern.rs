use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(pattern = "^[a-z+$")]
    slug: String,
}

fn main() {}
