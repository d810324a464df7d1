//! The check that lets a clean value through without wording anything: a field's guards as
//! constants of the generated code, so that each field pays only for the guards it declares.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::constraint::{Constraints, Literal, compare, first_duplicate};
use super::number::{Bound, Num};
use super::string_format::StringFormat;

/// The guards of one field as the derive declares them, a constant of the generated code:
/// inlined with it, [`QuickCheck::passes`] compiles to the checks of the guards the field has
/// and nothing else. Not part of the public API.
///
/// It only ever answers "no issue": when it does not, the field's [`Constraints`] check the
/// value again and word each issue, so what a call is told cannot depend on it.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct QuickCheck {
    min_length: Option<u64>,
    max_length: Option<u64>,
    minimum: Option<Bound>,
    maximum: Option<Bound>,
    /// Whether the field's constraints hold a pattern (the compiled pattern stays with them).
    pattern: bool,
    format: Option<StringFormat>,
    one_of: &'static [Literal],
    unique: bool,
    multiple_of: Option<Num>,
}

impl QuickCheck {
    /// The guards of generated code, in the order of [`Constraints::from_parts`] with the
    /// pattern as a flag and without `custom` (a custom check runs on the typed value).
    #[must_use]
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per guard, as `Constraints::from_parts`"
    )]
    pub const fn from_parts(
        min_length: Option<u64>,
        max_length: Option<u64>,
        minimum: Option<Bound>,
        maximum: Option<Bound>,
        pattern: bool,
        format: Option<StringFormat>,
        one_of: &'static [Literal],
        unique: bool,
        multiple_of: Option<Num>,
    ) -> Self {
        Self {
            min_length,
            max_length,
            minimum,
            maximum,
            pattern,
            format,
            one_of,
            unique,
            multiple_of,
        }
    }

    /// Whether `value` surely breaks none of these guards: `true` only where
    /// [`Constraints::check_declared`] of the same guards (`constraints`, whose compiled
    /// pattern it uses) would record no issue. `false` leaves the answer to that check.
    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "with the guards a constant of the caller, the checks of the guards a field \
                  does not declare fold away"
    )]
    pub(crate) fn passes(&self, value: &Value, constraints: &Constraints) -> bool {
        // Rare on arguments, and cheap to leave to the full check.
        if !self.one_of.is_empty() || self.multiple_of.is_some() {
            return false;
        }
        // Each guard applies only to the JSON type it is about, as in `check_declared`.
        match value {
            Value::String(s) => self.string_passes(s, constraints),
            Value::Array(items) => {
                self.length_passes(items.len() as u64)
                    && (!self.unique || first_duplicate(items).is_none())
            }
            Value::Number(n) => admits(self.minimum, n, false) && admits(self.maximum, n, true),
            Value::Object(map) => self.length_passes(map.len() as u64),
            Value::Null | Value::Bool(_) => true,
        }
    }

    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "part of `QuickCheck::passes`, folded with it"
    )]
    fn length_passes(&self, len: u64) -> bool {
        self.min_length.is_none_or(|min| len >= min) && self.max_length.is_none_or(|max| len <= max)
    }

    #[inline(always)]
    #[expect(
        clippy::inline_always,
        reason = "part of `QuickCheck::passes`, folded with it"
    )]
    fn string_passes(&self, s: &str, constraints: &Constraints) -> bool {
        if self.min_length.is_some() || self.max_length.is_some() {
            // The byte length decides most strings (a code point takes one to four bytes);
            // only the others are counted in characters.
            let bytes = s.len() as u64;
            let surely_fits = self.min_length.is_none_or(|min| bytes.div_ceil(4) >= min)
                && self.max_length.is_none_or(|max| bytes <= max);
            if !surely_fits && !self.length_passes(s.chars().count() as u64) {
                return false;
            }
        }
        if self.pattern && !constraints.pattern.as_ref().is_some_and(|p| p.is_match(s)) {
            return false;
        }
        self.format.is_none_or(|format| format.is_valid(s))
    }
}

/// Whether `n` is on the allowed side of `bound`, a lower one or an `upper` one, exactly as
/// the full check compares it; an integer against an integer bound without the general
/// comparison.
#[inline(always)]
#[expect(
    clippy::inline_always,
    reason = "part of `QuickCheck::passes`, folded with it"
)]
fn admits(bound: Option<Bound>, n: &Number, upper: bool) -> bool {
    let Some(bound) = bound else {
        return true;
    };
    let ord = match (n.as_i64(), bound.value) {
        (Some(int), Num::Int(b)) => Some(i128::from(int).cmp(&b)),
        _ => compare(n, bound.value),
    };
    let inside = if upper {
        Ordering::Less
    } else {
        Ordering::Greater
    };
    ord == Some(inside) || (!bound.exclusive && ord == Some(Ordering::Equal))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::validation::constraint::Pattern;
    use crate::validation::report::Tally;

    /// One set of guards, from which both checks are built.
    #[derive(Clone, Copy)]
    struct Guards {
        min_length: Option<u64>,
        max_length: Option<u64>,
        minimum: Option<Bound>,
        maximum: Option<Bound>,
        pattern: Option<&'static str>,
        format: Option<StringFormat>,
        one_of: &'static [Literal],
        unique: bool,
        multiple_of: Option<Num>,
    }

    const NONE: Guards = Guards {
        min_length: None,
        max_length: None,
        minimum: None,
        maximum: None,
        pattern: None,
        format: None,
        one_of: &[],
        unique: false,
        multiple_of: None,
    };

    fn at(value: Num, exclusive: bool) -> Bound {
        Bound { value, exclusive }
    }

    impl Guards {
        fn quick(self) -> QuickCheck {
            QuickCheck::from_parts(
                self.min_length,
                self.max_length,
                self.minimum,
                self.maximum,
                self.pattern.is_some(),
                self.format,
                self.one_of,
                self.unique,
                self.multiple_of,
            )
        }

        fn constraints(self) -> Constraints {
            Constraints::from_parts(
                self.min_length,
                self.max_length,
                self.minimum,
                self.maximum,
                self.pattern.map(Pattern::new),
                self.format,
                self.one_of,
                self.unique,
                self.multiple_of,
                false,
            )
        }
    }

    fn guard_sets() -> Vec<Guards> {
        vec![
            NONE,
            Guards {
                min_length: Some(3),
                max_length: Some(120),
                ..NONE
            },
            Guards {
                min_length: Some(3),
                ..NONE
            },
            Guards {
                max_length: Some(2),
                ..NONE
            },
            Guards {
                pattern: Some("^[a-z][a-z0-9_]{2,31}$"),
                ..NONE
            },
            Guards {
                min_length: Some(2),
                pattern: Some("[0-9]"),
                format: Some(StringFormat::Date),
                ..NONE
            },
            Guards {
                format: Some(StringFormat::Email),
                ..NONE
            },
            Guards {
                minimum: Some(at(Num::Int(1), false)),
                maximum: Some(at(Num::Int(5), false)),
                ..NONE
            },
            Guards {
                minimum: Some(at(Num::Float(0.0), true)),
                maximum: Some(at(Num::Float(1.0), true)),
                ..NONE
            },
            Guards {
                minimum: Some(at(Num::Int(-1000), true)),
                maximum: Some(at(Num::Int(i128::from(u64::MAX)), false)),
                ..NONE
            },
            Guards {
                max_length: Some(10),
                unique: true,
                ..NONE
            },
            Guards {
                min_length: Some(1),
                max_length: Some(2),
                unique: true,
                ..NONE
            },
            Guards {
                one_of: &[Literal::Str("a"), Literal::Int(1)],
                ..NONE
            },
            Guards {
                multiple_of: Some(Num::Int(3)),
                ..NONE
            },
        ]
    }

    fn values() -> Vec<Value> {
        let mut values = vec![
            json!(null),
            json!(true),
            json!(""),
            json!("a"),
            json!("ab"),
            json!("abc"),
            json!("jane_doe"),
            json!("Jane Doe"),
            json!("2026-12-01"),
            json!("2026-13-01"),
            json!("user@example.com"),
            json!("éé"),
            json!("日本"),
            json!("😀😀😀"),
            json!("a".repeat(120)),
            json!("a".repeat(121)),
            json!("é".repeat(61)),
            json!(0),
            json!(1),
            json!(3),
            json!(5),
            json!(6),
            json!(-1),
            json!(-1000),
            json!(-999),
            json!(1.0),
            json!(0.5),
            json!(2.5),
            json!(1e30),
            json!(-1e30),
            json!(u64::MAX),
            json!(i64::MIN),
            json!([]),
            json!(["a"]),
            json!(["a", "b"]),
            json!(["a", "a"]),
            json!(["a", "b", "a"]),
            json!([1, 1.0]),
            json!([{"x": 1, "y": 2}, {"y": 2, "x": 1}]),
            json!({}),
            json!({"a": 1}),
            json!({"a": 1, "b": 2, "c": 3}),
        ];
        values.push(Value::Array((0..11).map(Value::from).collect()));
        values.push(Value::Array((0..20).map(|i| Value::from(i % 19)).collect()));
        values
    }

    /// What the generated code relies on: a value the quick check passes is one the full check
    /// finds nothing wrong with, and (but for the guards it leaves to the full check) the
    /// other way round too, so that a clean value never pays for the full check.
    #[test]
    fn passes_exactly_what_the_full_check_passes() {
        for guards in guard_sets() {
            let (quick, constraints) = (guards.quick(), guards.constraints());
            for value in values() {
                let mut tally = Tally(0);
                constraints.check_declared(&value, &mut tally, false);
                let passes = quick.passes(&value, &constraints);
                if passes {
                    assert_eq!(tally.0, 0, "{value} passes quickly but not {constraints:?}");
                }
                if guards.one_of.is_empty() && guards.multiple_of.is_none() {
                    assert_eq!(passes, tally.0 == 0, "{value} under {constraints:?}");
                } else {
                    assert!(!passes, "{value} under {constraints:?}");
                }
            }
        }
    }
}
