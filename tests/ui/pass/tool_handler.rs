//! A `#[tool]` handler with state and a fallible result, served and called in process.
#![deny(warnings)]

use guardrails::{Server, ToolArgs, ToolError, tool};
use serde_json::json;

/// Arguments of `greet`.
#[derive(serde::Deserialize, ToolArgs)]
struct Greet {
    /// Who to greet.
    #[guard(length(min = 1, max = 40))]
    name: String,
}

/// What the server holds.
struct AppState {
    greeting: &'static str,
}

/// Greets someone by name.
#[tool(read_only)]
fn greet(state: &AppState, args: Greet) -> Result<String, ToolError> {
    if args.name == "nobody" {
        return Err(ToolError::not_found("Nobody is here to greet."));
    }
    Ok(format!("{}, {}!", state.greeting, args.name))
}

#[test]
fn the_handler_is_served_and_guarded() {
    let server = Server::new(AppState { greeting: "Hello" }).tool(greet);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let output = runtime
        .block_on(server.call("greet", json!({"name": "Ada"})))
        .unwrap();
    assert!(!output.is_error, "{:?}", output.text);
    assert_eq!(output.text, ["Hello, Ada!"]);
    let output = runtime
        .block_on(server.call("greet", json!({"name": ""})))
        .unwrap();
    assert!(output.is_error, "{:?}", output.text);
    let output = runtime
        .block_on(server.call("greet", json!({"name": "nobody"})))
        .unwrap();
    assert!(output.is_error, "{:?}", output.text);
    assert!(output.text[0].contains("NOT_FOUND"), "{:?}", output.text);
}
