//! Two releases of a small user service: `v1` is what clients were calibrated on, `v2` changed
//! `create_user` (a required `currency`, a shorter `name`, an `idempotent` flip, a lower agent
//! limit on `list_users`) and added `delete_user`. `get_user` is the same in both.
#![allow(dead_code, reason = "each test file uses part of the fixture")]
#![allow(
    unused_qualifications,
    reason = "this base of #[tool] spans generated paths at the user's tokens; fixed on the tool branch"
)]

use guardrails::contract::ServerContract;
use guardrails::{Server, ToolArgs, ToolEnum, ToolError, ToolSpec, tool};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToolEnum, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    Admin,
    User,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct User {
    pub(crate) id: u32,
    pub(crate) name: String,
}

/// Arguments naming one user.
#[derive(Debug, Deserialize, ToolArgs)]
pub(crate) struct UserId {
    /// The user's id.
    pub(crate) id: u32,
}

/// Fetches one user.
#[tool(read_only)]
pub(crate) fn get_user(args: UserId) -> Result<User, ToolError> {
    Err(ToolError::not_found(format!(
        "User {} does not exist.",
        args.id
    )))
}

pub(crate) mod v1 {
    use super::{Deserialize, Role, ToolArgs, User, tool};

    /// Arguments of `create_user`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(crate) struct CreateUser {
        /// Display name.
        #[guard(length(min = 3, max = 40))]
        pub(crate) name: String,
        /// Contact address.
        #[guard(format = "email")]
        pub(crate) email: String,
        /// Access level.
        pub(crate) role: Option<Role>,
    }

    /// Creates a user.
    #[tool(idempotent)]
    pub(crate) fn create_user(args: CreateUser) -> User {
        User {
            id: 1,
            name: args.name,
        }
    }

    /// Arguments of `list_users`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(crate) struct ListUsers {
        /// Only users with this role.
        pub(crate) role: Option<Role>,
    }

    /// Lists users.
    #[tool(read_only, agent_limit = 50)]
    pub(crate) fn list_users(args: ListUsers) -> Vec<User> {
        let _ = args.role;
        Vec::new()
    }
}

pub(crate) mod v2 {
    use super::{Deserialize, Role, ToolArgs, User, tool};

    /// Arguments of `create_user`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(crate) struct CreateUser {
        /// Display name.
        #[guard(length(min = 3, max = 20))]
        pub(crate) name: String,
        /// Contact address.
        #[guard(format = "email")]
        pub(crate) email: String,
        /// Access level.
        pub(crate) role: Option<Role>,
        /// Billing currency, ISO 4217.
        #[guard(pattern = "^[A-Z]{3}$")]
        pub(crate) currency: String,
        /// Free-form notes.
        pub(crate) notes: Option<String>,
    }

    /// Creates a user <with> billing & "currency".
    #[tool]
    pub(crate) fn create_user(args: CreateUser) -> User {
        User {
            id: 1,
            name: args.name,
        }
    }

    /// Arguments of `list_users`.
    #[derive(Debug, Deserialize, ToolArgs)]
    pub(crate) struct ListUsers {
        /// Only users with this role.
        pub(crate) role: Option<Role>,
    }

    /// Lists users.
    #[tool(read_only, agent_limit = 20)]
    pub(crate) fn list_users(args: ListUsers) -> Vec<User> {
        let _ = args.role;
        Vec::new()
    }

    /// Deletes a user.
    #[tool(destructive)]
    pub(crate) fn delete_user(args: super::UserId) -> bool {
        args.id > 0
    }
}

pub(crate) fn v1_specs() -> Vec<&'static ToolSpec> {
    vec![
        v1::create_user.spec(),
        v1::list_users.spec(),
        get_user.spec(),
    ]
}

pub(crate) fn v2_specs() -> Vec<&'static ToolSpec> {
    vec![
        v2::create_user.spec(),
        v2::list_users.spec(),
        v2::delete_user.spec(),
        get_user.spec(),
    ]
}

pub(crate) fn v1_contracts() -> ServerContract {
    ServerContract::from_specs(v1_specs())
}

pub(crate) fn v2_contracts() -> ServerContract {
    ServerContract::from_specs(v2_specs())
}

pub(crate) fn v2_server() -> Server<()> {
    Server::new(())
        .tool(v2::create_user)
        .tool(v2::list_users)
        .tool(v2::delete_user)
        .tool(get_user)
}
