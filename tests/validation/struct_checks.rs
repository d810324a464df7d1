//! Rules across fields (`#[guard(check = f)]` on a struct) join the one pass, and no tool shows
//! an example its own validator rejects.

use std::panic::{AssertUnwindSafe, catch_unwind};

use guardrails::render::render_report;
use guardrails::{FieldIssue, IssueCode, Server, ToolArgs, tool};
use guardrails::{RenderFormat, RenderOptions};
use serde_json::{Value, json};

/// Books a room for some hours of a day.
#[derive(Debug, serde::Deserialize, ToolArgs)]
#[guard(check = end_after_start, check = short_enough)]
#[guard(example = r#"{"start": 9, "end": 10}"#)]
struct Booking {
    #[guard(length(min = 2))]
    room: String,
    /// The first hour.
    #[guard(range(min = 0, max = 23))]
    start: u8,
    /// The hour the booking ends.
    #[guard(range(min = 1, max = 24))]
    end: u8,
}

fn end_after_start(booking: &Booking) -> Result<(), FieldIssue> {
    if booking.end <= booking.start {
        return Err(FieldIssue::new("end", "Must be after `start`.")
            .expected(format!("an hour after {}", booking.start)));
    }
    Ok(())
}

fn short_enough(booking: &Booking) -> Result<(), Vec<FieldIssue>> {
    if booking.end > booking.start && booking.end - booking.start > 8 {
        return Err(vec![
            FieldIssue::new("start", "A booking lasts at most 8 hours."),
            FieldIssue::new("end", "A booking lasts at most 8 hours."),
        ]);
    }
    Ok(())
}

#[test]
fn a_struct_check_reports_at_the_field_it_names_with_its_coaching() {
    let report =
        Booking::validate_value(json!({"room": "A1", "start": 12, "end": 11})).unwrap_err();
    assert_eq!(report.len(), 1);
    let issue = report.at("end").unwrap();
    assert_eq!(issue.code, IssueCode::Custom);
    assert_eq!(issue.message, "Must be after `start`.");
    assert_eq!(issue.received.as_deref(), Some("11"));
    assert_eq!(issue.expected.as_deref(), Some("an hour after 12"));
    let fix = issue.fix.as_deref().unwrap();
    assert!(fix.contains("1 to 24"), "{fix}");
}

#[test]
fn several_checks_and_several_issues_each_come_in_the_same_pass() {
    let report = Booking::validate_value(json!({"room": "A1", "start": 1, "end": 20})).unwrap_err();
    let paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
    assert_eq!(paths, ["start", "end"]);
}

#[test]
fn a_check_runs_once_the_fields_pass_and_beside_unknown_keys() {
    // A field that breaks its own guard: the struct is never built, the check cannot run.
    let report = Booking::validate_value(json!({"room": "A", "start": 12, "end": 11})).unwrap_err();
    assert_eq!(report.len(), 1);
    assert_eq!(report.issues()[0].path, "room");
    // An unknown key does not hide the rule: both are reported at once (unknown keys are
    // recorded before the struct is built).
    let report = Booking::validate_value(json!({"room": "A1", "start": 12, "end": 11, "ned": 1}))
        .unwrap_err();
    let paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
    assert_eq!(paths, ["ned", "end"]);
}

/// A booking inside a list: the check's issue is at the item's path.
#[derive(Debug, serde::Deserialize, ToolArgs)]
struct Bookings {
    #[guard(length(max = 3))]
    bookings: Vec<Booking>,
}

#[test]
fn a_nested_struct_checks_at_its_own_path() {
    let fine =
        Bookings::validate_value(json!({"bookings": [{"room": "A1", "start": 9, "end": 10}]}));
    assert_eq!(fine.unwrap().bookings.len(), 1);
    let report = Bookings::validate_value(json!({"bookings": [
        {"room": "A1", "start": 9, "end": 10},
        {"room": "B2", "start": 15, "end": 14},
    ]}))
    .unwrap_err();
    assert_eq!(report.len(), 1);
    assert_eq!(report.issues()[0].path, "bookings[1].end");
    assert_eq!(report.issues()[0].received.as_deref(), Some("14"));
}

#[test]
fn a_struct_check_is_rendered_like_a_field_guard_in_every_format() {
    let report =
        Booking::validate_value(json!({"room": "A1", "start": 12, "end": 11})).unwrap_err();
    let info = Booking::info();
    let example = Booking::example();
    let xml = render_report("book", &report, info, example, &RenderOptions::default());
    assert!(
        xml.contains(
            r#"<field name="end" code="custom">Must be after `start`. You sent: 11. Fix: "#
        ),
        "{xml}"
    );
    let markdown = render_report(
        "book",
        &report,
        info,
        example,
        &RenderOptions::new(RenderFormat::Markdown),
    );
    assert!(markdown.contains("Must be after `start`."), "{markdown}");
    assert!(markdown.contains("11"), "{markdown}");
    let rendered = render_report(
        "book",
        &report,
        info,
        example,
        &RenderOptions::new(RenderFormat::Json),
    );
    let json: Value = serde_json::from_str(&rendered).unwrap();
    let issue = &json["error"]["issues"][0];
    assert_eq!(issue["field"], "end", "{json}");
    assert_eq!(issue["problem"], "Must be after `start`.");
    assert_eq!(issue["received"], "11");
    assert_eq!(issue["expected"], "an hour after 12");
    assert!(issue["fix"].as_str().unwrap().contains("1 to 24"));
}

#[test]
fn the_struct_example_sets_the_fields_it_names_and_passes_every_rule() {
    let example = Booking::example();
    assert_eq!(example["start"], 9);
    assert_eq!(example["end"], 10);
    assert!(
        example["room"].as_str().unwrap().len() >= 2,
        "built from its guards"
    );
    assert!(Booking::validate_value(example.clone()).is_ok());
    assert_eq!(Booking::checked_example().unwrap(), example);
    let schema = serde_json::to_value(Booking::schema()).unwrap();
    assert_eq!(schema["examples"][0], *example);
}

/// A custom check that its written example does not pass: only the text `"exactly this"`.
#[derive(Debug, serde::Deserialize, ToolArgs)]
struct Exact {
    #[guard(custom = is_exact, example = "roughly this")]
    text: String,
}

fn is_exact(text: &String) -> Result<(), String> {
    if text == "exactly this" {
        Ok(())
    } else {
        Err("Must be `exactly this`.".into())
    }
}

/// Echoes the one text it takes.
#[tool]
fn exact(args: Exact) -> String {
    args.text
}

#[test]
fn a_type_whose_example_fails_a_custom_check_has_no_checked_example() {
    let report = Exact::checked_example().unwrap_err();
    assert_eq!(report.issues()[0].path, "text");
    let schema = serde_json::to_value(Exact::schema()).unwrap();
    assert!(schema.get("examples").is_none(), "{schema}");
}

#[test]
fn a_server_refuses_a_tool_whose_example_its_validator_rejects_naming_it() {
    let refused = catch_unwind(AssertUnwindSafe(|| Server::new(()).tool(exact)))
        .expect_err("the server refuses the tool");
    let message = refused
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.contains("tool `exact`"), "{message}");
    assert!(
        message.contains("text: Must be `exactly this`."),
        "{message}"
    );
    assert!(message.contains("#[guard(example = ..)]"), "{message}");
}

#[test]
fn a_rejection_without_a_valid_example_shows_none_in_any_format() {
    let report = Exact::validate_value(json!({"text": 3})).unwrap_err();
    let spec = exact.spec();
    assert!(spec.example().is_null());
    for format in [RenderFormat::Xml, RenderFormat::Markdown] {
        let text = render_report(
            "exact",
            &report,
            Exact::info(),
            spec.example(),
            &RenderOptions::new(format),
        );
        assert!(!text.contains("valid_example"), "{text}");
        assert!(!text.to_lowercase().contains("valid example"), "{text}");
    }
}

/// A check on a struct with a fixed example passes at startup.
#[tool]
fn book(args: Booking) -> String {
    format!("{} {}-{}", args.room, args.start, args.end)
}

#[tokio::test]
async fn a_server_serves_a_tool_with_a_checked_example_and_rejects_through_the_check() {
    let server = Server::new(()).tool(book);
    let output = server
        .call("book", json!({"room": "A1", "start": 12, "end": 11}))
        .await
        .unwrap();
    assert!(output.is_error);
    let text = output.text.join("\n");
    assert!(
        text.contains(r#"<field name="end" code="custom">"#),
        "{text}"
    );
    assert!(
        text.contains(r#"<valid_example>{"end":10,"room":"#),
        "{text}"
    );
    let ok = server
        .call("book", json!({"room": "A1", "start": 9, "end": 11}))
        .await
        .unwrap();
    assert_eq!(ok.text, ["A1 9-11"]);
}

/// A meeting between two instants.
#[derive(Debug, serde::Deserialize, ToolArgs)]
#[expect(dead_code, reason = "read by the rule, not by a tool")]
#[guard(check(ends_after_it_starts, fields(starts, ends)))]
struct Meeting {
    #[guard(format = "date-time", example = "2026-03-01T09:00:00Z")]
    starts: String,
    #[guard(format = "date-time", example = "2026-03-01T10:00:00Z")]
    ends: String,
}

fn ends_after_it_starts(starts: &str, ends: &str) -> Result<(), FieldIssue> {
    if ends <= starts {
        return Err(FieldIssue::new("ends", "Must be after `starts`.")
            .expected(format!("a date-time after {starts}")));
    }
    Ok(())
}

#[test]
fn a_rules_own_expectation_is_the_fix_in_every_format() {
    let report = Meeting::validate_value(
        json!({"starts": "2026-03-01T10:00:00Z", "ends": "2026-03-01T09:00:00Z"}),
    )
    .unwrap_err();
    for format in [
        RenderFormat::Xml,
        RenderFormat::Markdown,
        RenderFormat::Json,
    ] {
        let text = render_report(
            "meet",
            &report,
            Meeting::info(),
            Meeting::example(),
            &RenderOptions::new(format),
        );
        // The value sent is a date-time: what the rule wants is said, not what the field takes.
        assert!(
            text.contains("a date-time after 2026-03-01T10:00:00Z"),
            "{format:?}: {text}"
        );
        if format == RenderFormat::Xml {
            assert!(
                text.contains("Fix: a date-time after 2026-03-01T10:00:00Z.</field>"),
                "{text}"
            );
            assert!(!text.contains("RFC 3339"), "{text}");
        }
    }
}
