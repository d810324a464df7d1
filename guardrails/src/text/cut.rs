//! Bounded cuts and previews of what a caller sent: at most so many characters, cut between
//! words and marked with `…`, however long the text or the value.

use std::borrow::Cow;

use serde_json::Value;

use super::escape::{escape_json_text, quote_json};

/// The most characters of a value sent by the caller that a message echoes back.
pub(crate) const PREVIEW_CHARS: usize = 80;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
