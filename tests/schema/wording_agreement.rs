//! A bound reads the same whichever way a tool declares it: the validator the derive generates
//! and the one `guard_router` builds from the tool's JSON Schema alone word each bound's issue
//! (message and expected value) and each field's fix text through the same routines.

use std::collections::BTreeMap;

use guardrails::ToolArgs;
use guardrails::validation::{SchemaArgs, SchemaOptions};
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Deserialize, ToolArgs)]
#[expect(dead_code, reason = "only validated, never read")]
struct Bounds {
    #[guard(length(min = 3, max = 5))]
    name: String,
    #[guard(length(equal = 4))]
    code: String,
    #[guard(length(min = 2))]
    tags: Vec<String>,
    #[guard(length(max = 2))]
    few: Vec<String>,
    #[guard(range(min = 18, max = 120))]
    age: i64,
    #[guard(range(exclusive_min = 0, exclusive_max = 10))]
    ratio: f64,
    #[guard(range(min = 1))]
    floor: f64,
    #[guard(multiple_of = 5)]
    step: i64,
    #[guard(pattern = "^[a-z]+$")]
    slug: String,
    #[guard(format = "email")]
    email: String,
    #[guard(unique)]
    ids: Vec<i64>,
    #[guard(length(max = 1))]
    labels: BTreeMap<String, String>,
}

/// Each field with a value that breaks its bound.
fn breaches() -> Vec<(&'static str, Value)> {
    vec![
        ("name", json!("ab")),
        ("name", json!("abcdefg")),
        ("code", json!("abc")),
        ("tags", json!(["a"])),
        ("few", json!(["a", "b", "c"])),
        ("age", json!(17)),
        ("age", json!(121)),
        ("ratio", json!(0)),
        ("ratio", json!(10.5)),
        ("floor", json!(0)),
        ("step", json!(7)),
        ("slug", json!("Not A Slug")),
        ("email", json!("nobody")),
        ("ids", json!([1, 2, 1])),
        ("labels", json!({"a": "1", "b": "2"})),
    ]
}

fn native() -> SchemaArgs {
    let schema: Map<String, Value> = Bounds::schema()
        .as_object()
        .expect("an object schema")
        .clone();
    // Formats asserted, as the derived validator asserts them.
    let options = SchemaOptions::new().assert_formats(true);
    SchemaArgs::with_options(&schema, options).expect("the derived schema compiles")
}

#[test]
fn the_derived_and_the_schema_validators_word_every_bound_alike() {
    let native = native();
    let example = Bounds::example().clone();
    assert!(native.check(&example).is_ok(), "the example passes both");
    for (field, bad) in breaches() {
        let mut call = example.clone();
        call[field] = bad.clone();
        let what = format!("{field} = {bad}");
        let derived = Bounds::validate_value(call.clone()).err();
        let derived = derived.unwrap_or_else(|| panic!("derived accepts {what}"));
        let schema = native.check(&call).err();
        let schema = schema.unwrap_or_else(|| panic!("the schema validator accepts {what}"));
        let derived = derived.at(field).expect("derived issue at the field");
        let schema = schema.at(field).expect("schema issue at the field");
        assert_eq!(derived.code, schema.code, "code of {what}");
        assert_eq!(derived.message, schema.message, "message of {what}");
        assert_eq!(derived.expected, schema.expected, "expected of {what}");
        assert_eq!(derived.fix, schema.fix, "fix of {what}");
    }
}
