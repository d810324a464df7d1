use guardrails::ToolArgs;
use guardrails::policy::Policy;

fn house_rules() -> Policy {
    Policy::builder().build().unwrap()
}

#[derive(ToolArgs)]
struct Args {
    #[guard(policy = house_rules)]
    summary: String,
}

fn main() {}
