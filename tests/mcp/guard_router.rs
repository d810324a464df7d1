//! `guard_router` on a native rmcp server (`notes_server`), driven by rmcp's own client
//! in-process: strict schemas, every issue in one response, an example that validates, valid
//! calls unchanged byte for byte, limits on results, rmcp's behaviour for the rest.

use guardrails::mcp::{GuardError, ResultLimits, RouterGuard, guard_router};
use guardrails::profile::SchemaProfile;
use guardrails::{GuardConfig, RenderFormat};
use guardrails_tests::client::{call, connect, text};
use guardrails_tests::notes_server::Notes;
use guardrails_tests::testing::object;
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::{Value, json};

/// A call of `create_note` with five problems: a misspelt key, a pattern, an enum and a range
/// broken, a required field missing.
fn five_problems() -> CallToolRequestParams {
    call(
        "create_note",
        json!({"titel": "x", "tag": "Bad Tag", "priority": "urgent", "due_in_days": 0}),
    )
}

/// The text between `<tag>` and `</tag>`.
fn between<'a>(text: &'a str, tag: &str) -> &'a str {
    let open = format!("<{tag}>");
    let start = text.find(&open).expect(tag) + open.len();
    let end = text[start..].find(&format!("</{tag}>")).expect(tag);
    &text[start..start + end]
}

#[tokio::test]
async fn the_advertised_schemas_are_strict_and_inlined() {
    let client = connect(Notes::guarded(10)).await;
    let tools = client.list_all_tools().await.unwrap();
    let list = tools.iter().find(|t| t.name == "list_notes").unwrap();
    let schema = &*list.input_schema;
    assert_eq!(schema["additionalProperties"], false);
    assert!(schema.get("$defs").is_none(), "{schema:?}");
    // Advertised portable: an option is `anyOf` its type and `null`.
    let ids = &schema["properties"]["ids"]["anyOf"];
    assert_eq!(ids[1], json!({"type": "null"}), "{ids}");
    let ids = &ids[0];
    assert_eq!(ids["additionalProperties"], false, "{ids}");
    assert_eq!(ids["type"], "object");
    assert_eq!(ids["properties"]["from"]["type"], "integer");
    assert!(schema.get("$schema").is_none(), "{schema:?}");
    // Everything else of the tool's definition is as rmcp built it.
    let plain = connect(Notes::new(10)).await;
    let native = plain.list_all_tools().await.unwrap();
    let before = native.iter().find(|t| t.name == "list_notes").unwrap();
    assert_eq!(before.description, list.description);
    // The output schema in the same portable form.
    assert_eq!(
        before
            .output_schema
            .as_deref()
            .map(|s| SchemaProfile::Portable.advertise(s)),
        list.output_schema.as_deref().cloned()
    );
    assert_eq!(native.len(), tools.len());
    client.cancel().await.unwrap();
    plain.cancel().await.unwrap();
}

#[tokio::test]
async fn every_problem_comes_back_in_one_coaching_message() {
    let client = connect(Notes::guarded(10)).await;
    let result = client.call_tool(five_problems()).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let message = text(&result, 0);
    assert!(
        message.starts_with("<validation_error tool=\"create_note\" issues=\"5\">"),
        "{message}"
    );
    for expected in [
        r#"<field name="title" code="missing">"#,
        r#"<field name="tag" code="pattern">"#,
        r#"<field name="priority" code="enum">"#,
        r#"<field name="due_in_days" code="too_small">"#,
        r#"<field name="titel" code="unknown_field">"#,
        "Did you mean \"title\"?",
        "You sent: \"urgent\"",
        "Fix: one of \"low\", \"normal\", \"high\"",
        "<recovery>Fix the fields above and call the tool again.",
    ] {
        assert!(message.contains(expected), "{expected} not in {message}");
    }
    // Beside the text, the same report for clients that read data, as derived tools give it.
    let report =
        &result.meta.as_ref().expect("a _meta")[guardrails_tests::testing::meta::REPORT_META_KEY];
    let codes: Vec<&str> = report["error"]["issues"]
        .as_array()
        .expect("the report's issues")
        .iter()
        .filter_map(|issue| issue["code"].as_str())
        .collect();
    assert_eq!(codes.len(), 5, "{report}");
    assert!(codes.contains(&"unknown_field"), "{report}");
    // The example validates: sent as it is, the call succeeds.
    let example: Value =
        serde_json::from_str(&between(message, "valid_example").replace("&quot;", "\"")).unwrap();
    let retry = client
        .call_tool(CallToolRequestParams::new("create_note").with_arguments(object(example)))
        .await
        .unwrap();
    assert_ne!(retry.is_error, Some(true), "{}", text(&retry, 0));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn nested_problems_are_named_by_their_path() {
    let client = connect(Notes::guarded(10)).await;
    let result = client
        .call_tool(call("list_notes", json!({"ids": {"from": -1, "too": 3}})))
        .await
        .unwrap();
    let message = text(&result, 0);
    for expected in [
        r#"<field name="ids.from" code="too_small">"#,
        r#"<field name="ids.to" code="missing">"#,
        r#"<field name="ids.too" code="unknown_field">Not a field of `ids`."#,
        r#"The fields are: "from", "to"."#,
    ] {
        assert!(message.contains(expected), "{expected} not in {message}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn valid_calls_are_unchanged_byte_for_byte() {
    let guarded = connect(Notes::guarded(40)).await;
    let plain = connect(Notes::new(40)).await;
    for (tool, args) in [
        (
            "create_note",
            json!({"title": "Buy milk", "tag": "home", "priority": "low"}),
        ),
        (
            "list_notes",
            json!({"tag": "work", "ids": {"from": 3, "to": 30}}),
        ),
        ("list_notes", json!({})),
        ("echo", json!({"text": "<b>hello</b> \u{202e}"})),
    ] {
        let a = guarded.call_tool(call(tool, args.clone())).await.unwrap();
        let b = plain.call_tool(call(tool, args)).await.unwrap();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap(),
            "{tool}"
        );
        assert_ne!(a.is_error, Some(true));
    }
    guarded.cancel().await.unwrap();
    plain.cancel().await.unwrap();
}

#[tokio::test]
async fn an_unknown_tool_is_still_rmcps_error() {
    let guarded = connect(Notes::guarded(3)).await;
    let plain = connect(Notes::new(3)).await;
    let a = guarded
        .call_tool(call("nope", json!({})))
        .await
        .unwrap_err();
    let b = plain.call_tool(call("nope", json!({}))).await.unwrap_err();
    let (ServiceError::McpError(a), ServiceError::McpError(b)) = (a, b) else {
        panic!("JSON-RPC errors expected");
    };
    assert_eq!(a, b);
    guarded.cancel().await.unwrap();
    plain.cancel().await.unwrap();
}

#[tokio::test]
async fn limits_cut_a_list_and_teach_the_filters_from_the_schema() {
    let router = RouterGuard::new()
        .tool("list_notes", ResultLimits::new().agent_limit(5))
        .tool("echo", ResultLimits::new().max_bytes(8))
        .guard(Notes::tool_router());
    let client = connect(Notes::with_router(40, router)).await;
    let result = client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    let structured = result.structured_content.as_ref().unwrap();
    assert_eq!(structured["notes"].as_array().unwrap().len(), 5);
    assert_eq!(
        serde_json::from_str::<Value>(text(&result, 0)).unwrap(),
        *structured
    );
    let teaching = text(&result, 1);
    assert!(
        teaching.starts_with(r#"<truncated tool="list_notes" shown="5" total="40">"#),
        "{teaching}"
    );
    assert!(
        teaching
            .contains(r#"<filter name="priority">one of "low", "normal", "high", null</filter>"#),
        "{teaching}"
    );
    assert!(teaching.contains(r#"<filter name="tag">"#), "{teaching}");
    // Under the limit, nothing changes.
    let few = client
        .call_tool(call("list_notes", json!({"ids": {"from": 1, "to": 3}})))
        .await
        .unwrap();
    assert_eq!(few.content.len(), 1);
    assert_eq!(
        few.structured_content.unwrap()["notes"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let long = client
        .call_tool(call("echo", json!({"text": "abcdefghijklmnop"})))
        .await
        .unwrap();
    assert_eq!(text(&long, 0), "abcdefgh");
    assert!(
        text(&long, 1).contains(r#"bytes_shown="8" bytes_total="16""#),
        "{}",
        text(&long, 1)
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_token_budget_cuts_a_list_at_an_item_and_a_text_at_a_character() {
    use guardrails::present::estimate_tokens;
    let router = RouterGuard::new()
        .tool("list_notes", ResultLimits::new().max_tokens(200))
        .tool("echo", ResultLimits::new().max_tokens(3))
        .guard(Notes::tool_router());
    let client = connect(Notes::with_router(40, router)).await;
    let result = client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    let structured = result.structured_content.as_ref().unwrap();
    let shown = structured["notes"].as_array().unwrap().len();
    assert!((1..40).contains(&shown), "{shown}");
    // The items kept fit the budget; one more would not have.
    let items = &structured["notes"];
    assert!(estimate_tokens(&items.to_string()) <= 200, "{items}");
    let teaching = text(&result, 1);
    assert!(
        teaching.contains(&format!(
            "Only {shown} of 40 items fit within this tool's token budget."
        )),
        "{teaching}"
    );

    let long = client
        .call_tool(call("echo", json!({"text": "检查发票检查发票"})))
        .await
        .unwrap();
    assert_eq!(text(&long, 0), "检");
    assert!(
        text(&long, 1).contains(r#"bytes_shown="3" bytes_total="24""#),
        "{}",
        text(&long, 1)
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_servers_format_is_used() {
    let router = RouterGuard::new()
        .config(GuardConfig::new().format(RenderFormat::Json))
        .guard(Notes::tool_router());
    let client = connect(Notes::with_router(3, router)).await;
    let result = client
        .call_tool(call("echo", json!({"txt": "x"})))
        .await
        .unwrap();
    let error: Value = serde_json::from_str(text(&result, 0)).unwrap();
    assert_eq!(error["error"]["type"], "validation");
    let fields: Vec<&str> = error["error"]["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["text", "txt"]);
    assert_eq!(error["error"]["validExample"], json!({"text": "example"}));
    client.cancel().await.unwrap();
}

#[test]
fn limits_for_a_tool_the_router_does_not_have_are_an_error() {
    let error = RouterGuard::new()
        .tool("list_note", ResultLimits::new().agent_limit(5))
        .try_guard(Notes::tool_router())
        .unwrap_err();
    assert!(matches!(error, GuardError::UnknownTool { .. }));
    assert!(error.to_string().contains("`list_note`"), "{error}");
    let _ = guard_router(Notes::tool_router());
}

#[tokio::test]
async fn the_readme_shows_what_the_model_reads() {
    let client = connect(Notes::guarded(10)).await;
    let result = client.call_tool(five_problems()).await.unwrap();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("<validation_error tool=\"create_note\"")
        .expect("the README's message");
    let end =
        start + readme[start..].find("</validation_error>").unwrap() + "</validation_error>".len();
    assert_eq!(text(&result, 0), &readme[start..end]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_rejection_of_a_changed_tool_names_the_change_that_explains_it() {
    use guardrails::contract::{Contract, KnownGood, ServerContract};
    // The contracts clients were calibrated on: `echo` then took `txt`, now `text`.
    let mut known: ServerContract = Notes::tool_router()
        .list_all()
        .iter()
        .map(Contract::from_definition)
        .collect();
    let echo = guardrails_tests::testing::edited(&known.tools()["echo"], |echo| {
        let args = echo["args"].as_object_mut().unwrap();
        let field = args.remove("text").unwrap();
        args.insert("txt".to_owned(), field);
    });
    known.insert(echo);
    let router = RouterGuard::new()
        .config(GuardConfig::new().known_good(KnownGood::from(known)))
        .guard(Notes::tool_router());
    let client = connect(Notes::with_router(3, router)).await;
    let result = client
        .call_tool(call("echo", json!({"txt": "x"})))
        .await
        .unwrap();
    let message = text(&result, 0);
    assert!(message.contains("<contract_awareness>"), "{message}");
    assert!(message.contains("echo.args.txt"), "{message}");
    // A tool that did not change is rejected as before.
    let unchanged = client
        .call_tool(call("create_note", json!({"titel": "x"})))
        .await
        .unwrap();
    assert!(!text(&unchanged, 0).contains("<contract_awareness>"));
    client.cancel().await.unwrap();
}
