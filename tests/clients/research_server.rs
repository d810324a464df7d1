//! The research server (`guardrails_tests::research_server`) over stdio: a native rmcp server
//! whose long call runs as a task for a client that has tasks, the upstream the proxy's task
//! tests compare the proxy against.
//!
//! ```sh
//! cargo run --example research_server
//! ```

use guardrails_tests::research_server::Research;
use rmcp::ServiceExt as _;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Research::new()
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
