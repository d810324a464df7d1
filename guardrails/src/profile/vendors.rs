//! The profiles of the strict consumers, each made from the portable form.

use serde_json::{Map, Value};

/// How deep a profile follows subschemas.
const MAX_DEPTH: usize = 128;

/// The keywords `OpenAI`'s strict mode documents; the others are refused there, so they are
/// removed and restated in the description (the server still enforces them).
const OPENAI_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "title",
    "$defs",
    "$ref",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// The keywords Google's `Schema` has a field for (`nullable` is added by this profile).
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "items",
    "minimum",
    "maximum",
    "default",
    "$defs",
    "$ref",
];

/// `OpenAI`'s strict mode: every property required (an optional one nullable, `null` read by the
/// server as left out), every object closed, no union at the root, only its keywords.
pub(super) fn openai(mut schema: Map<String, Value>) -> Map<String, Value> {
    // The root must be a plain object: the closed union of every property stays, the
    // variants are the server's to check.
    if schema.contains_key("properties") {
        schema.remove("anyOf");
    }
    openai_node(&mut schema, 0);
    schema
}

fn openai_node(schema: &mut Map<String, Value>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    each_subschema(schema, |child| openai_node(child, depth + 1));
    map_as_entries(schema);
    // Strict mode needs the items of every array typed: an array of anything (a part of a
    // `serde_json::Value`) is said as an array of scalars, the most strict mode can say.
    if schema.get("type") == Some(&Value::from("array")) && !schema.contains_key("items") {
        schema.insert(
            "items".into(),
            serde_json::json!({"anyOf": [
                {"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}
            ]}),
        );
    }
    restate_unsupported(schema, OPENAI_KEYWORDS);
    if schema.get("properties").is_some_and(Value::is_object) {
        let required: Vec<Value> = match schema.get("required") {
            Some(Value::Array(r)) => r.clone(),
            _ => Vec::new(),
        };
        let Some(Value::Object(properties)) = schema.get_mut("properties") else {
            return;
        };
        for (name, property) in properties.iter_mut() {
            if !required.iter().any(|r| r == name.as_str())
                && let Value::Object(property) = property
                && !super::accepts_null(&Value::Object(property.clone()))
            {
                *property = nullable(std::mem::take(property));
            }
        }
        let all: Vec<Value> = properties.keys().map(|k| Value::from(k.as_str())).collect();
        schema.insert("required".into(), Value::Array(all));
        if !schema.contains_key("additionalProperties") {
            schema.insert("additionalProperties".into(), false.into());
        }
    }
}

/// A map (an object with `additionalProperties` and no properties) becomes the array of its
/// entries, each `{"key", "value"}`: strict mode has no open objects, and the server reads the
/// entries back into the map.
fn map_as_entries(schema: &mut Map<String, Value>) {
    let is_map = schema
        .get("additionalProperties")
        .is_some_and(Value::is_object)
        && schema
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
    if !is_map {
        return;
    }
    let value = schema.remove("additionalProperties").unwrap_or_default();
    for key in ["properties", "required", "type", "propertyNames"] {
        schema.remove(key);
    }
    let bounds: Vec<(String, Value)> = ["minProperties", "maxProperties"]
        .iter()
        .filter_map(|k| schema.remove(*k).map(|v| ((*k).to_owned(), v)))
        .collect();
    schema.insert("type".into(), "array".into());
    schema.insert(
        "items".into(),
        serde_json::json!({
            "type": "object",
            "properties": {"key": {"type": "string"}, "value": value},
            "required": ["key", "value"],
            "additionalProperties": false
        }),
    );
    for (key, bound) in bounds {
        let items_key = if key == "minProperties" {
            "minItems"
        } else {
            "maxItems"
        };
        schema.insert(items_key.into(), bound);
    }
    append_description(
        schema,
        "A map, sent as its entries: each {\"key\", \"value\"}, keys distinct.",
    );
}

/// `anyOf [schema, null]`, the annotations kept outside.
fn nullable(mut schema: Map<String, Value>) -> Map<String, Value> {
    let mut outer = Map::new();
    for key in ["description", "title"] {
        if let Some(v) = schema.remove(key) {
            outer.insert(key.into(), v);
        }
    }
    let branches = match schema.remove("anyOf") {
        Some(Value::Array(mut branches)) if schema.is_empty() => {
            branches.push(serde_json::json!({"type": "null"}));
            branches
        }
        Some(any_of) => {
            schema.insert("anyOf".into(), any_of);
            vec![Value::Object(schema), serde_json::json!({"type": "null"})]
        }
        None => vec![Value::Object(schema), serde_json::json!({"type": "null"})],
    };
    outer.insert("anyOf".into(), Value::Array(branches));
    outer
}

/// Google's `Schema`: an option as `nullable`, only the keywords it has a field for (no
/// `additionalProperties`, whose `false` also crashes the SDK's MCP conversion).
pub(super) fn gemini(mut schema: Map<String, Value>) -> Map<String, Value> {
    gemini_node(&mut schema, 0);
    schema
}

fn gemini_node(schema: &mut Map<String, Value>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    each_subschema(schema, |child| gemini_node(child, depth + 1));
    // `anyOf [T, null]` is `T` with `nullable`.
    if let Some(Value::Array(branches)) = schema.get("anyOf") {
        let null = serde_json::json!({"type": "null"});
        if branches.len() == 2 && branches.contains(&null) {
            let other = branches.iter().find(|b| **b != null).cloned();
            if let Some(Value::Object(other)) = other {
                schema.remove("anyOf");
                for (key, value) in other {
                    schema.entry(key).or_insert(value);
                }
                schema.insert("nullable".into(), true.into());
            }
        }
    }
    // A `const` is its one-value `enum`, already beside it in the portable form.
    schema.remove("const");
    // An exclusive integer bound is the inclusive one next to it.
    let integer = schema.get("type") == Some(&Value::from("integer"));
    for (key, inclusive, step) in [
        ("exclusiveMinimum", "minimum", 1),
        ("exclusiveMaximum", "maximum", -1),
    ] {
        if let Some(n) = schema.get(key).and_then(Value::as_i64)
            && integer
        {
            schema.remove(key);
            schema.insert(inclusive.into(), (n + step).into());
        }
    }
    // Google's enum holds strings.
    if let Some(Value::Array(values)) = schema.get("enum")
        && !values.iter().all(Value::is_string)
    {
        let values = schema.remove("enum").unwrap_or_default();
        append_description(schema, &format!("One of {values}."));
    }
    schema.remove("additionalProperties");
    restate_unsupported(schema, GEMINI_KEYWORDS);
}

/// Applies `f` to every subschema directly under `schema`.
fn each_subschema(schema: &mut Map<String, Value>, mut f: impl FnMut(&mut Map<String, Value>)) {
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = schema.get_mut(key) {
            for child in children.values_mut() {
                if let Value::Object(child) = child {
                    f(child);
                }
            }
        }
    }
    for key in ["items", "additionalProperties", "not", "contains"] {
        if let Some(Value::Object(child)) = schema.get_mut(key) {
            f(child);
        }
    }
    for key in ["anyOf", "allOf", "oneOf"] {
        if let Some(Value::Array(children)) = schema.get_mut(key) {
            for child in children {
                if let Value::Object(child) = child {
                    f(child);
                }
            }
        }
    }
}

/// Removes the keywords a consumer does not read and says them in the description instead,
/// where a model still reads them.
fn restate_unsupported(schema: &mut Map<String, Value>, supported: &[&str]) {
    let dropped: Vec<(String, Value)> = schema
        .keys()
        .filter(|k| !supported.contains(&k.as_str()))
        .cloned()
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|k| schema.remove(&k).map(|v| (k, v)))
        .collect();
    let said: Vec<String> = dropped
        .iter()
        .filter_map(|(key, value)| restated(key, value))
        .collect();
    if !said.is_empty() {
        append_description(schema, &said.join(" "));
    }
}

/// A dropped keyword in words a model reads, or `None` for an annotation that says nothing a
/// model must keep to.
fn restated(key: &str, value: &Value) -> Option<String> {
    Some(match key {
        "minLength" => format!("At least {value} characters."),
        "maxLength" => format!("At most {value} characters."),
        "uniqueItems" if value == &Value::Bool(true) => "Items must be distinct.".to_owned(),
        "minProperties" => format!("At least {value} entries."),
        "maxProperties" => format!("At most {value} entries."),
        "multipleOf" => format!("A multiple of {value}."),
        "exclusiveMinimum" => format!("Greater than {value}."),
        "exclusiveMaximum" => format!("Less than {value}."),
        "pattern" => format!("Matches {value}."),
        _ => return None,
    })
}

fn append_description(schema: &mut Map<String, Value>, text: &str) {
    let description = match schema.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} {text}"),
        _ => text.to_owned(),
    };
    schema.insert("description".into(), description.into());
}

/// Anthropic's strict tool use: the portable form already satisfies its transform (every
/// schema typed, "anything" a union of every type, no list of types).
pub(super) fn anthropic(schema: Map<String, Value>) -> Map<String, Value> {
    schema
}
