//! The `create-user` tool: a username of 3 to 20 characters matching `^[a-zA-Z0-9_]+$`, an email,
//! an age from 18 to 120, a role from a fixed list and 1 to 5 distinct tags. The test support
//! library compiles this same file as `guardrails_tests::create_user`: its `CreateUser` is the
//! fixture the validation, rendering and schema tests and the benchmarks run on.

use guardrails::{ToolArgs, ToolEnum, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A user's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToolEnum, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
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
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
pub struct CreateUser {
    /// Username (3-20 chars, alphanumeric and underscore).
    #[guard(
        length(min = 3, max = 20),
        pattern = "^[a-zA-Z0-9_]+$",
        example = "john_doe"
    )]
    pub username: String,
    /// User email address.
    #[guard(format = "email")]
    pub email: String,
    /// Age in years.
    #[guard(range(min = 18, max = 120))]
    pub age: u8,
    /// User role.
    pub role: Role,
    /// User tags (1-5 unique tags).
    #[guard(length(min = 1, max = 5), unique)]
    pub tags: Option<Vec<String>>,
}

/// The user that was created.
#[derive(Debug, Serialize, JsonSchema)]
pub struct User {
    pub username: String,
    pub email: String,
    pub age: u8,
    pub role: Role,
    pub tags: Vec<String>,
}

/// Create a new user with comprehensive validation.
#[tool(name = "create-user", title = "Create user")]
pub fn create_user(args: CreateUser) -> User {
    User {
        username: args.username,
        email: args.email,
        age: args.age,
        role: args.role,
        tags: args.tags.unwrap_or_default(),
    }
}
