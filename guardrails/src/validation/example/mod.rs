//! Valid examples, built from the same declarations the validator runs: each field's value
//! under its constraints (a string matching its pattern, a number inside its range and on its
//! step, the first allowed value, …) and the complete example of an arguments type. Every
//! candidate is checked against the constraints before it is chosen.

pub(crate) mod regex_sample;

use std::cell::RefCell;
use std::sync::{OnceLock, PoisonError, RwLock};

use serde_json::{Map, Value, json};

use super::args::ToolArgs;
use super::constraint::Constraints;
use super::info::{ArgsInfo, EnumInfo, Tagging, VariantInfo, guarded, in_progress};
use super::number::Num;
use super::report::Tally;
use super::string_format::StringFormat;

thread_local! {
    /// The argument types whose example is being built on this thread, innermost last.
    static EXAMPLES_IN_PROGRESS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The most examples [`lasting_example`] notes; a program reaches it only by making statics
/// at run time.
const MAX_LASTING: usize = 4096;

/// The addresses of the examples that live in statics: one per arguments type.
static LASTING: RwLock<Vec<usize>> = RwLock::new(Vec::new());

/// The example of an arguments type, kept in its static `cell` and made by `make` the first
/// time: generated code calls it. The example is noted as lasting, so that a renderer may keep
/// its text by its address alone.
pub fn lasting_example(
    cell: &'static OnceLock<Value>,
    make: impl FnOnce() -> Value,
) -> &'static Value {
    if let Some(example) = cell.get() {
        return example;
    }
    let example = cell.get_or_init(make);
    let at = std::ptr::from_ref(example) as usize;
    let mut lasting = LASTING.write().unwrap_or_else(PoisonError::into_inner);
    if lasting.len() < MAX_LASTING && !lasting.contains(&at) {
        lasting.push(at);
    }
    example
}

/// Whether `value` is an example [`lasting_example`] keeps: at its address, the same value
/// for the rest of the process (a static is never freed nor changed once set).
pub(crate) fn is_lasting(value: &Value) -> bool {
    let at = std::ptr::from_ref(value) as usize;
    LASTING
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .contains(&at)
}

/// Whether `value` passes `constraints` (used to pick examples).
fn accepts(constraints: &Constraints, value: &Value) -> bool {
    let mut tally = Tally::default();
    constraints.check(value, &mut tally, false);
    tally.0 == 0
}

fn first_accepted(
    constraints: &Constraints,
    nth: usize,
    candidates: impl IntoIterator<Item = Value>,
) -> Option<Value> {
    if let Some(lit) = constraints
        .one_of
        .get(nth % constraints.one_of.len().max(1))
    {
        return Some(lit.to_json());
    }
    candidates
        .into_iter()
        .filter(|v| accepts(constraints, v))
        .nth(nth)
}

pub(crate) fn string_example(constraints: &Constraints, nth: usize) -> Value {
    let min = usize::try_from(constraints.min_length.unwrap_or(0)).unwrap_or(usize::MAX);
    let max = constraints.max_length.and_then(|m| usize::try_from(m).ok());
    let fit = |base: &str| -> String {
        let mut s: String = base.chars().take(max.unwrap_or(usize::MAX)).collect();
        while s.chars().count() < min {
            s.push('x');
        }
        s
    };
    let mut candidates = Vec::new();
    if let Some(format) = constraints.format {
        candidates.push(Value::from(format.example()));
        candidates.extend(format_variants(format, nth));
    }
    if let Some(pattern) = &constraints.pattern {
        for extra in 0..=nth {
            if let Some(s) = regex_sample::plausible_sample(pattern.source(), min + extra, max) {
                candidates.push(Value::from(s));
            }
        }
    }
    for word in ["example", "example_value", "sample"] {
        candidates.push(Value::from(fit(word)));
    }
    for i in 1..=nth + 1 {
        candidates.push(Value::from(fit(&format!("example{i}"))));
    }
    let mut unique = Vec::new();
    for c in candidates {
        if !unique.contains(&c) {
            unique.push(c);
        }
    }
    first_accepted(constraints, nth, unique).unwrap_or_else(|| Value::from(fit("example")))
}

fn format_variants(format: StringFormat, nth: usize) -> Vec<Value> {
    let example = format.example();
    (1..=nth)
        .filter_map(|i| match format {
            StringFormat::Email => Some(format!("user{i}@example.com")),
            StringFormat::Url => Some(format!("https://example.com/{i}")),
            StringFormat::Uuid => Some(format!(
                "123e4567-e89b-12d3-a456-{:012}",
                426_614_174_000 + i
            )),
            StringFormat::Date => Some(format!("2024-{:02}-{:02}", 1 + (i / 28) % 12, 1 + i % 28)),
            StringFormat::DateTime => Some(format!(
                "2024-01-{:02}T09:{:02}:00Z",
                1 + (i / 60) % 28,
                i % 60
            )),
            _ => None,
        })
        .map(Value::from)
        .chain(std::iter::once(Value::from(example)))
        .collect()
}

/// `false` first: the value a flag has when it is not sent, so an example never switches on
/// what the caller should decide. An `acknowledges_policy` field in particular must never be
/// `true` in the example a model is told to start from: it would acknowledge every warning in
/// advance.
pub(crate) fn bool_example(constraints: &Constraints, nth: usize) -> Value {
    first_accepted(constraints, nth, [Value::Bool(false), Value::Bool(true)])
        .unwrap_or(Value::Bool(false))
}

#[expect(
    clippy::cast_possible_truncation,
    reason = "bounds of the field are finite here"
)]
pub(crate) fn integer_example(
    constraints: &Constraints,
    nth: usize,
    min: i128,
    max: i128,
) -> Value {
    let lower = constraints.minimum.map_or(min, |b| match b.value {
        Num::Int(i) => i + i128::from(b.exclusive),
        Num::Float(f) => f.floor() as i128 + 1,
    });
    let upper = constraints.maximum.map_or(max, |b| match b.value {
        Num::Int(i) => i - i128::from(b.exclusive),
        Num::Float(f) => f.ceil() as i128 - 1,
    });
    let (lower, upper) = (lower.max(min), upper.min(max));
    let base = if lower <= 1 && 1 <= upper {
        1
    } else if lower > 1 {
        lower
    } else {
        upper
    };
    let step = match constraints.multiple_of {
        Some(Num::Int(s)) if s > 0 => s,
        _ => 1,
    };
    let aligned = base.div_euclid(step) * step;
    let mut candidates: Vec<i128> = vec![base];
    for k in 0..(nth as i128 + 3) {
        candidates.push(aligned + k * step);
        candidates.push(aligned + (k + 1) * step);
        candidates.push(aligned - k * step);
    }
    candidates.extend([0, lower, upper]);
    let mut seen = Vec::new();
    candidates.retain(|c| {
        let fresh = !seen.contains(c);
        seen.push(*c);
        fresh
    });
    let values = candidates
        .into_iter()
        .filter(|v| (lower..=upper).contains(v))
        .map(|v| Num::Int(v).to_json());
    first_accepted(constraints, nth, values).unwrap_or_else(|| Num::Int(base).to_json())
}

pub(crate) fn float_example(constraints: &Constraints, nth: usize) -> Value {
    let lower = constraints.minimum.map(|b| b.value.as_f64());
    let upper = constraints.maximum.map(|b| b.value.as_f64());
    let mut candidates = vec![1.0, 0.5, 0.0, 2.0, 10.0];
    if let Some(l) = lower {
        candidates.extend([l, l + 1.0, l + 0.5, l.ceil(), l.ceil() + 1.0]);
    }
    if let Some(u) = upper {
        candidates.extend([u, u - 1.0, u - 0.5, u.floor(), u.floor() - 1.0]);
    }
    if let (Some(l), Some(u)) = (lower, upper) {
        candidates.push(l + (u - l) / 2.0);
    }
    if let Some(step) = constraints.multiple_of.map(Num::as_f64) {
        let anchor = lower.or(upper).unwrap_or(0.0);
        for k in 0..(nth + 3) {
            #[expect(clippy::cast_precision_loss, reason = "k is small")]
            let k = k as f64;
            candidates.push(((anchor / step).ceil() + k) * step);
            candidates.push(((anchor / step).floor() - k) * step);
        }
    }
    let values = candidates
        .into_iter()
        .filter_map(|f| serde_json::Number::from_f64(f).map(Value::Number));
    first_accepted(constraints, nth, values).unwrap_or_else(|| json!(1.0))
}

/// The example of an enum: its first allowed name. Used by generated code.
#[must_use]
pub fn enum_example(variants: &[&str], constraints: &Constraints, nth: usize) -> Value {
    first_accepted(constraints, nth, variants.iter().map(|v| Value::from(*v)))
        .or_else(|| {
            variants
                .get(nth % variants.len().max(1))
                .map(|v| Value::from(*v))
        })
        .unwrap_or(Value::Null)
}

/// The example of an arguments type: every field a caller can send, with its example value.
/// Called once per type by generated code.
#[must_use]
pub fn build_example(info: &ArgsInfo) -> Value {
    guarded(&EXAMPLES_IN_PROGRESS, info, || {
        let mut example = Map::new();
        for field in info.wire_fields() {
            example.insert(field.name.to_owned(), field.example_value());
        }
        for flattened in info.flattened {
            if let Value::Object(keys) = variants_example(flattened, 0) {
                example.extend(keys);
            }
        }
        Value::Object(example)
    })
    .unwrap_or(Value::Null)
}

/// The example of an arguments type used as a field; `null` where a recursive type reaches
/// itself (containers then leave the item out). Used by generated code.
#[must_use]
pub fn nested_example<T: ToolArgs>() -> Value {
    if in_progress(&EXAMPLES_IN_PROGRESS, T::info()) {
        return Value::Null;
    }
    T::example().clone()
}

/// A valid example of an enum with data: a variant with fields when there is one (the `nth`
/// such, for distinct items), in the enum's representation. Used by generated code.
#[must_use]
pub fn variants_example(info: &'static EnumInfo, nth: usize) -> Value {
    let with_fields: Vec<&VariantInfo> = info
        .variants
        .iter()
        .filter(|v| v.fields.is_some())
        .collect();
    let pool: Vec<&VariantInfo> = if with_fields.is_empty() {
        info.variants.iter().collect()
    } else {
        with_fields
    };
    let Some(variant) = pool.get(nth % pool.len().max(1)) else {
        return Value::Null;
    };
    let fields = variant.args().map(build_example);
    // A recursive type that reached itself has no example here.
    if fields.as_ref().is_some_and(Value::is_null) {
        return Value::Null;
    }
    match info.tagging {
        Tagging::Internal { tag } => {
            let mut out = Map::new();
            out.insert(tag.to_owned(), variant.name.into());
            if let Some(Value::Object(fields)) = fields {
                out.extend(fields);
            }
            Value::Object(out)
        }
        Tagging::Adjacent { tag, content } => {
            let mut out = Map::new();
            out.insert(tag.to_owned(), variant.name.into());
            if let Some(fields) = fields {
                out.insert(content.to_owned(), fields);
            }
            Value::Object(out)
        }
        Tagging::External => match fields {
            Some(fields) => {
                let mut out = Map::new();
                out.insert(variant.name.to_owned(), fields);
                Value::Object(out)
            }
            None => Value::from(variant.name),
        },
        Tagging::Untagged => fields.unwrap_or(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_example_in_a_static_is_lasting_and_a_copy_of_it_is_not() {
        static CELL: OnceLock<Value> = OnceLock::new();
        let example = lasting_example(&CELL, || json!({"a": 1}));
        assert_eq!(example, &json!({"a": 1}));
        assert!(is_lasting(example));
        let again = lasting_example(&CELL, || unreachable!("a kept example is not made again"));
        assert!(std::ptr::eq(example, again));
        let copy = example.clone();
        assert!(!is_lasting(&copy));
    }
}
