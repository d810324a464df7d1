//! `#[serde(alias)]` is honoured as serde honours it: the field is read under each of its
//! names, two of them at once is refused, the did-you-mean names the field's own name, and the
//! schema agrees with the validator.

use guardrails::{IssueCode, ToolArgs};
use serde_json::{Value, json};

/// Books a room.
#[derive(Debug, serde::Deserialize, ToolArgs)]
struct BookRoom {
    /// The room.
    #[serde(alias = "roomId", alias = "room")]
    #[guard(length(min = 2))]
    room_id: String,
    /// A note.
    #[serde(alias = "comment")]
    note: Option<String>,
}

#[test]
fn a_field_is_read_under_each_of_its_names_as_serde_reads_it() {
    for call in [
        json!({"room_id": "A1"}),
        json!({"roomId": "A1"}),
        json!({"room": "A1", "comment": "late"}),
    ] {
        let ours = BookRoom::validate_value(call.clone()).unwrap();
        let serde: BookRoom = serde_json::from_value(call).unwrap();
        assert_eq!(ours.room_id, serde.room_id);
        assert_eq!(ours.note, serde.note);
    }
}

#[test]
fn an_alias_is_checked_like_the_field() {
    let report = BookRoom::validate_value(json!({"roomId": "A"})).unwrap_err();
    assert_eq!(report.len(), 1);
    assert_eq!(report.issues()[0].code, IssueCode::TooShort);
    assert_eq!(report.issues()[0].path, "room_id");
}

#[test]
fn two_names_of_one_field_are_refused_as_serde_refuses_them() {
    let call = json!({"room_id": "A1", "roomId": "B2"});
    assert!(serde_json::from_value::<BookRoom>(call.clone()).is_err());
    let report = BookRoom::validate_value(call).unwrap_err();
    assert_eq!(report.len(), 1, "{report:?}");
    let issue = &report.issues()[0];
    // The second of the two keys read is the one refused (the map's order decides which).
    assert!(
        ["roomId", "room_id"].contains(&&*issue.path),
        "{}",
        issue.path
    );
    assert!(issue.message.contains("`room_id`"), "{}", issue.message);
    assert_eq!(
        issue.fix.as_deref(),
        Some("Send the field once, as `room_id`.")
    );
}

#[test]
fn a_misspelt_key_is_pointed_to_the_fields_own_name() {
    let report = BookRoom::validate_value(json!({"room_di": "A1"})).unwrap_err();
    let unknown = report.at("room_di").unwrap();
    assert!(
        unknown.message.contains("\"room_id\""),
        "{}",
        unknown.message
    );
}

#[test]
fn the_schema_accepts_exactly_what_the_validator_accepts() {
    let schema = serde_json::to_value(BookRoom::schema()).unwrap();
    assert!(schema["properties"]["roomId"].is_object(), "{schema}");
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let calls = [
        json!({}),
        json!({"room_id": "A1"}),
        json!({"roomId": "A1"}),
        json!({"room": "A1"}),
        json!({"room_id": "A1", "room": "B2"}),
        json!({"roomId": "A1", "room": "B2"}),
        json!({"room_id": "A1", "note": "x"}),
        json!({"room_id": "A1", "note": "x", "comment": "y"}),
        json!({"room_id": "A1", "comment": null}),
        json!({"roomId": "A"}),
        json!({"roomid": "A1"}),
    ];
    for call in calls {
        let ours = BookRoom::validate_value(call.clone()).is_ok();
        assert_eq!(validator.is_valid(&call), ours, "{call}");
        let serde = serde_json::from_value::<BookRoom>(call.clone()).is_ok();
        if ours {
            assert!(serde, "accepted what serde refuses: {call}");
        }
    }
    let example: Value = BookRoom::example().clone();
    assert!(validator.is_valid(&example));
}

/// A booking whose end is read under another name too.
#[derive(Debug, serde::Deserialize, ToolArgs)]
#[expect(dead_code, reason = "read by the rules, not by a tool")]
#[guard(check(end_after_start, fields(start, end)), check = whole_day)]
struct Slot {
    #[guard(example = 9)]
    start: u8,
    #[serde(alias = "finish")]
    #[guard(example = 10)]
    end: u8,
}

fn end_after_start(start: u8, end: u8) -> Result<(), guardrails::FieldIssue> {
    if end <= start {
        return Err(guardrails::FieldIssue::new("end", "Must be after `start`."));
    }
    Ok(())
}

fn whole_day(slot: &Slot) -> Result<(), guardrails::FieldIssue> {
    if slot.end > 24 {
        return Err(guardrails::FieldIssue::new("end", "A day has 24 hours."));
    }
    Ok(())
}

#[test]
fn a_rule_says_what_was_sent_under_an_alias() {
    let report = Slot::validate_value(json!({"start": 12, "finish": 11})).unwrap_err();
    let issue = report.at("end").unwrap();
    assert_eq!(issue.code, IssueCode::Custom);
    assert_eq!(issue.received.as_deref(), Some("11"), "{report}");
    let report = Slot::validate_value(json!({"start": 12, "finish": 30})).unwrap_err();
    assert_eq!(report.at("end").unwrap().received.as_deref(), Some("30"));
}
