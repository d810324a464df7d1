//! A server is built and called in process with no transport feature at all: the core needs no
//! rmcp. CI runs this with `--no-default-features`.

use guardrails::{IssueCode, Server, ToolArgs, ToolError, tool};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Arguments of `greet`.
#[derive(Debug, Deserialize, ToolArgs)]
struct Greet {
    /// Who to greet.
    #[guard(length(min = 1, max = 20))]
    name: String,
}

/// Greets someone, except nobody.
#[tool]
fn greet(args: Greet) -> Result<String, ToolError> {
    if args.name == "nobody" {
        return Err(ToolError::not_found("Nobody is here."));
    }
    Ok(format!("Hello, {}!", args.name))
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[test]
fn a_server_calls_its_tools_without_a_transport() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let server = Server::new(()).tool(greet);
    runtime.block_on(async {
        let ok = server
            .call("greet", object(json!({"name": "Ada"})))
            .await
            .unwrap();
        assert!(!ok.is_error);
        assert_eq!(ok.text, ["Hello, Ada!"]);

        let rejected = server
            .call("greet", object(json!({"nme": "Ada"})))
            .await
            .unwrap();
        assert!(rejected.is_error);
        assert!(
            rejected.text[0].contains(r#"code="unknown_field""#),
            "{rejected:?}"
        );
        assert!(
            rejected.text[0].contains(&IssueCode::Missing.to_string()),
            "{rejected:?}"
        );

        let failed = server
            .call("greet", object(json!({"name": "nobody"})))
            .await
            .unwrap();
        assert!(failed.is_error);
        assert!(failed.text[0].starts_with(r#"<tool_error tool="greet" code="NOT_FOUND">"#));

        let unknown = server.call("wave", Map::new()).await.unwrap_err();
        assert_eq!(unknown.name, "wave");
        assert_eq!(unknown.available, ["greet"]);
    });
}
