//! The portable form of a schema: the same meaning in the keywords every consumer reads.
//!
//! Each rewrite below is either exact (the rewritten schema accepts the same values) or looser
//! in a way the server makes up for, since the server keeps checking the strict schema and its
//! coaching restates what the portable form no longer says:
//!
//! | strict form | portable form | meaning |
//! |---|---|---|
//! | `"type": ["T", "null"]` | `anyOf: [{type: T, …}, {type: null}]` | exact |
//! | `oneOf` | `anyOf` | exact for tagged variants (their tags differ); looser elsewhere |
//! | `const: x` | `const: x`, `enum: [x]`, the `type` of `x` | exact |
//! | open variants closed by `unevaluatedProperties: false` | closed variants carrying the shared properties, beside the union of all properties | exact for variants told apart by a tag |
//! | `prefixItems` (a tuple) | `items` (any of the positions' schemas), `minItems`, `maxItems` | looser: positions are the server's |
//! | an integer bound at a Rust type's limit past ±(2^53−1) | ±(2^53−1) | what a JSON number holds exactly |
//! | `true` / `false` as a subschema | a union of every JSON type / `{"not": {}}` | exact |
//! | `uniqueItems: true` | said in the description | looser: distinctness is the server's |
//! | `$schema` | (removed) | exact: MCP's default dialect is 2020-12 |

use serde_json::{Map, Value};

/// The largest integer a JSON number (an IEEE double) holds exactly: 2^53 − 1.
pub(crate) const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// How deep the rewrite follows subschemas; deeper ones are kept as they are (a schema from a
/// foreign server may nest without end).
const MAX_DEPTH: usize = 128;

/// The most closed variants a union of flattened enums is spelt out into; past it the strict
/// form is kept (and the linter names it).
pub(crate) const MAX_VARIANTS: usize = 64;

/// Keywords whose values are subschemas keyed by name.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is one subschema.
const SCHEMA_SINGLES: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];

/// Keywords whose value is a list of subschemas.
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// The portable form of a whole schema (a tool's `inputSchema` or `outputSchema`).
#[must_use]
pub(crate) fn portable(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut schema = schema.clone();
    schema.remove("$schema");
    rewrite(&mut schema, 0);
    variants_in_words(&mut schema);
    schema
}

/// The root of a tool's arguments is a plain closed object: `OpenAI`'s strict transforms raise
/// on a union there and VS Code deletes it. Where the root had closed variants (a flattened
/// enum), the union of their properties stays, closed, and the variants are said in the
/// description, where a model reads them; the server still checks them.
fn variants_in_words(schema: &mut Map<String, Value>) {
    if !schema.contains_key("properties") {
        return;
    }
    let Some(Value::Array(branches)) = schema.get("anyOf") else {
        return;
    };
    let shared: Vec<Value> = match schema.get("required") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    let mut shapes = Vec::new();
    for branch in branches {
        let Some(branch) = branch.as_object() else {
            return;
        };
        let properties = branch.get("properties").and_then(Value::as_object);
        let mut parts = Vec::new();
        for name in branch
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(name_text) = name.as_str() else {
                continue;
            };
            let fixed = properties
                .and_then(|p| p.get(name_text))
                .and_then(|p| p.get("const"));
            match fixed {
                Some(value) => parts.push(format!("`{name_text}`: {value}")),
                None if !shared.contains(name) => parts.push(format!("`{name_text}`")),
                None => {}
            }
        }
        shapes.push(if parts.is_empty() {
            "none of the variant fields".to_owned()
        } else {
            parts.join(" with ")
        });
    }
    schema.remove("anyOf");
    let words = format!("Send exactly one of: {}.", shapes.join("; or "));
    let description = match schema.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} {words}"),
        _ => words,
    };
    schema.insert("description".into(), description.into());
}

/// Rewrites one subschema in place, its subschemas first.
fn rewrite(schema: &mut Map<String, Value>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    schema.remove("$schema");
    for key in SCHEMA_MAPS {
        if let Some(Value::Object(children)) = schema.get_mut(*key) {
            for child in children.values_mut() {
                rewrite_value(child, depth + 1);
            }
        }
    }
    for key in SCHEMA_SINGLES {
        match schema.get(*key) {
            // `false` closes an object or a tuple, as every consumer reads it; `true` adds
            // nothing.
            Some(Value::Bool(false))
                if matches!(
                    *key,
                    "additionalProperties" | "unevaluatedProperties" | "items"
                ) => {}
            Some(Value::Bool(true))
                if matches!(
                    *key,
                    "additionalProperties" | "unevaluatedProperties" | "items" | "unevaluatedItems"
                ) =>
            {
                schema.remove(*key);
            }
            Some(_) => {
                if let Some(child) = schema.get_mut(*key) {
                    rewrite_value(child, depth + 1);
                }
            }
            None => {}
        }
    }
    for key in SCHEMA_LISTS {
        if let Some(Value::Array(children)) = schema.get_mut(*key) {
            for child in children {
                rewrite_value(child, depth + 1);
            }
        }
    }
    // Each rewrite reads the others' results: variants are closed before the types are
    // split, so that a nullable union keeps its closed variants.
    one_of_as_any_of(schema);
    close_variants(schema);
    tuple_as_items(schema);
    const_with_enum(schema);
    clamp_bounds(schema);
    unique_in_words(schema);
    split_types(schema);
    if depth > 0 {
        typed_anything(schema);
    }
}

/// `uniqueItems` is said in the description instead: llguidance refuses a grammar with it
/// ("Unimplemented keys"), and no grammar engine can enforce it. The server does.
fn unique_in_words(schema: &mut Map<String, Value>) {
    if schema.remove("uniqueItems") != Some(Value::Bool(true)) {
        return;
    }
    let words = "Items must be distinct.";
    let description = match schema.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} {words}"),
        _ => words.to_owned(),
    };
    schema.insert("description".into(), description.into());
}

/// A subschema that says no type (`{}`, `true`, or only annotations) accepts any value: it
/// says so as a union of every JSON type, since Anthropic's strict transform raises on a
/// schema without a type.
fn typed_anything(schema: &mut Map<String, Value>) {
    let typed = [
        "type",
        "anyOf",
        "oneOf",
        "allOf",
        "enum",
        "const",
        "$ref",
        "not",
        "properties",
        "items",
    ]
    .iter()
    .any(|k| schema.contains_key(*k));
    if !typed {
        let any: Vec<Value> = ["string", "number", "boolean", "object", "array", "null"]
            .iter()
            .map(|t| serde_json::json!({"type": t}))
            .collect();
        schema.insert("anyOf".into(), Value::Array(any));
    }
}

/// Rewrites a subschema that may be a boolean.
fn rewrite_value(value: &mut Value, depth: usize) {
    match value {
        Value::Bool(true) => {
            let mut anything = Map::new();
            rewrite(&mut anything, depth);
            *value = Value::Object(anything);
        }
        Value::Bool(false) => *value = serde_json::json!({"not": {}}),
        Value::Object(schema) => rewrite(schema, depth),
        _ => {}
    }
}

/// `oneOf` becomes `anyOf`: consumers that read one of the two read `anyOf` (grammar engines
/// and the strict transforms of model providers refuse `oneOf`).
fn one_of_as_any_of(schema: &mut Map<String, Value>) {
    let Some(one_of) = schema.remove("oneOf") else {
        return;
    };
    match schema.remove("anyOf") {
        None => {
            schema.insert("anyOf".into(), one_of);
        }
        // Both: each holds; `allOf` of the two says so.
        Some(any_of) => {
            let both = vec![
                serde_json::json!({"anyOf": any_of}),
                serde_json::json!({"anyOf": one_of}),
            ];
            match schema.get_mut("allOf") {
                Some(Value::Array(all)) => all.extend(both),
                _ => {
                    schema.insert("allOf".into(), Value::Array(both));
                }
            }
        }
    }
}

/// An object closed by `unevaluatedProperties: false` over open variants (a flattened enum,
/// or a native tool's variants with shared fields beside them) becomes closed variants that
/// carry the shared properties, beside the union of every property, closed too: a consumer
/// that drops the union (or reads only draft 7) still refuses every unknown key.
fn close_variants(schema: &mut Map<String, Value>) {
    if schema.get("unevaluatedProperties") != Some(&Value::Bool(false)) {
        return;
    }
    // Beside a reference, the referenced schema is rewritten (and closed) on its own.
    if schema.contains_key("$ref") {
        schema.remove("unevaluatedProperties");
        return;
    }
    // A shape this rewrite does not know is kept strict.
    let Some(alternatives) = alternatives(schema, 0) else {
        return;
    };
    let own = Part::of(schema);
    for key in ["anyOf", "allOf", "oneOf", "unevaluatedProperties"] {
        schema.remove(key);
    }
    let objects: Vec<&Part> = alternatives
        .iter()
        .filter_map(|a| match a {
            Alternative::Object(part) => Some(part),
            Alternative::Other(_) => None,
        })
        .collect();
    if objects.len() == alternatives.len() {
        // The union of every property, closed: what a consumer that drops the union reads.
        let mut properties = Map::new();
        for part in &objects {
            for (name, property) in &part.properties {
                match properties.get_mut(name) {
                    None => {
                        properties.insert(name.clone(), property.clone());
                    }
                    Some(existing) if existing == property => {}
                    Some(existing) => *existing = either(existing, property),
                }
            }
        }
        let required: Vec<Value> = objects
            .first()
            .map(|first| {
                first
                    .required
                    .iter()
                    .filter(|name| objects.iter().all(|p| p.required.contains(name)))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(properties));
        schema.insert("required".into(), Value::Array(required));
        schema.insert("additionalProperties".into(), false.into());
        if objects.len() == 1 && objects[0].extra.is_empty() {
            // No union left: the properties alone, closed above.
            return;
        }
    } else if !own.is_empty() {
        // Shared properties beside values that are not objects: not a shape serde gives.
        return;
    } else {
        for key in ["properties", "required"] {
            schema.remove(key);
        }
    }
    let closed = alternatives
        .into_iter()
        .map(|alternative| match alternative {
            Alternative::Object(part) => Value::Object(part.closed()),
            Alternative::Other(value) => value,
        })
        .collect();
    schema.insert("anyOf".into(), Value::Array(closed));
}

/// One way a value can be, once every union of an object is spelt out.
enum Alternative {
    /// An object with exactly these properties.
    Object(Part),
    /// A value that is not an object (`null`, the name of a unit variant), as its schema says.
    Other(Value),
}

/// The closed alternatives of an object schema whose unions (`anyOf`, `allOf` of unions,
/// nested unions of object branches) are spelt out, each carrying the properties around it;
/// `None` for a shape this rewrite does not know, or past [`MAX_VARIANTS`] alternatives.
fn alternatives(schema: &Map<String, Value>, depth: usize) -> Option<Vec<Alternative>> {
    if depth > 8 {
        return None;
    }
    // An open map beside the variants (a flattened map) cannot be closed by listing names.
    if schema
        .get("additionalProperties")
        .is_some_and(Value::is_object)
        || schema.contains_key("patternProperties")
    {
        return None;
    }
    let mut own = Part::of(schema);
    if depth > 0 {
        for (key, value) in schema {
            if !is_object_keyword(key) && !matches!(key.as_str(), "anyOf" | "oneOf" | "allOf") {
                own.extra.insert(key.clone(), value.clone());
            }
        }
    }
    let mut unions: Vec<&Vec<Value>> = Vec::new();
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            unions.push(branches);
        }
    }
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for member in all {
            let member = member.as_object()?;
            match member.get("anyOf").or_else(|| member.get("oneOf")) {
                Some(Value::Array(branches)) if member.len() == 1 => unions.push(branches),
                None if member.keys().all(|k| is_object_keyword(k)) => {
                    own.merge(&Part::of(member));
                }
                _ => return None,
            }
        }
    }
    let mut combos = vec![Alternative::Object(own)];
    for union in unions {
        let mut choices = Vec::new();
        for branch in union {
            match branch.as_object() {
                Some(b) if is_object_branch(b) || is_union_only(b) => {
                    choices.extend(alternatives(b, depth + 1)?);
                }
                _ => choices.push(Alternative::Other(branch.clone())),
            }
        }
        let mut next = Vec::new();
        for combo in &combos {
            for choice in &choices {
                match (combo, choice) {
                    (Alternative::Object(part), Alternative::Object(other)) => {
                        let mut merged = part.clone();
                        merged.merge(other);
                        for (key, value) in &other.extra {
                            merged.extra.insert(key.clone(), value.clone());
                        }
                        next.push(Alternative::Object(merged));
                    }
                    // A value that is not an object passes the keywords of objects: it stays
                    // an alternative only where nothing but this one union constrains it.
                    (Alternative::Object(part), Alternative::Other(value))
                        if part.is_empty() && combos.len() == 1 =>
                    {
                        next.push(Alternative::Other(value.clone()));
                    }
                    (Alternative::Object(_), Alternative::Other(_)) => {}
                    (Alternative::Other(_), _) => return None,
                }
                if next.len() > MAX_VARIANTS {
                    return None;
                }
            }
        }
        combos = next;
    }
    Some(combos)
}

/// Whether a schema is only a union (of variants), perhaps with annotations.
fn is_union_only(schema: &Map<String, Value>) -> bool {
    (schema.contains_key("anyOf") || schema.contains_key("oneOf"))
        && schema.keys().all(|k| {
            matches!(
                k.as_str(),
                "anyOf" | "oneOf" | "description" | "title" | "examples"
            )
        })
}

/// Whether a union's branch describes objects (it names properties, or says `object`).
fn is_object_branch(branch: &Map<String, Value>) -> bool {
    branch.contains_key("properties") || branch.get("type") == Some(&Value::from("object"))
}

/// Keywords that say which properties an object has.
fn is_object_keyword(key: &str) -> bool {
    matches!(
        key,
        "properties" | "required" | "additionalProperties" | "unevaluatedProperties" | "type"
    )
}

/// The properties and required keys of an object schema, and its other keywords.
#[derive(Clone, Default)]
struct Part {
    properties: Map<String, Value>,
    required: Vec<Value>,
    extra: Map<String, Value>,
}

impl Part {
    fn of(schema: &Map<String, Value>) -> Self {
        Self {
            properties: match schema.get("properties") {
                Some(Value::Object(p)) => p.clone(),
                _ => Map::new(),
            },
            required: match schema.get("required") {
                Some(Value::Array(r)) => r.clone(),
                _ => Vec::new(),
            },
            extra: Map::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.properties.is_empty() && self.required.is_empty()
    }

    fn merge(&mut self, other: &Self) {
        for (name, property) in &other.properties {
            self.properties
                .entry(name.clone())
                .or_insert_with(|| property.clone());
        }
        for name in &other.required {
            if !self.required.contains(name) {
                self.required.push(name.clone());
            }
        }
    }

    fn closed(&self) -> Map<String, Value> {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        for (key, value) in &self.extra {
            if key != "description" {
                schema.insert(key.clone(), value.clone());
            }
        }
        if let Some(description) = self.extra.get("description") {
            schema.insert("description".into(), description.clone());
        }
        schema.insert("properties".into(), Value::Object(self.properties.clone()));
        schema.insert("required".into(), Value::Array(self.required.clone()));
        schema.insert("additionalProperties".into(), false.into());
        schema
    }
}

/// One schema for a property that variants declare differently: one `enum` of their values
/// when each is a `const` or an `enum` of one type, else `anyOf` the two.
fn either(a: &Value, b: &Value) -> Value {
    fn values(schema: &Value) -> Option<(Option<&Value>, Vec<Value>)> {
        let schema = schema.as_object()?;
        let values = match (schema.get("const"), schema.get("enum")) {
            (_, Some(Value::Array(values))) => values.clone(),
            (Some(value), None) => vec![value.clone()],
            _ => return None,
        };
        let plain = schema
            .keys()
            .all(|k| matches!(k.as_str(), "const" | "enum" | "type" | "description"));
        plain.then(|| (schema.get("type"), values))
    }
    if let (Some((ta, va)), Some((tb, vb))) = (values(a), values(b))
        && ta == tb
    {
        let mut all = va;
        for v in vb {
            if !all.contains(&v) {
                all.push(v);
            }
        }
        let mut schema = Map::new();
        if let Some(t) = ta {
            schema.insert("type".into(), t.clone());
        }
        schema.insert("enum".into(), Value::Array(all));
        return Value::Object(schema);
    }
    let mut branches = Vec::new();
    for side in [a, b] {
        match side.get("anyOf") {
            Some(Value::Array(inner)) if side.as_object().is_some_and(|s| s.len() == 1) => {
                for branch in inner {
                    if !branches.contains(branch) {
                        branches.push(branch.clone());
                    }
                }
            }
            _ if !branches.contains(side) => branches.push(side.clone()),
            _ => {}
        }
    }
    serde_json::json!({ "anyOf": branches })
}

/// A tuple (`prefixItems`) becomes an array of any of its positions' schemas, of exactly its
/// length: `prefixItems` raises in several strict transforms and is refused by Gemini, and
/// VS Code refuses it without a real `items`.
fn tuple_as_items(schema: &mut Map<String, Value>) {
    let Some(Value::Array(positions)) = schema.remove("prefixItems") else {
        return;
    };
    let n = positions.len();
    let closed = match schema.remove("items") {
        Some(Value::Bool(false)) => true,
        None => false,
        Some(rest) => {
            let mut all = positions;
            all.push(rest);
            schema.insert("items".into(), any_of(all));
            return;
        }
    };
    schema.insert("items".into(), any_of(positions));
    if !schema.contains_key("minItems") && closed {
        schema.insert("minItems".into(), n.into());
    }
    if closed {
        let max = schema
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(n as u64, |m| m.min(n as u64));
        schema.insert("maxItems".into(), max.into());
    }
}

/// One schema that accepts what any of `schemas` does (the schema itself when they are all
/// the same).
fn any_of(schemas: Vec<Value>) -> Value {
    let mut distinct: Vec<Value> = Vec::new();
    for schema in schemas {
        if !distinct.contains(&schema) {
            distinct.push(schema);
        }
    }
    match distinct.len() {
        0 => Value::Object(Map::new()),
        1 => distinct.pop().unwrap_or_default(),
        _ => serde_json::json!({ "anyOf": distinct }),
    }
}

/// A `const` is also said as a one-value `enum` of its type: Gemini and several grammar
/// engines read only `enum`.
fn const_with_enum(schema: &mut Map<String, Value>) {
    let Some(value) = schema.get("const").cloned() else {
        return;
    };
    if !schema.contains_key("enum") {
        schema.insert("enum".into(), Value::Array(vec![value.clone()]));
    }
    if !schema.contains_key("type")
        && let Some(t) = json_type(&value)
    {
        schema.insert("type".into(), t.into());
    }
}

/// The JSON Schema type of a value.
fn json_type(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => return None,
    })
}

/// The limits of Rust's integer types past what a JSON number holds exactly: a bound at one of
/// them is the type's, not a declared one.
fn is_type_limit(n: &serde_json::Number) -> bool {
    if let Some(i) = n.as_i64() {
        return i == i64::MIN || i == i64::MAX;
    }
    if let Some(u) = n.as_u64() {
        return u == u64::MAX;
    }
    // i128 and u128 limits arrive as floats (or arbitrary precision) past 64 bits.
    n.as_f64().is_some_and(|f| f.abs() >= 1.7e38)
}

/// Integer bounds at the limit of a Rust type past ±(2^53−1) are clamped to it: grammar
/// engines refuse bounds past what a double holds ("Integer exceeds maximum limit"). A bound
/// the field declares is kept, however wide.
fn clamp_bounds(schema: &mut Map<String, Value>) {
    for (key, inclusive, lower) in [
        ("minimum", "minimum", true),
        ("exclusiveMinimum", "minimum", true),
        ("maximum", "maximum", false),
        ("exclusiveMaximum", "maximum", false),
    ] {
        let Some(Value::Number(n)) = schema.get(key) else {
            continue;
        };
        // Every type limit is past what a double holds exactly.
        if !is_type_limit(n) {
            continue;
        }
        schema.remove(key);
        let safe = if lower {
            -MAX_SAFE_INTEGER
        } else {
            MAX_SAFE_INTEGER
        };
        schema.insert(inclusive.into(), safe.into());
    }
}

/// The keywords that apply to one JSON type, which go with it into its branch when a list of
/// types is split.
fn applies_to(keyword: &str, t: &str) -> bool {
    match keyword {
        "minLength" | "maxLength" | "pattern" | "contentEncoding" | "contentMediaType" => {
            t == "string"
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            matches!(t, "integer" | "number")
        }
        "format" => matches!(t, "string" | "integer" | "number"),
        "items" | "prefixItems" | "minItems" | "maxItems" | "uniqueItems" | "contains"
        | "minContains" | "maxContains" | "unevaluatedItems" => t == "array",
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "unevaluatedProperties"
        | "dependentRequired"
        | "dependentSchemas" => t == "object",
        _ => false,
    }
}

/// Keywords that stay on the outer schema when its types are split: annotations about the
/// whole value.
fn is_annotation(keyword: &str) -> bool {
    matches!(
        keyword,
        "description"
            | "title"
            | "examples"
            | "default"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "$comment"
            | "$defs"
            | "definitions"
            | "$id"
            | "$anchor"
    )
}

/// `"type": [T, "null"]` (and any list of types) becomes `anyOf` one branch per type, each
/// with the keywords of its type: the Anthropic strict transform raises on a list of types,
/// and Gemini refuses one.
fn split_types(schema: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = schema.get("type") else {
        return;
    };
    let types: Vec<String> = types
        .iter()
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect();
    if types.len() == 1 {
        schema.insert("type".into(), types[0].clone().into());
        return;
    }
    let non_null: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
    let enum_values = match schema.remove("enum") {
        Some(Value::Array(values)) => Some(values),
        _ => None,
    };
    let keys: Vec<String> = schema.keys().cloned().collect();
    let mut branches = Vec::new();
    let mut taken: Vec<String> = vec!["type".into()];
    for t in &non_null {
        let mut branch = Map::new();
        branch.insert("type".into(), (*t).clone().into());
        for key in &keys {
            let general = !is_annotation(key) && key != "type" && !applies_to_any(key);
            // Keywords of no one type (`anyOf`, `not`, `const`…) go with the only non-null
            // type; with several, they stay outside.
            if applies_to(key, t) || (general && non_null.len() == 1) {
                branch.insert(key.clone(), schema[key].clone());
                taken.push(key.clone());
            }
        }
        if let Some(values) = &enum_values {
            let of_type: Vec<Value> = values
                .iter()
                .filter(|v| {
                    json_type(v) == Some(t.as_str())
                        || (t.as_str() == "number" && json_type(v) == Some("integer"))
                })
                .cloned()
                .collect();
            if of_type.is_empty() {
                continue;
            }
            branch.insert("enum".into(), Value::Array(of_type));
        }
        branches.push(Value::Object(branch));
    }
    if types.iter().any(|t| t == "null") {
        branches.push(serde_json::json!({"type": "null"}));
    }
    for key in taken {
        schema.remove(&key);
    }
    match schema.get_mut("anyOf") {
        // A union already there (kept outside above): both must hold.
        Some(_) => {
            let union = schema.remove("anyOf").unwrap_or_default();
            schema.insert(
                "allOf".into(),
                serde_json::json!([{"anyOf": union}, {"anyOf": branches}]),
            );
        }
        None => {
            schema.insert("anyOf".into(), Value::Array(branches));
        }
    }
}

/// Whether a keyword applies to some JSON type (and so goes into that type's branch).
fn applies_to_any(keyword: &str) -> bool {
    ["string", "integer", "array", "object"]
        .iter()
        .any(|t| applies_to(keyword, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn port(schema: &Value) -> Value {
        Value::Object(portable(schema.as_object().unwrap()))
    }

    #[test]
    fn an_option_is_any_of_its_type_and_null() {
        let out = port(&json!({
            "description": "d", "type": ["string", "null"], "maxLength": 3,
            "enum": ["a", "b", null], "examples": ["a"]
        }));
        assert_eq!(
            out,
            json!({"description": "d", "examples": ["a"], "anyOf": [
                {"type": "string", "maxLength": 3, "enum": ["a", "b"]}, {"type": "null"}
            ]})
        );
    }

    #[test]
    fn booleans_become_schemas_and_a_closed_object_stays_closed() {
        let out = port(&json!({
            "$schema": "x", "type": "object", "additionalProperties": false,
            "properties": {"any": true, "never": false}
        }));
        let any = json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"},
                         {"type": "object"}, {"type": "array"}, {"type": "null"}]);
        assert_eq!(
            out,
            json!({"type": "object", "additionalProperties": false,
                   "properties": {"any": {"anyOf": any}, "never": {"not": {}}}})
        );
    }

    #[test]
    fn a_tuple_is_items_of_its_length() {
        let out = port(&json!({
            "type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "items": false
        }));
        assert_eq!(
            out,
            json!({"type": "array", "minItems": 2, "maxItems": 2,
                   "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}})
        );
    }

    #[test]
    fn bounds_at_a_types_limit_are_clamped_and_declared_ones_kept() {
        let out = port(&json!({"type": "integer", "minimum": 0, "maximum": u64::MAX}));
        assert_eq!(
            out,
            json!({"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER})
        );
        let out = port(
            &json!({"type": "integer", "minimum": i64::MIN, "maximum": 10_000_000_000_000_000_u64}),
        );
        assert_eq!(
            out,
            json!({"type": "integer", "minimum": -MAX_SAFE_INTEGER, "maximum": 10_000_000_000_000_000_u64})
        );
    }

    #[test]
    fn flattened_variants_are_closed_with_the_shared_properties() {
        let out = port(&json!({"type": "object", "properties": {"inner": {
            "type": "object",
            "properties": {"limit": {"type": "integer"}},
            "required": [],
            "anyOf": [
                {"type": "object", "properties": {"by": {"const": "name", "type": "string"}, "name": {"type": "string"}}, "required": ["by", "name"]},
                {"type": "object", "properties": {"by": {"const": "id", "type": "string"}, "id": {"type": "integer"}}, "required": ["by", "id"]}
            ],
            "unevaluatedProperties": false
        }}}));
        let out = &out["properties"]["inner"];
        let by_name = json!({"type": "object", "properties": {
            "limit": {"type": "integer"},
            "by": {"const": "name", "enum": ["name"], "type": "string"},
            "name": {"type": "string"}}, "required": ["by", "name"], "additionalProperties": false});
        assert_eq!(out["anyOf"][0], by_name);
        assert_eq!(out["additionalProperties"], false);
        assert_eq!(out["required"], json!(["by"]));
        assert_eq!(
            out["properties"]["by"],
            json!({"type": "string", "enum": ["name", "id"]})
        );
        assert!(out.get("unevaluatedProperties").is_none());
    }

    #[test]
    fn at_the_root_the_variants_are_said_in_words() {
        let out = port(&json!({
            "type": "object",
            "properties": {"limit": {"type": "integer"}},
            "anyOf": [
                {"type": "object", "properties": {"by": {"const": "name"}, "name": {"type": "string"}}, "required": ["by", "name"]},
                {"type": "object", "properties": {"by": {"const": "id"}, "id": {"type": "integer"}}, "required": ["by", "id"]}
            ],
            "unevaluatedProperties": false
        }));
        assert!(out.get("anyOf").is_none());
        assert_eq!(out["additionalProperties"], false);
        assert_eq!(
            out["description"],
            r#"Send exactly one of: `by`: "name" with `name`; or `by`: "id" with `id`."#
        );
    }

    #[test]
    fn the_derives_flattened_form_is_closed_too() {
        let out = port(&json!({"type": "object", "properties": {"inner": {
            "type": "object",
            "properties": {"title": {"type": "string"}},
            "required": ["title"],
            "allOf": [{"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "b"}, "n": {"type": "integer"}}, "required": ["kind", "n"]}
            ]}],
            "unevaluatedProperties": false
        }}}));
        let out = &out["properties"]["inner"];
        assert_eq!(out["anyOf"].as_array().unwrap().len(), 2);
        assert_eq!(out["anyOf"][1]["required"], json!(["title", "kind", "n"]));
        assert_eq!(out["required"], json!(["title", "kind"]));
        assert!(out.get("allOf").is_none());
    }

    #[test]
    fn a_nullable_union_keeps_null_reachable() {
        let out = port(&json!({
            "type": ["object", "null"],
            "oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}]
        }));
        let any = out["anyOf"].as_array().unwrap();
        assert!(any.contains(&json!({"type": "null"})), "{out}");
    }
}
