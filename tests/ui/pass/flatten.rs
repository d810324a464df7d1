//! A flattened `ToolArgs` struct: its fields are read and checked beside the holder's own.
#![deny(warnings)]

use guardrails::ToolArgs;
use serde_json::json;

/// Paging, shared by every listing tool.
#[derive(Debug, PartialEq, serde::Deserialize, ToolArgs)]
struct Paging {
    /// How many to skip.
    #[serde(default)]
    offset: u32,
    /// How many to return.
    #[guard(range(min = 1, max = 100))]
    limit: u8,
}

/// Lists notes.
#[derive(Debug, PartialEq, serde::Deserialize, ToolArgs)]
struct ListNotes {
    /// Only notes with this tag.
    tag: Option<String>,
    #[serde(flatten)]
    page: Paging,
}

#[test]
fn the_flattened_fields_are_checked_beside_the_holders_own() {
    let call = json!({"tag": "work", "limit": 10});
    let ours = ListNotes::validate_value(call.clone()).unwrap();
    let theirs: ListNotes = serde_json::from_value(call).unwrap();
    assert_eq!(ours, theirs);
    let report = ListNotes::validate_value(json!({"limit": 0})).unwrap_err();
    assert!(report.at("limit").is_some(), "{report}");
}
