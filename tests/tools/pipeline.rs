//! The call pipeline in-process, without a transport: validate → handler → present.

use guardrails::RenderFormat;
use guardrails_tests::pipeline_server::{self, server};
use guardrails_tests::testing::object;
use serde_json::{Value, json};

#[tokio::test]
async fn a_valid_call_reaches_the_handler_once() {
    let s = server(10);
    let out = s
        .call(
            "create_task",
            object(json!({"title": "Write docs", "assignee": "ada"})),
        )
        .await
        .unwrap();
    assert!(!out.is_error);
    assert_eq!(s.state().calls(), 1);
    let structured = out.structured.expect("an object result is structured");
    assert_eq!(structured["title"], "Write docs");
    assert_eq!(out.text[0], structured.to_string());
}

#[tokio::test]
async fn invalid_calls_never_reach_the_handler() {
    let s = server(10);
    for args in [
        json!({"title": "x", "assignee": "ada"}),
        json!({"title": "Write docs"}),
        json!({"title": "Write docs", "assignee": "Ada!"}),
        json!({"title": "Write docs", "assignee": "ada", "priority": "high"}),
        json!({"title": 42, "assignee": ["ada"]}),
    ] {
        let out = s.call("create_task", object(args.clone())).await.unwrap();
        assert!(out.is_error, "{args} must be rejected");
        assert!(
            out.text[0].starts_with("<validation_error tool=\"create_task\""),
            "{}",
            out.text[0]
        );
        assert!(out.structured.is_none());
    }
    assert_eq!(
        s.state().calls(),
        0,
        "no invalid call may reach the handler"
    );
}

#[tokio::test]
async fn every_issue_is_reported_in_one_response() {
    let s = server(10);
    let out = s
        .call(
            "create_task",
            object(json!({"title": 42, "assignee": ["ada"], "priorty": 1})),
        )
        .await
        .unwrap();
    let text = &out.text[0];
    for needle in [
        "name=\"title\" code=\"type\"",
        "name=\"assignee\" code=\"type\"",
        "name=\"priorty\" code=\"unknown_field\"",
        "<valid_example>",
    ] {
        assert!(text.contains(needle), "missing {needle} in {text}");
    }
}

#[tokio::test]
async fn tool_errors_are_rendered_with_recovery() {
    let s = server(10);
    let out = s
        .call("get_task", object(json!({"id": 4242})))
        .await
        .unwrap();
    assert!(out.is_error);
    insta::assert_snapshot!(out.text[0], @r#"
    <tool_error tool="get_task" code="NOT_FOUND">
    <message>Task 4242 does not exist.</message>
    <recovery>Call list_tasks to find the id of the task.</recovery>
    <available_actions>list_tasks</available_actions>
    <details>
    <detail key="id">4242</detail>
    </details>
    </tool_error>
    "#);
}

#[tokio::test]
async fn a_panic_is_an_internal_error_that_leaks_nothing_and_the_next_call_works() {
    let s = server(10);
    let out = s.call("fragile", object(json!({"id": 3}))).await.unwrap();
    assert!(out.is_error);
    assert!(out.text[0].contains("code=\"INTERNAL\""), "{}", out.text[0]);
    assert!(!out.text[0].contains("hunter2"), "the panic message leaked");
    let out = s.call("fragile", object(json!({"id": 4}))).await.unwrap();
    assert!(!out.is_error);
    assert_eq!(out.text, ["4"]);
    assert_eq!(s.state().calls(), 2);
}

#[tokio::test]
async fn the_agent_limit_shows_n_of_total_and_teaches_the_real_filters() {
    let s = server(100);
    let out = s.call("list_tasks", object(json!({}))).await.unwrap();
    assert!(!out.is_error);
    let structured = out.structured.as_ref().unwrap();
    assert_eq!(structured["shown"], 5);
    assert_eq!(structured["total"], 100);
    assert_eq!(structured["items"].as_array().unwrap().len(), 5);
    insta::assert_snapshot!(out.text[1], @r#"
    <truncated tool="list_tasks" shown="5" total="100">
    <reason>This tool returns at most 5 items per call, so 5 of 100 are shown.</reason>
    <filters>
    <filter name="status">one of "todo", "in_progress", "done"</filter>
    <filter name="assignee">a string matching ^[a-z]+$</filter>
    </filters>
    <recovery>Call list_tasks again with one or more of these filters to narrow the results, instead of repeating the same call, or use offset to see the next items.</recovery>
    </truncated>
    "#);
    // Every filter named in the block is a real, optional, non-paging field of the tool.
    let schema =
        serde_json::to_value(<pipeline_server::TaskFilter as guardrails::ToolArgs>::schema())
            .unwrap();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    let named: Vec<&str> = out.text[1]
        .split(r#"<filter name=""#)
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert_eq!(named, ["status", "assignee"]);
    for name in named {
        assert!(schema["properties"].get(name).is_some(), "{name}");
        assert!(!required.contains(&json!(name)), "{name}");
    }

    // A filtered call that fits the limit has no teaching block.
    let out = s
        .call(
            "list_tasks",
            object(json!({"status": "done", "assignee": "ada"})),
        )
        .await
        .unwrap();
    assert_eq!(out.text.len(), 1, "{:?}", out.text);
    assert_eq!(out.structured.unwrap()["total"], 0);
}

#[tokio::test]
async fn hints_and_teach_functions_replace_the_generated_advice() {
    let s = server(100);
    let out = s
        .call("browse_tasks", object(json!({"status": "todo"})))
        .await
        .unwrap();
    let structured = out.structured.as_ref().unwrap();
    assert_eq!(
        (structured["shown"].as_u64(), structured["total"].as_u64()),
        (Some(3), Some(34))
    );
    assert!(
        out.text[1].contains("<recovery>Ask the user which tasks matter most.</recovery>"),
        "{}",
        out.text[1]
    );
    assert!(!out.text[1].contains("<filters>"));

    let out = s.call("task_titles", object(json!({}))).await.unwrap();
    assert_eq!(out.text[1], "2 of 100 shown. Filter by: status, assignee.");
}

#[tokio::test]
async fn the_byte_cap_keeps_content_valid() {
    let s = server(100);
    // Text is cut at a character boundary, with a notice.
    let out = s
        .call("long_text", object(json!({"id": 1000})))
        .await
        .unwrap();
    assert!(!out.is_error);
    assert!(out.text[0].len() <= 300);
    assert!(out.text[0].chars().all(|c| c == 'é'));
    assert!(
        out.text[1].contains("bytes_shown=\"300\" bytes_total=\"2000\""),
        "{}",
        out.text[1]
    );

    // An object cannot be cut: it becomes an error that says how to ask for less.
    let out = s
        .call("big_object", object(json!({"id": 1000})))
        .await
        .unwrap();
    assert!(out.is_error);
    assert!(
        out.text[0].contains("code=\"RESULT_TOO_LARGE\""),
        "{}",
        out.text[0]
    );
    let out = s
        .call("big_object", object(json!({"id": 10})))
        .await
        .unwrap();
    assert!(!out.is_error);

    // A collection keeps the items that fit, and the JSON stays valid.
    let out = s.call("all_tasks", object(json!({}))).await.unwrap();
    assert!(out.text[0].len() <= 600, "{}", out.text[0].len());
    let parsed: Value = serde_json::from_str(&out.text[0]).unwrap();
    let shown = parsed["shown"].as_u64().unwrap();
    assert!(shown > 0 && shown < 50, "{shown}");
    assert_eq!(parsed["items"].as_array().unwrap().len() as u64, shown);
    assert_eq!(parsed["total"], 100);
    assert!(
        out.text[1].contains("fit within this tool's size cap"),
        "{}",
        out.text[1]
    );
}

#[tokio::test]
async fn an_output_check_can_block_a_result() {
    let s = server(1);
    let out = s
        .call("echo", object(json!({"text": "hello"})))
        .await
        .unwrap();
    assert_eq!(out.text, ["hello"]);
    let out = s
        .call("echo", object(json!({"text": "my secret"})))
        .await
        .unwrap();
    assert!(out.is_error);
    assert!(out.text[0].contains("POLICY_VIOLATION"));
    assert!(!out.text[0].contains("my secret"));
}

#[tokio::test]
async fn an_output_check_can_advise() {
    let s = server(1);
    let out = s
        .call("whisper", object(json!({"text": "LOUD"})))
        .await
        .unwrap();
    assert!(!out.is_error);
    assert_eq!(out.text, ["LOUD", "Write the reply in lowercase."]);
    let out = s
        .call("whisper", object(json!({"text": "quiet"})))
        .await
        .unwrap();
    assert_eq!(out.text, ["quiet"]);
}

#[tokio::test]
async fn the_render_format_is_chosen_on_the_server() {
    let s = server(100).config(guardrails::GuardConfig::new().format(RenderFormat::Json));
    let out = s
        .call("get_task", object(json!({"id": 4242})))
        .await
        .unwrap();
    let parsed: Value = serde_json::from_str(&out.text[0]).unwrap();
    assert_eq!(parsed["error"]["code"], "NOT_FOUND");
    let out = s.call("list_tasks", object(json!({}))).await.unwrap();
    let teaching: Value = serde_json::from_str(&out.text[1]).unwrap();
    assert_eq!(teaching["truncated"]["filters"][0]["name"], "status");
}

#[tokio::test]
async fn handlers_stay_callable_directly() {
    let state = pipeline_server::AppState::seeded(3);
    let task =
        pipeline_server::get_task::handler(&state, pipeline_server::TaskId { id: 1 }).unwrap();
    assert_eq!(task.id, 1);
    assert_eq!(pipeline_server::list_tasks.spec().name(), "list_tasks");
    let contract = guardrails_tests::testing::entry(&pipeline_server::list_tasks.spec().contract());
    assert_eq!(contract["agent_limit"], 5);
}

#[tokio::test]
async fn an_unknown_tool_is_an_invalid_params_error() {
    let s = server(1);
    let err = s.call("nope", object(json!({}))).await.unwrap_err();
    assert_eq!(err.name, "nope");
    // The rmcp adapter answers it as a JSON-RPC invalid-params error.
    let err = rmcp::ErrorData::from(err);
    assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert!(err.message.contains("nope"));
}
