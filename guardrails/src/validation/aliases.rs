//! serde's `#[serde(alias = "..")]`: a field read under other names, as serde reads it. The
//! validator takes the value under any of its names and refuses it sent under two (serde's
//! "duplicate field"); the schema lists each name, requires one of them and forbids two.

use serde_json::{Map, Value, json};

use super::context::Cx;
use super::info::FieldInfo;
use super::report::{Issue, IssueCode, push_key};
use crate::text::cut;

/// The most characters of a key that an issue echoes back.
const KEY_PREVIEW_CHARS: usize = 64;

/// Reads `value`, sent as `key`, into the slot of `field`, a field with aliases: a second name
/// of a field already sent is an issue at that key, as serde refuses it. Used by generated
/// code.
pub fn take_alias(
    cx: &mut Cx,
    slot: &mut Option<Value>,
    key: &str,
    value: Value,
    field: &'static FieldInfo,
) {
    if slot.is_none() {
        *slot = Some(value);
        return;
    }
    let mut path = cx.path();
    push_key(&mut path, &cut(key, KEY_PREVIEW_CHARS));
    let name = field.name;
    let message = if key == name {
        format!("`{name}` was also sent under another of its names.")
    } else {
        format!("`{key}` is another name of `{name}`, which was sent too.")
    };
    cx.push_issue(Issue {
        path: path.into(),
        code: IssueCode::UnknownField,
        message: message.into(),
        received: None,
        expected: None,
        fix: Some(format!("Send the field once, as `{name}`.").into()),
    });
}

/// Adds the aliases of each field to an object schema: each a property with the field's schema,
/// the field required under one of its names when it is required, and never sent under two.
/// Used by generated code.
pub fn alias_schema(schema: &mut Map<String, Value>, aliases: &[(&str, &[&str])]) {
    let mut all_of = Vec::new();
    for &(name, others) in aliases {
        let Some(Value::Object(properties)) = schema.get_mut("properties") else {
            return;
        };
        let Some(Value::Object(own)) = properties.get(name).cloned() else {
            continue;
        };
        for &other in others {
            let mut alias = own.clone();
            alias.insert(
                "description".into(),
                Value::from(format!("Another name of `{name}`; send one of the two.")),
            );
            properties.insert(other.to_owned(), Value::Object(alias));
        }
        let names: Vec<&str> = std::iter::once(name)
            .chain(others.iter().copied())
            .collect();
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            let before = required.len();
            required.retain(|n| n != name);
            if required.len() < before {
                let any: Vec<Value> = names.iter().map(|n| json!({"required": [n]})).collect();
                all_of.push(json!({"anyOf": any}));
            }
        }
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                all_of.push(json!({"not": {"required": [a, b]}}));
            }
        }
    }
    if all_of.is_empty() {
        return;
    }
    match schema.get_mut("allOf") {
        Some(Value::Array(existing)) => existing.extend(all_of),
        _ => {
            schema.insert("allOf".into(), Value::Array(all_of));
        }
    }
}

/// [`alias_schema`] on a root schema.
#[must_use]
pub fn alias_root_schema(
    mut schema: schemars::Schema,
    aliases: &[(&str, &[&str])],
) -> schemars::Schema {
    if let Some(object) = schema.as_object_mut() {
        alias_schema(object, aliases);
    }
    schema
}
