//! The portable schemas a server advertises keep the meaning of the strict ones it checks:
//!
//! - every call the validator accepts, the portable schema accepts (no valid call is refused on
//!   the other side of the wire because of a rewrite), once its integers are within what a JSON
//!   number holds exactly (the portable form clamps the bounds of `u64` and `i64` fields there);
//! - every call the validator refuses for an unknown key, the portable schema refuses too:
//!   objects stay closed, flattened enums included;
//! - the same for the router guard of native rmcp tools, against what serde writes.
//!
//! Reproducible: CI fixes the seed with `PROPTEST_RNG_SEED`; each property holds for every
//! generated case, so no run fails by chance.

use guardrails::profile::{Finding, SchemaProfile, Severity, lint_tools};
use guardrails::{IssueCode, ToolArgs};
use guardrails_tests::fixtures::{
    Address, CreateUser, Everything, ListTasks, OrderLine, PlaceOrder, Schedule,
};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The largest integer a JSON number holds exactly.
const MAX_SAFE: i64 = (1 << 53) - 1;

fn portable_validator(strict: &Value) -> jsonschema::Validator {
    let portable = SchemaProfile::Portable.advertise(strict.as_object().unwrap());
    jsonschema::validator_for(&Value::Object(portable)).expect("the portable schema compiles")
}

/// Whether `value` holds an integer past what a JSON number holds exactly.
fn has_unsafe_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => n
            .as_i64()
            .map(|i| i.unsigned_abs() > MAX_SAFE as u64)
            .or_else(|| n.as_u64().map(|u| u > MAX_SAFE as u64))
            .unwrap_or(false),
        Value::Array(items) => items.iter().any(has_unsafe_integer),
        Value::Object(map) => map.values().any(has_unsafe_integer),
        _ => false,
    }
}

/// Mutations of a valid call: each key dropped, an unknown key added at every object, each
/// value replaced by another type's.
fn mutations(example: &Value) -> Vec<Value> {
    fn objects(value: &Value, here: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        if let Value::Object(map) = value {
            out.push(here.clone());
            for (k, v) in map {
                here.push(k.clone());
                objects(v, here, out);
                here.pop();
            }
        } else if let Value::Array(items) = value {
            for (i, v) in items.iter().enumerate() {
                here.push(i.to_string());
                objects(v, here, out);
                here.pop();
            }
        }
    }
    fn at<'a>(value: &'a mut Value, path: &[String]) -> &'a mut Value {
        path.iter().fold(value, |v, step| match v {
            Value::Object(map) => map.get_mut(step).unwrap(),
            Value::Array(items) => &mut items[step.parse::<usize>().unwrap()],
            _ => unreachable!(),
        })
    }
    let mut places = Vec::new();
    objects(example, &mut Vec::new(), &mut places);
    let mut out = Vec::new();
    for place in &places {
        let keys: Vec<String> = at(&mut example.clone(), place)
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let mut added = example.clone();
        at(&mut added, place)
            .as_object_mut()
            .unwrap()
            .insert("zz_not_a_field".into(), json!(1));
        out.push(added);
        for key in keys {
            let mut dropped = example.clone();
            at(&mut dropped, place)
                .as_object_mut()
                .unwrap()
                .remove(&key);
            out.push(dropped);
            for other in [json!(null), json!("x"), json!(7), json!([1]), json!({})] {
                let mut swapped = example.clone();
                at(&mut swapped, place)
                    .as_object_mut()
                    .unwrap()
                    .insert(key.clone(), other);
                out.push(swapped);
            }
        }
    }
    out
}

fn check<T: ToolArgs>() {
    let strict = serde_json::to_value(T::schema()).unwrap();
    let portable = portable_validator(&strict);
    let example = T::example().clone();
    let (mut accepted, mut unknown) = (0, 0);
    for input in std::iter::once(example.clone()).chain(mutations(&example)) {
        match T::validate_value(input.clone()) {
            Ok(_) if !has_unsafe_integer(&input) => {
                accepted += 1;
                assert!(
                    portable.is_valid(&input),
                    "{}: the portable schema refuses a valid call {input}: {:?}",
                    std::any::type_name::<T>(),
                    portable
                        .iter_errors(&input)
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                );
            }
            Err(report)
                if report
                    .issues()
                    .iter()
                    .any(|i| i.code == IssueCode::UnknownField) =>
            {
                unknown += 1;
                assert!(
                    !portable.is_valid(&input),
                    "{}: the portable schema accepts an unknown key: {input}",
                    std::any::type_name::<T>()
                );
            }
            _ => {}
        }
    }
    assert!(
        accepted >= 1 && unknown >= 1,
        "{accepted} accepted, {unknown} unknown"
    );
}

/// What every known consumer does with `schema` as a tool's input schema.
fn lint(schema: serde_json::Map<String, Value>) -> Vec<Finding> {
    lint_tools(&[rmcp::model::Tool::new(
        "tool",
        "",
        std::sync::Arc::new(schema),
    )])
}

#[test]
fn derived_schemas_keep_their_meaning_when_portable() {
    check::<CreateUser>();
    check::<PlaceOrder>();
    check::<OrderLine>();
    check::<Address>();
    check::<Schedule>();
    check::<ListTasks>();
    check::<Everything>();
}

/// What no known consumer refuses, in the portable form of every fixture: the MCP SDKs, the
/// model providers' transforms that read these keywords, the grammar engines.
#[test]
fn the_portable_form_of_every_fixture_is_refused_by_no_consumer_it_is_meant_for() {
    for (name, strict) in [
        (
            "CreateUser",
            serde_json::to_value(CreateUser::schema()).unwrap(),
        ),
        (
            "PlaceOrder",
            serde_json::to_value(PlaceOrder::schema()).unwrap(),
        ),
        (
            "Schedule",
            serde_json::to_value(Schedule::schema()).unwrap(),
        ),
        (
            "ListTasks",
            serde_json::to_value(ListTasks::schema()).unwrap(),
        ),
        (
            "Everything",
            serde_json::to_value(Everything::schema()).unwrap(),
        ),
    ] {
        let portable = SchemaProfile::Portable.advertise(strict.as_object().unwrap());
        let refused: Vec<String> = lint(portable)
            .into_iter()
            .filter(|f| f.severity == Severity::Refuses)
            // Google GenAI's own `Schema` takes only its fields (the Gemini profile is for it),
            // its MCP conversion crashes on `additionalProperties: false` (its defect), and
            // strict mode has no maps.
            .filter(|f| {
                let known = matches!(f.consumer, "google-genai" | "google-genai mcp")
                    || (f.consumer == "openai-agents" && f.keyword == "additionalProperties");
                !known
            })
            .map(|f| f.to_string())
            .collect();
        assert!(refused.is_empty(), "{name}: {refused:#?}");
        let gemini = SchemaProfile::Gemini.advertise(strict.as_object().unwrap());
        let refused: Vec<String> = lint(gemini)
            .into_iter()
            .filter(|f| f.severity == Severity::Refuses && f.consumer.starts_with("google"))
            .map(|f| f.to_string())
            .collect();
        assert!(refused.is_empty(), "{name} (gemini): {refused:#?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Integer fields take any value of their type that a JSON number holds exactly.
    #[test]
    fn integers_within_the_safe_range_pass_the_clamped_bounds(n in -MAX_SAFE..=MAX_SAFE) {
        let strict = json!({"type": "object", "properties": {
            "a": {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX},
            "b": {"type": "integer", "minimum": 0, "maximum": u64::MAX}
        }, "additionalProperties": false});
        let portable = portable_validator(&strict);
        let call = json!({"a": n, "b": n.unsigned_abs()});
        prop_assert!(portable.is_valid(&call), "{}", call);
    }
}
