//! Text helpers every message is built with, written once: escaping for XML-style tags, code
//! spans for Markdown, plain text and JSON, bounded cuts and previews of what a caller sent,
//! quoted lists, and did-you-mean suggestions.
//!
//! What a caller sent is never echoed with its control characters, nor with the invisible
//! characters that change what a reader sees around them ([`is_invisible`]: bidirectional
//! controls, zero-width characters): in text they become U+FFFD, in JSON a `\uXXXX` escape.
//!
//! Nothing here knows about tools, reports or formats: it is the ground floor the rest stands on.

#[expect(
    unreachable_pub,
    reason = "the file is shared with the derive, which reads its items by these names"
)]
mod suggest;

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

#[cfg(test)]
use suggest::THRESHOLD as SUGGESTION_THRESHOLD;
pub(crate) use suggest::{closest, did_you_mean, normalize};

/// The most characters of a value sent by the caller that a message echoes back.
pub(crate) const PREVIEW_CHARS: usize = 80;

/// The replacement for control characters that have no place in a message.
const REPLACEMENT: char = '\u{fffd}';

/// Whether `c` is invisible yet changes what a reader sees around it: a bidirectional control
/// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), which can reorder the text after
/// it, or a zero-width character (U+200B–U+200D, U+2060, U+FEFF), which can split or join
/// words unseen. Echoed text never carries them raw.
#[must_use]
pub const fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{061C}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'
            | '\u{FEFF}'
    )
}

/// Text for one line of plain text (a log, a terminal, a protocol message): every control
/// character, line breaks included, and every [invisible](is_invisible) one becomes U+FFFD.
#[must_use]
pub fn plain(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() || is_invisible(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if c.is_control() || is_invisible(c) {
                    REPLACEMENT
                } else {
                    c
                }
            })
            .collect(),
    )
}

/// JSON text with its [invisible](is_invisible) characters, and the control characters a JSON
/// serializer leaves raw (DEL, U+0080–U+009F), written as `\uXXXX` escapes. Outside strings
/// JSON text is ASCII, so only strings change, and a JSON parser reads back the same values.
#[must_use]
pub fn escape_json_text(json: &str) -> Cow<'_, str> {
    if !has_json_hidden(json) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if json_hidden(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as a JSON string, escaped as [`escape_json_text`] does: how a found text is quoted
/// for people.
#[must_use]
pub(crate) fn quote_json(text: &str) -> String {
    // The serializer escapes none of the characters `escape_json_text` does, so the text
    // itself tells whether the quoted form has any: most have none and are quoted in one go.
    let mut quoted = String::with_capacity(text.len() + 2);
    push_json_string(&mut quoted, text);
    if has_json_hidden(text) {
        escape_json_text(&quoted).into_owned()
    } else {
        quoted
    }
}

/// Whether JSON text holds a character [`escape_json_text`] escapes.
fn has_json_hidden(json: &str) -> bool {
    // All of them are DEL or past ASCII.
    json.bytes().any(|b| b >= 0x7f) && json.chars().any(json_hidden)
}

/// A character [`escape_json_text`] escapes.
fn json_hidden(c: char) -> bool {
    // C0 controls are escaped by every JSON serializer inside strings, and the ones outside
    // strings are the layout of pretty JSON: only these are left to escape.
    matches!(c, '\u{7f}'..='\u{9f}') || is_invisible(c)
}

/// Escapes text for the content of an XML-style element, so that nothing a caller sent can
/// open or close a tag. Quotes stay as they are (they cannot end content, and escaping them
/// costs the model tokens); line breaks and tabs stay; every other control character, and
/// every [invisible](is_invisible) one, becomes U+FFFD.
#[cfg(test)]
#[must_use]
pub(crate) fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_xml_into(&mut out, text);
    out
}

/// Escapes text for an XML attribute value: quotes too, and line breaks and tabs as character
/// references, so that a value stays on its tag's line.
#[cfg(test)]
#[must_use]
pub(crate) fn escape_xml_attr(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_xml_attr_into(&mut out, text);
    out
}

/// Escapes text for the content of an XML-style element, into a buffer: nothing a caller sent
/// can open or close a tag; quotes, line breaks and tabs stay; every other control character,
/// and every [invisible](is_invisible) one, becomes U+FFFD.
pub(crate) fn escape_xml_into(out: &mut String, text: &str) {
    escape_into(out, text, false);
}

/// Escapes text for an XML attribute value, into a buffer: quotes too, and line breaks and
/// tabs as character references, so that a value stays on its tag's line.
pub(crate) fn escape_xml_attr_into(out: &mut String, text: &str) {
    escape_into(out, text, true);
}

fn escape_into(out: &mut String, text: &str, attribute: bool) {
    // Sixteen bytes, then eight, at a time while none of them may change ([`may_change_16`],
    // [`may_change`]); a word that may is gone through byte by byte: an ASCII byte is looked
    // up, and only the characters past ASCII are decoded. What needs no escaping is copied in
    // runs, most texts in one go.
    let bytes = text.as_bytes();
    let table = if attribute {
        &ESCAPE_ATTRIBUTE
    } else {
        &ESCAPE_CONTENT
    };
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Sixteen bytes at a time, compared at once, then eight.
        while let Some(block) = bytes.get(i..).and_then(<[u8]>::first_chunk::<16>)
            && !may_change_16(block, attribute)
        {
            i += 16;
        }
        while let Some(word) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>)
            && !may_change(u64::from_le_bytes(*word), attribute)
        {
            i += 8;
        }
        let end = (i + 8).min(bytes.len());
        while i < end {
            let b = bytes[i];
            if b.is_ascii() {
                if !table[usize::from(b)] {
                    i += 1;
                    continue;
                }
                let replacement = match b {
                    b'&' => "&amp;",
                    b'<' => "&lt;",
                    b'>' => "&gt;",
                    b'"' => "&quot;",
                    b'\'' => "&apos;",
                    b'\n' => "&#10;",
                    b'\t' => "&#9;",
                    _ => "\u{fffd}",
                };
                out.push_str(&text[copied..i]);
                out.push_str(replacement);
                i += 1;
                copied = i;
            } else {
                let c = text[i..].chars().next().unwrap_or(REPLACEMENT);
                let len = c.len_utf8();
                if c.is_control() || is_invisible(c) {
                    out.push_str(&text[copied..i]);
                    out.push(REPLACEMENT);
                    copied = i + len;
                }
                i += len;
            }
        }
    }
    out.push_str(&text[copied..]);
}

/// Each byte of a word set to `byte`.
const fn splat(byte: u8) -> u64 {
    u64::from_ne_bytes([byte; 8])
}

/// The top bit of each byte of `word` that is zero, and perhaps of bytes after a zero one (a
/// borrow only follows a zero byte): so whether a byte is zero is exact.
const fn zeros(word: u64) -> u64 {
    word.wrapping_sub(splat(0x01)) & !word
}

/// Whether a byte of `word` (eight bytes of a text) may change when escaped: a byte below
/// 0x20, DEL and above (controls, and the characters past ASCII, some of them invisible), `&`,
/// `<`, `>`, and in an attribute `"` and `'`. A superset of what changes (line breaks and tabs
/// stay in content, most characters past ASCII stay): the bytes of a word that may are looked
/// at one by one. The tests are combined without branching, as one mask of top bits.
const fn may_change(word: u64, attribute: bool) -> bool {
    // Below 0x20 borrows into the top bit, 0x7f carries into it, 0x80 and above have it; with
    // none of these, nothing borrows or carries across bytes, so each byte is tested alone.
    let outside = word.wrapping_sub(splat(0x20)) | word | word.wrapping_add(splat(0x01));
    // `<` (0x3c) and `>` (0x3e) differ in one bit, as `&` (0x26) and `'` (0x27) do.
    let markup = zeros((word | splat(0x02)) ^ splat(b'>'))
        | if attribute {
            zeros((word | splat(0x01)) ^ splat(b'\'')) | zeros(word ^ splat(b'"'))
        } else {
            zeros(word ^ splat(b'&'))
        };
    (outside | markup) & splat(0x80) != 0
}

/// [`may_change`] for sixteen bytes, each byte tested exactly and the tests combined without
/// branching, which the compiler turns into a few vector instructions.
#[inline]
#[allow(clippy::needless_bitwise_bool)] // no branch per byte: the loop becomes vector code
fn may_change_16(block: &[u8; 16], attribute: bool) -> bool {
    // `<` (0x3c) and `>` (0x3e) differ in one bit, as `&` (0x26) and `'` (0x27) do.
    let mut any = false;
    if attribute {
        for &b in block {
            any |= !(0x20..0x7f).contains(&b)
                | ((b | 0x02) == b'>')
                | ((b | 0x01) == b'\'')
                | (b == b'"');
        }
    } else {
        for &b in block {
            any |= !(0x20..0x7f).contains(&b) | ((b | 0x02) == b'>') | (b == b'&');
        }
    }
    any
}

/// The ASCII bytes that change in the content of an element: markup, and the control
/// characters but the line break and the tab.
const ESCAPE_CONTENT: [bool; 128] = ascii_escapes(false);
/// The ASCII bytes that change in an attribute value: markup, quotes, every control character.
const ESCAPE_ATTRIBUTE: [bool; 128] = ascii_escapes(true);

const fn ascii_escapes(attribute: bool) -> [bool; 128] {
    let mut table = [false; 128];
    let mut b: u8 = 0;
    while b < 128 {
        table[b as usize] = match b {
            b'&' | b'<' | b'>' | 0x7f => true,
            b'"' | b'\'' | b'\n' | b'\t' => attribute,
            c => c < 0x20,
        };
        b += 1;
    }
    table
}

/// Wraps text in a Markdown code span that its own backticks cannot close, its control and
/// invisible characters shown as in [`plain`] (a line break could end the span's paragraph).
#[must_use]
pub(crate) fn code_span(text: &str) -> String {
    let text = plain(text);
    let text = text.as_ref();
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest > 0 || text.starts_with(' ') || text.ends_with(' ') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// The first `max` characters of `text`, and whether anything was left out.
#[must_use]
pub(crate) fn head(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        Some((end, _)) => (&text[..end], true),
        None => (text, false),
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends at a character boundary.
#[must_use]
pub(crate) fn head_bytes(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `text` cut to at most `max` characters, the cut marked with `…`.
///
/// The cut falls between words, so that prose is never cut mid-word:
/// `cut("significant annual value", 15)` is `"significant…"`. Only a text whose shown part
/// holds no space (a key, a name, one very long word) is cut at `max` characters.
#[must_use]
pub(crate) fn cut(text: &str, max: usize) -> Cow<'_, str> {
    match head(text, max) {
        (shown, true) => {
            let kept = if text[shown.len()..].starts_with(char::is_whitespace) {
                shown.trim_end()
            } else {
                at_word_end(shown)
            };
            Cow::Owned(format!("{kept}…"))
        }
        (whole, false) => Cow::Borrowed(whole),
    }
}

/// `shown` (a prefix of a longer text, cut inside a word) shortened to end at its last word
/// boundary, the trailing space left out; unchanged when it holds no space.
fn at_word_end(shown: &str) -> &str {
    if shown.ends_with(char::is_whitespace) {
        return shown.trim_end();
    }
    match shown.rfind(char::is_whitespace) {
        Some(space) if !shown[..space].trim_end().is_empty() => shown[..space].trim_end(),
        _ => shown,
    }
}

/// The context before a span (a suffix of a longer text, cut inside a word) from its first
/// whole word on; empty when it holds no whole word.
fn words_after_cut(context: &str) -> &str {
    context
        .find(char::is_whitespace)
        .map_or("", |space| context[space..].trim_start())
}

/// The context after a span (a prefix of a longer text, cut inside a word) up to its last
/// whole word; empty when it holds no whole word.
fn words_before_cut(context: &str) -> &str {
    context
        .rfind(char::is_whitespace)
        .map_or("", |space| context[..space].trim_end())
}

/// The last `max` characters of `text`, and whether anything was left out before them.
fn tail(text: &str, max: usize) -> (&str, bool) {
    if max == 0 {
        return ("", !text.is_empty());
    }
    match text.char_indices().rev().nth(max - 1) {
        Some((start, _)) => (&text[start..], start > 0),
        None => (text, false),
    }
}

/// A bounded preview of a value in JSON notation: at most [`PREVIEW_CHARS`] characters, cut
/// with `…`. Serialization stops as soon as the preview is full, so a 10 MB string costs no more
/// than a short one.
#[must_use]
pub(crate) fn preview(value: &Value) -> String {
    match value {
        Value::String(text) => preview_text(text),
        other => preview_chars(other, PREVIEW_CHARS),
    }
}

/// The preview of a text sent by a caller, as a JSON string, without copying a text that may be
/// megabytes long: at most [`PREVIEW_CHARS`] characters of it, cut between words and marked
/// with `…`. The same as [`preview`] of the text as a JSON value.
#[must_use]
pub(crate) fn preview_text(text: &str) -> String {
    // A text that fits is shown whole: no cut to find (a character takes a byte at least).
    if text.len() <= PREVIEW_CHARS {
        return quote_json(text);
    }
    preview_span(text, 0..0)
}

/// The preview of the part of a long text around `span` (byte offsets, as a policy violation
/// gives them): the span itself with the words before and after it, at most [`PREVIEW_CHARS`]
/// characters in all, each cut end marked with `…`, as a JSON string.
///
/// A violation at column 348 of a long paragraph is shown where it is, not the paragraph's
/// first line. A span that does not fall on character boundaries of `text` is previewed from
/// the start.
#[must_use]
pub(crate) fn preview_span(text: &str, span: std::ops::Range<usize>) -> String {
    let span = if span.start <= span.end && text.get(span.clone()).is_some() {
        span
    } else {
        0..0
    };
    let (found, found_cut) = head(&text[span.clone()], PREVIEW_CHARS);
    let room = PREVIEW_CHARS - found.chars().count();
    let (before_text, after_text) = (&text[..span.start], &text[span.end..]);
    // Context on both sides, the side with less to show giving its room to the other.
    let after_len = after_text.chars().take(room).count();
    let before_room = (room / 2).max(room - after_len);
    let (before, before_cut) = tail(before_text, before_room);
    let before_len = before.chars().count();
    let after_room = if found_cut {
        0
    } else {
        room - before_len.min(room)
    };
    let (after, after_cut) = head(after_text, after_room);
    let mut shown = String::with_capacity(PREVIEW_CHARS * 2);
    if before_cut {
        shown.push('…');
        let at_boundary = before_text[..before_text.len() - before.len()]
            .ends_with(char::is_whitespace)
            || before.starts_with(char::is_whitespace);
        shown.push_str(if at_boundary {
            before.trim_start()
        } else {
            words_after_cut(before)
        });
    } else {
        shown.push_str(before);
    }
    if found_cut {
        shown.push_str(at_word_end(found));
        shown.push('…');
    } else {
        shown.push_str(found);
        if after_cut || (after.is_empty() && !after_text.is_empty()) {
            let at_boundary = after_text[after.len()..].starts_with(char::is_whitespace)
                || after.ends_with(char::is_whitespace);
            shown.push_str(if at_boundary {
                after.trim_end()
            } else if found.is_empty() && before.is_empty() {
                // The preview of a text from its start: one long word is cut where it must be.
                at_word_end(after)
            } else {
                words_before_cut(after)
            });
            shown.push('…');
        } else {
            shown.push_str(after);
        }
    }
    quote_json(&shown)
}

/// [`preview`] with another bound.
#[must_use]
pub(crate) fn preview_chars(value: &Value, max: usize) -> String {
    struct Bounded {
        buf: Vec<u8>,
        limit: usize,
        full: bool,
    }
    impl std::io::Write for Bounded {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let room = self.limit - self.buf.len();
            if room == 0 {
                self.full = true;
                return Err(std::io::Error::other("preview is full"));
            }
            let n = room.min(bytes.len());
            self.buf.extend_from_slice(&bytes[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // A number is short ASCII: it fits whole unless the bound is tiny.
    if let Value::Number(n) = value {
        let text = n.to_string();
        if text.len() <= max {
            return text;
        }
    }
    // Four bytes per character at most, plus one so that "exactly full" is told apart.
    let mut w = Bounded {
        buf: Vec::new(),
        limit: max.saturating_mul(4).saturating_add(1),
        full: false,
    };
    let _ = serde_json::to_writer(&mut w, value);
    let text = String::from_utf8_lossy(&w.buf);
    let text = escape_json_text(&text);
    match head(&text, max) {
        (shown, true) => format!("{shown}…"),
        (whole, false) if w.full => format!("{whole}…"),
        (whole, false) => whole.to_owned(),
    }
}

/// A count with its noun in the right number: `1 warning`, `2 warnings`, `0 warnings`.
#[must_use]
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    let mut out = String::with_capacity(one.len().max(many.len()) + 8);
    push_count(&mut out, n, one, many);
    out
}

/// [`count`] into a buffer.
pub(crate) fn push_count(out: &mut String, n: usize, one: &str, many: &str) {
    if n == 1 {
        out.push_str("1 ");
        out.push_str(one);
    } else {
        push_uint(out, u128::try_from(n).unwrap_or(u128::MAX));
        out.push(' ');
        out.push_str(many);
    }
}

/// The decimal digits of `n`, written into `out` without the formatting machinery, which
/// costs several times more for a number in a message.
pub(crate) fn push_int(out: &mut String, n: i128) {
    if n < 0 {
        out.push('-');
    }
    push_uint(out, n.unsigned_abs());
}

/// [`push_int`] of a number that is not negative.
pub(crate) fn push_uint(out: &mut String, n: u128) {
    // The digits of the largest `u128`, written from the end.
    let mut digits = [0_u8; 39];
    let mut start = digits.len();
    let mut rest = n;
    loop {
        start -= 1;
        digits[start] = b'0' + u8::try_from(rest % 10).unwrap_or(0);
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
}

/// The text of `parts` one after the other, in one allocation of the right size.
#[must_use]
pub(crate) fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|part| part.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// `"a", "b", "c"`: each item as a JSON string.
#[must_use]
pub(crate) fn quoted_list(items: &[&str]) -> String {
    let mut out = String::with_capacity(items.iter().map(|item| item.len() + 4).sum());
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_json_string(&mut out, item);
    }
    out
}

/// `text` as a JSON string, as the serializer writes it (no [`escape_json_text`]).
pub(crate) fn push_json_string(out: &mut String, text: &str) {
    // Only quotes, backslashes and C0 controls are escaped in a JSON string.
    if text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push_str(&serde_json::to_string(text).unwrap_or_default());
    } else {
        out.push('"');
        out.push_str(text);
        out.push('"');
    }
}

/// The compact JSON text of a value, as its `Display` writes it, written straight into the
/// string's buffer: `Display` goes through a formatter adapter, a call per token, and took
/// about a third of the instructions of a small tool call.
pub(crate) fn json_text(value: &Value) -> String {
    // Serializing a `Value` cannot fail (its keys are strings); should it, `Display` decides.
    serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping_neutralises_tags() {
        assert_eq!(
            escape_xml("</field><x a='1'>&"),
            "&lt;/field&gt;&lt;x a='1'&gt;&amp;"
        );
        assert_eq!(escape_xml_attr("a\"b'<"), "a&quot;b&apos;&lt;");
    }

    #[test]
    fn control_characters_are_replaced_line_breaks_kept() {
        assert_eq!(
            escape_xml("a\u{0}b\nc\td\u{1b}"),
            "a\u{fffd}b\nc\td\u{fffd}"
        );
        assert_eq!(escape_xml_attr("a\nb\tc\u{7}"), "a&#10;b&#9;c\u{fffd}");
    }

    /// Escaping one character at a time, as the escaper did before it scanned bytes.
    fn escaped_char_by_char(text: &str, attribute: bool) -> String {
        let mut out = String::new();
        for c in text.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' if attribute => out.push_str("&quot;"),
                '\'' if attribute => out.push_str("&apos;"),
                '\n' if attribute => out.push_str("&#10;"),
                '\t' if attribute => out.push_str("&#9;"),
                '\n' | '\t' => out.push(c),
                c if c.is_control() || is_invisible(c) => out.push(REPLACEMENT),
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn xml_escaping_treats_every_character_as_one_at_a_time() {
        let chars: Vec<char> = ('\0'..='\u{3000}')
            .chain(['\u{feff}', '\u{fffd}', '\u{1f600}'])
            .collect();
        for attribute in [false, true] {
            for &c in &chars {
                let alone = c.to_string();
                let between = format!("a{c}é{c}{c}z");
                for text in [alone, between] {
                    let mut out = String::new();
                    escape_into(&mut out, &text, attribute);
                    assert_eq!(out, escaped_char_by_char(&text, attribute), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn a_block_of_sixteen_may_change_exactly_where_a_byte_is_markup_a_control_or_past_ascii() {
        for attribute in [false, true] {
            let table = if attribute {
                &ESCAPE_ATTRIBUTE
            } else {
                &ESCAPE_CONTENT
            };
            for byte in 0..=u8::MAX {
                // Line breaks and tabs may change (they are controls), though content keeps them.
                let expected = !(0x20..0x7f).contains(&byte) || table[usize::from(byte)];
                for at in 0..16 {
                    let mut block = *b"abcdefghijklmnop";
                    block[at] = byte;
                    assert_eq!(
                        may_change_16(&block, attribute),
                        expected,
                        "byte {byte:#04x} at {at}, attribute {attribute}"
                    );
                }
            }
        }
    }

    #[test]
    fn xml_escaping_finds_a_character_at_any_place_of_a_long_text() {
        // Long texts are scanned sixteen, then eight bytes at a time: each character is put at
        // every place of a block and of the word after it, and across them, among plain letters.
        let chars = ('\0'..='\u{7f}').chain([
            '\u{85}',
            '\u{a0}',
            '\u{200b}',
            '\u{202e}',
            '\u{feff}',
            'é',
            '\u{1f600}',
        ]);
        let plain = "abcdefghijklmnopqrstuvwxyz";
        for attribute in [false, true] {
            for c in chars.clone() {
                for at in 0..=17 {
                    let text = format!("{}{c}{}", &plain[..at], &plain[at..]);
                    let mut out = String::new();
                    escape_into(&mut out, &text, attribute);
                    assert_eq!(out, escaped_char_by_char(&text, attribute), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn bidi_and_zero_width_characters_are_escaped_in_every_notation() {
        let sneaky = "ad\u{202e}nimda\u{200b}x\u{2066}\u{feff}\u{61c}";
        for escaped in [
            escape_xml(sneaky),
            escape_xml_attr(sneaky),
            plain(sneaky).into_owned(),
            code_span(sneaky),
            preview(&Value::from(sneaky)),
            quote_json(sneaky),
        ] {
            assert!(!escaped.chars().any(is_invisible), "{escaped:?}");
        }
        assert_eq!(escape_xml("a\u{202e}b"), "a\u{fffd}b");
        assert_eq!(preview(&Value::from("a\u{202e}b")), r#""a\u202eb""#);
        assert_eq!(quote_json("\u{200d}\u{85}"), r#""\u200d\u0085""#);
        assert_eq!(quote_json("a\u{7f}\"\n"), r#""a\u007f\"\n""#);
        assert_eq!(quote_json("plain é"), r#""plain é""#);
        // JSON escapes read back as the same text.
        let back: String = serde_json::from_str(&quote_json(sneaky)).unwrap();
        assert_eq!(back, sneaky);
        // Every character of each class, not only a sample.
        for c in [
            '\u{200e}', '\u{200f}', '\u{2060}', '\u{2069}', '\u{202a}', '\u{200c}',
        ] {
            assert!(is_invisible(c));
            assert_eq!(plain(&c.to_string()), "\u{fffd}");
        }
        assert!(!is_invisible('a') && !is_invisible('\u{fe0f}'));
    }

    #[test]
    fn code_spans_keep_to_one_line() {
        assert_eq!(code_span("a\n\n# b"), "`a\u{fffd}\u{fffd}# b`");
    }

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(code_span("ab"), "`ab`");
        assert_eq!(code_span("a`b"), "`` a`b ``");
        assert_eq!(code_span("```"), "```` ``` ````");
    }

    #[test]
    fn integers_are_written_as_display_writes_them() {
        for n in [
            0,
            7,
            -7,
            10,
            99,
            120,
            -120,
            i128::from(u64::MAX),
            i128::MAX,
            i128::MIN,
        ] {
            let mut out = String::from("n=");
            push_int(&mut out, n);
            assert_eq!(out, format!("n={n}"));
        }
        let mut out = String::new();
        push_uint(&mut out, u128::MAX);
        assert_eq!(out, u128::MAX.to_string());
    }

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(count(1, "warning", "warnings"), "1 warning");
        assert_eq!(count(0, "advisory", "advisories"), "0 advisories");
        assert_eq!(count(3, "item", "items"), "3 items");
    }

    #[test]
    fn cuts_count_characters_and_mark_the_cut() {
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(cut("héllo", 5), "héllo");
        assert_eq!(head("héllo", 3), ("hél", true));
        assert_eq!(head_bytes("héllo", 2), "h");
        assert_eq!(head_bytes("héllo", 3), "hé");
        assert_eq!(head_bytes("abc", 10), "abc");
    }

    #[test]
    fn cuts_fall_between_words() {
        assert_eq!(cut("significant annual value", 15), "significant…");
        assert_eq!(cut("significant annual value", 18), "significant annual…");
        assert_eq!(cut("significant annual value", 19), "significant annual…");
        // No space in the last half: a long word is cut where the limit is.
        assert_eq!(cut("a verylongwordwithoutspaces", 12), "a…");
        assert_eq!(cut("verylongwordwithoutspaces", 12), "verylongword…");
        assert_eq!(cut("snake_case_key_name", 10), "snake_case…");
        let fix =
            "delivers significant annual value [AI estimation based on operational improvement]";
        for max in 10..fix.chars().count() {
            let shown = cut(fix, max);
            let kept = shown.trim_end_matches('…');
            assert!(kept.chars().count() <= max, "{shown}");
            assert!(
                fix[kept.len()..].starts_with(' '),
                "{max}: {shown:?} ends mid-word"
            );
        }
    }

    #[test]
    fn a_span_is_previewed_where_it_is_with_whole_words_around_it() {
        let filler = "The team reviewed the quarterly figures with the operations group. ";
        let text = format!(
            "{}Rollout saves $50,000 annually across sites. {}",
            filler.repeat(5),
            filler
        );
        let start = text.find("$50,000").unwrap();
        let shown = preview_span(&text, start..start + "$50,000".len());
        let inner: String = serde_json::from_str(&shown).unwrap();
        assert!(inner.contains("Rollout saves $50,000 annually"), "{inner}");
        assert!(inner.starts_with('…') && inner.ends_with('…'), "{inner}");
        assert!(inner.chars().count() <= PREVIEW_CHARS + 2, "{inner}");
        // Both ends fall between words of the text.
        let body = inner.trim_matches('…');
        assert!(text.contains(&format!(" {body} ")), "{body:?}");
        // At the start of a text nothing is cut before it.
        let start_text = "$5 fee. ".repeat(40);
        let shown: String = serde_json::from_str(&preview_span(&start_text, 0..2)).unwrap();
        assert!(shown.starts_with("$5 fee."), "{shown}");
        // A span that is not on character boundaries previews the start.
        assert_eq!(preview_span("héllo", 2..3), preview_text("héllo"));
        #[expect(
            clippy::reversed_empty_ranges,
            reason = "a span given backwards is the case"
        )]
        let backwards = 4..1;
        assert_eq!(preview_span("héllo", backwards), preview_text("héllo"));
    }

    #[test]
    fn previews_are_bounded_whatever_the_value() {
        let long = Value::from("x".repeat(10_000));
        let p = preview(&long);
        assert_eq!(p.chars().count(), PREVIEW_CHARS + 3);
        assert!(p.ends_with("…\""));
        let words = Value::from("word ".repeat(10_000));
        let p = preview(&words);
        assert!(p.chars().count() <= PREVIEW_CHARS + 3, "{p}");
        assert!(p.ends_with("word…\""), "{p}");
        let controls = Value::from("\u{1}".repeat(10_000));
        assert!(preview(&controls).len() <= PREVIEW_CHARS * 6 + 8);
        assert_eq!(preview(&Value::from("ab")), "\"ab\"");
        // A text or a number that fits is shown whole.
        let fits = "é".repeat(PREVIEW_CHARS);
        assert_eq!(preview_text(&fits), quote_json(&fits));
        for number in [serde_json::json!(-1.5e300), serde_json::json!(u64::MAX)] {
            assert_eq!(preview(&number), serde_json::to_string(&number).unwrap());
        }
        assert_eq!(preview_chars(&serde_json::json!(123_456), 3), "123…");
        assert_eq!(
            preview_text(&"y".repeat(500)),
            preview(&Value::from("y".repeat(500)))
        );
    }

    #[test]
    fn suggestions_follow_one_rule() {
        assert_eq!(
            did_you_mean("usrname", ["username", "email"]),
            Some("username")
        );
        assert_eq!(did_you_mean("due_date", ["dueDate"]), Some("dueDate"));
        assert_eq!(did_you_mean("zzz", ["username", "email"]), None);
        assert_eq!(did_you_mean(&"a".repeat(500), ["a"]), None);
    }

    #[test]
    fn abbreviations_and_prefixes_are_suggested_short_ones_are_not() {
        let fields = ["quantity", "amount", "description", "sku", "notes"];
        assert_eq!(did_you_mean("qty", fields), Some("quantity"));
        assert_eq!(did_you_mean("amt", fields), Some("amount"));
        assert_eq!(did_you_mean("desc", fields), Some("description"));
        assert_eq!(
            did_you_mean("overconfident", ["overconfident_language", "hedging"]),
            Some("overconfident_language")
        );
        // Two letters abbreviate nothing; letters out of order or from another start neither.
        assert_eq!(did_you_mean("no", fields), None);
        assert_eq!(did_you_mean("ytq", fields), None);
        assert_eq!(did_you_mean("mount", ["amount_due"]), None);
        assert_eq!(did_you_mean("xyz", fields), None);
    }

    /// The suggestion as it was worded before candidates were normalized once and distances
    /// skipped below the threshold: every candidate normalized at every call, every distance
    /// computed.
    fn reference_suggestion<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
        let normalize = |name: &str| -> String {
            name.chars()
                .filter(|c| !matches!(c, '_' | '-' | ' '))
                .flat_map(char::to_lowercase)
                .collect()
        };
        let wanted = normalize(input);
        let mut best: Option<(&'a str, f64)> = None;
        for &candidate in candidates {
            let normalized = normalize(candidate);
            let score = if wanted == normalized {
                1.0
            } else {
                let typo = strsim::normalized_damerau_levenshtein(&wanted, &normalized);
                let (w, c) = (wanted.chars().count(), normalized.chars().count());
                let mut letters = normalized.chars();
                let abbreviation = if w >= 3
                    && w < c
                    && wanted.chars().next() == normalized.chars().next()
                    && wanted.chars().all(|l| letters.any(|x| x == l))
                {
                    #[allow(clippy::cast_precision_loss, reason = "names are short")]
                    let coverage = w as f64 / c as f64;
                    SUGGESTION_THRESHOLD + 0.25 * coverage
                } else {
                    0.0
                };
                typo.max(abbreviation)
            };
            if score >= SUGGESTION_THRESHOLD && best.is_none_or(|(_, s)| score > s) {
                best = Some((candidate, score));
            }
        }
        best.map(|(name, _)| name)
    }

    #[test]
    fn suggestions_agree_with_every_distance_computed() {
        let names = [
            "username",
            "user_name",
            "email",
            "e-mail",
            "age",
            "role",
            "tags",
            "tag",
            "title",
            "assignee",
            "status",
            "due",
            "due_date",
            "dueDate",
            "priority",
            "labels",
            "label",
            "quantity",
            "qty",
            "amount",
            "amt",
            "description",
            "desc",
            "sku",
            "notes",
            "note",
            "nickname",
            "name",
            "names",
            "filter",
            "search",
            "lines",
            "line_items",
            "ship_to",
            "shipTo",
            "currency",
            "deliver_on",
            "delivery",
            "rush",
            "a",
            "ab",
            "abc",
            "abcd",
            "Straße",
            "strasse",
            "ÉCOLE",
            "école",
            "ключ",
            "ключи",
            "",
            "_",
            "x-y z",
            "overconfident_language",
            "hedging",
            "priorty",
            "prioirty",
            "emial",
            "usrname",
        ];
        for input in names {
            for size in 0..=names.len() {
                for start in [0, size / 2] {
                    let candidates = &names[start.min(size)..size];
                    assert_eq!(
                        did_you_mean(input, candidates.iter().copied()),
                        reference_suggestion(input, candidates),
                        "{input:?} among {candidates:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn json_text_is_what_display_writes() {
        let values = [
            serde_json::json!(null),
            serde_json::json!(true),
            serde_json::json!(-0.0),
            serde_json::json!(1.5e300),
            serde_json::json!(u64::MAX),
            serde_json::json!(i64::MIN),
            serde_json::json!("quote \" backslash \\ tab \t nul \u{0} line\u{2028}é 😀"),
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!({"b": [1, {"c": null}], "a": "x", "ключ": {"nested": [true, 2.25]}}),
        ];
        for value in values {
            assert_eq!(json_text(&value), value.to_string(), "{value:?}");
        }
        let deep = (0..200).fold(Value::Null, |inner, _| serde_json::json!([inner]));
        assert_eq!(json_text(&deep), deep.to_string());
    }
}
