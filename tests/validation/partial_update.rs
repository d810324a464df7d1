//! `Option<Option<T>>` tells a field left alone (absent) from a field cleared (`null`), so a
//! partial update can clear a value; its schema and its guards agree with that.

#![expect(
    clippy::option_option,
    reason = "the three states of a partial update are what is tested"
)]

use guardrails::{IssueCode, ToolArgs};
use serde_json::{Value, json};

/// Changes a contact.
#[derive(Debug, serde::Deserialize, ToolArgs)]
struct UpdateContact {
    id: u64,
    /// A new phone number; `null` removes it.
    #[guard(pattern = "^[0-9+ ]{6,20}$")]
    phone: Option<Option<String>>,
    /// New tags; `null` removes them all.
    #[guard(length(max = 2))]
    tags: Option<Option<Vec<String>>>,
}

#[test]
fn absent_null_and_a_value_are_three_different_updates() {
    let keep = UpdateContact::validate_value(json!({"id": 1})).unwrap();
    assert_eq!(keep.id, 1);
    assert_eq!(keep.phone, None);
    assert_eq!(keep.tags, None);
    let clear =
        UpdateContact::validate_value(json!({"id": 1, "phone": null, "tags": null})).unwrap();
    assert_eq!(clear.phone, Some(None));
    assert_eq!(clear.tags, Some(None));
    let set =
        UpdateContact::validate_value(json!({"id": 1, "phone": "+33 1 23 45", "tags": ["a"]}))
            .unwrap();
    assert_eq!(
        set.phone.as_ref().and_then(Option::as_deref),
        Some("+33 1 23 45")
    );
    assert_eq!(set.tags, Some(Some(vec!["a".to_owned()])));
}

#[test]
fn a_sent_value_is_still_held_to_its_guards_and_type() {
    let report = UpdateContact::validate_value(
        json!({"id": 1, "phone": "call me", "tags": ["a", "b", "c"]}),
    )
    .unwrap_err();
    let codes: Vec<(&str, IssueCode)> =
        report.issues().iter().map(|i| (&*i.path, i.code)).collect();
    assert_eq!(
        codes,
        [("phone", IssueCode::Pattern), ("tags", IssueCode::TooLong)]
    );
    let report = UpdateContact::validate_value(json!({"id": 1, "phone": 7})).unwrap_err();
    assert_eq!(report.issues()[0].code, IssueCode::Type);
}

#[test]
fn the_schema_is_the_type_or_null_and_not_required() {
    let schema = serde_json::to_value(UpdateContact::schema()).unwrap();
    assert_eq!(
        schema["properties"]["phone"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        schema["properties"]["tags"]["type"],
        json!(["array", "null"])
    );
    assert_eq!(schema["required"], json!(["id"]));
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for call in [
        json!({"id": 1}),
        json!({"id": 1, "phone": null}),
        json!({"id": 1, "phone": "+33 1 23 45"}),
    ] {
        assert!(validator.is_valid(&call), "{call}");
        assert!(UpdateContact::validate_value(call).is_ok());
    }
    let example: Value = UpdateContact::example().clone();
    assert!(UpdateContact::validate_value(example).is_ok());
}
