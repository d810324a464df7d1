//! The functions generated code calls, one per field or check: the glue of `#[derive(ToolArgs)]`
//! and `#[derive(ToolEnum)]`, reached only through `guardrails::__private`.

use serde_json::Value;

use super::constraint::CustomCheck;
use super::context::Cx;
use super::info::{FieldInfo, Kind};
use super::quick::QuickCheck;
use super::report::IssueCode;
use super::tables::TextTable;
use super::value::ArgValue;
use crate::text::{concat, quoted_list};

/// Runs `f` inside the value of the current field: how a nested struct's fields are checked.
pub fn nested<R>(cx: &mut Cx, f: impl FnOnce(&mut Cx) -> R) -> R {
    cx.nested(f)
}

/// Checks one field of an object. `quick` holds the field's guards as constants of the
/// generated code: a value it passes is read without the general check of its constraints.
#[inline(always)]
#[expect(
    clippy::inline_always,
    reason = "one call per field in generated code; inlined, the value stays in place: 72 fewer \
              instructions per valid call of a six-field type (callgrind, profile bench)"
)]
pub fn take_field<T: ArgValue>(
    cx: &mut Cx,
    slot: Option<Value>,
    field: &'static FieldInfo,
    quick: &QuickCheck,
) -> Option<T> {
    let Some(value) = slot else {
        if T::OPTIONAL {
            return T::absent();
        }
        cx.missing(field, T::kind);
        return None;
    };
    let previous = cx.enter(field, T::kind);
    // A value of the wrong shape may be a slip a repair mends, before the field's checks (an
    // enum with data reads any shape: its own reading repairs what it finds wrong).
    let value = if cx.repairs_on() && !T::shape_matches(&value) {
        cx.repair(&T::kind(), value)
    } else {
        value
    };
    // The constraints apply to a value of the type's shape; the general check words the
    // issues of a value the quick one does not pass (and finds none when it passes after all).
    let clean = !T::shape_matches(&value) || quick.passes(&value, &field.constraints) || {
        let before = cx.issue_count();
        field.constraints.check_declared(&value, cx, field.nullable);
        cx.issue_count() == before
    };
    let out = if clean {
        T::from_arg(value, cx)
    } else {
        // A list that breaks its own guards (too long, repeated items) still has its items
        // read, so their issues come in the same pass: 51 lines with a bad quantity in one are
        // two issues, not one now and one on the next call. As everywhere, issues past the
        // report's cap are only counted. Scalars are not read: their constraint issue already
        // says what is wrong.
        if value.is_array() || value.is_object() {
            let _ = T::from_arg(value, cx);
        }
        None
    };
    cx.leave(previous);
    out
}

/// Checks one field that has a default when absent.
pub fn take_field_or<T: ArgValue>(
    cx: &mut Cx,
    slot: Option<Value>,
    field: &'static FieldInfo,
    quick: &QuickCheck,
    default: impl FnOnce() -> T,
) -> Option<T> {
    match slot {
        None => Some(default()),
        some => take_field(cx, some, field, quick),
    }
}

/// Runs a custom check on the typed value of a field.
pub fn run_custom<T: ArgValue, M, C: CustomCheck<T, M>>(
    cx: &mut Cx,
    field: &'static FieldInfo,
    value: &T,
    check: &C,
) {
    // A probe pass reads a generated example to learn the contract: no user code runs there.
    if cx.is_probing() {
        return;
    }
    if let Err(message) = check.check(value) {
        let previous = cx.enter(field, T::kind);
        cx.custom(&message);
        cx.leave(previous);
    }
}

/// Records a value that is none of an enum's names.
pub fn enum_mismatch(cx: &mut Cx, variants: &'static [&'static str], value: &Value) {
    if value.is_string() {
        // Both texts depend on the enum alone: worded once per enum, borrowed after.
        static MESSAGES: TextTable = TextTable::new();
        static EXPECTED: TextTable = TextTable::new();
        let key = (variants.as_ptr() as usize, variants.len());
        let allowed = || super::misplaced::list_text(variants, || quoted_list(variants));
        cx.fail(
            IssueCode::Enum,
            MESSAGES.text(key, || {
                concat(&["Not one of the allowed values: ", allowed(), "."])
            }),
            Some(value),
            Some(EXPECTED.text(key, || concat(&["one of ", allowed()]))),
        );
    } else {
        cx.type_mismatch(&Kind::Enum(variants), value);
    }
}
