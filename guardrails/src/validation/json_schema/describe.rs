//! What a schema accepts, in words: the short noun an issue names as expected (`a string`,
//! `one of "a", "b"`) and the full description its fix gives (`an integer from 1 to 100`), worded
//! as the derive words its own fields through the shared wording of the validation module. The
//! issues and the optional properties a caller can narrow a call with describe a schema the same
//! way, through these.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::lookup::{resolve, types_of};
use super::representation::{
    Variants, tag_name, unions_at, untagged_shapes, variant_keys, variants_of,
};
use super::{MAX_EXPECTED_CHARS, MAX_NOUN_DEPTH};
use crate::text::{cut, preview};
use crate::validation::MAX_SAFE_INTEGER;
use crate::validation::number::{Bound, Num};
use crate::validation::string_format::StringFormat;
use crate::validation::variants;
use crate::validation::wording::{self, CHARACTERS, ENTRIES, ITEMS};

/// A short noun phrase for what a schema accepts: `a string`, `one of "a", "b"`.
pub(super) fn noun(schema: &Value, root: &Map<String, Value>) -> String {
    noun_at(schema, root, 0)
}

/// [`noun`] of a schema `depth` unions deep, which names a union it is nested in no deeper
/// than a few levels (a union of itself would never end).
fn noun_at(schema: &Value, root: &Map<String, Value>, depth: usize) -> String {
    let schema = resolve(schema, root);
    if let Some(noun) = enum_noun(schema, root) {
        return noun;
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return allowed_values(values);
    }
    if let Some(value) = schema.get("const") {
        return format!("exactly {}", preview(value));
    }
    let nouns: Vec<&str> = types_of(schema)
        .into_iter()
        .map(|t| match t {
            "string" => "a string",
            "integer" => "an integer",
            "number" => "a number",
            "boolean" => "a boolean",
            "array" => "an array",
            "object" => "an object",
            "null" => "null",
            _ => "a value",
        })
        .collect();
    if !nouns.is_empty() {
        return nouns.join(" or ");
    }
    match schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        Some(Value::Array(branches)) if depth < MAX_NOUN_DEPTH => {
            alternatives_at(branches, root, depth)
        }
        Some(Value::Array(_)) => "one of several shapes".to_owned(),
        _ => "any JSON value".to_owned(),
    }
}

fn allowed_values(values: &[Value]) -> String {
    let listed: Vec<String> = values.iter().map(preview).collect();
    cut(&format!("one of {}", listed.join(", ")), MAX_EXPECTED_CHARS).into_owned()
}

/// What a schema accepts, in full: `a string of 3 to 20 characters matching ^[a-z]+$`,
/// `an integer from 1 to 100`, `an array of at most 5 items, each item a string`.
pub(super) fn describe(schema: &Value, root: &Map<String, Value>) -> String {
    describe_at(schema, root, 0)
}

/// [`describe`] of a schema `depth` items or values deep: past a few levels (a recursive type
/// would never end), an item is named by its [`noun`].
fn describe_at(schema: &Value, root: &Map<String, Value>, depth: usize) -> String {
    let schema = resolve(schema, root);
    if let Some(noun) = enum_noun(schema, root) {
        return noun;
    }
    if schema.get("enum").is_some() || schema.get("const").is_some() {
        return noun(schema, root);
    }
    // An item or a value, described as the derive describes it, in full.
    let inner = |schema: &Value| {
        if depth < MAX_NOUN_DEPTH {
            describe_at(schema, root, depth + 1)
        } else {
            noun(schema, root)
        }
    };
    let types = types_of(schema);
    let Some(first) = types.first() else {
        if let Some(branches) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            return alternatives(branches, root);
        }
        return "any JSON value".to_owned();
    };
    let mut out = match *first {
        "string" => describe_string(schema),
        kind @ ("integer" | "number") => describe_number(schema, kind),
        "boolean" => "true or false".to_owned(),
        "array" => {
            let mut s = String::from("an array");
            let (min, max) = (
                keyword_count(schema, "minItems"),
                keyword_count(schema, "maxItems"),
            );
            wording::length_window(&mut s, min, max, ITEMS);
            if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
                wording::unique_phrase(&mut s);
            }
            if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
                let _ = write!(s, ", each item {}", inner(items));
            }
            s
        }
        "object" => match schema.get("properties").and_then(Value::as_object) {
            Some(props) if !props.is_empty() => {
                let names: Vec<String> = props
                    .keys()
                    .map(|k| Value::from(k.as_str()).to_string())
                    .collect();
                format!("an object with the fields {}", names.join(", "))
            }
            _ => {
                // A map: its entries counted, each value described, as a derived map field.
                let mut s = String::from("an object");
                let min = keyword_count(schema, "minProperties");
                let max = keyword_count(schema, "maxProperties");
                wording::length_window(&mut s, min, max, ENTRIES);
                if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
                    let _ = write!(s, ", each value {}", inner(values));
                }
                s
            }
        },
        "null" => "null".to_owned(),
        other => format!("a value of type {}", cut(other, 32)),
    };
    if types.len() > 1 {
        let rest: Vec<&str> = types[1..]
            .iter()
            .map(|t| if *t == "null" { "null" } else { "another type" })
            .collect();
        let _ = write!(out, ", or {}", rest.join(" or "));
    }
    cut(&out, MAX_EXPECTED_CHARS).into_owned()
}

/// The value of a count keyword of `schema` (`minLength`, `maxItems`, …).
fn keyword_count(schema: &Value, key: &str) -> Option<u64> {
    schema.get(key).and_then(Value::as_u64)
}

/// A numeric bound of `schema`: the exclusive keyword when there is one, else the inclusive one.
fn keyword_bound(schema: &Value, inclusive: &str, exclusive: &str) -> Option<Bound> {
    let bound = |key: &str, exclusive: bool| {
        schema.get(key).filter(|v| v.is_number()).map(|v| Bound {
            value: num_of(v),
            exclusive,
        })
    };
    bound(exclusive, true).or_else(|| bound(inclusive, false))
}

fn describe_string(schema: &Value) -> String {
    let mut s = String::from("a string");
    let (min, max) = (
        keyword_count(schema, "minLength"),
        keyword_count(schema, "maxLength"),
    );
    wording::length_window(&mut s, min, max, CHARACTERS);
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        wording::pattern_phrase(&mut s, pattern);
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        match StringFormat::from_name(format) {
            Some(f) => wording::format_phrase(&mut s, f),
            None => {
                let _ = write!(s, " in the {} format", cut(format, 64));
            }
        }
    }
    s
}

fn describe_number(schema: &Value, kind: &str) -> String {
    let mut s = String::from(if kind == "integer" {
        "an integer"
    } else {
        "a number"
    });
    // The limits of 64-bit types go unsaid, as the derived validators leave them: no value a
    // model means to send is near them.
    let safe = i128::from(MAX_SAFE_INTEGER);
    let said = |b: &Bound| !matches!(b.value, Num::Int(n) if n <= -safe || n >= safe);
    let low = keyword_bound(schema, "minimum", "exclusiveMinimum").filter(said);
    let high = keyword_bound(schema, "maximum", "exclusiveMaximum").filter(said);
    wording::number_window(&mut s, low, high);
    if let Some(step) = schema.get("multipleOf").filter(|v| v.is_number()) {
        wording::multiple_of_phrase(&mut s, num_of(step));
    }
    s
}

/// A bound of a schema as a number of the derived validators: an integer when it is one.
pub(super) fn num_of(value: &Value) -> Num {
    value
        .as_i64()
        .map(i128::from)
        .or_else(|| value.as_u64().map(i128::from))
        .map_or_else(|| Num::Float(value.as_f64().unwrap_or(f64::NAN)), Num::Int)
}

/// What one branch of a union accepts, told apart from its siblings: the object of a
/// variant's key by that key, the tagged object by its tag.
fn branch_noun(branch: &Value, root: &Map<String, Value>, depth: usize) -> String {
    if let Some(Value::Array(values)) = branch.get("enum")
        && let [only] = values.as_slice()
    {
        return preview(only);
    }
    if let [(_, key)] = variant_keys(&[branch]).as_slice() {
        return format!("an object {{{}: …}}", Value::from(*key));
    }
    if let Some(props) = branch.get("properties").and_then(Value::as_object) {
        // The tag first, with its value: it is what tells this branch from the others.
        let (tags, fields): (Vec<_>, Vec<_>) =
            props.iter().partition(|(_, p)| p.get("const").is_some());
        let names: Vec<String> = tags
            .iter()
            .map(|(k, p)| format!("{}: {}", Value::from(k.as_str()), preview(&p["const"])))
            .chain(
                fields
                    .iter()
                    .map(|(k, _)| Value::from(k.as_str()).to_string()),
            )
            .take(6)
            .collect();
        if !names.is_empty() {
            return format!("an object with {}", names.join(", "));
        }
    }
    noun_at(branch, root, depth + 1)
}

/// What the branches of a union accept, each told apart from the others and named once:
/// `"zero", or an object {"num": …}, or an object {"add": …}`.
pub(super) fn alternatives(branches: &[Value], root: &Map<String, Value>) -> String {
    alternatives_at(branches, root, 0)
}

fn alternatives_at(branches: &[Value], root: &Map<String, Value>, depth: usize) -> String {
    let mut nouns: Vec<String> = Vec::new();
    for branch in branches {
        let noun = branch_noun(resolve(branch, root), root, depth);
        if !nouns.contains(&noun) {
            nouns.push(noun);
        }
    }
    cut(&nouns.join(", or "), MAX_EXPECTED_CHARS).into_owned()
}

/// What a union of the variants of an enum accepts, as the derive words that enum: `None`
/// unless `schema`'s branches are a tagged, externally tagged or untagged enum's.
fn enum_noun(schema: &Value, root: &Map<String, Value>) -> Option<String> {
    let [branches] = unions_at(schema, root).try_into().ok()?;
    Some(match variants_of(&branches) {
        Variants::Tagged { tag, tags, content } => {
            let names: Vec<String> = tags.iter().map(|(_, t)| tag_name(t)).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            variants::words::tagged_noun(tag, content, &names)
        }
        Variants::External { keys, units } => {
            let data: Vec<&str> = keys.iter().map(|(_, k)| *k).collect();
            let units: Vec<&str> = units.iter().filter_map(|u| u.as_str()).collect();
            variants::words::external_noun(&units, &data)
        }
        Variants::Untagged => variants::words::untagged_noun(&untagged_shapes(&branches)?),
    })
}
#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::validation::json_schema::args;

    #[test]
    fn a_union_of_itself_is_described_without_end() {
        let checked = args(&json!({
            "type": "object",
            "properties": {"loop": {"$ref": "#/$defs/L"}},
            "required": ["loop"],
            "$defs": {"L": {"anyOf": [{"$ref": "#/$defs/L"}, {"type": "integer"}]}}
        }));
        let report = checked.check(&json!({})).unwrap_err();
        let missing = report.at("loop").unwrap();
        assert!(
            missing.expected.as_deref().unwrap().contains("an integer"),
            "{report}"
        );
    }
}
