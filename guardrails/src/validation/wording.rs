//! The words of every bound, one routine each: the fix phrase that says what a valid value is
//! (` of 3 to 20 characters`) and the issue of a value past it (`Too short: 2 characters, at
//! least 3 required.`). The validators the derive generates ([`Constraints`]) and the validator
//! of a tool known only by its JSON Schema both word a bound through these, so that the same
//! bound reads the same whichever way a tool was declared.
//!
//! [`Constraints`]: super::Constraints

use std::borrow::Cow;
use std::fmt::Write as _;

use super::number::{Bound, Num};
use super::report::IssueCode;
use super::string_format::StringFormat;
use super::tables::TextTable;
use crate::text::{concat, count, push_count, push_uint};

/// What a length counts, in the singular and the plural, and a number of its own (which
/// tells units apart in the table of what bounds expect).
#[derive(Clone, Copy)]
pub(crate) struct Unit(&'static str, &'static str, usize);

/// The length of a string.
pub(crate) const CHARACTERS: Unit = Unit("character", "characters", 0);
/// The length of an array.
pub(crate) const ITEMS: Unit = Unit("item", "items", 1);
/// The length of a map.
pub(crate) const ENTRIES: Unit = Unit("entry", "entries", 2);
/// The length of a value whose type is not known.
pub(crate) const ANY_UNITS: Unit = Unit(
    "character, item or entry",
    "characters, items or entries",
    3,
);

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
/// characters`). What is expected depends on the bound alone: it is worded once per bound.
pub(crate) fn length_issue(
    len: u64,
    bound: u64,
    unit: Unit,
    upper: bool,
) -> (IssueCode, String, Cow<'static, str>) {
    static EXPECTED: [TextTable; 2] = [const { TextTable::new() }; 2];
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
    let key = (usize::try_from(bound).unwrap_or(usize::MAX), unit.2);
    let word = || {
        let mut expected = String::with_capacity(32);
        expected.push_str(bound_words);
        unit.push(&mut expected, bound);
        expected
    };
    let expected = if usize::try_from(bound).is_ok() {
        EXPECTED[usize::from(upper)].text(key, word)
    } else {
        Cow::Owned(word())
    };
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
/// (`Too small: must be at least 18.`) and what is expected (`at least 18`). Both depend on
/// the bound alone: an integer bound's are worded once.
pub(crate) fn number_issue(
    bound: Bound,
    upper: bool,
) -> (IssueCode, Cow<'static, str>, Cow<'static, str>) {
    // By the lead and word below: lower or upper, inclusive or exclusive.
    static MESSAGES: [TextTable; 4] = [const { TextTable::new() }; 4];
    let (code, lead, word) = match (upper, bound.exclusive) {
        (false, false) => (IssueCode::TooSmall, "Too small: must be ", "at least"),
        (false, true) => (IssueCode::TooSmall, "Too small: must be ", "greater than"),
        (true, false) => (IssueCode::TooLarge, "Too large: must be ", "at most"),
        (true, true) => (IssueCode::TooLarge, "Too large: must be ", "less than"),
    };
    let message = || {
        let mut message = String::with_capacity(lead.len() + word.len() + 26);
        message.push_str(lead);
        message.push_str(word);
        message.push(' ');
        bound.value.push_to(&mut message);
        message.push('.');
        message
    };
    let key = match bound.value {
        // An integer bound by its size and sign.
        Num::Int(n) => usize::try_from(n.unsigned_abs())
            .ok()
            .map(|size| (size, usize::from(n < 0))),
        Num::Float(_) => None,
    };
    let message = match key {
        Some(key) => {
            MESSAGES[usize::from(upper) * 2 + usize::from(bound.exclusive)].text(key, message)
        }
        None => Cow::Owned(message()),
    };
    // What is expected is the message between its lead and its full stop.
    let expected = match &message {
        Cow::Borrowed(text) => Cow::Borrowed(&text[lead.len()..text.len() - 1]),
        Cow::Owned(text) => Cow::Owned(text[lead.len()..text.len() - 1].to_owned()),
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(value: Num, exclusive: bool) -> Bound {
        Bound { value, exclusive }
    }

    #[test]
    fn a_bounds_texts_are_the_same_whether_worded_or_kept_and_differ_by_every_part() {
        let texts = |b: Bound, upper: bool| {
            let (code, message, expected) = number_issue(b, upper);
            (code, message.into_owned(), expected.into_owned())
        };
        for _ in 0..2 {
            assert_eq!(
                texts(bound(Num::Int(18), false), false),
                (
                    IssueCode::TooSmall,
                    "Too small: must be at least 18.".to_owned(),
                    "at least 18".to_owned()
                )
            );
            assert_eq!(texts(bound(Num::Int(-18), false), false).2, "at least -18");
            assert_eq!(texts(bound(Num::Int(18), true), false).2, "greater than 18");
            assert_eq!(texts(bound(Num::Int(18), false), true).2, "at most 18");
            assert_eq!(texts(bound(Num::Int(18), true), true).2, "less than 18");
            assert_eq!(texts(bound(Num::Float(0.5), false), true).2, "at most 0.5");
            let huge = i128::MAX;
            assert_eq!(
                texts(bound(Num::Int(huge), false), true).1,
                format!("Too large: must be at most {huge}.")
            );
        }
        // A kept integer bound's texts are lent, not allocated again.
        let (_, message, expected) = number_issue(bound(Num::Int(7), false), false);
        let (_, again, expected_again) = number_issue(bound(Num::Int(7), false), false);
        assert!(matches!(again, Cow::Borrowed(_)), "{message} {again}");
        assert!(
            matches!(expected_again, Cow::Borrowed("at least 7")),
            "{expected}"
        );
    }

    #[test]
    fn a_lengths_expectation_is_kept_per_bound_unit_and_side() {
        for _ in 0..2 {
            let (code, message, expected) = length_issue(2, 3, CHARACTERS, false);
            assert_eq!(code, IssueCode::TooShort);
            assert_eq!(message, "Too short: 2 characters, at least 3 required.");
            assert_eq!(expected, "at least 3 characters");
            assert_eq!(length_issue(5, 3, ITEMS, true).2, "at most 3 items");
            assert_eq!(length_issue(0, 1, ENTRIES, false).2, "at least 1 entry");
            assert_eq!(
                length_issue(5, 3, CHARACTERS, true).2,
                "at most 3 characters"
            );
        }
        assert!(matches!(
            length_issue(2, 3, CHARACTERS, false).2,
            Cow::Borrowed("at least 3 characters")
        ));
    }
}
