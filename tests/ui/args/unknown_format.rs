use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(format = "emial")]
    email: String,
}

fn main() {}
