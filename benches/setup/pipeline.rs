//! The pipeline benchmarks' server: the create-user example's guarded tool, the same fields as
//! a plain rmcp `#[tool]` with `Parameters<T>`, and the same fields without guards, all routes
//! of one `ToolRouter`, called in process without a transport (`ToolRouter::call` with a
//! captured request context).

use std::sync::{Arc, Mutex};

use guardrails::mcp::GuardedRoutes as _;
use guardrails::{ToolArgs, tool};
use guardrails_tests::create_user::{Role, User, create_user};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolRequestParams, CallToolResponse, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt as _, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;

// The guarded tool is the create-user example's, over the `CreateUser` fixture. The two twins
// below are the benchmarks' own baselines, declared here because nothing else needs them: the
// same fields for a plain rmcp tool, and the same fields without guards.

/// The guarded tool's route.
pub(crate) const GUARDED: &str = "create-user";
/// The plain rmcp tool's route.
pub(crate) const PLAIN: &str = "create_user_plain";
/// The route of the guarded tool's twin without guards.
pub(crate) const UNGUARDED: &str = "create_user_unguarded";

/// The same arguments for the plain rmcp tool: serde only checks types.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct CreateUserPlain {
    username: String,
    email: String,
    age: u8,
    role: Role,
    tags: Option<Vec<String>>,
}

/// The same fields without guards: what the pipeline costs on its own.
#[derive(Debug, Deserialize, ToolArgs)]
struct CreateUserUnguarded {
    /// Login name.
    username: String,
    /// Contact address.
    email: String,
    /// Age in years.
    age: u8,
    /// What the user may do.
    role: Role,
    /// Labels.
    tags: Option<Vec<String>>,
}

/// Creates a user, with type checks only.
#[tool]
fn create_user_unguarded(args: CreateUserUnguarded) -> User {
    User {
        username: args.username,
        email: args.email,
        age: args.age,
        role: args.role,
        tags: args.tags.unwrap_or_default(),
    }
}

#[derive(Clone)]
struct Bench {
    captured: Arc<Mutex<Option<RequestContext<RoleServer>>>>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
#[allow(clippy::unused_self, reason = "rmcp tools are methods")]
impl Bench {
    #[rmcp::tool(description = "Creates a user.")]
    fn create_user_plain(&self, Parameters(args): Parameters<CreateUserPlain>) -> Json<User> {
        Json(User {
            username: args.username,
            email: args.email,
            age: args.age,
            role: args.role,
            tags: args.tags.unwrap_or_default(),
        })
    }

    #[rmcp::tool(description = "Captures the request context for the benchmark.")]
    fn capture(&self, context: RequestContext<RoleServer>) -> String {
        *self.captured.lock().unwrap() = Some(context);
        String::new()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {}

/// Valid arguments of each of the three tools.
pub(crate) fn arguments() -> JsonObject {
    rmcp::model::object(json!({
        "username": "john_doe", "email": "john@example.com", "age": 42, "role": "admin", "tags": ["a", "b"]
    }))
}

/// The server, a runtime to call it on, and a real request context.
pub(crate) struct Harness {
    runtime: tokio::runtime::Runtime,
    server: Bench,
    context: RequestContext<RoleServer>,
}

impl Harness {
    /// Starts the server, captures a request context from one call over an in-process
    /// transport, and checks that each tool accepts [`arguments`].
    pub(crate) fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let server = Bench {
            captured: Arc::default(),
            tool_router: Bench::tool_router()
                .with_guarded(create_user)
                .with_guarded(create_user_unguarded),
        };
        let context = runtime.block_on(async {
            let (server_io, client_io) = tokio::io::duplex(64 * 1024);
            let background = server.clone();
            tokio::spawn(async move {
                if let Ok(running) = background.serve(server_io).await {
                    let _ = running.waiting().await;
                }
            });
            let client = ().serve(client_io).await.unwrap();
            client
                .call_tool(CallToolRequestParams::new("capture"))
                .await
                .unwrap();
            std::mem::forget(client);
            server.captured.lock().unwrap().take().unwrap()
        });
        let harness = Harness {
            runtime,
            server,
            context,
        };
        for name in [GUARDED, PLAIN, UNGUARDED] {
            match harness.call(name, arguments()) {
                CallToolResponse::Complete(result) => {
                    assert_eq!(result.is_error, Some(false), "{name}: {result:?}");
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        harness
    }

    /// Calls the tool `name` with `arguments` through the router.
    pub(crate) fn call(&self, name: &'static str, arguments: JsonObject) -> CallToolResponse {
        let params = CallToolRequestParams::new(name).with_arguments(arguments);
        self.runtime
            .block_on(self.server.tool_router.call(ToolCallContext::new(
                &self.server,
                params,
                self.context.clone(),
            )))
            .unwrap()
    }
}
