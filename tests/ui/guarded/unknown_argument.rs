use rmcp::{tool, tool_router};

#[derive(Clone)]
struct Calculator;

#[guardrails::guarded(gaurd = guardrails::mcp::RouterGuard::new())]
#[tool_router]
impl Calculator {
    #[tool(description = "Adds")]
    fn add(&self) -> String {
        String::new()
    }
}

fn main() {}
