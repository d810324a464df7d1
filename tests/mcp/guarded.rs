//! `#[guarded]` on native rmcp servers written the way rmcp's own examples write them (a
//! router in a field, the default `#[tool_handler]`, `#[tool_router(server_handler)]`, a
//! generic service, combined routers): each one serves guarded tools, its validators built once.

#![expect(
    clippy::unused_self,
    reason = "tools are methods on `&self`, as rmcp's examples write them"
)]

use std::sync::Arc;

use guardrails::mcp::{GuardError, RouterGuard, guard_router};
use guardrails_tests::client::{call, connect, text};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde_json::json;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SumRequest {
    /// The left hand side number.
    a: i32,
    b: i32,
}

/// rmcp's counter: the router in a field, `#[tool_handler(router = self.tool_router)]`.
#[derive(Clone)]
struct Counter {
    tool_router: ToolRouter<Self>,
}

#[guardrails::guarded]
#[tool_router]
impl Counter {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Counter {}

/// The default `#[tool_handler]`, which asks `Self::tool_router()` on every request.
#[derive(Clone)]
struct Plain;

#[guardrails::guarded]
#[tool_router]
impl Plain {
    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler]
impl ServerHandler for Plain {}

/// rmcp's calculator: `#[tool_router(server_handler)]`, no handler impl written.
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

/// rmcp's generic service.
trait DataService: Send + Sync + 'static {
    fn offset(&self) -> i32;
}

struct Zero;
impl DataService for Zero {
    fn offset(&self) -> i32 {
        0
    }
}

struct Hundred;
impl DataService for Hundred {
    fn offset(&self) -> i32 {
        100
    }
}

#[derive(Clone)]
struct GenericService<DS: DataService> {
    data: Arc<DS>,
}

#[guardrails::guarded]
#[tool_router]
impl<DS: DataService> GenericService<DS> {
    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b + self.data.offset()).to_string()
    }
}

#[tool_handler(instructions = "generic data service")]
impl<DS: DataService> ServerHandler for GenericService<DS> {}

/// Two routers, combined in the handler.
#[derive(Clone)]
struct Combined;

#[guardrails::guarded]
#[tool_router(router = sums)]
impl Combined {
    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

#[guardrails::guarded]
#[tool_router(router = differences)]
impl Combined {
    #[tool(description = "Calculate the difference of two numbers")]
    fn sub(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a - b).to_string()
    }
}

#[tool_handler(router = (Self::sums() + Self::differences()))]
impl ServerHandler for Combined {}

type Client = RunningService<RoleClient, ()>;

/// A call with an unknown key (which serde alone ignores) is refused and coached; a valid call
/// reaches the tool.
async fn assert_guarded(client: Client, tool: &'static str, valid_answer: &str) {
    let refused: CallToolResult = client
        .call_tool(call(tool, json!({"a": 1, "b": 2, "c": 3})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true), "{tool}: {refused:?}");
    let message = text(&refused, 0);
    assert!(
        message.contains(r#"<field name="c" code="unknown_field">"#),
        "{tool}: {message}"
    );
    let valid = client
        .call_tool(call(tool, json!({"a": 1, "b": 2})))
        .await
        .unwrap();
    assert_ne!(valid.is_error, Some(true), "{tool}: {valid:?}");
    assert_eq!(text(&valid, 0), valid_answer, "{tool}");
    // The advertised schema is the strict one.
    let tools = client.list_all_tools().await.unwrap();
    let listed = tools.iter().find(|t| t.name == tool).unwrap();
    assert_eq!(listed.input_schema["additionalProperties"], false, "{tool}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_router_in_a_field_is_guarded() {
    assert_guarded(connect(Counter::new()).await, "sum", "3").await;
}

#[tokio::test]
async fn the_default_tool_handler_is_guarded() {
    assert_guarded(connect(Plain).await, "sum", "3").await;
}

#[tokio::test]
async fn a_server_handler_written_by_tool_router_is_guarded() {
    assert_guarded(connect(Calculator).await, "sum", "3").await;
}

#[tokio::test]
async fn every_instance_of_a_generic_service_is_guarded() {
    let zero = GenericService {
        data: Arc::new(Zero),
    };
    let hundred = GenericService {
        data: Arc::new(Hundred),
    };
    assert_guarded(connect(zero).await, "sum", "3").await;
    assert_guarded(connect(hundred).await, "sum", "103").await;
}

#[tokio::test]
async fn combined_routers_are_guarded() {
    assert_guarded(connect(Combined).await, "sum", "3").await;
    assert_guarded(connect(Combined).await, "sub", "-1").await;
}

/// Whether two routers share the guarded route of `tool`: the same call, so the same compiled
/// validator.
fn same_route<S>(a: &ToolRouter<S>, b: &ToolRouter<S>, tool: &str) -> bool {
    Arc::ptr_eq(&a.map[tool].call, &b.map[tool].call)
        && Arc::ptr_eq(
            &a.map[tool].attr.input_schema,
            &b.map[tool].attr.input_schema,
        )
}

#[tokio::test]
async fn the_router_is_built_once_per_type_not_per_request() {
    let first = Plain::tool_router();
    // The default handler asks for the router on each request: serve a few.
    let client = connect(Plain).await;
    for _ in 0..3 {
        client
            .call_tool(call("sum", json!({"a": 1, "b": 2})))
            .await
            .unwrap();
    }
    client.cancel().await.unwrap();
    assert!(same_route(&first, &Plain::tool_router(), "sum"));
    // One router per instance of a generic impl, each built once.
    let zero = GenericService::<Zero>::tool_router();
    assert!(same_route(
        &zero,
        &GenericService::<Zero>::tool_router(),
        "sum"
    ));
    // Two routers of one type, each its own.
    assert!(same_route(&Combined::sums(), &Combined::sums(), "sum"));
    assert!(!Combined::sums().map.contains_key("sub"));
}

#[test]
fn guarding_a_guarded_router_again_with_the_same_settings_changes_nothing() {
    let router = guard_router(Calculator::tool_router());
    assert!(same_route(&router, &Calculator::tool_router(), "sum"));
}

#[test]
fn guarding_a_guarded_router_with_other_settings_is_refused() {
    let error = RouterGuard::new()
        .config(guardrails::GuardConfig::new().audit(true))
        .try_guard(Counter::tool_router())
        .unwrap_err();
    assert!(
        matches!(&error, GuardError::AlreadyGuarded { tool } if tool == "sum"),
        "{error}"
    );
    assert!(
        error.to_string().contains("`sum` is guarded already"),
        "{error}"
    );
    let panic = std::panic::catch_unwind(|| {
        RouterGuard::new()
            .config(guardrails::GuardConfig::new().format(guardrails::RenderFormat::Json))
            .guard(Counter::tool_router())
    });
    assert!(panic.is_err());
}

#[test]
fn the_unguarded_router_stays_rmcps() {
    let guarded = Calculator::tool_router();
    let plain = Calculator::tool_router_unguarded();
    assert!(
        plain.map["sum"]
            .attr
            .input_schema
            .get("additionalProperties")
            .is_none()
    );
    assert_eq!(
        guarded.map["sum"].attr.input_schema["additionalProperties"],
        false
    );
    // An unguarded router of the same tools is guarded as any other.
    let fresh = guard_router(plain);
    assert!(!same_route(&fresh, &guarded, "sum"));
}

/// A `#[guardrails::tool]` method beside native ones.
#[derive(serde::Deserialize, guardrails::ToolArgs)]
struct Invoice {
    /// The customer's id.
    #[guard(pattern = "^cus_[a-z0-9]{8}$")]
    customer: String,
}

#[derive(Clone)]
struct Mixed;

#[guardrails::guarded]
#[tool_router]
impl Mixed {
    #[tool(description = "Calculate the sum of two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }

    /// Creates an invoice.
    #[guardrails::tool]
    fn invoice(&self, args: Invoice) -> String {
        args.customer
    }
}

#[tool_handler]
impl ServerHandler for Mixed {}

#[tokio::test]
async fn a_guardrails_tool_beside_native_ones_keeps_its_own_coaching() {
    let guarded = Mixed::tool_router();
    let plain = Mixed::tool_router_unguarded();
    // Its route is left as it is: checked once, by its own pipeline.
    assert_eq!(
        guarded.map["invoice"].attr.input_schema,
        plain.map["invoice"].attr.input_schema
    );
    assert!(Arc::ptr_eq(
        &guarded.map["invoice"].attr.input_schema,
        &plain.map["invoice"].attr.input_schema
    ));
    let client = connect(Mixed).await;
    let result = client
        .call_tool(call("invoice", json!({"customer": "bob", "extra": 1})))
        .await
        .unwrap();
    let message = text(&result, 0);
    assert_eq!(result.is_error, Some(true));
    // The derived tool's own message, as its method answers the call without a router.
    let own = Mixed
        .invoice(guardrails_tests::testing::object(
            json!({"customer": "bob", "extra": 1}),
        ))
        .await;
    assert_eq!(message, text(&own, 0));
    assert!(message.contains("issues=\"2\""), "{message}");
    client.cancel().await.unwrap();
    assert_guarded(connect(Mixed).await, "sum", "3").await;
    // Limits on it belong on the tool.
    let error = RouterGuard::new()
        .tool(
            "invoice",
            guardrails::mcp::ResultLimits::new().max_bytes(10),
        )
        .try_guard(Mixed::tool_router_unguarded())
        .unwrap_err();
    assert!(matches!(error, GuardError::DerivedTool { .. }), "{error}");
}

/// A tool that fails in its own words, with its own `_meta`.
#[derive(Clone)]
struct Refusing;

#[guardrails::guarded]
#[tool_router]
impl Refusing {
    #[tool(description = "Refuses to sum two numbers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> CallToolResult {
        let mut result = CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
            "{a} + {b}: the abacus is broken"
        ))]);
        let mut meta = rmcp::model::MetaObject::new();
        meta.insert("example.com/ticket".to_owned(), json!(42));
        result.meta = Some(meta);
        result
    }
}

#[tool_handler]
impl ServerHandler for Refusing {}

#[tokio::test]
async fn a_tools_own_error_result_comes_back_as_the_tool_wrote_it() {
    let client = connect(Refusing).await;
    let result = client
        .call_tool(call("sum", json!({"a": 1, "b": 2})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(text(&result, 0), "1 + 2: the abacus is broken");
    assert_eq!(result.content.len(), 1);
    let meta = result.meta.as_ref().expect("the tool's own _meta");
    assert_eq!(meta.len(), 1, "{meta:?}");
    assert_eq!(meta["example.com/ticket"], json!(42));
    client.cancel().await.unwrap();
}
