//! The `guard_router` benchmark's server: the native rmcp notes server, its router as rmcp built
//! it and the same router guarded from its JSON Schemas alone, both called in process without a
//! transport (`ToolRouter::call` with a real request context).

use guardrails::mcp::guard_router;
use guardrails::validation::SchemaArgs;
use guardrails_tests::notes_server::Notes;
use rmcp::RoleServer;
use rmcp::ServiceExt as _;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, JsonObject, NumberOrString,
};
use rmcp::service::RequestContext;
use serde_json::json;

/// A valid `create_note` call.
pub(crate) fn arguments() -> JsonObject {
    rmcp::model::object(json!({
        "title": "Buy milk", "tag": "home", "priority": "normal", "due_in_days": 3
    }))
}

/// The notes server with both routers and a request context to call them with.
pub(crate) struct Harness {
    runtime: tokio::runtime::Runtime,
    server: Notes,
    guarded: ToolRouter<Notes>,
    plain: ToolRouter<Notes>,
    context: RequestContext<RoleServer>,
    /// `create_note`'s strict schema, compiled as the guard compiles it.
    schema: SchemaArgs,
}

impl Harness {
    /// Builds both routers; panics unless both answer a valid call with the same bytes.
    pub(crate) fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        // A real request context: the peer of a server served over an in-process transport.
        let context: RequestContext<RoleServer> = runtime.block_on(async {
            let (server_io, client_io) = tokio::io::duplex(64 * 1024);
            tokio::spawn(async move {
                let client = ().serve(client_io).await;
                std::mem::forget(client);
            });
            let running = Notes::new(1).serve(server_io).await.expect("handshake");
            let peer = running.peer().clone();
            std::mem::forget(running);
            RequestContext::new(NumberOrString::Number(1), peer)
        });
        let plain = Notes::tool_router();
        let schema = plain
            .map
            .get("create_note")
            .map(|route| SchemaArgs::new(&route.attr.input_schema).expect("the schema compiles"))
            .expect("the notes server has `create_note`");
        let harness = Self {
            runtime,
            server: Notes::new(100),
            guarded: guard_router(Notes::tool_router()),
            plain,
            context,
            schema,
        };
        let (a, b) = (
            harness.call(true, arguments()),
            harness.call(false, arguments()),
        );
        assert_eq!(a.is_error, Some(false), "{a:?}");
        assert_eq!(
            serde_json::to_string(&a).expect("json"),
            serde_json::to_string(&b).expect("json")
        );
        harness
    }

    /// Calls `create_note` on rmcp's router after checking its arguments against the strict
    /// schema, as the guard does, and nothing else: the least a guard of this schema costs.
    /// Panics if the check fails (the arguments are valid).
    pub(crate) fn checked_call(&self, arguments: JsonObject) -> CallToolResult {
        let value = serde_json::Value::Object(arguments);
        assert!(self.schema.is_valid(&value), "a valid call");
        let serde_json::Value::Object(arguments) = value else {
            unreachable!("an object stays one")
        };
        self.call(false, arguments)
    }

    /// Calls `create_note` on the guarded router or on rmcp's own.
    pub(crate) fn call(&self, guarded: bool, arguments: JsonObject) -> CallToolResult {
        let router = if guarded { &self.guarded } else { &self.plain };
        let params = CallToolRequestParams::new("create_note").with_arguments(arguments);
        let response = self.runtime.block_on(router.call(ToolCallContext::new(
            &self.server,
            params,
            self.context.clone(),
        )));
        let Ok(CallToolResponse::Complete(result)) = response else {
            panic!("the call completes");
        };
        result
    }
}
