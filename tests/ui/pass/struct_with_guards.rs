//! A struct with a guard on each kind of field validates in one pass and builds the value serde
//! builds.
#![deny(warnings)]

use guardrails::ToolArgs;
use serde_json::json;

/// Creates a user.
#[derive(Debug, PartialEq, serde::Deserialize, ToolArgs)]
struct CreateUser {
    /// The login name.
    #[guard(length(min = 3, max = 20), pattern = "^[a-z0-9_]+$")]
    username: String,
    /// The age in years.
    #[guard(range(min = 18, max = 120))]
    age: u8,
    /// Labels, each once.
    #[guard(length(max = 5), unique)]
    #[serde(default)]
    tags: Vec<String>,
    /// An optional note.
    note: Option<String>,
}

#[test]
fn guards_of_each_kind_hold_in_one_pass() {
    let call = json!({"username": "john_doe", "age": 30, "tags": ["a", "b"]});
    let ours = CreateUser::validate_value(call.clone()).unwrap();
    let theirs: CreateUser = serde_json::from_value(call).unwrap();
    assert_eq!(ours, theirs);
    let report = CreateUser::validate_value(json!({"username": "x", "age": 7, "tags": ["a", "a"]}))
        .unwrap_err();
    assert_eq!(report.len(), 3, "{report}");
}
