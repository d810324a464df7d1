//! Small helpers the tests and the benchmarks share.

use guardrails::{IssueCode, Report, ToolArgs};
use serde_json::{Map, Value};

/// The object inside `value`, or an empty object when it is not one.
#[must_use]
pub fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The report of arguments that must be rejected.
///
/// # Panics
/// When the arguments validate: the caller expected them not to.
#[must_use]
pub fn reject<T: ToolArgs>(value: Value) -> Report {
    match T::validate_value(value) {
        Ok(_) => panic!("the arguments should have been rejected"),
        Err(report) => report,
    }
}

/// The path and code of every kept issue, in order.
#[must_use]
pub fn codes(report: &Report) -> Vec<(&str, IssueCode)> {
    report
        .issues()
        .iter()
        .map(|issue| (&*issue.path, issue.code))
        .collect()
}
