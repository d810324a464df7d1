//! Paging through the example task tracker: `total` counts every match, whatever the offset.

use guardrails::Server;
use guardrails_tests::task_tracker::{self, Tracker};
use serde_json::{Value, json};

async fn list(server: &Server<Tracker>, args: Value) -> Value {
    let Value::Object(args) = args else {
        unreachable!("arguments are an object")
    };
    let output = server.call("list_tasks", args).await.unwrap();
    assert!(!output.is_error, "{:?}", output.text);
    output.structured.expect("a structured result")
}

#[tokio::test]
async fn total_counts_every_match_not_only_those_after_the_offset() {
    let server = task_tracker::server(300);
    let first = list(&server, json!({"status": "todo"})).await;
    let total = first["total"].as_u64().unwrap();
    assert!(total > 60, "enough matches to page through: {total}");
    let second = list(&server, json!({"status": "todo", "offset": 50})).await;
    let later = list(&server, json!({"status": "todo", "offset": 60})).await;
    for page in [&second, &later] {
        assert_eq!(page["total"], total, "the same total on every page: {page}");
    }
    assert_eq!(
        later["items"][0], second["items"][10],
        "the offset still skips"
    );
    let past = list(&server, json!({"status": "todo", "offset": 1_000_000})).await;
    assert_eq!(past["total"], total);
    assert_eq!(past["shown"], 0);
}
