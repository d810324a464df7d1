//! The documented `acknowledges_policy` field builds clean under `deny(warnings)`: the handler
//! never reads it (the validator does, on the wire), and no `dead_code` warning says otherwise.

#![deny(warnings)]

use guardrails::{Server, ToolArgs, tool};

/// Arguments of `publish`.
#[derive(serde::Deserialize, ToolArgs)]
struct Publish {
    /// The text to publish, held to the base policy.
    #[guard(policy = "base")]
    text: String,
    /// Set to true to acknowledge the policy's warnings and publish anyway.
    #[serde(default)]
    #[guard(acknowledges_policy)]
    acknowledge_warnings: bool,
}

/// Publishes a text.
#[tool]
fn publish(args: Publish) -> String {
    args.text
}

#[tokio::test]
async fn an_acknowledgement_the_handler_never_reads_is_not_dead_code() {
    let server = Server::new(()).tool(publish);
    let output = server
        .call("publish", serde_json::json!({"text": "Ship it on Monday."}))
        .await
        .unwrap();
    assert!(!output.is_error, "{:?}", output.text);
}
