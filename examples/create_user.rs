//! The `create-user` tool: a username of 3 to 20 characters matching `^[a-zA-Z0-9_]+$`, an email,
//! an age from 18 to 120, a role from a fixed list and 1 to 5 distinct tags.
//!
//! ```sh
//! cargo run --example create_user            # serve over stdio
//! ```

use guardrails::{Server, ToolArgs, ToolEnum, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A user's role.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToolEnum, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Role {
    /// Full access.
    Admin,
    /// Moderates content.
    Moderator,
    /// A regular user.
    User,
    /// Read-only access.
    Guest,
}

/// Create a new user with comprehensive validation.
#[derive(Debug, Deserialize, ToolArgs)]
struct CreateUser {
    /// Username (3-20 chars, alphanumeric and underscore).
    #[guard(
        length(min = 3, max = 20),
        pattern = "^[a-zA-Z0-9_]+$",
        example = "john_doe"
    )]
    username: String,
    /// User email address.
    #[guard(format = "email")]
    email: String,
    /// Age in years.
    #[guard(range(min = 18, max = 120))]
    age: u8,
    /// User role.
    role: Role,
    /// User tags (1-5 unique tags).
    #[guard(length(min = 1, max = 5), unique)]
    tags: Option<Vec<String>>,
}

/// The user that was created.
#[derive(Debug, Serialize, JsonSchema)]
struct User {
    username: String,
    email: String,
    age: u8,
    role: Role,
    tags: Vec<String>,
}

/// Create a new user with comprehensive validation.
#[tool(name = "create-user", title = "Create user")]
fn create_user(args: CreateUser) -> User {
    User {
        username: args.username,
        email: args.email,
        age: args.age,
        role: args.role,
        tags: args.tags.unwrap_or_default(),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    eprintln!("create-user: an MCP server on stdio with one strictly validated tool.");
    Server::new(())
        .name("create-user")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(create_user)
        .serve_stdio()
        .await
}
