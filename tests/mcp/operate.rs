//! Operating guarded tools: the span of every call with the OpenTelemetry MCP attributes, the
//! classification of failures with a correlation id in `_meta`, the loop breaker (on a paused
//! clock) and repairs counted per caller.

use std::time::Duration;

use guardrails::operate::LoopBreaker;
use guardrails::{GuardConfig, Server, ToolArgs, ToolError, tool};
use guardrails_tests::client::{call, connect, text};
use guardrails_tests::notes_server::Notes;
use guardrails_tests::telemetry::Captured;
use guardrails_tests::telemetry::names::{
    DURATION, LOOPS, REPAIR_RETRIES, REPAIRS, TOOL_ERROR_TARGET, TOOL_ERRORS,
};
use guardrails_tests::testing::meta::{FAILURE_META_KEY, REPORT_META_KEY};
use serde::Deserialize;
use serde_json::{Value, json};

/// Arguments of the tools below.
#[derive(Debug, Deserialize, ToolArgs)]
struct Reserve {
    /// The room.
    #[guard(length(min = 2, max = 20))]
    room: String,
    /// How many seats.
    #[guard(range(min = 1, max = 10))]
    seats: u8,
}

/// Reserves seats; the booking system is down.
#[tool]
fn reserve(args: Reserve) -> Result<String, ToolError> {
    let _ = (args.room, args.seats);
    Err(ToolError::unavailable("The booking system is down.").retry_after(Duration::from_secs(30)))
}

/// Looks the seats up; the booking system is down.
#[tool(read_only)]
fn lookup(args: Reserve) -> Result<String, ToolError> {
    let _ = (args.room, args.seats);
    Err(ToolError::unavailable("The booking system is down.").retry_after(Duration::from_secs(30)))
}

/// Checks a room.
#[tool]
fn check_room(args: Reserve) -> String {
    format!("{} has {} seats", args.room, args.seats)
}

fn failure(out: &guardrails::CallOutput) -> &Value {
    out.failure.as_ref().expect("a failed call is classified")
}

fn booking() -> Server<()> {
    Server::new(()).tool(reserve).tool(lookup).tool(check_room)
}

#[tokio::test]
async fn every_call_is_a_span_with_the_mcp_attributes_and_its_correlation_id() {
    let captured = Captured::default();
    let installed = captured.install();
    let server = booking();
    let ok = server
        .call("check_room", json!({"room": "B2", "seats": 3}))
        .await
        .unwrap();
    assert!(!ok.is_error);
    assert!(ok.failure.is_none(), "a success carries no classification");
    let rejected = server
        .call("check_room", json!({"room": "B", "seats": 3}))
        .await
        .unwrap();
    drop(installed);
    let lines = captured.lines();
    let spans: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("span tools/call "))
        .collect();
    assert_eq!(spans.len(), 2, "{lines:#?}");
    for span in &spans {
        assert!(span.contains(" mcp.method.name=tools/call"), "{span}");
        assert!(span.contains(" gen_ai.tool.name=check_room"), "{span}");
        assert!(
            span.contains(" gen_ai.operation.name=execute_tool"),
            "{span}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains(" otel.name=tools/call check_room")),
        "{lines:#?}"
    );
    // The rejected call's span gets its error type and the correlation id of its `_meta`.
    let id = failure(&rejected)["correlationId"].as_str().unwrap();
    assert_eq!(id.len(), 16);
    assert!(
        lines.iter().any(|l| l.starts_with("record ")
            && l.ends_with(&format!(" guardrails.correlation_id={id}"))),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(" error.type=invalid_arguments")),
        "{lines:#?}"
    );
    // The duration histogram counts the calls by tool and outcome.
    let histograms = captured.histograms();
    let ok_key = format!("{DURATION}{{gen_ai.tool.name=check_room,mcp.method.name=tools/call}}");
    let failed_key = format!(
        "{DURATION}{{error.type=invalid_arguments,gen_ai.tool.name=check_room,mcp.method.name=tools/call}}"
    );
    assert_eq!(histograms[&ok_key].len(), 1, "{histograms:#?}");
    assert_eq!(histograms[&failed_key].len(), 1, "{histograms:#?}");
    assert!(
        lines
            .iter()
            .all(|l| !l.contains("\"B\"") && !l.contains("=B "))
    );
}

#[tokio::test]
async fn a_rejection_is_classified_validation_and_retryable() {
    let server = booking();
    let out = server
        .call("check_room", json!({"room": "B", "seats": 30}))
        .await
        .unwrap();
    let failure = failure(&out);
    assert_eq!(failure["class"], "validation");
    assert_eq!(failure["code"], "INVALID_ARGUMENTS");
    assert_eq!(failure["retryable"], true);
    assert!(failure.get("retryNotBefore").is_none());
    assert!(failure["agentGuidance"].as_str().unwrap().contains("Fix"));
}

#[tokio::test]
async fn a_passing_failure_is_retryable_only_for_a_tool_that_may_run_twice() {
    let captured = Captured::default();
    let installed = captured.install();
    let server = booking();
    let args = json!({"room": "B2", "seats": 3});
    let reserved = server.call("reserve", args.clone()).await.unwrap();
    let looked_up = server.call("lookup", args).await.unwrap();
    drop(installed);
    for out in [&reserved, &looked_up] {
        let failure = failure(out);
        assert_eq!(failure["class"], "transient");
        assert_eq!(failure["code"], "UNAVAILABLE");
        let not_before = failure["retryNotBefore"].as_str().unwrap();
        assert!(
            not_before.ends_with('Z') && not_before.len() == 20,
            "{not_before}"
        );
    }
    // `reserve` is not annotated idempotent: its handler ran, running it again is no retry.
    assert_eq!(failure(&reserved)["retryable"], false);
    assert_eq!(failure(&looked_up)["retryable"], true);
    let events = captured.events(TOOL_ERROR_TARGET);
    assert!(
        events.iter().any(|e| e.contains(" tool=reserve ")
            && e.contains(" code=UNAVAILABLE")
            && e.contains(" class=transient")),
        "{events:#?}"
    );
    assert_eq!(
        captured.counter(
            TOOL_ERRORS,
            &[
                ("gen_ai.tool.name", "lookup"),
                ("code", "UNAVAILABLE"),
                ("class", "transient")
            ]
        ),
        1
    );
    assert!(
        !captured.all_text().contains("booking system"),
        "no message text"
    );
}

#[tokio::test]
async fn the_classification_reaches_the_client_in_meta_beside_the_report() {
    let client = connect(booking()).await;
    let result = client
        .call_tool(call("check_room", json!({"room": "B", "seats": 3})))
        .await
        .unwrap();
    let meta = result.meta.as_ref().expect("_meta");
    assert!(meta.get(REPORT_META_KEY).is_some());
    assert_eq!(meta[FAILURE_META_KEY]["class"], "validation");
    client.cancel().await.unwrap();

    // The same on a guarded native router.
    let client = connect(Notes::guarded(10)).await;
    let result = client
        .call_tool(call("create_note", json!({"titel": "x"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let meta = result.meta.as_ref().expect("_meta");
    assert_eq!(meta[FAILURE_META_KEY]["class"], "validation");
    assert_eq!(meta[FAILURE_META_KEY]["retryable"], true);
    client.cancel().await.unwrap();
}

fn invalid() -> Value {
    json!({"room": "B", "seats": 30})
}

#[tokio::test(start_paused = true)]
async fn the_same_invalid_call_is_escalated_then_stopped_within_the_window() {
    let captured = Captured::default();
    let installed = captured.install();
    let server = booking();
    let first = server.call("check_room", invalid()).await.unwrap();
    assert!(
        first.text[0].starts_with("<validation_error"),
        "{}",
        first.text[0]
    );

    // The keys in another order are the same call.
    let second = server
        .call("check_room", json!({"seats": 30, "room": "B"}))
        .await
        .unwrap();
    let text = &second.text[0];
    assert!(
        text.starts_with("<repeated_call tool=\"check_room\" times=\"2\">\n<corrected_call>"),
        "{text}"
    );
    // No issue is explained again: the model read the full coaching.
    assert!(!text.contains("You sent:"), "{text}");
    // The corrected call is the caller's, its two wrong values holes to fill in; the tool's
    // example is shown beside it, labelled as an example.
    assert!(
        text.contains(
            r#"<corrected_call>{"name":"check_room","arguments":{"room":&lt;fill in: room&gt;,"seats":&lt;fill in: seats&gt;}}</corrected_call>"#
        ),
        "{text}"
    );
    let example = server.spec("check_room").unwrap().example();
    let example = json!({"name": "check_room", "arguments": example}).to_string();
    assert!(
        text.contains(&format!(
            "<valid_example note=\"an example of a valid call, not your values\">{}</valid_example>",
            example.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
        )),
        "{text}"
    );
    assert!(
        text.contains("room (too_short), seats (too_large)"),
        "{text}"
    );
    assert_eq!(failure(&second)["retryable"], true);

    let third = server.call("check_room", invalid()).await.unwrap();
    assert_eq!(failure(&third)["retryable"], false);
    assert!(third.text[0].contains("Stop."), "{}", third.text[0]);
    assert!(third.text[0].contains("Ask the user"), "{}", third.text[0]);
    assert!(
        failure(&third)["agentGuidance"]
            .as_str()
            .unwrap()
            .contains("ask the user")
    );

    // Another invalid call is answered in full.
    let other = server
        .call("check_room", json!({"room": "B", "seats": 0}))
        .await
        .unwrap();
    assert!(
        other.text[0].starts_with("<validation_error"),
        "{}",
        other.text[0]
    );

    // Past the window, the call is new again.
    tokio::time::advance(Duration::from_secs(301)).await;
    let later = server.call("check_room", invalid()).await.unwrap();
    assert!(
        later.text[0].starts_with("<validation_error"),
        "{}",
        later.text[0]
    );
    assert_eq!(failure(&later)["retryable"], true);
    drop(installed);
    assert_eq!(
        captured.counter(
            LOOPS,
            &[("gen_ai.tool.name", "check_room"), ("stop", "false")]
        ),
        1
    );
    assert_eq!(
        captured.counter(
            LOOPS,
            &[("gen_ai.tool.name", "check_room"), ("stop", "true")]
        ),
        1
    );
}

#[tokio::test(start_paused = true)]
async fn the_loop_breaker_is_configurable_and_can_be_turned_off() {
    let server = booking().config(GuardConfig::new().loop_breaker(LoopBreaker::off()));
    for _ in 0..4 {
        let out = server.call("check_room", invalid()).await.unwrap();
        assert!(
            out.text[0].starts_with("<validation_error"),
            "{}",
            out.text[0]
        );
        assert_eq!(failure(&out)["retryable"], true);
    }
    let server = booking().config(
        GuardConfig::new().loop_breaker(
            LoopBreaker::new()
                .stop_after(5)
                .window(Duration::from_secs(10)),
        ),
    );
    for _ in 0..4 {
        let out = server.call("check_room", invalid()).await.unwrap();
        assert_eq!(failure(&out)["retryable"], true);
        tokio::time::advance(Duration::from_secs(9)).await;
    }
    let out = server.call("check_room", invalid()).await.unwrap();
    assert_eq!(
        failure(&out)["retryable"],
        false,
        "the 5th within 10 s of the last"
    );
}

#[tokio::test]
async fn callers_are_told_apart_and_repairs_are_counted_per_caller() {
    let captured = Captured::default();
    let installed = captured.install();
    let shared = booking();
    let ada = connect(shared.clone()).await;
    let bob = connect(shared.clone()).await;
    let args = invalid().as_object().cloned().unwrap();
    let first = ada
        .call_tool(call("check_room", Value::Object(args.clone())))
        .await
        .unwrap();
    assert!(text(&first, 0).starts_with("<validation_error"));
    // Bob's first call of the same arguments is his first: answered in full.
    let bobs = bob
        .call_tool(call("check_room", Value::Object(args.clone())))
        .await
        .unwrap();
    assert!(
        text(&bobs, 0).starts_with("<validation_error"),
        "{}",
        text(&bobs, 0)
    );
    let again = ada
        .call_tool(call("check_room", Value::Object(args)))
        .await
        .unwrap();
    assert!(
        text(&again, 0).starts_with("<repeated_call"),
        "{}",
        text(&again, 0)
    );
    // Ada repairs her call after two rejections; Bob never does.
    let repaired = ada
        .call_tool(call("check_room", json!({"room": "B2", "seats": 3})))
        .await
        .unwrap();
    assert_eq!(repaired.is_error, Some(false));
    ada.cancel().await.unwrap();
    bob.cancel().await.unwrap();
    drop(installed);
    assert_eq!(
        captured.counter(REPAIRS, &[("gen_ai.tool.name", "check_room")]),
        1
    );
    let retries =
        &captured.histograms()[&format!("{REPAIR_RETRIES}{{gen_ai.tool.name=check_room}}")];
    assert_eq!(retries, &[2.0]);
}

#[tokio::test]
async fn in_process_calls_count_no_repairs() {
    let captured = Captured::default();
    let installed = captured.install();
    let server = booking();
    let _ = server.call("check_room", invalid()).await.unwrap();
    let ok = server
        .call("check_room", json!({"room": "B2", "seats": 3}))
        .await
        .unwrap();
    assert!(!ok.is_error);
    drop(installed);
    assert_eq!(
        captured.counter(REPAIRS, &[("gen_ai.tool.name", "check_room")]),
        0
    );
}

/// Arguments of `ping`.
#[derive(Debug, Deserialize, ToolArgs)]
struct Ping {}

/// Answers pong, twice a minute per caller.
#[tool(rate_limit = "2/min")]
fn ping(_args: Ping) -> String {
    "pong".to_owned()
}

#[tokio::test(start_paused = true)]
async fn a_tool_over_its_rate_limit_says_when_to_call_again() {
    use guardrails_tests::telemetry::names::RATE_LIMITED;
    // Declared on the tool (`rate_limit = "2/min"`): the third call of the minute is refused.
    let captured = Captured::default();
    let installed = captured.install();
    let server = Server::new(()).tool(ping).tool(check_room);
    for _ in 0..2 {
        let out = server.call("ping", json!({})).await.unwrap();
        assert_eq!(out.text, ["pong"]);
    }
    let limited = server.call("ping", json!({})).await.unwrap();
    assert!(limited.is_error);
    assert!(
        limited.text[0].contains("code=\"RATE_LIMITED\""),
        "{}",
        limited.text[0]
    );
    assert!(
        limited.text[0].contains("retry in 30 s"),
        "{}",
        limited.text[0]
    );
    let failure = failure(&limited);
    assert_eq!(failure["class"], "rate_limited");
    assert_eq!(failure["code"], "RATE_LIMITED");
    assert_eq!(failure["retryable"], true, "the handler did not run");
    assert!(failure["retryNotBefore"].is_string());
    assert_eq!(
        limited.report.as_ref().unwrap()["error"]["retryAfterSeconds"],
        30
    );
    // Other tools are not limited by this one.
    let other = server
        .call("check_room", json!({"room": "B2", "seats": 3}))
        .await
        .unwrap();
    assert!(!other.is_error);
    // One call comes back every 30 s.
    tokio::time::advance(Duration::from_secs(30)).await;
    let again = server.call("ping", json!({})).await.unwrap();
    assert_eq!(again.text, ["pong"]);
    let limited = server.call("ping", json!({})).await.unwrap();
    assert!(limited.is_error);
    drop(installed);
    assert_eq!(
        captured.counter(RATE_LIMITED, &[("gen_ai.tool.name", "ping")]),
        2
    );
    let limited_key = format!(
        "{DURATION}{{error.type=rate_limited,gen_ai.tool.name=ping,mcp.method.name=tools/call}}"
    );
    assert_eq!(
        captured.histograms()[&limited_key].len(),
        2,
        "{:#?}",
        captured.histograms()
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_wide_limit_counts_every_tool() {
    use guardrails::operate::RateLimit;
    let server = booking().config(GuardConfig::new().rate_limit(RateLimit::per_second(2)));
    let args = json!({"room": "B2", "seats": 3});
    assert!(
        !server
            .call("check_room", args.clone())
            .await
            .unwrap()
            .is_error
    );
    let _ = server.call("lookup", args.clone()).await.unwrap();
    let limited = server.call("check_room", args.clone()).await.unwrap();
    assert_eq!(failure(&limited)["code"], "RATE_LIMITED");
    tokio::time::advance(Duration::from_millis(500)).await;
    assert!(!server.call("check_room", args).await.unwrap().is_error);
}

#[tokio::test]
async fn rate_limits_are_kept_per_caller_and_on_a_router_guard() {
    use guardrails::mcp::RouterGuard;
    use guardrails::operate::RateLimit;
    let shared = Server::new(()).tool(ping);
    let ada = connect(shared.clone()).await;
    let bob = connect(shared).await;
    for _ in 0..2 {
        let ok = ada.call_tool(call("ping", json!({}))).await.unwrap();
        assert_eq!(ok.is_error, Some(false));
    }
    let limited = ada.call_tool(call("ping", json!({}))).await.unwrap();
    assert_eq!(limited.is_error, Some(true));
    assert!(text(&limited, 0).contains("RATE_LIMITED"));
    let meta = limited.meta.as_ref().unwrap();
    assert_eq!(meta[FAILURE_META_KEY]["class"], "rate_limited");
    // Bob has his own budget.
    let bobs = bob.call_tool(call("ping", json!({}))).await.unwrap();
    assert_eq!(bobs.is_error, Some(false));
    ada.cancel().await.unwrap();
    bob.cancel().await.unwrap();

    // A native router: one call of `list_notes` an hour.
    let router = RouterGuard::new()
        .tool_rate_limit("list_notes", RateLimit::per_hour(1))
        .guard(Notes::tool_router());
    let client = connect(Notes::with_router(10, router)).await;
    let first = client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    assert_ne!(first.is_error, Some(true), "{first:?}");
    let second = client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    assert_eq!(second.is_error, Some(true));
    assert!(
        text(&second, 0).contains("retry in 60 min"),
        "{}",
        text(&second, 0)
    );
    client.cancel().await.unwrap();
    // A limit on a tool the router does not have is refused.
    let error = RouterGuard::new()
        .tool_rate_limit("nope", RateLimit::per_hour(1))
        .try_guard(Notes::tool_router())
        .unwrap_err();
    assert!(error.to_string().contains("`nope`"), "{error}");
}

#[tokio::test]
async fn a_router_guard_breaks_loops_too() {
    let client = connect(Notes::guarded(10)).await;
    let invalid = || call("create_note", json!({"titel": "x", "tag": "home"}));
    let first = client.call_tool(invalid()).await.unwrap();
    assert!(
        text(&first, 0).starts_with("<validation_error"),
        "{}",
        text(&first, 0)
    );
    let second = client.call_tool(invalid()).await.unwrap();
    let message = text(&second, 0);
    assert!(
        message.starts_with("<repeated_call tool=\"create_note\" times=\"2\">"),
        "{message}"
    );
    assert!(message.contains("titel (unknown_field)"), "{message}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_router_guard_tells_callers_apart_and_counts_their_repairs() {
    let captured = Captured::default();
    let installed = captured.install();
    let router = guardrails::mcp::guard_router(Notes::tool_router());
    let ada = connect(Notes::with_router(10, router.clone())).await;
    let bob = connect(Notes::with_router(10, router)).await;
    let invalid = || call("create_note", json!({"titel": "x", "tag": "home"}));
    let valid = || {
        call(
            "create_note",
            json!({"title": "x", "tag": "home", "priority": "low"}),
        )
    };
    // Bob's first call succeeds: nothing of his waits for a repair.
    assert_ne!(bob.call_tool(valid()).await.unwrap().is_error, Some(true));
    let first = ada.call_tool(invalid()).await.unwrap();
    assert!(text(&first, 0).starts_with("<validation_error"));
    // Bob's first call of the same arguments is his first: answered in full, not as Ada's
    // repeat, so the guard knew who made the rejected call.
    let bobs = bob.call_tool(invalid()).await.unwrap();
    assert!(
        text(&bobs, 0).starts_with("<validation_error"),
        "{}",
        text(&bobs, 0)
    );
    // Ada repairs her call after one rejection; Bob never does.
    let repaired = ada.call_tool(valid()).await.unwrap();
    assert_ne!(repaired.is_error, Some(true), "{repaired:?}");
    ada.cancel().await.unwrap();
    bob.cancel().await.unwrap();
    drop(installed);
    assert_eq!(
        captured.counter(REPAIRS, &[("gen_ai.tool.name", "create_note")]),
        1
    );
    let retries =
        &captured.histograms()[&format!("{REPAIR_RETRIES}{{gen_ai.tool.name=create_note}}")];
    assert_eq!(retries, &[1.0]);
}
