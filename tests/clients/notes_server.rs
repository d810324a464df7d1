//! The native rmcp notes server (`guardrails_tests::notes_server`) over stdio, guarded by
//! `guard_router`, or as rmcp alone serves it with `--unguarded`: the server the Python client
//! tests compare.
//!
//! ```sh
//! cargo run --example notes_server [-- --unguarded]
//! ```

use guardrails_tests::notes_server::Notes;
use rmcp::ServiceExt as _;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let unguarded = std::env::args().any(|a| a == "--unguarded");
    let server = if unguarded {
        Notes::new(40)
    } else {
        Notes::guarded(40)
    };
    server
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
