use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(pattern = "^[A-Z]{2}$", example = "usa")]
    country: String,
}

fn main() {}
