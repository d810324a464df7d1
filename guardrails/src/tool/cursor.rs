//! Cursors of `paged` tools: where the next page starts, bound to the other arguments of the
//! call that gave it, and tamper-evident.
//!
//! A cursor is 24 bytes written as 48 hex digits: the offset of the next page (masked, so that
//! it does not read as a number), a digest of the call's other arguments, and a check digest
//! of the tool's name, the offset and that digest. A cursor that was edited or made up fails
//! the check; one from a call with other arguments carries another digest; one that points
//! past the end of the results is stale. Each is a validation issue at `cursor` that says what
//! to do.
//!
//! The check is an integrity check, not a secret: it catches a cursor a model changed or
//! invented, and it is the same on every instance of a server, so a cursor works whichever
//! instance answers. It is no authorization boundary: a cursor only skips items that the same
//! call, without it, would list.

use std::fmt::Write as _;

use schemars::Schema;
use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use crate::text::preview;
use crate::validation::{Issue, IssueCode, json_type_noun};

/// The argument that carries the cursor.
pub(crate) const CURSOR_FIELD: &str = "cursor";

/// What the schema says of the cursor, for the model.
const CURSOR_DESCRIPTION: &str = "Where the next page starts: the `next_cursor` of the previous result of this tool. Send it with the same other arguments as that call; leave it out for the first page.";

/// What to do about a cursor that cannot be used.
const START_OVER: &str = "Send the cursor exactly as the previous result gave it, with the same other arguments, or leave `cursor` out to start from the first page.";

const DIGEST_BYTES: usize = 8;

/// The page a call asks for: where it starts, and the digest of its other arguments that the
/// next cursor carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Page {
    /// How many items come before the page.
    pub(crate) offset: usize,
    filters: [u8; DIGEST_BYTES],
}

impl Page {
    /// The page of a call to `tool` whose arguments, without the cursor, are `arguments`:
    /// the first page without a cursor, else the one `cursor` points to.
    ///
    /// # Errors
    /// The issue at `cursor`: not a string, not a cursor of this tool (edited or made up), or
    /// given for other arguments.
    pub(crate) fn of_call(
        tool: &str,
        arguments: &Map<String, Value>,
        cursor: Option<&Value>,
    ) -> Result<Self, Box<Issue>> {
        let first = Self::first(arguments);
        let filters = first.filters;
        let Some(cursor) = cursor.filter(|c| !c.is_null()) else {
            return Ok(first);
        };
        let Value::String(text) = cursor else {
            return Err(issue(
                IssueCode::Type,
                format!("Expected a string, got {}.", json_type_noun(cursor)),
                cursor,
            ));
        };
        let Some((offset, issued_for)) = decode(tool, text) else {
            return Err(issue(
                IssueCode::Cursor,
                "Not a cursor this tool gave: it was changed or made up.".to_owned(),
                cursor,
            ));
        };
        if issued_for != filters {
            return Err(issue(
                IssueCode::Cursor,
                "This cursor was given for a call with other arguments: a page continues the call that gave its cursor.".to_owned(),
                cursor,
            ));
        }
        Ok(Self { offset, filters })
    }

    /// The first page of a call whose arguments, without the cursor, are `arguments`.
    #[must_use]
    pub(crate) fn first(arguments: &Map<String, Value>) -> Self {
        Self {
            offset: 0,
            filters: arguments_digest(arguments),
        }
    }

    /// The cursor of the page that starts at `offset`, for the same call to `tool`.
    #[must_use]
    pub(crate) fn next(&self, tool: &str, offset: usize) -> String {
        encode(tool, offset, self.filters)
    }
}

/// The issue of a cursor that points past the end of the results (they shrank since).
#[must_use]
pub fn stale(cursor_offset: usize, total: usize) -> Issue {
    Issue {
        path: CURSOR_FIELD.into(),
        code: IssueCode::Cursor,
        message: format!(
            "This cursor is stale: it starts at item {} and the results now hold {total}.",
            cursor_offset.saturating_add(1)
        )
        .into(),
        received: None,
        expected: None,
        fix: Some("Leave `cursor` out to start again from the first page.".into()),
    }
}

#[expect(
    clippy::unnecessary_box_returns,
    reason = "the error of `Page::of_call`, boxed there to keep its `Result` small"
)]
fn issue(code: IssueCode, message: String, sent: &Value) -> Box<Issue> {
    Box::new(Issue {
        path: CURSOR_FIELD.into(),
        code,
        message: message.into(),
        received: Some(preview(sent).into()),
        expected: Some("the `next_cursor` of the previous result".into()),
        fix: Some(START_OVER.into()),
    })
}

/// The arguments' schema with the optional `cursor` property: what generated code advertises
/// for a paged tool. Not part of the public API.
#[doc(hidden)]
#[must_use]
pub fn with_cursor(schema: &Schema) -> Schema {
    let mut schema = schema.clone();
    if let Some(Value::Object(properties)) =
        schema.as_object_mut().and_then(|s| s.get_mut("properties"))
    {
        properties.insert(
            CURSOR_FIELD.to_owned(),
            json!({"type": ["string", "null"], "description": CURSOR_DESCRIPTION}),
        );
    }
    schema
}

/// A digest of the arguments, the same whatever order their keys were sent in.
fn arguments_digest(arguments: &Map<String, Value>) -> [u8; DIGEST_BYTES] {
    let mut hasher = Sha256::new();
    feed_object(&mut hasher, arguments);
    first_bytes(&hasher.finalize())
}

/// Feeds a canonical form of `value`: compact JSON with object keys in order.
fn feed(hasher: &mut Sha256, value: &Value) {
    match value {
        Value::Object(map) => feed_object(hasher, map),
        Value::Array(items) => {
            hasher.update(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    hasher.update(b",");
                }
                feed(hasher, item);
            }
            hasher.update(b"]");
        }
        scalar => hasher.update(scalar.to_string().as_bytes()),
    }
}

fn feed_object(hasher: &mut Sha256, map: &Map<String, Value>) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    hasher.update(b"{");
    for (i, key) in keys.into_iter().enumerate() {
        if i > 0 {
            hasher.update(b",");
        }
        hasher.update(Value::from(key.as_str()).to_string().as_bytes());
        hasher.update(b":");
        feed(hasher, &map[key]);
    }
    hasher.update(b"}");
}

fn first_bytes(hash: &[u8]) -> [u8; DIGEST_BYTES] {
    let mut out = [0; DIGEST_BYTES];
    out.copy_from_slice(&hash[..DIGEST_BYTES]);
    out
}

/// The mask of the offset and the check digest of a cursor.
fn mask_and_check(
    tool: &str,
    masked: u64,
    filters: [u8; DIGEST_BYTES],
) -> (u64, [u8; DIGEST_BYTES]) {
    let mask = first_bytes(
        &Sha256::new()
            .chain_update(b"guardrails cursor mask v1\0")
            .chain_update(tool.as_bytes())
            .chain_update(b"\0")
            .chain_update(filters)
            .finalize(),
    );
    let check = first_bytes(
        &Sha256::new()
            .chain_update(b"guardrails cursor check v1\0")
            .chain_update(tool.as_bytes())
            .chain_update(b"\0")
            .chain_update(masked.to_be_bytes())
            .chain_update(filters)
            .finalize(),
    );
    (u64::from_be_bytes(mask), check)
}

fn encode(tool: &str, offset: usize, filters: [u8; DIGEST_BYTES]) -> String {
    let offset = u64::try_from(offset).unwrap_or(u64::MAX);
    // The mask does not depend on the offset; the check covers the masked offset.
    let (mask, _) = mask_and_check(tool, 0, filters);
    let masked = offset ^ mask;
    let (_, check) = mask_and_check(tool, masked, filters);
    let mut out = String::with_capacity(DIGEST_BYTES * 6);
    for byte in masked.to_be_bytes().iter().chain(&filters).chain(&check) {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The offset and the arguments digest of a cursor of `tool`, or `None` when it is not one.
fn decode(tool: &str, text: &str) -> Option<(usize, [u8; DIGEST_BYTES])> {
    if text.len() != DIGEST_BYTES * 6 || !text.is_ascii() {
        return None;
    }
    let mut bytes = [0u8; DIGEST_BYTES * 3];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    let masked = u64::from_be_bytes(first_bytes(&bytes[..DIGEST_BYTES]));
    let filters = first_bytes(&bytes[DIGEST_BYTES..2 * DIGEST_BYTES]);
    let (mask, check) = mask_and_check(tool, masked, filters);
    if check[..] != bytes[2 * DIGEST_BYTES..] {
        return None;
    }
    let offset = usize::try_from(masked ^ mask).ok()?;
    Some((offset, filters))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else {
            panic!("arguments are an object")
        };
        map
    }

    #[test]
    fn a_cursor_round_trips_and_hides_its_offset() {
        let call = args(json!({"status": "todo", "tags": ["a", "b"]}));
        let page = Page::of_call("list", &call, None).unwrap();
        assert_eq!(page.offset, 0);
        let cursor = page.next("list", 50);
        assert_eq!(cursor.len(), 48);
        assert_ne!(
            &cursor[..16],
            format!("{:016x}", 50),
            "the offset is masked"
        );
        let next = Page::of_call("list", &call, Some(&Value::from(cursor.as_str()))).unwrap();
        assert_eq!(next.offset, 50);
        // Keys in another order are the same arguments.
        let reordered: Map<String, Value> = call.clone().into_iter().rev().collect();
        assert_eq!(
            Page::of_call("list", &reordered, Some(&Value::from(cursor))).unwrap(),
            next
        );
    }

    #[test]
    fn an_edited_cursor_or_another_tools_is_rejected() {
        let call = args(json!({}));
        let cursor = Page::of_call("list", &call, None).unwrap().next("list", 50);
        for i in 0..cursor.len() {
            let mut edited = cursor.clone().into_bytes();
            edited[i] = if edited[i] == b'0' { b'1' } else { b'0' };
            let edited = String::from_utf8(edited).unwrap();
            let issue = Page::of_call("list", &call, Some(&Value::from(edited))).unwrap_err();
            assert_eq!(issue.code, IssueCode::Cursor);
            assert!(issue.message.contains("changed or made up"), "{issue:?}");
        }
        let other_tool = Page::of_call("search", &call, Some(&Value::from(cursor.as_str())));
        assert!(other_tool.is_err());
        for junk in [json!("next"), json!(""), json!("zz".repeat(24))] {
            assert!(Page::of_call("list", &call, Some(&junk)).is_err(), "{junk}");
        }
        let typed = Page::of_call("list", &call, Some(&json!(50))).unwrap_err();
        assert_eq!(typed.code, IssueCode::Type);
    }

    #[test]
    fn a_cursor_from_other_arguments_says_so() {
        let cursor = Page::of_call("list", &args(json!({"status": "todo"})), None)
            .unwrap()
            .next("list", 50);
        let issue = Page::of_call(
            "list",
            &args(json!({"status": "done"})),
            Some(&Value::from(cursor)),
        )
        .unwrap_err();
        assert_eq!(issue.path, "cursor");
        assert!(issue.message.contains("other arguments"), "{issue:?}");
    }
}
