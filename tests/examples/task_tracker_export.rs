//! The task tracker's `export_tasks`: a filter sent beside `filter` is pointed to its place,
//! and the access token is never echoed, in what the model reads or in the report beside it.

use guardrails_tests::task_tracker;
use serde_json::json;

const SHORT_TOKEN: &str = "sk-live-4f9a";

#[tokio::test]
async fn a_misplaced_filter_is_pointed_to_its_place_and_the_token_is_withheld() {
    let server = task_tracker::server(100);
    let out = server
        .call(
            "export_tasks",
            json!({"assignee": "ada", "destination": {"url": "https://example.com/hook", "token": SHORT_TOKEN}}),
        )
        .await
        .unwrap();
    assert!(out.is_error);
    let text = &out.text[0];
    assert!(
        text.contains("`assignee` is a field of `filter`: move it there."),
        "{text}"
    );
    assert!(
        text.contains("(withheld: a string of 12 characters)"),
        "{text}"
    );
    assert!(!text.contains("4f9a"), "{text}");
    assert!(!out.report.unwrap().to_string().contains("4f9a"));
    insta::assert_snapshot!("export_tasks_misplaced_filter", text);

    // The schema marks the token, and the example shows a placeholder.
    let spec = server.spec("export_tasks").unwrap();
    let schema = serde_json::to_value(spec.input_schema()).unwrap();
    let token = &schema["properties"]["destination"]["properties"]["token"];
    assert_eq!(token["writeOnly"], true);
    assert_eq!(spec.example()["destination"]["token"], "*".repeat(24));

    let fixed = server
        .call(
            "export_tasks",
            json!({"filter": {"assignee": "ada"},
                   "destination": {"url": "https://example.com/hook", "token": "sk-live-4f9a2c7d1e8b6a3f5c0d"}}),
        )
        .await
        .unwrap();
    assert!(!fixed.is_error, "{:?}", fixed.text);
}
