//! Rules across the fields of a struct (`#[guard(check = f)]` on the struct) and the checked
//! example: what no single field's guard can see, run in the same pass and reported in the same
//! report, and the proof that a type's own example passes every rule, those the derive cannot
//! see included.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::context::Cx;
use super::example::build_example;
use super::info::{ArgsInfo, FieldInfo};
use super::report::IssueCode;
use crate::text::cut;

/// The most characters of a message or expected text of a [`FieldIssue`] that a report keeps.
const MAX_RULE_TEXT_CHARS: usize = 300;

/// What a struct-level check (`#[guard(check = f)]` on a struct) finds wrong: the field it is
/// about and what is wrong with it, as a field's `custom` check says it.
///
/// The report places the issue at that field, with what the caller sent there and the field's
/// fix text, exactly as it does for the field's own guards, in every format.
///
/// ```
/// use guardrails::{FieldIssue, ToolArgs};
///
/// /// Books a room.
/// #[derive(Debug, serde::Deserialize, ToolArgs)]
/// #[guard(check = end_after_start, example = r#"{"start": 9, "end": 10}"#)]
/// struct Booking {
///     #[guard(range(min = 0, max = 23))]
///     start: u8,
///     #[guard(range(min = 1, max = 24))]
///     end: u8,
/// }
///
/// fn end_after_start(booking: &Booking) -> Result<(), FieldIssue> {
///     if booking.end <= booking.start {
///         return Err(FieldIssue::new("end", "Must be after `start`.")
///             .expected(format!("an hour after {}", booking.start)));
///     }
///     Ok(())
/// }
///
/// let report = Booking::validate_value(serde_json::json!({"start": 12, "end": 11})).unwrap_err();
/// let issue = report.at("end").unwrap();
/// assert_eq!(issue.message, "Must be after `start`.");
/// assert_eq!(issue.received.as_deref(), Some("11"));
/// assert_eq!(issue.expected.as_deref(), Some("an hour after 12"));
/// assert!(Booking::validate_value(Booking::example().clone()).is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldIssue {
    field: Cow<'static, str>,
    message: String,
    expected: Option<String>,
}

impl FieldIssue {
    /// An issue about `field`, named as on the wire or as in Rust, saying `message`. The fields
    /// of a struct flattened into this one (`#[serde(flatten)]`) are its fields too. A name that
    /// is no field of the struct places the issue at the struct itself.
    #[must_use]
    pub fn new(field: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
            expected: None,
        }
    }

    /// Says what the field should have held instead (`"a date after 2026-03-01"`).
    #[must_use]
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    /// The field the issue is about, as it was named.
    #[must_use]
    pub fn field(&self) -> &str {
        &self.field
    }

    /// What is wrong.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// What a struct-level check may return as its error: one [`FieldIssue`], or several.
#[diagnostic::on_unimplemented(
    message = "a struct-level check fails with a `FieldIssue` or a `Vec<FieldIssue>`, not `{Self}`",
    label = "this check's error names no field",
    note = "return `Err(FieldIssue::new(\"end\", \"Must be after `start`.\"))`: the issue is reported at that field"
)]
pub trait IntoFieldIssues {
    /// The issues, in the order the report lists them.
    fn into_field_issues(self) -> Vec<FieldIssue>;
}

impl IntoFieldIssues for FieldIssue {
    fn into_field_issues(self) -> Vec<FieldIssue> {
        vec![self]
    }
}

impl IntoFieldIssues for Vec<FieldIssue> {
    fn into_field_issues(self) -> Vec<FieldIssue> {
        self
    }
}

/// A struct-level check: any `Fn(&T) -> Result<(), E>` where `E` is a [`FieldIssue`] or a
/// `Vec<FieldIssue>`.
pub trait StructCheck<T> {
    /// Runs the check; no issue when the value passes.
    fn issues(&self, value: &T) -> Vec<FieldIssue>;
}

impl<T, E: IntoFieldIssues, F: Fn(&T) -> Result<(), E>> StructCheck<T> for F {
    fn issues(&self, value: &T) -> Vec<FieldIssue> {
        self(value)
            .err()
            .map_or_else(Vec::new, E::into_field_issues)
    }
}

/// Runs a struct-level check on the typed value built from `sent`, the object the caller sent,
/// recording each issue at the field it names. Used by generated code, once the struct's fields
/// passed their own guards.
pub fn run_struct_check<T, C: StructCheck<T>>(
    cx: &mut Cx,
    fields: &'static [FieldInfo],
    sent: &Map<String, Value>,
    value: &T,
    check: &C,
) {
    // A probe pass reads a generated example to learn the contract: no user code runs there.
    if cx.is_probing() {
        return;
    }
    for issue in check.issues(value) {
        record(cx, fields, sent, issue);
    }
}

/// How a check of named fields (`#[guard(check(f, fields(a, b)))]`) may take a field of type
/// `T`: by reference (`&T`), by value when `T` is `Copy` (`u8`, a unit enum), as `Option<&U>`
/// when `T` is `Option<U>`, and as `&str`, `Option<&str>` or `&[U]` for a `String`, an
/// `Option<String>` or a `Vec<U>`.
///
/// ```
/// use guardrails::{FieldIssue, ToolArgs};
///
/// #[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, guardrails::ToolEnum)]
/// #[serde(rename_all = "snake_case")]
/// enum Status { Todo, Blocked }
///
/// /// Creates a task.
/// #[derive(Debug, serde::Deserialize, ToolArgs)]
/// #[guard(check(blocked_says_why, fields(status, note)))]
/// struct CreateTask {
///     #[guard(example = "todo")]
///     status: Status,
///     note: Option<String>,
/// }
///
/// fn blocked_says_why(status: Status, note: Option<&str>) -> Result<(), FieldIssue> {
///     if status == Status::Blocked && note.is_none_or(|n| n.trim().is_empty()) {
///         return Err(FieldIssue::new("note", "A blocked task says what blocks it."));
///     }
///     Ok(())
/// }
///
/// let report = CreateTask::validate_value(serde_json::json!({"status": "blocked"})).unwrap_err();
/// assert_eq!(report.at("note").unwrap().message, "A blocked task says what blocks it.");
/// ```
#[diagnostic::on_unimplemented(
    message = "a check of named fields cannot take a field of type `{T}` as `{Self}`",
    label = "this check's parameter does not fit the field it is given",
    note = "take the field as `&{T}`, as `{T}` when it is `Copy`, as `Option<&U>` when it is an `Option<U>`, or as `&str`, `Option<&str>` or `&[U]` for a `String`, an `Option<String>` or a `Vec<U>`"
)]
pub trait FieldArg<'a, T> {
    /// The parameter, from the field's typed value.
    fn field_arg(value: &'a T) -> Self;
}

impl<'a, T> FieldArg<'a, T> for &'a T {
    fn field_arg(value: &'a T) -> Self {
        value
    }
}

impl<T: Copy> FieldArg<'_, T> for T {
    fn field_arg(value: &T) -> Self {
        *value
    }
}

impl<'a, T> FieldArg<'a, Option<T>> for Option<&'a T> {
    fn field_arg(value: &'a Option<T>) -> Self {
        value.as_ref()
    }
}

impl<'a> FieldArg<'a, String> for &'a str {
    fn field_arg(value: &'a String) -> Self {
        value
    }
}

impl<'a> FieldArg<'a, Option<String>> for Option<&'a str> {
    fn field_arg(value: &'a Option<String>) -> Self {
        value.as_deref()
    }
}

impl<'a, T> FieldArg<'a, Vec<T>> for &'a [T] {
    fn field_arg(value: &'a Vec<T>) -> Self {
        value
    }
}

/// Runs a check of named fields (`#[guard(check(f, fields(a, b)))]` on a struct), given the
/// call of `f` on those fields' typed values, recording each issue at the field it names. Used by
/// generated code, whenever the fields the check reads passed their own guards, whatever else
/// failed.
pub fn run_fields_check<E: IntoFieldIssues>(
    cx: &mut Cx,
    fields: &'static [FieldInfo],
    sent: &Map<String, Value>,
    check: impl FnOnce() -> Result<(), E>,
) {
    // A probe pass reads a generated example to learn the contract: no user code runs there.
    if cx.is_probing() {
        return;
    }
    if let Err(found) = check() {
        for issue in found.into_field_issues() {
            record(cx, fields, sent, issue);
        }
    }
}

fn record(cx: &mut Cx, fields: &'static [FieldInfo], sent: &Map<String, Value>, issue: FieldIssue) {
    let message = cut(&issue.message, MAX_RULE_TEXT_CHARS).into_owned();
    let expected = issue
        .expected
        .map(|text| cut(&text, MAX_RULE_TEXT_CHARS).into_owned());
    let wire = |f: &&FieldInfo| !f.skipped;
    let field = fields
        .iter()
        .filter(wire)
        .find(|f| f.name == issue.field)
        .or_else(|| {
            fields
                .iter()
                .filter(wire)
                .find(|f| f.rust_name == issue.field)
        });
    match field {
        Some(field) => {
            let previous = cx.enter(field, field.kind);
            cx.fail(
                IssueCode::Custom,
                message,
                field.sent_in(sent),
                expected.map(Into::into),
            );
            cx.leave(previous);
        }
        None => cx.fail(IssueCode::Custom, message, None, expected.map(Into::into)),
    }
}

/// The example of an arguments type whose author wrote part or all of it on the struct
/// (`#[guard(example = "{…}")]`): the fields it names take its values, the others the examples
/// built from their guards. Text that is not a JSON object is taken as no example at all, so
/// that the checked example rejects it. Used by generated code.
#[must_use]
pub fn build_example_over(info: &ArgsInfo, written: &str) -> Value {
    let Ok(Value::Object(written)) = serde_json::from_str::<Value>(written) else {
        return Value::Null;
    };
    match build_example(info) {
        Value::Object(mut built) => {
            built.extend(written);
            Value::Object(built)
        }
        _ => Value::Object(written),
    }
}
