//! Finding one's way in a schema: JSON pointers read as paths and as places in the schema, local
//! references followed, and the names and types a schema declares. Every other part of the
//! checker reads schemas through these, so they stand apart from what each part makes of what it
//! reads.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::MAX_EXAMPLE_DEPTH;
use crate::text::cut;
use crate::validation::report::push_key;

/// The segments of a JSON pointer, unescaped.
pub(super) fn pointer_segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// `items[2].name` for the pointer `/items/2/name`: an index where the value is an array.
pub(super) fn instance_path(segments: &[String], root: &Value) -> String {
    let mut out = String::new();
    let mut at = Some(root);
    for segment in segments {
        match at {
            Some(Value::Array(items)) => {
                let _ = write!(out, "[{segment}]");
                at = segment.parse::<usize>().ok().and_then(|i| items.get(i));
            }
            other => {
                push_key(&mut out, &cut(segment, 64));
                at = other.and_then(|v| v.get(segment.as_str()));
            }
        }
    }
    out
}

/// The subschema at `pointer` in `schema`, following the references a recursive type keeps.
pub(super) fn lookup<'a>(schema: &'a Value, pointer: &str) -> Option<&'a Value> {
    let root = schema.as_object()?;
    let mut at = schema;
    for segment in pointer_segments(pointer) {
        if segment == "$ref" {
            // A path through a reference that was kept (a recursive type) goes on in the
            // definition it names.
            at = at
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| local_ref(r, root))?;
            continue;
        }
        let next = match at {
            Value::Object(map) => map.get(&segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }?;
        at = resolve(next, root);
    }
    Some(at)
}

/// `schema` itself, or the definition its local `$ref` names.
pub(super) fn resolve<'a>(schema: &'a Value, root: &'a Map<String, Value>) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| local_ref(r, root))
        .unwrap_or(schema)
}

fn local_ref<'a>(reference: &str, root: &'a Map<String, Value>) -> Option<&'a Value> {
    let (section, name) = reference
        .strip_prefix("#/$defs/")
        .map(|n| ("$defs", n))
        .or_else(|| {
            reference
                .strip_prefix("#/definitions/")
                .map(|n| ("definitions", n))
        })?;
    root.get(section)?
        .get(name.replace("~1", "/").replace("~0", "~"))
}

pub(super) fn required_of(schema: &Map<String, Value>) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The types a schema allows, `null` last.
pub(super) fn types_of(schema: &Value) -> Vec<&str> {
    let mut types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if schema.get("properties").is_some() => vec!["object"],
        _ => Vec::new(),
    };
    types.sort_by_key(|t| *t == "null");
    types
}

/// The names of the properties `schema` declares itself.
pub(super) fn property_names(schema: &Value) -> Vec<&str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// The keys an object schema declares in itself and in the schemas it is made of in whole
/// (`allOf`), not in the branches of its unions.
pub(super) fn own_names<'a>(
    schema: &'a Value,
    root: &'a Map<String, Value>,
    depth: usize,
    names: &mut Vec<&'a str>,
) {
    if depth > MAX_EXAMPLE_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    for name in property_names(schema) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    for branch in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        own_names(branch, root, depth + 1, names);
    }
}

/// The keys an object schema declares: its own `properties` and those of its branches in
/// place (a flattened enum's variants), for the did-you-mean of a key none of them takes.
pub(super) fn declared_names<'a>(
    schema: &'a Value,
    root: &'a Map<String, Value>,
    depth: usize,
    names: &mut Vec<&'a str>,
) {
    if depth > MAX_EXAMPLE_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for name in props.keys() {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    for keyword in ["allOf", "anyOf", "oneOf"] {
        for branch in schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            declared_names(branch, root, depth + 1, names);
        }
    }
}
