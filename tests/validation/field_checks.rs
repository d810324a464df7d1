//! Rules that name the fields they read (`#[guard(check(f, fields(a, b)))]` on a struct) run
//! whenever those fields passed their own guards, whatever else failed, so every rule is heard in
//! the one pass.

use guardrails::render::render_report;
use guardrails::{FieldIssue, IssueCode, ToolArgs};
use guardrails::{RenderFormat, RenderOptions};
use serde_json::json;

/// Books a room for some hours of a day.
#[derive(Debug, serde::Deserialize, ToolArgs)]
#[guard(check(end_after_start, fields(start, end)))]
#[guard(check(room_fits, fields(room, seats)))]
struct Booking {
    #[guard(length(min = 2), example = "A1")]
    room: String,
    #[guard(range(min = 1, max = 50))]
    seats: u32,
    #[guard(length(min = 3))]
    title: String,
    #[guard(range(min = 0, max = 23), example = 9)]
    start: u8,
    #[guard(range(min = 1, max = 24), example = 10)]
    end: u8,
    #[guard(length(max = 3))]
    tags: Vec<String>,
}

fn end_after_start(start: u8, end: u8) -> Result<(), FieldIssue> {
    if end <= start {
        return Err(FieldIssue::new("end", "Must be after `start`.")
            .expected(format!("an hour after {start}")));
    }
    Ok(())
}

fn room_fits(room: &str, seats: u32) -> Result<(), Vec<FieldIssue>> {
    if room.starts_with('S') && seats > 4 {
        return Err(vec![FieldIssue::new(
            "seats",
            "A small room seats at most 4.",
        )]);
    }
    Ok(())
}

#[test]
fn a_rule_of_named_fields_is_heard_beside_every_other_mistake() {
    let report = Booking::validate_value(json!({
        "room": "A1",
        "seats": 0,
        "title": "x",
        "start": 12,
        "end": 11,
        "tags": ["a", "b", "c", "d"],
        "colour": "red",
    }))
    .unwrap_err();
    let mut paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["colour", "end", "seats", "tags", "title"]);
    let end = report.at("end").unwrap();
    assert_eq!(end.code, IssueCode::Custom);
    assert_eq!(end.message, "Must be after `start`.");
    assert_eq!(end.received.as_deref(), Some("11"));
    assert_eq!(end.expected.as_deref(), Some("an hour after 12"));
    assert!(end.fix.as_deref().unwrap().contains("1 to 24"), "{end:?}");
}

#[test]
fn a_rule_waits_for_the_fields_it_reads_and_only_those() {
    // `end` breaks its own guard: the rule cannot compare it, and says nothing.
    let report = Booking::validate_value(json!({
        "room": "A1", "seats": 2, "title": "standup", "start": 12, "end": 30, "tags": [],
    }))
    .unwrap_err();
    assert_eq!(report.len(), 1);
    assert_eq!(report.issues()[0].path, "end");
    assert_eq!(report.issues()[0].code, IssueCode::TooLarge);
    // `start` is missing: the same.
    let report = Booking::validate_value(json!({
        "room": "A1", "seats": 2, "title": "standup", "end": 3, "tags": [],
    }))
    .unwrap_err();
    assert_eq!(report.len(), 1);
    assert_eq!(report.issues()[0].path, "start");
    // The other rule runs on its own fields, whatever `start` and `end` did.
    let report = Booking::validate_value(json!({
        "room": "S1", "seats": 9, "title": "standup", "end": 30, "tags": [],
    }))
    .unwrap_err();
    let mut paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["end", "seats", "start"]);
    assert_eq!(
        report.at("seats").unwrap().message,
        "A small room seats at most 4."
    );
}

#[test]
fn a_valid_call_passes_every_rule_and_the_example_is_checked_with_them() {
    let booking = Booking::validate_value(json!({
        "room": "S1", "seats": 4, "title": "standup", "start": 9, "end": 10, "tags": ["x"],
    }))
    .unwrap();
    assert_eq!((booking.start, booking.end, booking.seats), (9, 10, 4));
    assert_eq!(booking.room, "S1");
    assert_eq!(booking.title, "standup");
    assert_eq!(booking.tags, ["x"]);
    let example = Booking::checked_example().unwrap();
    assert!(Booking::validate_value(example.clone()).is_ok());
}

/// A type whose written example breaks its own rule.
#[derive(Debug, serde::Deserialize, ToolArgs)]
#[guard(check(end_after_start, fields(start, end)))]
#[guard(example = r#"{"start": 10, "end": 10}"#)]
#[allow(dead_code, reason = "only validated")]
struct BadExample {
    #[guard(range(min = 0, max = 23))]
    start: u8,
    #[guard(range(min = 1, max = 24))]
    end: u8,
}

#[test]
fn an_example_that_breaks_a_rule_of_named_fields_is_never_shown() {
    let report = BadExample::checked_example().unwrap_err();
    assert_eq!(report.at("end").unwrap().message, "Must be after `start`.");
}

#[test]
fn a_rule_of_named_fields_is_rendered_like_a_field_guard_in_every_format() {
    let report = Booking::validate_value(json!({
        "room": "A1", "seats": 2, "title": "x", "start": 12, "end": 11, "tags": [],
    }))
    .unwrap_err();
    let info = Booking::info();
    let example = Booking::example();
    let xml = render_report("book", &report, info, example, &RenderOptions::default());
    assert!(
        xml.contains(r#"<field name="end" code="custom">Must be after `start`. You sent: 11."#),
        "{xml}"
    );
    assert!(xml.contains(r#"<field name="title""#), "{xml}");
    for format in [RenderFormat::Markdown, RenderFormat::Json] {
        let text = render_report("book", &report, info, example, &RenderOptions::new(format));
        assert!(text.contains("Must be after `start`."), "{text}");
    }
}

#[test]
fn the_task_trackers_rule_is_heard_beside_a_bad_date() {
    use guardrails_tests::task_tracker::CreateTask;
    let report = CreateTask::validate_value(json!({
        "title": "Renew the certificate", "assignee": "ada", "due": "next week",
        "status": "blocked",
    }))
    .unwrap_err();
    let mut paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["description", "due"]);
    assert_eq!(
        report.at("description").unwrap().message,
        "A blocked task says what blocks it."
    );
    let fine = CreateTask::validate_value(json!({
        "title": "Renew the certificate", "assignee": "ada", "due": "2026-12-01",
        "status": "blocked", "description": "Waiting for the registrar.",
    }));
    assert!(fine.is_ok(), "{fine:?}");
}

/// Lists whose items read as they are until one may have an issue.
#[derive(Debug, serde::Deserialize, guardrails::ToolArgs)]
struct Lists {
    /// Names.
    names: Vec<String>,
    /// Flags.
    flags: Vec<bool>,
    /// Nested lists of names.
    groups: Vec<Vec<String>>,
    /// Small counts.
    counts: Vec<u8>,
}

#[test]
fn a_list_item_is_reported_at_its_own_index_wherever_it_is_in_the_list() {
    use guardrails::ToolArgs as _;
    let report = Lists::validate_value(serde_json::json!({
        "names": ["a", "b", 3, "c", false],
        "flags": [true, "maybe", false],
        "groups": [["x"], [], ["y", 7]],
        "counts": [1, 255, 256, 2.5, -1, 3],
    }))
    .unwrap_err();
    let paths: Vec<&str> = report.issues().iter().map(|i| &*i.path).collect();
    assert_eq!(
        paths,
        [
            "names[2]",
            "names[4]",
            "flags[1]",
            "groups[2][1]",
            "counts[2]",
            "counts[3]",
            "counts[4]"
        ],
        "{report:?}"
    );
    let read = Lists::validate_value(serde_json::json!({
        "names": ["a", "b"],
        "flags": [true, false],
        "groups": [["x"], [], ["y", "z"]],
        "counts": [0, 255, 7.0],
    }))
    .unwrap();
    assert_eq!(read.names, ["a", "b"]);
    assert_eq!(read.flags, [true, false]);
    assert_eq!(read.groups, [vec!["x"], vec![], vec!["y", "z"]]);
    assert_eq!(read.counts, [0, 255, 7]);
}
