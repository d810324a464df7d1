//! Every schema a server advertises is standard JSON Schema 2020-12: a strict validator (unknown
//! formats refused, as AJV's `Ajv2020` does in the TypeScript SDK) compiles each; integer types
//! are bounded by `minimum` / `maximum`, not by schemars' own `uint8`-style formats; and an
//! arguments type nested in an output carries no `$schema` nor input `examples`.

use guardrails::{ToolArgs, tool};
use guardrails_tests::task_tracker;
use serde_json::{Map, Value, json};

/// Every `format` in a schema, wherever it is a keyword.
fn formats(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(format)) = map.get("format") {
                out.push(format.clone());
            }
            for (key, value) in map {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    formats(value, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| formats(item, out)),
        _ => {}
    }
}

fn strict(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false)
        .build(schema)
        .map_err(|e| e.to_string())
}

#[test]
fn every_schema_the_task_tracker_advertises_compiles_under_a_strict_2020_12_validator() {
    let server = task_tracker::server(10);
    let mut outputs = 0;
    for spec in server.specs() {
        let input = serde_json::to_value(spec.input_schema()).unwrap();
        strict(&input).unwrap_or_else(|e| panic!("{} input: {e}\n{input}", spec.name()));
        if let Some(output) = spec.output_schema() {
            outputs += 1;
            let output = Value::Object(output.clone());
            strict(&output).unwrap_or_else(|e| panic!("{} output: {e}\n{output}", spec.name()));
            let mut found = Vec::new();
            formats(&output, &mut found);
            assert!(
                found
                    .iter()
                    .all(|f| !f.starts_with("int") && !f.starts_with("uint")),
                "{}: {found:?}",
                spec.name()
            );
        }
    }
    assert!(outputs > 0, "the tracker advertises output schemas");
}

/// Filters, as arguments take them and as a result echoes them.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, ToolArgs)]
struct Filter {
    /// Only this priority.
    #[guard(range(min = 1, max = 5))]
    priority: u8,
}

/// A result with integers of several widths and an arguments type inside.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Counts {
    small: u8,
    signed: i16,
    medium: u32,
    large: u64,
    wide: i64,
    ratio: f64,
    filter: Filter,
}

#[derive(serde::Deserialize, ToolArgs)]
struct NoArgs {}

/// Counts things.
#[tool(read_only)]
fn count(_args: NoArgs) -> Counts {
    Counts {
        small: 1,
        signed: -1,
        medium: 2,
        large: 3,
        wide: -4,
        ratio: 0.5,
        filter: Filter { priority: 1 },
    }
}

fn output_schema() -> Map<String, Value> {
    count
        .spec()
        .output_schema()
        .expect("an output schema")
        .clone()
}

#[test]
fn integer_formats_become_bounds() {
    let schema = output_schema();
    let properties = &schema["properties"];
    assert_eq!(properties["small"]["minimum"], 0);
    assert_eq!(properties["small"]["maximum"], 255);
    assert_eq!(properties["signed"]["minimum"], -32768);
    assert_eq!(properties["signed"]["maximum"], 32767);
    assert_eq!(properties["medium"]["maximum"], u32::MAX);
    assert_eq!(properties["large"]["minimum"], 0);
    let mut found = Vec::new();
    formats(&Value::Object(schema.clone()), &mut found);
    assert!(found.is_empty(), "{found:?}");
    let validator = strict(&Value::Object(schema)).unwrap();
    let value = json!({"small": 1, "signed": -1, "medium": 2, "large": 3, "wide": -4,
                       "ratio": 0.5, "filter": {"priority": 1}});
    assert!(validator.is_valid(&value));
    assert!(
        !validator.is_valid(&json!({"small": 256, "signed": 0, "medium": 0, "large": 0,
                                        "wide": 0, "ratio": 0.0, "filter": {"priority": 1}}))
    );
}

#[test]
fn a_nested_arguments_type_carries_no_schema_dialect_nor_input_examples() {
    let schema = output_schema();
    let filter = &schema["properties"]["filter"];
    assert!(filter.get("$schema").is_none(), "{filter}");
    assert!(filter.get("examples").is_none(), "{filter}");
    assert_eq!(filter["properties"]["priority"]["maximum"], 5);
    // The arguments' own root schema keeps both.
    let root = serde_json::to_value(Filter::schema()).unwrap();
    assert!(root.get("$schema").is_some());
    assert!(root.get("examples").is_some());
}

/// A discriminated union as pydantic writes it: its `discriminator.mapping` points at `$defs`
/// that the strict schema inlines and removes, so the mapping goes; the tag stays.
#[test]
fn a_discriminator_mapping_never_points_at_a_removed_definition() {
    let Value::Object(schema) = json!({
        "type": "object",
        "properties": {
            "pet": {
                "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
                "discriminator": {
                    "propertyName": "kind",
                    "mapping": {"cat": "#/$defs/Cat", "dog": "#/$defs/Dog"}
                }
            }
        },
        "required": ["pet"],
        "$defs": {
            "Cat": {"type": "object", "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}}},
            "Dog": {"type": "object", "properties": {"kind": {"const": "dog"}, "good": {"type": "boolean"}}}
        }
    }) else {
        unreachable!()
    };
    let strict = guardrails::validation::strict_schema(&schema);
    assert!(!strict.contains_key("$defs"), "{strict:?}");
    let pet = &strict["properties"]["pet"];
    assert_eq!(
        pet["discriminator"],
        json!({"propertyName": "kind"}),
        "{pet}"
    );
    // A recursive definition stays, and so does a mapping that points at it.
    let Value::Object(recursive) = json!({
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {
            "type": "object",
            "properties": {
                "next": {"oneOf": [{"$ref": "#/$defs/Node"}], "discriminator": {"propertyName": "k", "mapping": {"n": "#/$defs/Node"}}}
            }
        }}
    }) else {
        unreachable!()
    };
    let strict = guardrails::validation::strict_schema(&recursive);
    let text = serde_json::to_string(&strict).unwrap();
    assert!(
        text.contains(r##""mapping":{"n":"#/$defs/Node"}"##),
        "{text}"
    );
}
