//! Small helpers the tests and the benchmarks share.

use guardrails::contract::{Contract, Delta, KnownGood, ServerContract};
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

/// A contract as its lockfile entry records it (`args`, `checks`, `annotations`, …): what a
/// test reads of a contract.
///
/// # Panics
/// Never: a contract always serializes.
#[must_use]
pub fn entry(contract: &Contract) -> Value {
    serde_json::to_value(contract).expect("a contract serializes")
}

/// A copy of `contract` with its lockfile entry edited: a changed contract, as a new release
/// would declare it.
///
/// # Panics
/// When the edited entry is not a valid contract.
#[must_use]
pub fn edited(contract: &Contract, edit: impl FnOnce(&mut Value)) -> Contract {
    let mut value = entry(contract);
    edit(&mut value);
    serde_json::from_value(value).expect("the edited entry is a valid contract")
}

/// The changes of one tool from `before` to `after`, as a server calibrated on `before` sees
/// them.
#[must_use]
pub fn deltas(before: &Contract, after: &Contract) -> Vec<Delta> {
    KnownGood::from(std::iter::once(before.clone()).collect::<ServerContract>()).deltas(after)
}

/// The keys of a result's `_meta` entries, as `CallOutput`'s documentation and the README give
/// them: the tests check what clients read.
pub mod meta {
    /// The structured report of a rejected or failed call.
    pub const REPORT_META_KEY: &str = "dev.guardrails/report";
    /// The receipts of the repairs made to a call's arguments.
    pub const REPAIRS_META_KEY: &str = "dev.guardrails/repairs";
    /// The classification of a rejected or failed call.
    pub const FAILURE_META_KEY: &str = "dev.guardrails/failure";
}
