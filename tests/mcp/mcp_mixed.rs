//! Guarded tools mixed into an rmcp server exactly as its docs show: `#[guardrails::tool]`
//! methods inside rmcp's `#[tool_router]` impl, next to native `#[rmcp::tool]` methods, served
//! with rmcp's default `#[tool_handler]` and driven by rmcp's own client in process.

use std::sync::atomic::{AtomicU64, Ordering};

use guardrails::{ToolArgs, ToolError};
use guardrails_tests::client::{call, connect, text};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// An rmcp server of the usual shape, with no field for a router.
#[derive(Default)]
struct Billing {
    invoices: AtomicU64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// Arguments of `create_invoice`.
#[derive(Deserialize, ToolArgs)]
struct CreateInvoice {
    /// The customer's id.
    #[guard(pattern = "^cus_[a-z0-9]{8}$")]
    customer: String,
    /// Amount in cents.
    #[guard(range(min = 1, max = 1_000_000))]
    amount_cents: u64,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Invoice {
    number: u64,
    customer: String,
    amount_cents: u64,
}

/// Arguments of `void_invoice`.
#[derive(Deserialize, ToolArgs)]
struct VoidInvoice {
    /// The invoice's number.
    number: u64,
}

/// Arguments of `list_invoices`.
#[derive(Deserialize, ToolArgs)]
struct ListInvoices {
    /// Only invoices numbered at least this.
    from: Option<u64>,
}

#[tool_router]
impl Billing {
    #[rmcp::tool(description = "Adds two integers")]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    /// Creates an invoice.
    #[guardrails::tool(idempotent)]
    fn create_invoice(&self, args: CreateInvoice) -> Invoice {
        let number = self.invoices.fetch_add(1, Ordering::SeqCst) + 1;
        Invoice {
            number,
            customer: args.customer,
            amount_cents: args.amount_cents,
        }
    }

    /// Voids an invoice.
    #[guardrails::tool(destructive)]
    async fn void_invoice(&self, args: VoidInvoice) -> Result<String, ToolError> {
        tokio::task::yield_now().await;
        if args.number > self.invoices.load(Ordering::SeqCst) {
            return Err(ToolError::not_found(format!("No invoice {}.", args.number))
                .recovery("Create the invoice first."));
        }
        Ok(format!("voided {}", args.number))
    }

    /// Lists invoice numbers, a page at a time.
    #[guardrails::tool(read_only, agent_limit = 2, paged)]
    fn list_invoices(&self, args: ListInvoices) -> Vec<u64> {
        (args.from.unwrap_or(1)..=self.invoices.load(Ordering::SeqCst)).collect()
    }
}

#[tool_handler]
impl ServerHandler for Billing {}

#[tokio::test]
async fn rmcps_default_handler_lists_and_calls_guarded_and_native_tools() {
    let client = connect(Billing::default()).await;

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["add", "create_invoice", "list_invoices", "void_invoice"]
    );
    let create = tools.iter().find(|t| t.name == "create_invoice").unwrap();
    assert_eq!(create.description.as_deref(), Some("Creates an invoice."));
    assert_eq!(create.input_schema["additionalProperties"], false);
    assert_eq!(
        create.input_schema["properties"]["customer"]["pattern"],
        "^cus_[a-z0-9]{8}$"
    );
    assert_eq!(
        create.output_schema.as_ref().unwrap()["properties"]["number"]["type"],
        "integer"
    );
    assert_eq!(
        create.annotations.as_ref().unwrap().idempotent_hint,
        Some(true)
    );
    let void = tools.iter().find(|t| t.name == "void_invoice").unwrap();
    assert_eq!(
        void.annotations.as_ref().unwrap().destructive_hint,
        Some(true)
    );

    let r = client
        .call_tool(call("add", json!({"a": 2, "b": 40})))
        .await
        .unwrap();
    assert_eq!(text(&r, 0), "42");

    let r = client
        .call_tool(call(
            "create_invoice",
            json!({"customer": "cus_1a2b3c4d", "amount_cents": 1200}),
        ))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    assert_eq!(
        r.structured_content.unwrap(),
        json!({"number": 1, "customer": "cus_1a2b3c4d", "amount_cents": 1200})
    );

    let r = client
        .call_tool(call(
            "create_invoice",
            json!({"customer": "bob", "amount_cents": 0, "amount": 1}),
        ))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let message = text(&r, 0);
    assert!(
        message.starts_with(r#"<validation_error tool="create_invoice" issues="3">"#),
        "{message}"
    );
    assert!(message.contains(r#"code="unknown_field""#), "{message}");
    let r = client
        .call_tool(call(
            "create_invoice",
            json!({"customer": "cus_1a2b3c4d", "amount_cents": 5}),
        ))
        .await
        .unwrap();
    assert_eq!(
        r.structured_content.unwrap()["number"],
        2,
        "the handler never ran on the invalid arguments"
    );

    let r = client
        .call_tool(call("void_invoice", json!({"number": 7})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r, 0).contains(r#"code="NOT_FOUND""#),
        "{}",
        text(&r, 0)
    );
    let r = client
        .call_tool(call("void_invoice", json!({"number": 1})))
        .await
        .unwrap();
    assert_eq!(text(&r, 0), "voided 1");

    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_handler_as_written_stays_callable() {
    let billing = Billing::default();
    let invoice = billing.create_invoice_handler(CreateInvoice {
        customer: "cus_00000000".into(),
        amount_cents: 1,
    });
    assert_eq!(invoice.number, 1);
    assert_eq!(Billing::create_invoice_tool_spec().name(), "create_invoice");
}

#[tokio::test]
async fn a_paged_method_tool_walks_every_page_through_its_cursor() {
    let billing = Billing::default();
    billing.invoices.store(5, Ordering::SeqCst);
    let client = connect(billing).await;
    let tools = client.list_all_tools().await.unwrap();
    let list = tools.iter().find(|t| t.name == "list_invoices").unwrap();
    assert!(
        list.input_schema["properties"].get("cursor").is_some(),
        "the cursor is advertised: {:?}",
        list.input_schema
    );

    let mut seen = Vec::new();
    let mut args = json!({"from": 2});
    loop {
        let page = client
            .call_tool(call("list_invoices", args.clone()))
            .await
            .unwrap();
        assert_eq!(page.is_error, Some(false), "{}", text(&page, 0));
        let page = page.structured_content.unwrap();
        assert_eq!(page["total"], 4);
        seen.extend(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap()),
        );
        match page.get("next_cursor") {
            Some(cursor) => args["cursor"] = cursor.clone(),
            None => break,
        }
    }
    assert_eq!(seen, [2, 3, 4, 5]);

    // A cursor from other filters is refused.
    let first = client
        .call_tool(call("list_invoices", json!({})))
        .await
        .unwrap();
    let cursor = first.structured_content.unwrap()["next_cursor"].clone();
    let r = client
        .call_tool(call("list_invoices", json!({"from": 3, "cursor": cursor})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true), "{}", text(&r, 0));
    client.cancel().await.unwrap();
}
