//! The words of every bound, one routine each: the fix phrase that says what a valid value is
//! (` of 3 to 20 characters`) and the issue of a value past it (`Too short: 2 characters, at
//! least 3 required.`). The validators the derive generates ([`Constraints`]) and the validator
//! of a tool known only by its JSON Schema both word a bound through these, so that the same
//! bound reads the same whichever way a tool was declared.
//!
//! [`Constraints`]: super::Constraints

use std::borrow::Cow;
use std::fmt::Write as _;

use super::misplaced::TextTable;
use super::number::{Bound, Num};
use super::report::IssueCode;
use super::string_format::StringFormat;
use crate::text::{concat, count, push_count, push_uint};

/// What a length counts, in the singular and the plural.
#[derive(Clone, Copy)]
pub(crate) struct Unit(&'static str, &'static str);

/// The length of a string.
pub(crate) const CHARACTERS: Unit = Unit("character", "characters");
/// The length of an array.
pub(crate) const ITEMS: Unit = Unit("item", "items");
/// The length of a map.
pub(crate) const ENTRIES: Unit = Unit("entry", "entries");
/// The length of a value whose type is not known.
pub(crate) const ANY_UNITS: Unit = Unit("character, item or entry", "characters, items or entries");

impl Unit {
    fn of(self, n: u64) -> String {
        count(usize::try_from(n).unwrap_or(usize::MAX), self.0, self.1)
    }

    fn push(self, out: &mut String, n: u64) {
        push_count(
            out,
            usize::try_from(n).unwrap_or(usize::MAX),
            self.0,
            self.1,
        );
    }
}

/// A length window: ` of 3 to 20 characters`, ` of at least 1 item`, ` of exactly 4 items`.
pub(crate) fn length_window(out: &mut String, min: Option<u64>, max: Option<u64>, unit: Unit) {
    match (min, max) {
        (Some(a), Some(b)) if a == b => {
            let _ = write!(out, " of exactly {}", unit.of(a));
        }
        (Some(a), Some(b)) => {
            // A range reads in the plural, "0 to 1 items" included.
            let _ = write!(out, " of {a} to {b} {}", unit.1);
        }
        (Some(a), None) => {
            let _ = write!(out, " of at least {}", unit.of(a));
        }
        (None, Some(b)) => {
            let _ = write!(out, " of at most {}", unit.of(b));
        }
        (None, None) => {}
    }
}

/// The issue of a length past its bound (the upper one when `upper`): its code, its message
/// (`Too short: 2 characters, at least 3 required.`) and what is expected (`at least 3
/// characters`).
pub(crate) fn length_issue(
    len: u64,
    bound: u64,
    unit: Unit,
    upper: bool,
) -> (IssueCode, String, String) {
    let (code, opening, bound_words, close) = if upper {
        (IssueCode::TooLong, "Too long: ", "at most ", "allowed.")
    } else {
        (IssueCode::TooShort, "Too short: ", "at least ", "required.")
    };
    let mut message = String::with_capacity(64);
    message.push_str(opening);
    unit.push(&mut message, len);
    message.push_str(", ");
    message.push_str(bound_words);
    push_uint(&mut message, u128::from(bound));
    message.push(' ');
    message.push_str(close);
    let mut expected = String::with_capacity(32);
    expected.push_str(bound_words);
    unit.push(&mut expected, bound);
    (code, message, expected)
}

/// A number window: ` from 1 to 10`, ` of at least 1`, ` greater than 0 and at most 5`.
pub(crate) fn number_window(out: &mut String, min: Option<Bound>, max: Option<Bound>) {
    match (min, max) {
        (Some(a), Some(b)) if !a.exclusive && !b.exclusive => {
            let _ = write!(out, " from {} to {}", a.value, b.value);
        }
        (a, b) => {
            if let Some(a) = a {
                let word = if a.exclusive {
                    "greater than"
                } else {
                    "of at least"
                };
                let _ = write!(out, " {word} {}", a.value);
            }
            if let Some(b) = b {
                let joint = if a.is_some() { " and" } else { "" };
                let word = if b.exclusive { "less than" } else { "at most" };
                let _ = write!(out, "{joint} {word} {}", b.value);
            }
        }
    }
}

/// The issue of a number past `bound` (the upper one when `upper`): its code, its message
/// (`Too small: must be at least 18.`) and what is expected (`at least 18`).
pub(crate) fn number_issue(bound: Bound, upper: bool) -> (IssueCode, String, String) {
    let (code, lead, word) = match (upper, bound.exclusive) {
        (false, false) => (IssueCode::TooSmall, "Too small: must be ", "at least"),
        (false, true) => (IssueCode::TooSmall, "Too small: must be ", "greater than"),
        (true, false) => (IssueCode::TooLarge, "Too large: must be ", "at most"),
        (true, true) => (IssueCode::TooLarge, "Too large: must be ", "less than"),
    };
    let mut expected = String::with_capacity(word.len() + 24);
    expected.push_str(word);
    expected.push(' ');
    bound.value.push_to(&mut expected);
    let mut message = String::with_capacity(lead.len() + expected.len() + 1);
    message.push_str(lead);
    message.push_str(&expected);
    message.push('.');
    (code, message, expected)
}

/// The step of a number: ` that is a multiple of 5`.
pub(crate) fn multiple_of_phrase(out: &mut String, step: Num) {
    let _ = write!(out, " that is a multiple of {step}");
}

/// The issue of a number off its step: its message and what is expected.
pub(crate) fn multiple_of_issue(step: Num) -> (String, String) {
    (
        format!("Not a multiple of {step}."),
        format!("a multiple of {step}"),
    )
}

/// The pattern of a string: ` matching ^[a-z]+$`.
pub(crate) fn pattern_phrase(out: &mut String, source: &str) {
    out.push_str(" matching ");
    out.push_str(source);
}

/// The issue of a string that does not match `source`: its message and what is expected.
pub(crate) fn pattern_issue(source: &str) -> (String, String) {
    (
        concat(&["Does not match the pattern ", source, "."]),
        concat(&["a string matching ", source]),
    )
}

/// The format of a string: ` that is an email address`.
pub(crate) fn format_phrase(out: &mut String, format: StringFormat) {
    out.push_str(" that is ");
    out.push_str(format.describe());
}

/// The issue of a string not in `format`: its message and what is expected, both worded once
/// per format.
pub(crate) fn format_issue(format: StringFormat) -> (Cow<'static, str>, Cow<'static, str>) {
    static MESSAGES: TextTable = TextTable::new();
    let described = format.describe();
    let key = (described.as_ptr() as usize, described.len());
    (
        MESSAGES.text(key, || concat(&["Not ", described, "."])),
        Cow::Borrowed(described),
    )
}

/// Distinct items: `, all distinct`.
pub(crate) fn unique_phrase(out: &mut String) {
    out.push_str(", all distinct");
}

/// The issue of an array whose items `first` and `second` are equal: its message and what is
/// expected.
pub(crate) fn unique_issue(first: usize, second: usize) -> (String, String) {
    (
        format!("Items {first} and {second} are equal; every item must be distinct."),
        "distinct items".to_owned(),
    )
}
