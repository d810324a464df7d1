//! Escaping what a caller sent for each notation a message is written in: XML-style tags and
//! attributes, Markdown code spans, one line of plain text, JSON text.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::write::push_json_string;

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

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::super::cut::preview;
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
}
