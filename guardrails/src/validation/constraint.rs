//! Field constraints: declared once by `#[guard(...)]`, checked on the JSON value, described in
//! fix texts and emitted as JSON Schema keywords, so the three can never disagree.

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::sync::OnceLock;

use regex::Regex;
use regex_automata::Input;
use regex_automata::dfa::{Automaton as _, dense};
use serde_json::{Number, Value};

use super::number::{Bound, Num};
use super::report::{IssueCode, IssueSink, Tally};
use super::string_format::StringFormat;
use super::wording::{self, ANY_UNITS, CHARACTERS, ENTRIES, ITEMS, Unit};
use crate::text::{concat, push_json_string};

/// An allowed value of an explicit `one_of` list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Literal {
    /// A string value.
    Str(&'static str),
    /// An integer value.
    Int(i128),
    /// A fractional value.
    Float(f64),
    /// A boolean value.
    Bool(bool),
}

impl Literal {
    /// The JSON value of this literal.
    #[must_use]
    pub fn to_json(self) -> Value {
        match self {
            Self::Str(s) => Value::from(s),
            Self::Int(i) => Num::Int(i).to_json(),
            Self::Float(f) => Num::Float(f).to_json(),
            Self::Bool(b) => Value::Bool(b),
        }
    }

    fn matches(self, value: &Value) -> bool {
        match (self, value) {
            (Self::Str(s), Value::String(v)) => s == v,
            (Self::Bool(b), Value::Bool(v)) => b == *v,
            (Self::Int(_) | Self::Float(_), Value::Number(n)) => {
                let want = match self {
                    Self::Int(i) => Num::Int(i),
                    Self::Float(f) => Num::Float(f),
                    _ => return false,
                };
                compare(n, want) == Some(Ordering::Equal)
            }
            _ => false,
        }
    }
}

/// A regular expression declared on a field, compiled on first use.
#[derive(Debug)]
pub struct Pattern {
    source: &'static str,
    compiled: OnceLock<Option<CompiledPattern>>,
}

/// A pattern compiled for short texts: most field patterns fit a small fully built DFA, which
/// answers without the per-search setup of the general engine; the general engine answers
/// for the rest (a larger automaton, a Unicode word boundary).
#[derive(Debug)]
struct CompiledPattern {
    regex: Regex,
    dfa: Option<dense::DFA<Vec<u32>>>,
}

/// The largest fully built DFA kept for a field pattern.
const PATTERN_DFA_BYTES: usize = 64 << 10;

impl CompiledPattern {
    fn new(source: &str) -> Option<Self> {
        let regex = Regex::new(source).ok()?;
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .dfa_size_limit(Some(PATTERN_DFA_BYTES))
                    .determinize_size_limit(Some(4 * PATTERN_DFA_BYTES)),
            )
            .build(source)
            .ok();
        Some(Self { regex, dfa })
    }

    fn is_match(&self, text: &str) -> bool {
        if let Some(dfa) = &self.dfa
            && let Some(found) = dfa_is_match(dfa, text)
        {
            return found;
        }
        self.regex.is_match(text)
    }
}

/// Whether the DFA matches somewhere in `text`, walked a byte at a time (a field value is
/// short: the search routine's setup would cost more than the walk); `None` when the DFA
/// cannot tell (it gave up on a byte).
///
/// A dense DFA reports a match one byte late, so a match state seen after a byte (or after
/// the end of the text) means a match ended before it; the first one settles the question.
fn dfa_is_match(dfa: &dense::DFA<Vec<u32>>, text: &str) -> Option<bool> {
    let mut state = dfa.start_state_forward(&Input::new(text)).ok()?;
    for &byte in text.as_bytes() {
        state = dfa.next_state(state, byte);
        if dfa.is_special_state(state) {
            if dfa.is_match_state(state) {
                return Some(true);
            }
            if dfa.is_dead_state(state) {
                return Some(false);
            }
            if dfa.is_quit_state(state) {
                return None;
            }
        }
    }
    Some(dfa.is_match_state(dfa.next_eoi_state(state)))
}

impl Pattern {
    /// A pattern from its source; the derive has already checked that it compiles.
    #[must_use]
    pub const fn new(source: &'static str) -> Self {
        Self {
            source,
            compiled: OnceLock::new(),
        }
    }

    /// The source of the pattern, as written and as advertised in the schema.
    #[must_use]
    pub const fn source(&self) -> &'static str {
        self.source
    }

    /// Whether `text` contains a match (JSON Schema patterns are not anchored).
    ///
    /// A pattern that fails to compile (only possible when built by hand, since the derive checks
    /// patterns at compile time) matches nothing, so that nothing slips through.
    #[must_use]
    pub fn is_match(&self, text: &str) -> bool {
        self.compiled
            .get_or_init(|| CompiledPattern::new(self.source))
            .as_ref()
            .is_some_and(|pattern| pattern.is_match(text))
    }
}

/// A custom check on the typed value of a field: `Err` carries the message the model sees.
///
/// Any `Fn(&T) -> Result<(), String>` is one for a field of type `T`; for a field of type
/// `Option<T>` a check may also take `&T` and then runs only when a value is present. The
/// marker `M` tells the two apart and is inferred.
pub trait CustomCheck<T, M> {
    /// Runs the check.
    ///
    /// # Errors
    /// The message the model sees when the value is rejected.
    fn check(&self, value: &T) -> Result<(), String>;
}

/// Marks a [`CustomCheck`] that takes the field's whole value.
#[derive(Debug)]
pub enum WholeValue {}

/// Marks a [`CustomCheck`] that takes the value inside an `Option` field.
#[derive(Debug)]
pub enum PresentValue {}

impl<T, F: Fn(&T) -> Result<(), String>> CustomCheck<T, WholeValue> for F {
    fn check(&self, value: &T) -> Result<(), String> {
        self(value)
    }
}

impl<T, F: Fn(&T) -> Result<(), String>> CustomCheck<Option<T>, PresentValue> for F {
    fn check(&self, value: &Option<T>) -> Result<(), String> {
        value.as_ref().map_or(Ok(()), self)
    }
}

/// Everything declared about the values a field accepts, beyond its type: what
/// [`ArgValue::example`](crate::ArgValue::example) is given, to pass on to the example of the
/// type it reads as (`String::example(constraints, nth)`).
///
/// Built as a constant by the derive; the same value drives the check, the fix text and the
/// JSON Schema. Opaque: the guards it holds are the derive's to state.
#[derive(Debug)]
pub struct Constraints {
    /// Minimum length: characters of a string, items of an array.
    pub(crate) min_length: Option<u64>,
    /// Maximum length: characters of a string, items of an array.
    pub(crate) max_length: Option<u64>,
    /// Lower bound of a number.
    pub(crate) minimum: Option<Bound>,
    /// Upper bound of a number.
    pub(crate) maximum: Option<Bound>,
    /// A regular expression a string must contain a match of.
    pub(crate) pattern: Option<Pattern>,
    /// A format a string must be in.
    pub(crate) format: Option<StringFormat>,
    /// The only values allowed (empty: no such restriction).
    pub(crate) one_of: &'static [Literal],
    /// Whether the items of an array must be distinct.
    pub(crate) unique: bool,
    /// A step a number must be a multiple of.
    pub(crate) multiple_of: Option<Num>,
    /// Whether a custom check function is attached (it runs on the typed value).
    pub(crate) custom: bool,
}

impl Constraints {
    /// The constraints of generated code, every guard in the order of the fields. Not part of
    /// the public API.
    #[doc(hidden)]
    #[must_use]
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per guard: a guard the derive does not state does not compile"
    )]
    pub const fn from_parts(
        min_length: Option<u64>,
        max_length: Option<u64>,
        minimum: Option<Bound>,
        maximum: Option<Bound>,
        pattern: Option<Pattern>,
        format: Option<StringFormat>,
        one_of: &'static [Literal],
        unique: bool,
        multiple_of: Option<Num>,
        custom: bool,
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
            custom,
        }
    }

    /// The placeholder example of a sensitive text field under these constraints: asterisks, as
    /// many as the length bounds ask (eight when they leave it free), when they pass every
    /// constraint.
    pub(crate) fn sensitive_placeholder(&self) -> Option<Value> {
        let min = usize::try_from(self.min_length.unwrap_or(0)).unwrap_or(usize::MAX);
        let max = self
            .max_length
            .and_then(|m| usize::try_from(m).ok())
            .unwrap_or(usize::MAX);
        let stars = Value::from("*".repeat(8.clamp(min, max.max(min)).min(1024)));
        let mut tally = Tally::default();
        self.check(&stars, &mut tally, false);
        (self.one_of.is_empty() && tally.0 == 0).then_some(stars)
    }

    /// No constraint at all.
    pub const NONE: Self = Self {
        min_length: None,
        max_length: None,
        minimum: None,
        maximum: None,
        pattern: None,
        format: None,
        one_of: &[],
        unique: false,
        multiple_of: None,
        custom: false,
    };

    /// Whether nothing is constrained.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        // Every guard named: a new guard missing here would be skipped by the check.
        let Self {
            min_length,
            max_length,
            minimum,
            maximum,
            pattern,
            format,
            one_of,
            unique,
            multiple_of,
            custom,
        } = self;
        min_length.is_none()
            && max_length.is_none()
            && minimum.is_none()
            && maximum.is_none()
            && pattern.is_none()
            && format.is_none()
            && one_of.is_empty()
            && !unique
            && multiple_of.is_none()
            && !custom
    }

    /// Checks `value` and records an issue in `cx` for each broken constraint. Each keyword
    /// applies only to the JSON type it is about, exactly as in JSON Schema.
    pub(crate) fn check(&self, value: &Value, cx: &mut impl IssueSink, nullable: bool) {
        if !self.is_empty() {
            self.check_declared(value, cx, nullable);
        }
    }

    /// [`Constraints::check`] for constraints known to declare a guard (a field's, when its
    /// `checked` flag says so): the same issues, without testing for none first.
    pub(crate) fn check_declared(&self, value: &Value, cx: &mut impl IssueSink, nullable: bool) {
        match value {
            Value::String(s) => self.check_string(s, value, cx),
            Value::Array(items) => self.check_array(items, value, cx),
            Value::Number(n) => self.check_number(n, value, cx),
            // A map's `length` counts its entries (`minProperties` / `maxProperties`).
            Value::Object(map) => self.check_length(map.len() as u64, ENTRIES, value, cx),
            _ => {}
        }
        if !self.one_of.is_empty()
            && (!nullable || !value.is_null())
            && !self.one_of.iter().any(|l| l.matches(value))
        {
            let allowed = self.allowed_list();
            cx.fail(
                IssueCode::Enum,
                concat(&["Not one of the allowed values: ", &allowed, "."]).into(),
                Some(value),
                Some(concat(&["one of ", &allowed]).into()),
            );
        }
    }

    fn check_length(&self, len: u64, unit: Unit, value: &Value, cx: &mut impl IssueSink) {
        if let Some(min) = self.min_length
            && len < min
        {
            let (code, message, expected) = wording::length_issue(len, min, unit, false);
            cx.fail(code, message.into(), Some(value), Some(expected));
        }
        if let Some(max) = self.max_length
            && len > max
        {
            let (code, message, expected) = wording::length_issue(len, max, unit, true);
            cx.fail(code, message.into(), Some(value), Some(expected));
        }
    }

    fn check_string(&self, s: &str, value: &Value, cx: &mut impl IssueSink) {
        if self.min_length.is_some() || self.max_length.is_some() {
            // A code point takes one to four bytes, so the byte length alone decides most
            // strings; only the others are counted (JSON Schema counts code points, as `chars`).
            let bytes = s.len() as u64;
            let surely_fits = self.min_length.is_none_or(|min| bytes.div_ceil(4) >= min)
                && self.max_length.is_none_or(|max| bytes <= max);
            if !surely_fits {
                let len = s.chars().count() as u64;
                self.check_length(len, CHARACTERS, value, cx);
            }
        }
        if let Some(pattern) = &self.pattern
            && !pattern.is_match(s)
        {
            let (message, expected) = wording::pattern_issue(pattern.source());
            cx.fail(
                IssueCode::Pattern,
                message.into(),
                Some(value),
                Some(expected.into()),
            );
        }
        if let Some(format) = self.format {
            check_format(format, s, value, cx);
        }
    }

    fn check_array(&self, items: &[Value], value: &Value, cx: &mut impl IssueSink) {
        self.check_length(items.len() as u64, ITEMS, value, cx);
        if self.unique
            && let Some((first, second)) = first_duplicate(items)
        {
            let (message, expected) = wording::unique_issue(first, second);
            cx.fail(
                IssueCode::NotUnique,
                message.into(),
                Some(value),
                Some(expected.into()),
            );
        }
    }

    fn check_number(&self, n: &Number, value: &Value, cx: &mut impl IssueSink) {
        if let Some(min) = self.minimum {
            let ord = compare(n, min.value);
            let ok = matches!(ord, Some(Ordering::Greater))
                || (!min.exclusive && matches!(ord, Some(Ordering::Equal)));
            if !ok {
                let (code, message, expected) = wording::number_issue(min, false);
                cx.fail(code, message, Some(value), Some(expected));
            }
        }
        if let Some(max) = self.maximum {
            let ord = compare(n, max.value);
            let ok = matches!(ord, Some(Ordering::Less))
                || (!max.exclusive && matches!(ord, Some(Ordering::Equal)));
            if !ok {
                let (code, message, expected) = wording::number_issue(max, true);
                cx.fail(code, message, Some(value), Some(expected));
            }
        }
        if let Some(step) = self.multiple_of
            && !is_multiple_of(n, step)
        {
            let (message, expected) = wording::multiple_of_issue(step);
            cx.fail(
                IssueCode::MultipleOf,
                message.into(),
                Some(value),
                Some(expected.into()),
            );
        }
    }

    fn allowed_list(&self) -> String {
        let mut out = String::with_capacity(16 * self.one_of.len());
        for (i, lit) in self.one_of.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match lit {
                Literal::Str(text) => push_json_string(&mut out, text),
                other => out.push_str(&other.to_json().to_string()),
            }
        }
        out
    }

    /// Describes the constraints as a phrase that follows the type's noun, e.g.
    /// `of 3 to 20 characters matching ^[a-z]+$`; lengths count `items` of an array, characters
    /// otherwise.
    pub(crate) fn describe(&self, items: bool) -> String {
        self.describe_in(if items { ITEMS } else { CHARACTERS })
    }

    /// [`Constraints::describe`] for a map, whose length counts entries.
    pub(crate) fn describe_map(&self) -> String {
        self.describe_in(ENTRIES)
    }

    /// [`Constraints::describe`] for any JSON value, whose length counts characters, items or
    /// entries by its type.
    pub(crate) fn describe_any(&self) -> String {
        self.describe_in(ANY_UNITS)
    }

    fn describe_in(&self, unit: Unit) -> String {
        // Every guard named, none left out: a new guard that is not worded here does not
        // compile.
        let Self {
            min_length,
            max_length,
            minimum,
            maximum,
            pattern,
            format,
            one_of,
            unique,
            multiple_of,
            custom: _, // a custom check words its own issues
        } = self;
        let mut out = String::new();
        wording::length_window(&mut out, *min_length, *max_length, unit);
        wording::number_window(&mut out, *minimum, *maximum);
        if let Some(step) = *multiple_of {
            wording::multiple_of_phrase(&mut out, step);
        }
        if let Some(p) = pattern {
            wording::pattern_phrase(&mut out, p.source());
        }
        if let Some(f) = *format {
            wording::format_phrase(&mut out, f);
        }
        if *unique {
            wording::unique_phrase(&mut out);
        }
        if !one_of.is_empty() {
            let _ = write!(out, ", one of {}", self.allowed_list());
        }
        out
    }
}

/// Compares a JSON number with a bound exactly (no rounding of large integers).
pub(crate) fn compare(n: &Number, bound: Num) -> Option<Ordering> {
    let exact = n
        .as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from));
    match (exact, bound) {
        (Some(a), Num::Int(b)) => Some(a.cmp(&b)),
        (Some(a), Num::Float(b)) => cmp_int_float(a, b),
        (None, b) => {
            let a = n.as_f64()?;
            match b {
                Num::Int(b) => cmp_int_float(b, a).map(Ordering::reverse),
                Num::Float(b) => a.partial_cmp(&b),
            }
        }
    }
}

/// Compares an integer with a float without rounding the integer.
#[expect(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    reason = "the float is truncated only once it is known to be within i128 range"
)]
fn cmp_int_float(int: i128, float: f64) -> Option<Ordering> {
    if float.is_nan() {
        return None;
    }
    // Beyond ±2^126 every i128 is smaller in magnitude.
    if float >= 8.5e37 {
        return Some(Ordering::Less);
    }
    if float <= -8.5e37 {
        return Some(Ordering::Greater);
    }
    let whole = float.trunc() as i128;
    match int.cmp(&whole) {
        Ordering::Equal => {
            let frac = float - whole as f64;
            Some(if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            })
        }
        other => Some(other),
    }
}

/// Whether `n` is an exact integer multiple of `step` (JSON Schema `multipleOf`): the quotient of
/// the two binary fractions must be an integer, which is decided exactly on their mantissas.
pub(crate) fn is_multiple_of(n: &Number, step: Num) -> bool {
    if let (Num::Int(step), Some(v)) = (
        step,
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
    ) {
        return step != 0 && v % step == 0;
    }
    let (Some(value), step) = (n.as_f64(), step.as_f64()) else {
        return false;
    };
    if value == 0.0 {
        return true;
    }
    let (Some((vm, ve)), Some((sm, se))) = (decompose(value), decompose(step)) else {
        return false;
    };
    // value / step = (vm / sm) * 2^(ve - se) with odd mantissas: an integer exactly when `sm`
    // divides `vm` and no power of two is left in the denominator.
    sm != 0 && vm % sm == 0 && ve >= se
}

/// Splits a finite non-zero float into an odd integer mantissa and a power of two.
fn decompose(x: f64) -> Option<(u64, i32)> {
    if !x.is_finite() || x == 0.0 {
        return None;
    }
    let bits = x.abs().to_bits();
    let exp_bits = i32::try_from((bits >> 52) & 0x7ff).ok()?;
    let frac = bits & ((1u64 << 52) - 1);
    let (mut mantissa, mut exp) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    let shift = mantissa.trailing_zeros();
    mantissa >>= shift;
    exp += i32::try_from(shift).ok()?;
    Some((mantissa, exp))
}

/// Whether `s` is in `format`, recording a `format` issue when it is not: the check of the
/// `format` guard and of the field types that are strings in a format.
pub(crate) fn check_format(
    format: StringFormat,
    s: &str,
    value: &Value,
    cx: &mut impl IssueSink,
) -> bool {
    let valid = format.is_valid(s);
    if !valid {
        let (message, expected) = wording::format_issue(format);
        cx.fail(IssueCode::Format, message, Some(value), Some(expected));
    }
    valid
}

/// The positions of the first two equal items, with JSON equality (`1` equals `1.0`).
pub(crate) fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    use std::collections::HashMap;
    if items.len() < 2 {
        return None;
    }
    // Short lists are compared pairwise without allocating; long ones are hashed, so the cost
    // stays linear in what the caller sent.
    if items.len() <= 16 {
        for (j, second) in items.iter().enumerate().skip(1) {
            let found = match second {
                // Lists of strings are the usual ones with `unique`: compared in place.
                Value::String(text) => items[..j]
                    .iter()
                    .position(|first| matches!(first, Value::String(other) if other == text)),
                _ => items[..j]
                    .iter()
                    .position(|first| json_equal(first, second)),
            };
            if let Some(i) = found {
                return Some((i, j));
            }
        }
        return None;
    }
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let key = canonical_key(item);
        if let Some(&j) = seen.get(&key) {
            return Some((j, i));
        }
        seen.insert(key, i);
    }
    None
}

/// JSON equality: numbers by value (`1` equals `1.0`), objects regardless of key order.
fn json_equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::String(l), Value::String(r)) => l == r,
        (Value::Number(l), Value::Number(r)) => {
            let exact = l
                .as_i64()
                .map(i128::from)
                .or_else(|| l.as_u64().map(i128::from));
            let as_bound = match (exact, l.as_f64()) {
                (Some(int), _) => Num::Int(int),
                (None, Some(float)) => Num::Float(float),
                (None, None) => return false,
            };
            compare(r, as_bound) == Some(Ordering::Equal)
        }
        (Value::Array(l), Value::Array(r)) => {
            l.len() == r.len() && l.iter().zip(r).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(l), Value::Object(r)) => {
            l.len() == r.len()
                && l.iter()
                    .all(|(key, x)| r.get(key).is_some_and(|y| json_equal(x, y)))
        }
        _ => left == right,
    }
}

/// A string that is equal for two values exactly when they are equal as JSON: object keys are
/// sorted and numbers are written in one canonical form.
fn canonical_key(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "n{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "n{u}");
            } else if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 1e19 {
                    #[expect(clippy::cast_possible_truncation, reason = "integral and in range")]
                    let _ = write!(out, "n{}", f as i128);
                } else {
                    let _ = write!(out, "n{f:e}");
                }
            }
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                write_canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for key in keys {
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
                out.push(',');
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(v: Value) -> Number {
        match v {
            Value::Number(n) => n,
            _ => unreachable!(),
        }
    }

    #[test]
    fn compares_exactly_at_the_edges() {
        let big = num(Value::from(u64::MAX));
        assert_eq!(
            compare(&big, Num::Int(i128::from(u64::MAX))),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&big, Num::Int(i128::from(u64::MAX) - 1)),
            Some(Ordering::Greater)
        );
        let half = num(serde_json::json!(2.5));
        assert_eq!(compare(&half, Num::Int(2)), Some(Ordering::Greater));
        assert_eq!(compare(&half, Num::Int(3)), Some(Ordering::Less));
        let huge = num(serde_json::json!(1e30));
        assert_eq!(
            compare(&huge, Num::Int(i128::from(u64::MAX))),
            Some(Ordering::Greater)
        );
        let neg = num(serde_json::json!(-1));
        assert_eq!(compare(&neg, Num::Float(-0.5)), Some(Ordering::Less));
    }

    #[test]
    fn multiple_of_is_exact() {
        assert!(is_multiple_of(&num(serde_json::json!(10)), Num::Int(5)));
        assert!(!is_multiple_of(&num(serde_json::json!(11)), Num::Int(5)));
        assert!(is_multiple_of(
            &num(serde_json::json!(1.5)),
            Num::Float(0.5)
        ));
        assert!(is_multiple_of(
            &num(serde_json::json!(1.0)),
            Num::Float(0.25)
        ));
        assert!(!is_multiple_of(
            &num(serde_json::json!(1.1)),
            Num::Float(0.5)
        ));
        assert!(!is_multiple_of(
            &num(serde_json::json!(0.3)),
            Num::Float(0.1)
        ));
        assert!(is_multiple_of(&num(serde_json::json!(0)), Num::Float(0.1)));
        assert!(is_multiple_of(&num(serde_json::json!(10.0)), Num::Int(5)));
    }

    #[test]
    fn patterns_answer_as_the_regex_engine_does() {
        let cases = [
            (
                r"^[a-z][a-z0-9_]{2,31}$",
                &["jane_doe", "Jane Doe", "ab", "", "é_abc"][..],
            ),
            (r"\bq[0-9]\b", &["in q4 now", "éq4", "q4é", "aq4", "q4"][..]),
            (
                r"^\w{40,60}$",
                &["word", "ééééééééééééééééééééééééééééééééééééééééé"][..],
            ),
            ("colou?r", &["color", "colour", "colr", "COLOR"][..]),
            (
                r"(?-u:\b)id(?-u:\b)",
                &["id", "an id here", "idle", "kid", "é id"][..],
            ),
            ("a*", &["", "b", "aaa"][..]),
            ("^$", &["", "x"][..]),
            ("x$", &["x", "xy", "yx", ""][..]),
            (
                "^[0-9]{3}-[0-9]{4}$",
                &["555-1234", "555-12345", "5551234", "555-123"][..],
            ),
            ("[^a-z]", &["abc", "abC", "", "é"][..]),
        ];
        for (source, texts) in cases {
            let pattern = Pattern::new(source);
            let regex = Regex::new(source).unwrap();
            for text in texts {
                assert_eq!(
                    pattern.is_match(text),
                    regex.is_match(text),
                    "{source} on {text:?}"
                );
            }
        }
        // The usual field pattern gets a DFA; a Unicode word boundary, which a DFA cannot
        // decide on text that is not ASCII, and a large automaton are left to the regex.
        assert!(
            CompiledPattern::new(r"^[a-z][a-z0-9_]{2,31}$")
                .unwrap()
                .dfa
                .is_some()
        );
        assert!(CompiledPattern::new(r"\bq[0-9]\b").unwrap().dfa.is_none());
        assert!(CompiledPattern::new(r"^\w{40,60}$").unwrap().dfa.is_none());
    }

    #[test]
    fn duplicates_use_json_equality() {
        let items = vec![
            serde_json::json!(1),
            serde_json::json!("a"),
            serde_json::json!(1.0),
        ];
        assert_eq!(first_duplicate(&items), Some((0, 2)));
        let objects = vec![
            serde_json::json!({"a":1,"b":2}),
            serde_json::json!({"b":2,"a":1}),
        ];
        assert_eq!(first_duplicate(&objects), Some((0, 1)));
        let distinct = vec![serde_json::json!("1"), serde_json::json!(1)];
        assert_eq!(first_duplicate(&distinct), None);
        // The hashed path for long lists agrees with the pairwise one.
        let mut long: Vec<Value> = (0..40).map(|i| serde_json::json!({"n": i})).collect();
        assert_eq!(first_duplicate(&long), None);
        long.push(serde_json::json!({"n": 7.0}));
        assert_eq!(first_duplicate(&long), Some((7, 40)));
    }
}
