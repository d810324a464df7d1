//! Declared leniency on a native rmcp router: slips repaired with receipts, a client's own
//! keys dropped, both only where the guard declares them.

use guardrails::mcp::RouterGuard;
use guardrails::{IgnoreKeys, RepairPolicy};
use guardrails_tests::client::{call, connect, text};
use guardrails_tests::notes_server::Notes;
use guardrails_tests::testing::meta::REPAIRS_META_KEY;
use serde_json::json;

fn lenient() -> Notes {
    Notes::with_router(
        10,
        RouterGuard::new()
            .config(
                guardrails::GuardConfig::new()
                    .repair(RepairPolicy::On)
                    .ignore_keys(IgnoreKeys::new().prefix("_").name("trace_id")),
            )
            .guard(Notes::tool_router()),
    )
}

#[tokio::test]
async fn a_native_tool_gets_the_call_repaired_and_the_model_the_receipts() {
    let client = connect(lenient()).await;
    // An object sent as a string, holding a number sent as a string: read one level at a time.
    let result = client
        .call_tool(call(
            "list_notes",
            json!({"ids": "{\"from\": \"2\", \"to\": 3}"}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{:?}", result.content);
    let notes = &result.structured_content.as_ref().unwrap()["notes"];
    let ids: Vec<u64> = notes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [2, 3]);
    let notice = text(&result, result.content.len() - 1);
    assert!(
        notice.starts_with("<repaired tool=\"list_notes\" count=\"2\">"),
        "{notice}"
    );
    assert!(
        notice.contains("`ids.from` was the string \"2\": read as 2; send numbers unquoted."),
        "{notice}"
    );
    let receipts = &result.meta.as_ref().unwrap()[REPAIRS_META_KEY];
    assert_eq!(receipts[0]["field"], "ids");
    assert_eq!(receipts[0]["kind"], "object_in_string");
    assert_eq!(receipts[1]["field"], "ids.from");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_string_is_never_repaired_and_a_repaired_call_is_checked_like_any_other() {
    let client = connect(lenient()).await;
    // `title` is a string: a number there stays an error; `due_in_days` is repaired, and
    // then found below its minimum.
    let result = client
        .call_tool(call(
            "create_note",
            json!({"title": 25, "tag": "work", "priority": "low", "due_in_days": "0"}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let message = text(&result, 0);
    assert!(
        message.contains(r#"<field name="title" code="type">"#),
        "{message}"
    );
    assert!(
        message.contains(r#"<field name="due_in_days" code="too_small">"#),
        "{message}"
    );
    // A text that looks like a number reaches the tool as sent.
    let result = client
        .call_tool(call("echo", json!({"text": "25"})))
        .await
        .unwrap();
    assert_eq!(text(&result, 0), "25");
    assert!(result.meta.is_none());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn declared_keys_are_dropped_and_undeclared_ones_refused() {
    let client = connect(lenient()).await;
    let result = client
        .call_tool(call(
            "echo",
            json!({"text": "hi", "_client": {"v": 1}, "trace_id": "t"}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text(&result, 0), "hi");
    let result = client
        .call_tool(call(
            "echo",
            json!({"text": "hi", "_client": 1, "trace": "t"}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let message = text(&result, 0);
    assert!(
        message.contains(r#"<field name="trace" code="unknown_field">"#),
        "{message}"
    );
    assert!(!message.contains("_client"), "{message}");
    client.cancel().await.unwrap();
    // The default guard refuses both, and repairs nothing.
    let client = connect(Notes::guarded(10)).await;
    let result = client
        .call_tool(call("echo", json!({"text": "hi", "_client": 1})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let result = client
        .call_tool(call(
            "list_notes",
            json!({"ids": "{\"from\": 2, \"to\": 3}"}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn one_configuration_guards_a_native_router_and_a_server_of_derived_tools_alike() {
    use guardrails::{GuardConfig, RenderFormat};
    let config = GuardConfig::new()
        .format(RenderFormat::Markdown)
        .repair(RepairPolicy::On)
        .ignore_keys(IgnoreKeys::new().prefix("_"));

    let native = Notes::with_router(
        10,
        RouterGuard::new()
            .config(config.clone())
            .guard(Notes::tool_router()),
    );
    let client = connect(native).await;
    let result = client
        .call_tool(call(
            "list_notes",
            json!({"ids": {"from": "2", "to": 3}, "_trace": 1}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{:?}", result.content);
    let notice = text(&result, result.content.len() - 1);
    // Markdown, not XML-style tags: the configuration's format.
    assert!(!notice.starts_with('<'), "{notice}");
    assert!(
        notice.contains("`ids.from` was the string `\"2\"`"),
        "{notice}"
    );
    client.cancel().await.unwrap();

    let server = guardrails_tests::pipeline_server::server(3).config(config);
    let output = server
        .call("get_task", json!({"id": "1", "_trace": 1}))
        .await
        .unwrap();
    assert!(!output.is_error, "{:?}", output.text);
    let notice = output.text.last().unwrap();
    assert!(!notice.starts_with('<'), "{notice}");
    assert!(notice.contains("`id` was the string `\"1\"`"), "{notice}");
}
