//! The task tracker run as two nodes behind a load balancer: each keeps its own tasks, under
//! ids that carry its number, so a call naming the other node's task is refused with
//! `NOT_FOUND` and the node that keeps it, and never changes a task of this node.

use guardrails_tests::task_tracker::{self, NODE_ID_SPAN};
use serde_json::json;

#[tokio::test]
async fn an_update_of_another_node_s_task_is_refused_and_changes_nothing() {
    let one = task_tracker::server_of_node(1, 20);
    let two = task_tracker::server_of_node(2, 20);

    let created = one
        .call(
            "create_task",
            json!({"title": "Rotate the keys", "assignee": "ada", "due": "2026-12-01"}),
        )
        .await
        .unwrap();
    assert!(!created.is_error, "{:?}", created.text);
    let id = created.structured.as_ref().unwrap()["id"].as_u64().unwrap();
    assert_eq!(id, NODE_ID_SPAN + 21, "node 1's ids carry its number");
    let before: Vec<_> = (1..=21)
        .filter_map(|k| two.state().get(2 * NODE_ID_SPAN + k))
        .collect();

    let update = json!({"id": id, "title": "Changed on the wrong node", "status": "done"});
    let refused = two.call("update_task", update).await.unwrap();
    assert!(refused.is_error);
    let text = &refused.text[0];
    assert!(text.contains(r#"code="NOT_FOUND""#), "{text}");
    assert!(
        text.contains(&format!(
            "Task {id} is kept by node 1, and this server is node 2"
        )),
        "{text}"
    );
    let after: Vec<_> = (1..=21)
        .filter_map(|k| two.state().get(2 * NODE_ID_SPAN + k))
        .collect();
    assert_eq!(before, after, "no task of node 2 changed");
    for tool in ["delete_task", "schedule_task"] {
        let args = json!({"id": id, "requested_by": "ada",
                          "recurrence": {"kind": "monthly", "day": 1}});
        let mut args = args.as_object().unwrap().clone();
        if tool == "delete_task" {
            args.remove("recurrence");
        }
        let refused = two
            .call(tool, serde_json::Value::Object(args))
            .await
            .unwrap();
        assert!(refused.text[0].contains("is kept by node 1"), "{tool}");
    }

    // On its own node, the task is updated.
    let updated = one
        .call("update_task", json!({"id": id, "status": "done"}))
        .await
        .unwrap();
    assert!(!updated.is_error, "{:?}", updated.text);
    assert_eq!(updated.structured.unwrap()["status"], "done");
}

#[tokio::test]
async fn a_single_node_numbers_its_tasks_from_one_and_says_plain_not_found() {
    let only = task_tracker::server(5);
    assert!(only.state().get(1).is_some());
    let missing = only
        .call("update_task", json!({"id": 77, "status": "done"}))
        .await
        .unwrap();
    assert!(
        missing.text[0].contains("Task 77 does not exist."),
        "{}",
        missing.text[0]
    );
}
