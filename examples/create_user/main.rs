//! A one-tool MCP server: `create-user`, strictly validated (the tool is in `user.rs`).
//!
//! ```sh
//! cargo run --example create_user            # serve over stdio
//! ```

// `pub`: the test support library compiles the same file and exports its items; public here too,
// they do not read as unreachable.
pub mod user;

use guardrails::Server;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    eprintln!("create-user: an MCP server on stdio with one strictly validated tool.");
    Server::new(())
        .name("create-user")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(user::create_user)
        .serve_stdio()
        .await
}
