//! Numbers, counts, lists and JSON written straight into a message's text, without the
//! formatting machinery.

use serde_json::Value;

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
