//! Budgets of a result: the byte cap and the token budget, what counts against them, and how
//! a collection, a text or one item too large on its own is cut to fit.
//!
//! Tokens are estimated ([`estimate_tokens`]), not counted with a model's tokenizer: hosts
//! count with tokenizers of their own, none of which a server can know, and a real tokenizer
//! carries vocabularies of megabytes. The estimate reads each character's class in one pass.

use std::io;

use serde::Serialize;
use serde_json::Value;

use crate::text::head_bytes;

/// The estimate counts in tenths of a token, rounded up once at the end.
const TENTHS: usize = 10;

/// Letters of a word that the estimate counts as one token; each 3 more count one more.
const WORD_LETTERS: usize = 5;

/// Estimates how many tokens a model's tokenizer makes of `text`, erring high.
///
/// The estimate is calibrated on a multilingual corpus (English prose and technical text,
/// Rust, Python, JavaScript, SQL, CSV, compact and pretty JSON, numbers, UUIDs, base64, hex,
/// URLs, logs, Markdown, German, French, Spanish, Polish, Czech, Turkish, Vietnamese, Russian,
/// Ukrainian, Greek, Arabic, Hebrew, Hindi, Thai, Chinese, Japanese, Korean, emoji and
/// their sequences, mathematical symbols, box drawing) against three real tokenizers:
/// `OpenAI`'s `cl100k_base` and `o200k_base` and Anthropic's published Claude tokenizer. On
/// every sample of that corpus it never counts fewer than 90% of the tokens of any of the
/// three (at worst 95% when it was calibrated), and it counts at most about 1.6 times as
/// many as the most expensive of them for ordinary text, up to 2.6 times for runs of one
/// repeated character. A budget of `N` estimated tokens is so at most about `N / 0.9` real
/// tokens. The corpus, the three counts and the script that made them are in the repository
/// (`tests/tools/tokens/`), and a test holds the estimate to this margin.
///
/// How it counts: a run of ASCII letters is one token up to five letters and one more for
/// every three after them, plus one for each switch between lower and upper case (random
/// identifiers and base64 split there); digits count one token per two; a run of different
/// ASCII punctuation marks two tokens per three marks, rounded up, a run of one repeated mark
/// one per four; a
/// single space is free (it joins the next word), longer runs of spaces and each line break
/// count one; every other character counts by its script, from 0.6 of a token (box drawing)
/// through 0.9 (Cyrillic), 1.1 (Hebrew, Arabic, kana), 1.4 (accented Latin, Indic scripts,
/// Hangul), 1.5 (Greek) and 1.8 (Thai, Chinese characters, other symbols) to 3 for
/// characters beyond the Basic Multilingual Plane (emoji).
///
/// ```
/// use guardrails::present::estimate_tokens;
///
/// assert_eq!(estimate_tokens(""), 0);
/// assert_eq!(estimate_tokens("hello"), 1);
/// assert!(estimate_tokens("检查发票") >= 4);
/// ```
#[must_use]
pub fn estimate_tokens(text: &str) -> usize {
    tenths(text).div_ceil(TENTHS)
}

/// The estimate of `text` in tenths of a token.
fn tenths(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut total = 0;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        let start = i;
        if byte.is_ascii_alphabetic() {
            let mut switches = 0;
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                switches +=
                    usize::from(bytes[i].is_ascii_uppercase() != bytes[i - 1].is_ascii_uppercase());
                i += 1;
            }
            let letters = i - start;
            let word = 1 + letters.saturating_sub(WORD_LETTERS).div_ceil(3);
            total += TENTHS * (word + switches);
        } else if byte.is_ascii_digit() {
            i = run_end(bytes, i, |b| b.is_ascii_digit());
            total += TENTHS * (i - start) / 2;
        } else if byte == b' ' || byte == b'\t' {
            i = run_end(bytes, i, |b| b == b' ' || b == b'\t');
            if i - start > 1 {
                total += TENTHS;
            }
        } else if byte == b'\n' || byte == b'\r' {
            i = run_end(bytes, i, |b| b == b'\n' || b == b'\r');
            total += TENTHS;
        } else if byte.is_ascii() {
            i = run_end(bytes, i, |b| b == byte);
            if i - start > 1 {
                total += TENTHS * (i - start).div_ceil(4);
            } else {
                // A run of different marks, such as `"},{"`.
                while i < bytes.len() && is_mark(bytes[i]) && bytes[i] != bytes[i - 1] {
                    i += 1;
                }
                total += TENTHS * (2 * (i - start)).div_ceil(3);
            }
        } else {
            let c = text[i..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            total += char_tenths(c);
            i += c.len_utf8();
        }
    }
    total
}

/// The end of the run of bytes from `start` that `same` accepts (the first one is taken).
fn run_end(bytes: &[u8], start: usize, same: impl Fn(u8) -> bool) -> usize {
    let mut i = start + 1;
    while i < bytes.len() && same(bytes[i]) {
        i += 1;
    }
    i
}

/// An ASCII character that is neither a letter, a digit nor white space.
fn is_mark(byte: u8) -> bool {
    byte.is_ascii() && !byte.is_ascii_alphanumeric() && !byte.is_ascii_whitespace()
}

/// What characters outside ASCII cost, in tenths of a token, by script: the first range that
/// holds a character decides.
const SCRIPTS: &[(u32, u32, usize)] = &[
    (0x0080, 0x0250, 14),  // accented Latin
    (0x1E00, 0x1F00, 14),  // more accented Latin (Vietnamese)
    (0x0250, 0x0370, 12),  // phonetic letters, combining marks
    (0x0370, 0x0400, 15),  // Greek
    (0x1F00, 0x2000, 15),  // Greek with accents
    (0x0400, 0x0530, 9),   // Cyrillic, Armenian
    (0x0530, 0x0900, 11),  // Hebrew, Arabic, Syriac, Thaana
    (0x0900, 0x0E00, 14),  // Indic scripts, Sinhala
    (0x2000, 0x2070, 10),  // punctuation, joiners
    (0xFE00, 0xFE10, 10),  // variation selectors
    (0x2500, 0x2600, 6),   // box drawing, blocks
    (0x3040, 0x3100, 11),  // kana
    (0xAC00, 0xD7B0, 14),  // Hangul
    (0x0E00, 0x10000, 18), // Thai, Chinese characters, other symbols
];

/// What a character beyond the Basic Multilingual Plane costs (emoji), in tenths of a token.
const ASTRAL: usize = 30;

/// What a character outside ASCII costs, in tenths of a token.
fn char_tenths(c: char) -> usize {
    let code = u32::from(c);
    SCRIPTS
        .iter()
        .find(|(from, to, _)| (*from..*to).contains(&code))
        .map_or(ASTRAL, |(_, _, cost)| *cost)
}

/// The limits on the data of one result: a byte cap, a token budget, or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Budget {
    /// The most bytes of JSON text.
    pub(crate) bytes: Option<usize>,
    /// The most estimated tokens.
    pub(crate) tokens: Option<usize>,
}

/// Which limit of a [`Budget`] cut a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// The byte cap.
    Bytes,
    /// The token budget.
    Tokens,
}

/// What counts against a budget: bytes and tenths of a token.
#[derive(Debug, Clone, Copy, Default)]
struct Cost {
    bytes: usize,
    tenths: usize,
}

impl Budget {
    /// A budget of `bytes` and `tokens`.
    pub(crate) const fn new(bytes: Option<usize>, tokens: Option<usize>) -> Self {
        Self { bytes, tokens }
    }

    /// Whether there is no limit at all.
    pub(crate) const fn is_none(&self) -> bool {
        self.bytes.is_none() && self.tokens.is_none()
    }

    /// The cost of `value`'s JSON text, counting only what this budget limits.
    fn cost_of(&self, value: &impl Serialize) -> Cost {
        Cost {
            bytes: if self.bytes.is_some() {
                json_len(value)
            } else {
                0
            },
            tenths: if self.tokens.is_some() {
                serde_json::to_string(value).map_or(0, |text| tenths(&text))
            } else {
                0
            },
        }
    }

    /// The limit `cost` breaks, the byte cap first.
    fn broken_by(&self, cost: Cost) -> Option<Cut> {
        if self.bytes.is_some_and(|max| cost.bytes > max) {
            Some(Cut::Bytes)
        } else if self.tokens.is_some_and(|max| cost.tenths > max * TENTHS) {
            Some(Cut::Tokens)
        } else {
            None
        }
    }

    /// The limit `text` breaks, the byte cap first.
    pub(crate) fn broken_by_text(&self, text: &str) -> Option<Cut> {
        self.broken_by(Cost {
            bytes: text.len(),
            tenths: if self.tokens.is_some() {
                tenths(text)
            } else {
                0
            },
        })
    }

    /// How many of the first `values` fit, as items of an array inside `envelope` (whose
    /// own array is empty), and the limit that left the others out.
    pub(crate) fn fitting(&self, values: &[Value], envelope: &Value) -> (usize, Option<Cut>) {
        if self.is_none() {
            return (values.len(), None);
        }
        let mut cost = self.cost_of(envelope);
        for (fits, value) in values.iter().enumerate() {
            let item = self.cost_of(value);
            // The comma between items: one byte, and at most a token.
            let comma = usize::from(fits > 0);
            cost.bytes += item.bytes + comma;
            cost.tenths += item.tenths + comma * TENTHS;
            if let Some(cut) = self.broken_by(cost) {
                return (fits, Some(cut));
            }
        }
        (values.len(), None)
    }

    /// The longest head of `text`, at a character boundary, that fits.
    pub(crate) fn head<'a>(&self, text: &'a str) -> &'a str {
        let text = self.bytes.map_or(text, |max| head_bytes(text, max));
        let Some(max) = self.tokens else {
            return text;
        };
        let max = max * TENTHS;
        if tenths(text) <= max {
            return text;
        }
        // The estimate grows with the text: the longest head that fits is found by bisection
        // over byte offsets, each moved back to a character boundary.
        let (mut low, mut high) = (0, text.len());
        while low < high {
            let mut mid = low + (high - low).div_ceil(2);
            while !text.is_char_boundary(mid) {
                mid -= 1;
            }
            if mid <= low {
                break;
            }
            if tenths(&text[..mid]) <= max {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        &text[..low]
    }

    /// Cuts `item`, larger on its own than the budget inside `envelope` (whose array holds
    /// `item`), until the whole fits: its longest strings are shortened, each ending in `…`,
    /// by as little as the budget needs. Types and keys are kept, so the item still matches
    /// a schema that does not constrain the length or pattern of those strings. When
    /// shortening every string is not enough (an item whose bulk is numbers), the strings are
    /// left as short as they go.
    pub(crate) fn cut_item(&self, envelope: &mut Value, pointer: &str) {
        let Some(original) = envelope.pointer(pointer).cloned() else {
            return;
        };
        let set = |envelope: &mut Value, value: Value| {
            if let Some(item) = envelope.pointer_mut(pointer) {
                *item = value;
            }
        };
        let longest = longest_string(&original);
        // The longest cap (in characters) at which the envelope fits, by bisection.
        let (mut low, mut high) = (0, longest);
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            set(envelope, capped(&original, mid));
            if self.broken_by(self.cost_of(envelope)).is_none() {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        set(envelope, capped(&original, low));
    }
}

/// The length in characters of the longest string in `value`.
fn longest_string(value: &Value) -> usize {
    match value {
        Value::String(text) => text.chars().count(),
        Value::Array(items) => items.iter().map(longest_string).max().unwrap_or(0),
        Value::Object(map) => map.values().map(longest_string).max().unwrap_or(0),
        _ => 0,
    }
}

/// `value` with every string longer than `max` characters cut to `max` and ending in `…`.
fn capped(value: &Value, max: usize) -> Value {
    match value {
        Value::String(text) if text.chars().count() > max => {
            let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
            cut.push('…');
            Value::String(cut)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| capped(v, max)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), capped(v, max)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Counts the bytes of a value's JSON text without building it.
pub(crate) fn json_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_estimate_counts_by_class() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("hello"), 1);
        assert_eq!(estimate_tokens("hello world"), 2);
        assert_eq!(estimate_tokens("12345678"), 4);
        assert_eq!(estimate_tokens("🫠"), 3);
        // Never stuck on a control character or a lone mark.
        assert_eq!(estimate_tokens("\u{0b}\u{0c}\u{7f}"), 3);
    }

    #[test]
    fn a_head_fits_and_is_the_longest_that_does() {
        let budget = Budget::new(None, Some(10));
        let text = "Donaudampfschifffahrtsgesellschaft und 检查发票 🙏 ".repeat(5);
        let head = budget.head(&text);
        assert!(estimate_tokens(head) <= 10);
        let next = text[head.len()..].chars().next().unwrap();
        assert!(estimate_tokens(&text[..head.len() + next.len_utf8()]) > 10);
        let bytes = Budget::new(Some(7), None);
        assert_eq!(bytes.head("ab€cdef"), "ab€cd");
    }

    #[test]
    fn an_item_is_cut_in_its_longest_strings() {
        let budget = Budget::new(None, Some(40));
        let mut envelope =
            json!({"items": [{"id": 7, "title": "short", "body": "word ".repeat(200)}]});
        budget.cut_item(&mut envelope, "/items/0");
        let item = &envelope["items"][0];
        assert_eq!(item["id"], 7);
        assert!(item["body"].as_str().unwrap().ends_with('…'));
        let text = crate::text::json_text(&envelope);
        assert_eq!(budget.broken_by_text(&text), None, "{text}");
    }
}
