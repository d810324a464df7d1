use guardrails::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[guard(one_of("EUR", "USD", "EUR"))]
    currency: String,
}

fn main() {}
