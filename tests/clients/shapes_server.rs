//! Native rmcp servers shaped as rmcp's own examples are, each adopted with the one line
//! `#[guardrails::guarded]`, over stdio: the server the Python client tests of `#[guarded]` drive.
//!
//! ```sh
//! cargo run --example shapes_server -- calculator|counter|audited|listing
//! ```

#![expect(
    clippy::unused_self,
    reason = "tools are methods on `&self`, as rmcp's examples write them"
)]

use guardrails::mcp::{ResultLimits, RouterGuard};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ServerHandler, ServiceExt as _, schemars, tool, tool_handler, tool_router};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SumRequest {
    /// The left hand side number.
    a: i32,
    b: i32,
}

/// rmcp's calculator: `#[tool_router(server_handler)]`.
#[derive(Clone)]
struct Calculator;

#[guardrails::guarded]
#[tool_router(server_handler)]
impl Calculator {
    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

/// rmcp's counter: the router in a field.
#[derive(Clone)]
struct Counter {
    tool_router: ToolRouter<Self>,
}

#[guardrails::guarded]
#[tool_router]
impl Counter {
    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Counter {}

/// The default `#[tool_handler]`, in audit mode.
#[derive(Clone)]
struct Audited;

#[guardrails::guarded(guard = RouterGuard::new().config(guardrails::GuardConfig::new().audit(true)))]
#[tool_router]
impl Audited {
    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler]
impl ServerHandler for Audited {}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct NamesRequest {
    /// How many names to list.
    count: u32,
}

/// Tools whose structured results are not objects (rmcp's `Json<Vec<T>>` and `Json<String>`),
/// cut by the guard's agent limit and byte cap.
#[derive(Clone)]
struct Listing;

#[guardrails::guarded(guard = RouterGuard::new()
    .tool("names", ResultLimits::new().agent_limit(3))
    .tool("letters", ResultLimits::new().max_bytes(8)))]
#[tool_router]
impl Listing {
    #[tool(description = "Lists names")]
    fn names(
        &self,
        Parameters(NamesRequest { count }): Parameters<NamesRequest>,
    ) -> Json<Vec<String>> {
        Json((1..=count).map(|i| format!("name {i}")).collect())
    }

    #[tool(description = "Spells the alphabet")]
    fn letters(&self) -> Json<String> {
        Json("abcdefghijklmnopqrstuvwxyz".to_owned())
    }
}

#[tool_handler]
impl ServerHandler for Listing {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let shape = std::env::args().nth(1).unwrap_or_default();
    let io = rmcp::transport::stdio();
    match shape.as_str() {
        "calculator" => Calculator.serve(io).await?.waiting().await?,
        "counter" => {
            let counter = Counter {
                tool_router: Counter::tool_router(),
            };
            counter.serve(io).await?.waiting().await?
        }
        "audited" => Audited.serve(io).await?.waiting().await?,
        "listing" => Listing.serve(io).await?.waiting().await?,
        other => {
            return Err(format!(
                "unknown shape {other:?}: calculator, counter, audited or listing"
            )
            .into());
        }
    };
    Ok(())
}
