//! `length` on a map bounds its entries: enforced, advertised as `minProperties` /
//! `maxProperties`, worded in entries, and its example has as many entries as it asks.

use std::collections::{BTreeMap, HashMap};

use guardrails::{IssueCode, ToolArgs};
use serde_json::{Map, Value, json};

/// Sets labels on a room.
#[derive(Debug, serde::Deserialize, ToolArgs)]
struct Label {
    /// Label name to value.
    #[guard(length(max = 10))]
    labels: HashMap<String, String>,
    /// At least two settings.
    #[guard(length(min = 2, max = 4))]
    settings: BTreeMap<String, u32>,
    /// Optional notes, at least one when sent.
    #[guard(non_empty)]
    notes: Option<BTreeMap<String, String>>,
    /// A free description, held to a length: a string's characters, an array's items or an
    /// object's entries.
    #[guard(length(max = 2))]
    extra: Option<Value>,
}

fn entries(n: usize) -> Value {
    let map: Map<String, Value> = (0..n).map(|i| (format!("k{i}"), json!("v"))).collect();
    Value::Object(map)
}

#[test]
fn too_many_entries_never_reach_the_handler() {
    let call = json!({"labels": entries(11), "settings": {"a": 1, "b": 2}});
    let report = Label::validate_value(call).unwrap_err();
    assert_eq!(report.len(), 1);
    let issue = report.at("labels").unwrap();
    assert_eq!(issue.code, IssueCode::TooLong);
    assert_eq!(issue.message, "Too long: 11 entries, at most 10 allowed.");
    let fix = issue.fix.as_deref().unwrap();
    assert!(fix.contains("at most 10 entries"), "{fix}");
    assert!(!fix.contains("characters"), "{fix}");

    let call =
        json!({"labels": {}, "settings": {"a": 1}, "notes": {}, "extra": {"a": 1, "b": 2, "c": 3}});
    let report = Label::validate_value(call).unwrap_err();
    let codes: Vec<(&str, IssueCode)> =
        report.issues().iter().map(|i| (&*i.path, i.code)).collect();
    assert_eq!(
        codes,
        [
            ("settings", IssueCode::TooShort),
            ("notes", IssueCode::TooShort),
            ("extra", IssueCode::TooLong),
        ]
    );
    assert_eq!(
        report.at("settings").unwrap().message,
        "Too short: 1 entry, at least 2 required."
    );
}

#[test]
fn the_schema_advertises_the_bounds_and_agrees_with_the_validator() {
    let schema = serde_json::to_value(Label::schema()).unwrap();
    let properties = &schema["properties"];
    assert_eq!(properties["labels"]["maxProperties"], 10);
    assert_eq!(properties["settings"]["minProperties"], 2);
    assert_eq!(properties["settings"]["maxProperties"], 4);
    assert_eq!(properties["notes"]["minProperties"], 1);
    assert_eq!(properties["extra"]["maxProperties"], 2);
    assert_eq!(properties["extra"]["maxLength"], 2);
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for (labels, settings) in [(0, 2), (10, 4), (11, 2), (3, 1), (3, 5)] {
        let settings: Map<String, Value> =
            (0..settings).map(|i| (format!("s{i}"), json!(i))).collect();
        let call = json!({"labels": entries(labels), "settings": settings});
        assert_eq!(
            validator.is_valid(&call),
            Label::validate_value(call.clone()).is_ok(),
            "{call}"
        );
    }
}

#[test]
fn entries_within_the_bounds_are_read() {
    let label =
        Label::validate_value(json!({"labels": {"a": "b"}, "settings": {"x": 1, "y": 2}})).unwrap();
    assert_eq!(label.labels["a"], "b");
    assert_eq!(label.settings["y"], 2);
    assert!(label.notes.is_none() && label.extra.is_none());
}

#[test]
fn the_example_has_the_entries_its_guards_ask_for() {
    let example = Label::example();
    assert_eq!(example["settings"].as_object().unwrap().len(), 2);
    assert!(Label::validate_value(example.clone()).is_ok(), "{example}");
}
