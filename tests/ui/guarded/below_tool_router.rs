use rmcp::{tool, tool_router};

#[derive(Clone)]
struct Calculator;

// rmcp has built the router before `#[guarded]` runs: it cannot guard it.
#[tool_router(server_handler)]
#[guardrails::guarded]
impl Calculator {
    #[tool(description = "Adds")]
    fn add(&self) -> String {
        String::new()
    }
}

fn main() {}
