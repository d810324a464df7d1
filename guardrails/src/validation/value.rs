//! [`ArgValue`]: how a Rust type is read from a JSON value, described, and given an example.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use serde_json::{Map, Value, json};

use super::constraint::{Constraints, compare};
use super::context::Cx;
use super::example::{bool_example, float_example, integer_example, string_example};
use super::info::Kind;
use super::number::Num;
use super::report::IssueCode;
use super::schema::allow_null;

/// A type that can be a field of tool arguments.
///
/// Implemented for strings, booleans, integers and floats (each with its own range), `Vec`,
/// `Option`, `Box`, string-keyed maps, [`serde_json::Value`], structs and enums with data
/// deriving `ToolArgs`, and enums deriving `ToolEnum`; and, each behind the feature named for its crate, for the types
/// JSON carries as strings in a format, read with the same check as `#[guard(format = ..)]` and
/// advertised with the same `format` in the schema:
///
/// | feature | types | JSON |
/// |---|---|---|
/// | `chrono` | `DateTime<Utc>` (converted to UTC), `DateTime<FixedOffset>`, `NaiveDate` | `"format": "date-time"`, `"date"` |
/// | `time` | `OffsetDateTime`, `Date` | `"format": "date-time"`, `"date"` |
/// | `uuid` | `Uuid` | `"format": "uuid"` (hyphenated) |
/// | `url` | `Url` | `"format": "uri"` (absolute) |
/// | `rust_decimal` | `Decimal` | a string matching `^-?[0-9]{1,14}(\.[0-9]{1,14})?$` |
///
/// A decimal is a string, not a JSON number, so that no client rounds it through a double
/// (`"0.10"` stays `0.10`); at most 14 digits before the point and 14 after, which every
/// `Decimal` holds exactly, so the schema's pattern and the validator agree on every string.
/// A model that sends a number is told to write it as a string.
///
/// `ToolArgs` reads these fields itself and needs no `serde::Deserialize` of them; an
/// arguments struct that derives `Deserialize` too needs the crate's own `serde` feature
/// (`chrono = { version = "0.4", features = ["serde"] }`).
///
/// # Implementing it
///
/// Implement it for a type of your own to accept it as a field: a newtype that checks what a
/// plain `String` cannot, say. [`Kind::Text`](super::Kind::Text) gives the words a message
/// uses for it; the schema says what the check enforces, and the example passes it. (`ToolArgs` does not look inside a newtype struct: a tuple struct is a
/// field type, not arguments, and it reads as the impl says.)
///
/// ```
/// use guardrails::validation::{Constraints, Cx, Kind};
/// use guardrails::{ArgValue, IssueCode, ToolArgs};
/// use serde_json::{Map, Value};
///
/// /// A customer id: `cus_` and eight lowercase letters or digits.
/// #[derive(Debug, serde::Deserialize)]
/// struct CustomerId(String);
///
/// fn is_customer_id(s: &str) -> bool {
///     s.strip_prefix("cus_").is_some_and(|rest| {
///         rest.len() == 8 && rest.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
///     })
/// }
///
/// impl ArgValue for CustomerId {
///     fn kind() -> Kind {
///         // The words of "Expected …" and "Fix: …" when the field is missing or not a string.
///         Kind::Text("a customer id: cus_ and 8 lowercase letters or digits, such as cus_1a2b3c4d")
///     }
///     fn schema() -> Map<String, Value> {
///         let mut schema = String::schema();
///         schema.insert("pattern".into(), "^cus_[a-z0-9]{8}$".into());
///         schema
///     }
///     fn shape_matches(value: &Value) -> bool {
///         String::shape_matches(value)
///     }
///     fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
///         let Value::String(text) = &value else {
///             cx.type_mismatch(&Self::kind(), &value);
///             return None;
///         };
///         if !is_customer_id(text) {
///             cx.fail(
///                 IssueCode::Pattern,
///                 "Not a customer id.",
///                 Some(&value),
///                 Some("a customer id: cus_ and 8 lowercase letters or digits, such as cus_1a2b3c4d".into()),
///             );
///             return None;
///         }
///         Some(Self(text.clone()))
///     }
///     fn example(_: &Constraints, nth: usize) -> Value {
///         // Distinct for each `nth`, for a `Vec<CustomerId>` with `unique`.
///         Value::from(format!("cus_{:08}", 12_345_678 + nth))
///     }
/// }
///
/// /// Arguments of `merge_customers`.
/// #[derive(serde::Deserialize, ToolArgs)]
/// struct MergeCustomers {
///     /// The customers to merge.
///     #[guard(length(min = 2, max = 5), unique)]
///     customers: Vec<CustomerId>,
/// }
///
/// // Both traits have an `example`: with both in scope, name the one meant.
/// let example = <MergeCustomers as ToolArgs>::example().clone();
/// assert!(MergeCustomers::validate_value(example).is_ok());
/// let sent = serde_json::json!({"customers": ["cus_1a2b3c4d", "bob", 7]});
/// let Err(report) = MergeCustomers::validate_value(sent) else { unreachable!() };
/// assert_eq!(report.issues()[0].code, IssueCode::Pattern);
/// assert_eq!(report.issues()[0].path, "customers[1]");
/// assert_eq!(report.issues()[1].code, IssueCode::Type);
/// assert!(report.issues()[1].message.starts_with("Expected a customer id: cus_"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of tool arguments",
    label = "this field's type does not implement `ArgValue`",
    note = "derive `ToolArgs` on a struct or an enum with data, or `ToolEnum` on an enum of unit variants, or implement `guardrails::ArgValue` for it"
)]
pub trait ArgValue: Sized {
    /// Whether the field may be absent or `null` (true for `Option`).
    #[doc(hidden)]
    const OPTIONAL: bool = false;

    /// What values of this type look like in JSON.
    fn kind() -> Kind;

    /// The JSON Schema of the type, before the field's own constraints.
    fn schema() -> Map<String, Value>;

    /// Whether `value` has the JSON type this type reads, so that the field's constraints apply.
    fn shape_matches(value: &Value) -> bool;

    /// Reads the value, recording an issue in `cx` and returning `None` when it does not fit.
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self>;

    /// Reads a value that cannot have an issue, as an item of a list: `Err` gives the value
    /// back, to be read by [`ArgValue::from_arg`] with its place in the list known. A list
    /// whose items all read here is read without building the places of its items. The
    /// default gives every value back: implement it only where reading `value` with
    /// [`ArgValue::from_arg`] could record no issue and would give the same value.
    ///
    /// # Errors
    /// The value itself, when it may have an issue.
    #[doc(hidden)]
    fn read_plain(value: Value) -> Result<Self, Value> {
        Err(value)
    }

    /// The value of an absent field, when absence is allowed.
    #[doc(hidden)]
    #[must_use]
    fn absent() -> Option<Self> {
        None
    }

    /// A valid example under `constraints`; `nth` asks for a different one when several distinct
    /// items are needed.
    fn example(constraints: &Constraints, nth: usize) -> Value;
}

impl ArgValue for String {
    fn kind() -> Kind {
        Kind::String
    }
    fn schema() -> Map<String, Value> {
        object(json!({"type": "string"}))
    }
    fn shape_matches(value: &Value) -> bool {
        value.is_string()
    }
    #[inline]
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        match value {
            Value::String(s) => Some(s),
            other => {
                cx.type_mismatch(&Self::kind(), &other);
                None
            }
        }
    }
    #[inline]
    fn read_plain(value: Value) -> Result<Self, Value> {
        match value {
            Value::String(s) => Ok(s),
            other => Err(other),
        }
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        string_example(constraints, nth)
    }
}

impl ArgValue for bool {
    fn kind() -> Kind {
        Kind::Boolean
    }
    fn schema() -> Map<String, Value> {
        object(json!({"type": "boolean"}))
    }
    fn shape_matches(value: &Value) -> bool {
        value.is_boolean()
    }
    #[inline]
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        match value {
            Value::Bool(b) => Some(b),
            other => {
                cx.type_mismatch(&Self::kind(), &other);
                None
            }
        }
    }
    #[inline]
    fn read_plain(value: Value) -> Result<Self, Value> {
        match value {
            Value::Bool(b) => Ok(b),
            other => Err(other),
        }
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        bool_example(constraints, nth)
    }
}

/// The largest integer every JSON client holds exactly: 2^53 - 1. JavaScript and every other
/// client that reads numbers as IEEE 754 doubles rounds larger ones (`9007199254740993` reads
/// as `9007199254740992`), so an integer field accepts at most this magnitude, whatever its Rust
/// type: the schema advertises no value a client cannot send exactly, and the validator accepts
/// nothing the schema rejects. An identifier that needs all 64 bits belongs in a string field.
pub(crate) const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// The range an integer field of a Rust type with range `[min, max]` accepts: the type's
/// range within ±[`MAX_SAFE_INTEGER`].
const fn json_safe(min: i128, max: i128) -> (i128, i128) {
    let safe = MAX_SAFE_INTEGER as i128;
    (
        if min < -safe { -safe } else { min },
        if max > safe { safe } else { max },
    )
}

/// Why a bound is where it is, when it is the JSON-safe limit rather than the type's own.
/// The issue of an integer past `limit`, the smallest (or, `upper`, the largest) value its type
/// holds: its code, message and what is expected. Shared with the validator built from a JSON
/// Schema, where an integer `format` names the type.
pub(crate) fn type_range_issue(limit: i128, upper: bool) -> (IssueCode, String, String) {
    let (code, word, expected) = if upper {
        (IssueCode::TooLarge, "largest", "at most")
    } else {
        (IssueCode::TooSmall, "smallest", "at least")
    };
    (
        code,
        format!(
            "Out of range: the {word} value this field holds is {limit}{}.",
            safe_limit_note(limit)
        ),
        format!("{expected} {limit}"),
    )
}

fn safe_limit_note(bound: i128) -> &'static str {
    if bound.unsigned_abs() == u128::from(MAX_SAFE_INTEGER.unsigned_abs()) {
        " (2^53 - 1: JSON clients do not hold larger integers exactly; send an identifier that needs more as a string field)"
    } else {
        ""
    }
}

/// Reads an integer within `[min, max]`, reporting fractions as type issues and values outside
/// the range as range issues.
fn integer_from_arg(value: &Value, cx: &mut Cx, min: i128, max: i128) -> Option<i128> {
    let kind = Kind::Integer { min, max };
    let Value::Number(n) = value else {
        cx.type_mismatch(&kind, value);
        return None;
    };
    let exact = n
        .as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from));
    let whole = match exact {
        Some(i) => Some(i),
        None => n.as_f64().filter(|f| f.fract() == 0.0).map(|_| 0),
    };
    if whole.is_none() {
        cx.fail(
            IssueCode::Type,
            "Expected an integer, got a number with a fraction.",
            Some(value),
            Some(kind.describe(&Constraints::NONE).into()),
        );
        return None;
    }
    if compare(n, Num::Int(min)) == Some(std::cmp::Ordering::Less) {
        let (code, message, expected) = type_range_issue(min, false);
        cx.fail(code, message, Some(value), Some(expected.into()));
        return None;
    }
    if compare(n, Num::Int(max)) == Some(std::cmp::Ordering::Greater) {
        let (code, message, expected) = type_range_issue(max, true);
        cx.fail(code, message, Some(value), Some(expected.into()));
        return None;
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "integral and within the type's range"
    )]
    exact.or_else(|| n.as_f64().map(|f| f as i128))
}

macro_rules! integer_arg {
    ($($ty:ty),*) => {$(
        #[allow(clippy::cast_lossless, reason = "`isize` and `usize` have no `From` into `i128`")]
        impl ArgValue for $ty {
            fn kind() -> Kind {
                let (min, max) = json_safe(<$ty>::MIN as i128, <$ty>::MAX as i128);
                Kind::Integer { min, max }
            }
            fn schema() -> Map<String, Value> {
                let (min, max) = json_safe(<$ty>::MIN as i128, <$ty>::MAX as i128);
                object(json!({
                    "type": "integer",
                    "minimum": Num::Int(min).to_json(),
                    "maximum": Num::Int(max).to_json(),
                }))
            }
            fn shape_matches(value: &Value) -> bool {
                value.is_number()
            }
            #[inline]
            fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
                match Self::read_plain(value) {
                    Ok(read) => Some(read),
                    Err(value) => {
                        let (min, max) = json_safe(<$ty>::MIN as i128, <$ty>::MAX as i128);
                        let int = integer_from_arg(&value, cx, min, max)?;
                        <$ty>::try_from(int).ok()
                    }
                }
            }
            #[inline]
            fn read_plain(value: Value) -> Result<Self, Value> {
                // An integer within the range: nothing to report.
                let (min, max) = json_safe(<$ty>::MIN as i128, <$ty>::MAX as i128);
                if let Value::Number(n) = &value
                    && let Some(int) = n.as_i64()
                    && (min..=max).contains(&i128::from(int))
                    && let Ok(read) = <$ty>::try_from(int)
                {
                    return Ok(read);
                }
                Err(value)
            }
            fn example(constraints: &Constraints, nth: usize) -> Value {
                let (min, max) = json_safe(<$ty>::MIN as i128, <$ty>::MAX as i128);
                integer_example(constraints, nth, min, max)
            }
        }
    )*};
}

integer_arg!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// Reads any JSON number as `f64`, reporting magnitudes beyond `limit` as range issues.
fn float_from_arg(value: &Value, cx: &mut Cx, limit: Option<f64>) -> Option<f64> {
    let Value::Number(n) = value else {
        cx.type_mismatch(
            &Kind::Number {
                max_magnitude: limit,
            },
            value,
        );
        return None;
    };
    let f = n.as_f64()?;
    if let Some(limit) = limit {
        if f > limit {
            cx.fail(
                IssueCode::TooLarge,
                format!("Out of range: the largest value this field holds is {limit:e}."),
                Some(value),
                Some(format!("at most {limit:e}").into()),
            );
            return None;
        }
        if f < -limit {
            cx.fail(
                IssueCode::TooSmall,
                format!("Out of range: the smallest value this field holds is -{limit:e}."),
                Some(value),
                Some(format!("at least -{limit:e}").into()),
            );
            return None;
        }
    }
    Some(f)
}

impl ArgValue for f64 {
    fn kind() -> Kind {
        Kind::Number {
            max_magnitude: None,
        }
    }
    fn schema() -> Map<String, Value> {
        object(json!({"type": "number"}))
    }
    fn shape_matches(value: &Value) -> bool {
        value.is_number()
    }
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        float_from_arg(&value, cx, None)
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        float_example(constraints, nth)
    }
}

impl ArgValue for f32 {
    fn kind() -> Kind {
        Kind::Number {
            max_magnitude: Some(f64::from(f32::MAX)),
        }
    }
    fn schema() -> Map<String, Value> {
        let max = f64::from(f32::MAX);
        object(json!({"type": "number", "minimum": -max, "maximum": max}))
    }
    fn shape_matches(value: &Value) -> bool {
        value.is_number()
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "checked to be within f32's range"
    )]
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        float_from_arg(&value, cx, Some(f64::from(f32::MAX))).map(|f| f as f32)
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        float_example(constraints, nth)
    }
}

impl<T: ArgValue> ArgValue for Option<T> {
    const OPTIONAL: bool = true;
    fn kind() -> Kind {
        T::kind()
    }
    fn schema() -> Map<String, Value> {
        T::schema()
    }
    fn shape_matches(value: &Value) -> bool {
        !value.is_null() && T::shape_matches(value)
    }
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        match value {
            // `Option<Option<T>>`: an absent field is `None` (`absent`), `null` is
            // `Some(None)`, a value `Some(Some(v))`, so a partial update can clear a field.
            Value::Null if T::OPTIONAL => T::from_arg(Value::Null, cx).map(Some),
            Value::Null => Some(None),
            other => T::from_arg(other, cx).map(Some),
        }
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        T::example(constraints, nth)
    }
}

impl<T: ArgValue> ArgValue for Box<T> {
    const OPTIONAL: bool = T::OPTIONAL;
    fn kind() -> Kind {
        T::kind()
    }
    fn schema() -> Map<String, Value> {
        T::schema()
    }
    fn shape_matches(value: &Value) -> bool {
        T::shape_matches(value)
    }
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        T::from_arg(value, cx).map(Box::new)
    }
    fn absent() -> Option<Self> {
        T::absent().map(Box::new)
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        T::example(constraints, nth)
    }
}

impl<T: ArgValue> ArgValue for Vec<T> {
    fn kind() -> Kind {
        Kind::Array(Box::new(T::kind()))
    }
    fn schema() -> Map<String, Value> {
        let mut items = T::schema();
        if T::OPTIONAL {
            allow_null(&mut items);
        }
        object(json!({"type": "array", "items": items}))
    }
    fn shape_matches(value: &Value) -> bool {
        value.is_array()
    }
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        let items = match value {
            Value::Array(items) => items,
            other => {
                cx.type_mismatch(&Self::kind(), &other);
                return None;
            }
        };
        let mut list = Vec::with_capacity(items.len());
        let mut items = items.into_iter().enumerate();
        // The items that cannot have an issue are read as they are; from the first that may,
        // the rest are read with their places known. No item before it had an issue, so the
        // issues are the same as when every item is read with its place.
        let first = loop {
            match items.next() {
                None => return Some(list),
                Some((i, item)) => match T::read_plain(item) {
                    Ok(read) => list.push(read),
                    Err(item) => break (i, item),
                },
            }
        };
        let mut out = Some(list);
        cx.in_list(|list_cx| {
            for (i, item) in std::iter::once(first).chain(items) {
                let cx = list_cx.at(i);
                let item = repaired::<T>(item, cx);
                let read = T::from_arg(item, cx);
                match (read, &mut out) {
                    (Some(v), Some(list)) => list.push(v),
                    _ => out = None,
                }
            }
        });
        out
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        let min = usize::try_from(constraints.min_length.unwrap_or(1).max(1)).unwrap_or(1);
        let max = constraints
            .max_length
            .and_then(|m| usize::try_from(m).ok())
            .unwrap_or(usize::MAX);
        let count = min.min(max).min(16);
        let items: Vec<Value> = (0..count)
            .map(|i| T::example(&Constraints::NONE, i + nth))
            .collect();
        // A recursive item type reached itself: the shortest valid example leaves it out.
        if !T::OPTIONAL && items.iter().any(Value::is_null) {
            return Value::Array(Vec::new());
        }
        Value::Array(items)
    }
}

/// An item of a list or a value of a map, repaired when the pass repairs and it does not have
/// its type's shape.
fn repaired<T: ArgValue>(value: Value, cx: &mut Cx) -> Value {
    if cx.repairs_on() && !T::shape_matches(&value) {
        cx.repair(&T::kind(), value)
    } else {
        value
    }
}

fn map_from_arg<T: ArgValue, M: Default + Extend<(String, T)>>(
    value: Value,
    cx: &mut Cx,
    kind: &Kind,
) -> Option<M> {
    let entries = match value {
        Value::Object(entries) => entries,
        other => {
            cx.type_mismatch(kind, &other);
            return None;
        }
    };
    let mut out = Some(M::default());
    for (key, item) in entries {
        let read = cx.at_key(&key, |cx| T::from_arg(repaired::<T>(item, cx), cx));
        match (read, &mut out) {
            (Some(v), Some(map)) => map.extend([(key, v)]),
            _ => out = None,
        }
    }
    out
}

fn map_schema<T: ArgValue>() -> Map<String, Value> {
    let mut values = T::schema();
    if T::OPTIONAL {
        allow_null(&mut values);
    }
    object(json!({"type": "object", "additionalProperties": values}))
}

impl<T: ArgValue> ArgValue for BTreeMap<String, T> {
    fn kind() -> Kind {
        Kind::Map(Box::new(T::kind()))
    }
    fn schema() -> Map<String, Value> {
        map_schema::<T>()
    }
    fn shape_matches(value: &Value) -> bool {
        value.is_object()
    }
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        map_from_arg(value, cx, &Self::kind())
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        map_example::<T>(constraints, nth)
    }
}

impl<T: ArgValue, S: BuildHasher + Default> ArgValue for HashMap<String, T, S> {
    fn kind() -> Kind {
        Kind::Map(Box::new(T::kind()))
    }
    fn schema() -> Map<String, Value> {
        map_schema::<T>()
    }
    fn shape_matches(value: &Value) -> bool {
        value.is_object()
    }
    fn from_arg(value: Value, cx: &mut Cx) -> Option<Self> {
        map_from_arg(value, cx, &Self::kind())
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        map_example::<T>(constraints, nth)
    }
}

impl ArgValue for Value {
    const OPTIONAL: bool = false;
    fn kind() -> Kind {
        Kind::Any
    }
    fn schema() -> Map<String, Value> {
        Map::new()
    }
    fn shape_matches(_: &Value) -> bool {
        true
    }
    fn from_arg(value: Value, _: &mut Cx) -> Option<Self> {
        Some(value)
    }
    fn example(constraints: &Constraints, nth: usize) -> Value {
        string_example(constraints, nth)
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The example of a map: as many entries as its `length` asks (one when it leaves it free),
/// `key`, `key2`, …, each value a different example of the value type.
fn map_example<T: ArgValue>(constraints: &Constraints, nth: usize) -> Value {
    let min = constraints.min_length.unwrap_or(0).max(1);
    let entries = constraints.max_length.map_or(min, |max| min.min(max));
    // A bound in the thousands would make an example no model should copy; the checked example
    // then says so at startup.
    let entries = usize::try_from(entries).unwrap_or(usize::MAX).min(64);
    let mut map = Map::new();
    for i in 0..entries {
        let key = if i == 0 {
            "key".to_owned()
        } else {
            format!("key{}", i + 1)
        };
        map.insert(key, T::example(&Constraints::NONE, nth + i));
    }
    Value::Object(map)
}
