//! JSON Schemas of tool arguments, built from the same declarations the validator runs.
//!
//! Every object of an arguments type says `additionalProperties: false`, and nested types are
//! inlined rather than referenced, because several MCP clients do not resolve `$ref`.

use std::cell::RefCell;
use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::args::ToolArgs;
use super::constraint::{Constraints, compare};
use super::info::{ArgsInfo, EnumInfo, FieldInfo, Kind, Tagging, guarded};
use super::number::Bound;

/// The dialect every schema declares.
pub(crate) const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Makes a schema also accept `null`, as an `Option` field does.
pub(crate) fn allow_null(schema: &mut Map<String, Value>) {
    // A union (an enum with data) says `null` as one more alternative, also where a `type`
    // stands beside it: both must accept `null`.
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(shapes)) = schema.get_mut(key) {
            let null = serde_json::json!({"type": "null"});
            if !shapes.contains(&null) {
                shapes.push(null);
            }
        }
    }
    match schema.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            schema.insert("type".into(), Value::Array(vec![t.into(), "null".into()]));
        }
        Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => {
            types.push("null".into());
        }
        // Without a type keyword, anything (null included) passes the type check already.
        _ => {}
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

thread_local! {
    /// The argument types whose schema is being built on this thread, innermost last.
    static SCHEMAS_IN_PROGRESS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The object schema of an arguments type, without the dialect and the example.
///
/// A recursive type (one that contains itself, e.g. through a `Vec`) is inlined once; where it
/// reaches itself again the schema says only `{"type": "object"}`, because inlined schemas cannot
/// refer to themselves. The validator stays strict at every depth.
#[must_use]
pub(crate) fn object_schema(info: &ArgsInfo) -> Map<String, Value> {
    guarded(&SCHEMAS_IN_PROGRESS, info, || object_schema_unguarded(info)).unwrap_or_else(|| {
        let mut cut = Map::new();
        cut.insert("type".into(), "object".into());
        cut
    })
}

fn object_schema_unguarded(info: &ArgsInfo) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in info.wire_fields() {
        properties.insert(field.name.to_owned(), Value::Object(field_schema(field)));
        if field.required {
            required.push(Value::from(field.name));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    if let Some(d) = info.description {
        schema.insert("description".into(), d.into());
    }
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(required));
    if info.flattened.is_empty() {
        schema.insert("additionalProperties".into(), false.into());
    } else {
        // The variants of each flattened enum, beside the fields; closed over all of them,
        // since a key is allowed when the chosen variant declares it.
        let all: Vec<Value> = info
            .flattened
            .iter()
            .map(|e| Value::Object(flattened_schema(e)))
            .collect();
        schema.insert("allOf".into(), Value::Array(all));
        schema.insert("unevaluatedProperties".into(), false.into());
    }
    schema
}

/// The complete schema of an arguments type: the object schema, the dialect and the valid
/// example. Called once per type by generated code.
///
/// It has no `title`: the Rust type's name (`CreateUserArgs`) tells a model nothing the tool's
/// name and description do not, and MCP gives a tool a `title` of its own.
#[must_use]
pub fn root_schema<T: ToolArgs>() -> schemars::Schema {
    let info = T::info();
    let mut schema = Map::new();
    schema.insert("$schema".into(), DIALECT.into());
    schema.extend(object_schema(info));
    // Only an example the type's own validator passes is advertised.
    if let Ok(example) = T::checked_example() {
        schema.insert("examples".into(), Value::Array(vec![example.clone()]));
    }
    schemars::Schema::from(schema)
}

/// The nested (inlined) schema of an arguments type used as a field.
#[must_use]
pub fn nested_schema<T: ToolArgs>() -> Map<String, Value> {
    object_schema(T::info())
}

/// The JSON Schema of one field: its type's schema with the constraints, the description and
/// an example.
#[must_use]
pub(crate) fn field_schema(field: &FieldInfo) -> Map<String, Value> {
    let kind = (field.kind)();
    let mut schema = (field.schema)();
    constraint_keywords(&field.constraints, &kind, &mut schema, field.nullable);
    if field.nullable {
        allow_null(&mut schema);
    }
    if let Some(d) = field.description {
        schema.insert("description".into(), d.into());
    }
    if field.sensitive {
        // An annotation (JSON Schema's meta-data vocabulary): clients that read it know the
        // value is sent, never shown back.
        schema.insert("writeOnly".into(), true.into());
    }
    schema.insert("examples".into(), Value::Array(vec![field.example_value()]));
    schema
}

/// Adds the JSON Schema keywords of `constraints` to `schema`, choosing the keywords by the
/// field's kind so that the schema says exactly what the constraints' check enforces.
fn constraint_keywords(
    constraints: &Constraints,
    kind: &Kind,
    schema: &mut Map<String, Value>,
    nullable: bool,
) {
    // Every guard named, none left out: a new guard without its keyword does not compile.
    let Constraints {
        min_length,
        max_length,
        minimum,
        maximum,
        pattern,
        format,
        one_of,
        unique,
        multiple_of,
        custom: _, // a custom check is not expressible in JSON Schema
    } = constraints;
    let (strings, arrays) = match kind {
        Kind::String | Kind::Enum(_) | Kind::Formatted(_) | Kind::Text(_) => (true, false),
        Kind::Array(_) => (false, true),
        Kind::Any => (true, true),
        _ => (false, false),
    };
    if strings {
        if let Some(n) = *min_length {
            schema.insert("minLength".into(), n.into());
        }
        if let Some(n) = *max_length {
            schema.insert("maxLength".into(), n.into());
        }
    }
    if arrays {
        if let Some(n) = *min_length {
            schema.insert("minItems".into(), n.into());
        }
        if let Some(n) = *max_length {
            schema.insert("maxItems".into(), n.into());
        }
        if *unique {
            schema.insert("uniqueItems".into(), true.into());
        }
    }
    if matches!(kind, Kind::Map(_) | Kind::Any) {
        if let Some(n) = *min_length {
            schema.insert("minProperties".into(), n.into());
        }
        if let Some(n) = *max_length {
            schema.insert("maxProperties".into(), n.into());
        }
    }
    if let Some(b) = *minimum {
        tighten(schema, b, true);
    }
    if let Some(b) = *maximum {
        tighten(schema, b, false);
    }
    if let Some(step) = *multiple_of {
        schema.insert("multipleOf".into(), step.to_json());
    }
    if let Some(p) = pattern {
        schema.insert("pattern".into(), p.source().into());
    }
    if let Some(f) = *format {
        schema.insert("format".into(), f.schema_name().into());
    }
    if !one_of.is_empty() {
        let mut values: Vec<Value> = one_of.iter().map(|l| l.to_json()).collect();
        if nullable {
            values.push(Value::Null);
        }
        schema.insert("enum".into(), Value::Array(values));
    }
}

/// Sets a bound keyword, keeping the bound already there (the type's own range) when it is
/// tighter.
fn tighten(schema: &mut Map<String, Value>, bound: Bound, lower: bool) {
    let (inclusive_key, exclusive_key) = if lower {
        ("minimum", "exclusiveMinimum")
    } else {
        ("maximum", "exclusiveMaximum")
    };
    if let Some(Value::Number(existing)) = schema.get(inclusive_key)
        && let Some(ord) = compare(existing, bound.value)
    {
        let existing_is_tighter = if lower {
            ord == Ordering::Greater || (ord == Ordering::Equal && !bound.exclusive)
        } else {
            ord == Ordering::Less || (ord == Ordering::Equal && !bound.exclusive)
        };
        if existing_is_tighter {
            return;
        }
        schema.remove(inclusive_key);
    }
    let key = if bound.exclusive {
        exclusive_key
    } else {
        inclusive_key
    };
    schema.insert(key.into(), bound.value.to_json());
}

/// The schema of an enum of allowed names.
#[must_use]
pub fn enum_schema(variants: &[&str], description: Option<&str>) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), "string".into());
    schema.insert(
        "enum".into(),
        variants.iter().map(|v| Value::from(*v)).collect(),
    );
    if let Some(d) = description {
        schema.insert("description".into(), d.into());
    }
    schema
}

/// The schema of an enum with data: `oneOf` its variants, each a closed object whose tag is a
/// `const` (`anyOf` the variants' own shapes when untagged: serde takes the first that fits,
/// so several may). Used by generated code.
#[must_use]
pub fn variants_schema(info: &'static EnumInfo) -> Map<String, Value> {
    let mut shapes = Vec::new();
    for variant in info.variants {
        let fields = variant.args().map(object_schema);
        match info.tagging {
            Tagging::Internal { tag } => {
                let mut shape = fields.unwrap_or_else(|| closed_object(Map::new(), Vec::new()));
                add_property(&mut shape, tag, const_schema(variant.name), true);
                shapes.push(Value::Object(shape));
            }
            Tagging::Adjacent { tag, content } => {
                let mut properties = Map::new();
                properties.insert(tag.to_owned(), Value::Object(const_schema(variant.name)));
                let mut required = vec![Value::from(tag)];
                match fields {
                    Some(fields) => {
                        properties.insert(content.to_owned(), Value::Object(fields));
                        required.push(Value::from(content));
                    }
                    None => {
                        properties.insert(content.to_owned(), serde_json::json!({"type": "null"}));
                    }
                }
                shapes.push(Value::Object(closed_object(properties, required)));
            }
            Tagging::External => {
                let value = match fields {
                    Some(fields) => Value::Object(fields),
                    None => {
                        shapes.push(Value::Object(const_schema(variant.name)));
                        serde_json::json!({"type": "null"})
                    }
                };
                let mut properties = Map::new();
                properties.insert(variant.name.to_owned(), value);
                shapes.push(Value::Object(closed_object(
                    properties,
                    vec![Value::from(variant.name)],
                )));
            }
            Tagging::Untagged => shapes.push(Value::Object(fields.unwrap_or_else(|| {
                let mut null = Map::new();
                null.insert("type".into(), "null".into());
                null
            }))),
        }
    }
    let mut schema = Map::new();
    let keyword = if info.tagging == Tagging::Untagged {
        "anyOf"
    } else {
        "oneOf"
    };
    schema.insert(keyword.into(), Value::Array(shapes));
    if let Some(d) = info.description {
        schema.insert("description".into(), d.into());
    }
    schema
}

/// The schema of an enum flattened into an object: `oneOf` its variants, each naming its tag
/// and fields but left open, since the holder's own fields sit beside them; the holder closes
/// the whole with `unevaluatedProperties: false`.
pub(crate) fn flattened_schema(info: &'static EnumInfo) -> Map<String, Value> {
    let mut schema = variants_schema(info);
    schema.remove("description");
    if let Some(Value::Array(shapes)) = schema.get_mut("oneOf") {
        for shape in shapes {
            if let Value::Object(shape) = shape {
                shape.remove("additionalProperties");
                shape.remove("description");
            }
        }
    }
    schema
}

fn const_schema(name: &str) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("const".into(), name.into());
    schema
}

fn closed_object(properties: Map<String, Value>, required: Vec<Value>) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(required));
    schema.insert("additionalProperties".into(), false.into());
    schema
}

/// Adds a property to an object schema, first of its properties and required keys.
fn add_property(
    schema: &mut Map<String, Value>,
    name: &str,
    property: Map<String, Value>,
    required: bool,
) {
    let mut properties = Map::new();
    properties.insert(name.to_owned(), Value::Object(property));
    if let Some(Value::Object(rest)) = schema.remove("properties") {
        properties.extend(rest);
    }
    schema.insert("properties".into(), Value::Object(properties));
    if required {
        let mut list = vec![Value::from(name)];
        if let Some(Value::Array(rest)) = schema.remove("required") {
            list.extend(rest);
        }
        schema.insert("required".into(), Value::Array(list));
    }
}

#[cfg(test)]
mod tests {
    use super::allow_null;
    use serde_json::json;

    #[test]
    fn null_is_allowed_by_the_type_and_by_the_union_beside_it() {
        let mut schema = json!({"type": "object", "oneOf": [
            {"type": "object", "properties": {"a": {"const": 1}}, "required": ["a"]}
        ]})
        .as_object()
        .cloned()
        .unwrap();
        allow_null(&mut schema);
        let schema = serde_json::Value::Object(schema);
        assert!(jsonschema::is_valid(&schema, &json!(null)), "{schema}");
        assert!(jsonschema::is_valid(&schema, &json!({"a": 1})), "{schema}");
    }
}
