//! Two releases of a small user service, the subject of the contract tests and benchmark: `v1` is
//! what clients were calibrated on, `v2` changed `create_user` (a required `currency`, a shorter
//! `name`, an `idempotent` flip, a lower agent limit on `list_users`) and added `delete_user`.
//! `get_user` is the same in both.
//!
//! `v1` and `v2` each declare `CreateUser` and `ListUsers` on purpose: two releases of one tool
//! are the point. This service's `CreateUser` and `Role` are its own, not the fixtures' (the
//! create-user example's): the contract snapshots describe these fields and roles.

use guardrails::contract::ServerContract;
use guardrails::{Server, ToolArgs, ToolEnum, ToolError, ToolSpec, tool};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToolEnum, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Admin,
    User,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct User {
    pub id: u32,
    pub name: String,
}

/// Arguments naming one user.
#[derive(Debug, Deserialize, ToolArgs)]
pub struct UserId {
    /// The user's id.
    pub id: u32,
}

/// Fetches one user.
#[tool(read_only)]
pub fn get_user(args: UserId) -> Result<User, ToolError> {
    Err(ToolError::not_found(format!(
        "User {} does not exist.",
        args.id
    )))
}

pub mod v1 {
    use super::{Deserialize, Role, ToolArgs, User, tool};

    /// Arguments of `create_user`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct CreateUser {
        /// Display name.
        #[guard(length(min = 3, max = 40))]
        pub name: String,
        /// Contact address.
        #[guard(format = "email")]
        pub email: String,
        /// Access level.
        pub role: Option<Role>,
    }

    /// Creates a user.
    #[tool(idempotent)]
    pub fn create_user(args: CreateUser) -> User {
        User {
            id: 1,
            name: args.name,
        }
    }

    /// Arguments of `list_users`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct ListUsers {
        /// Only users with this role.
        pub role: Option<Role>,
    }

    /// Lists users.
    #[tool(read_only, agent_limit = 50)]
    pub fn list_users(args: ListUsers) -> Vec<User> {
        let _ = args.role;
        Vec::new()
    }
}

#[allow(
    rustdoc::invalid_html_tags,
    reason = "`create_user`'s description holds markup on purpose: the contract texts escape it"
)]
pub mod v2 {
    use super::{Deserialize, Role, ToolArgs, User, tool};

    /// Arguments of `create_user`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct CreateUser {
        /// Display name.
        #[guard(length(min = 3, max = 20))]
        pub name: String,
        /// Contact address.
        #[guard(format = "email")]
        pub email: String,
        /// Access level.
        pub role: Option<Role>,
        /// Billing currency, ISO 4217.
        #[guard(pattern = "^[A-Z]{3}$")]
        pub currency: String,
        /// Free-form notes.
        pub notes: Option<String>,
    }

    /// Creates a user <with> billing & "currency".
    #[tool]
    pub fn create_user(args: CreateUser) -> User {
        User {
            id: 1,
            name: args.name,
        }
    }

    /// Arguments of `list_users`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct ListUsers {
        /// Only users with this role.
        pub role: Option<Role>,
    }

    /// Lists users.
    #[tool(read_only, agent_limit = 20)]
    pub fn list_users(args: ListUsers) -> Vec<User> {
        let _ = args.role;
        Vec::new()
    }

    /// Deletes a user.
    #[tool(destructive)]
    pub fn delete_user(args: super::UserId) -> bool {
        args.id > 0
    }
}

/// The tools of release 1.
#[must_use]
pub fn v1_specs() -> Vec<&'static ToolSpec> {
    vec![
        v1::create_user.spec(),
        v1::list_users.spec(),
        get_user.spec(),
    ]
}

/// The tools of release 2.
#[must_use]
pub fn v2_specs() -> Vec<&'static ToolSpec> {
    vec![
        v2::create_user.spec(),
        v2::list_users.spec(),
        v2::delete_user.spec(),
        get_user.spec(),
    ]
}

/// The contracts of release 1.
#[must_use]
pub fn v1_contracts() -> ServerContract {
    ServerContract::from_specs(v1_specs())
}

/// The contracts of release 2.
#[must_use]
pub fn v2_contracts() -> ServerContract {
    ServerContract::from_specs(v2_specs())
}

/// A server of release 2.
#[must_use]
pub fn v2_server() -> Server<()> {
    Server::new(())
        .tool(v2::create_user)
        .tool(v2::list_users)
        .tool(v2::delete_user)
        .tool(get_user)
}
