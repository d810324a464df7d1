//! Structured results checked against the advertised output schema: a mismatch is an
//! `INTERNAL` error naming the path (in debug builds, and so here), and results cut by the
//! agent limit or the byte cap still conform.

use guardrails::{ErrorCode, Server, ToolArgs, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Deserialize, ToolArgs)]
struct NoArgs {}

/// A summary whose schema promises an integer count, but whose count is a string: the bug
/// the check exists to catch.
#[derive(Serialize, schemars::JsonSchema)]
struct Summary {
    #[schemars(with = "u32")]
    count: String,
    /// Nested, to name a deeper path.
    owner: Owner,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Owner {
    #[schemars(with = "u32")]
    id: String,
}

/// Summarizes, wrongly.
#[tool(read_only)]
fn summarize(_args: NoArgs) -> Summary {
    Summary {
        count: "12".to_owned(),
        owner: Owner { id: "7".to_owned() },
    }
}

#[derive(Clone, Serialize, schemars::JsonSchema)]
struct Item {
    id: u32,
    name: String,
}

fn items(n: u32) -> Vec<Item> {
    (0..n)
        .map(|id| Item {
            id,
            name: format!("item number {id}"),
        })
        .collect()
}

/// Lists items, at most 10 shown.
#[tool(read_only, agent_limit = 10)]
fn list_items(_args: NoArgs) -> Vec<Item> {
    items(5_000)
}

/// Lists items, within 300 bytes.
#[tool(read_only, agent_limit = 100, max_bytes = 300)]
fn list_within_bytes(_args: NoArgs) -> Vec<Item> {
    items(50)
}

/// One item.
#[tool(read_only)]
fn get_item(_args: NoArgs) -> Item {
    items(1).remove(0)
}

fn server() -> Server<()> {
    Server::new(())
        .tool(summarize)
        .tool(list_items)
        .tool(list_within_bytes)
        .tool(get_item)
}

#[tokio::test]
async fn a_result_that_breaks_its_schema_is_an_internal_error_naming_the_path() {
    let out = server()
        .config(guardrails::GuardConfig::new().format(guardrails::RenderFormat::Json))
        .call("summarize", json!({}))
        .await
        .unwrap();
    assert!(out.is_error, "{out:?}");
    assert!(out.structured.is_none());
    let error: Value = serde_json::from_str(&out.text[0]).unwrap();
    let error = &error["error"];
    assert_eq!(error["code"], ErrorCode::Internal.to_string(), "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("The result of tool summarize does not match its output schema at /"),
        "{message}"
    );
    let path = error["details"]["path"].as_str().unwrap();
    assert!(path == "/count" || path == "/owner/id", "{path}");
}

#[tokio::test]
async fn the_check_can_be_turned_off() {
    let out = server()
        .check_output_schemas(false)
        .call("summarize", json!({}))
        .await
        .unwrap();
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.structured.unwrap()["count"], "12");
}

#[tokio::test]
async fn cut_results_still_conform() {
    let server = server();
    let cases: [(&str, Option<u64>, u64); 2] = [
        ("list_items", Some(10), 5_000),
        ("list_within_bytes", None, 50),
    ];
    for (tool, shown, total) in cases {
        let out = server.call(tool, json!({})).await.unwrap();
        assert!(!out.is_error, "{tool}: {out:?}");
        let structured = out.structured.expect("an envelope");
        assert_eq!(structured["total"], total);
        let shown_now = structured["shown"].as_u64().unwrap();
        assert!(shown_now < total, "{tool} was cut");
        if let Some(shown) = shown {
            assert_eq!(shown_now, shown);
        }
        // Independently of the server's own check: the advertised schema accepts it.
        let schema = Value::Object(server.spec(tool).unwrap().output_schema().unwrap().clone());
        assert!(
            jsonschema::is_valid(&schema, &structured),
            "{tool}: {structured} breaks {schema}"
        );
        // A teaching block says what was left out.
        assert_eq!(out.text.len(), 2);
    }
    let out = server.call("get_item", json!({})).await.unwrap();
    assert!(!out.is_error);
}
