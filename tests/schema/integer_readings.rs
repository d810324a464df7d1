//! What `integer` takes: by default what serde reads as an integer, and under
//! `SchemaOptions::schema_integers` every whole number, as JSON Schema counts them.

use guardrails::validation::{SchemaArgs, SchemaOptions};
use serde_json::{Value, json};

fn schema() -> serde_json::Map<String, Value> {
    let Value::Object(schema) = json!({
        "type": "object",
        "properties": {"count": {"type": "integer", "minimum": -10, "maximum": 1000}},
        "required": ["count"]
    }) else {
        unreachable!()
    };
    schema
}

/// The JSON texts of whole numbers written as floats, read as `serde_json` reads them.
const WHOLE_FLOATS: [&str; 4] = ["5.0", "1e2", "-0.0", "1.0E1"];

#[test]
fn a_whole_float_is_refused_as_serde_refuses_it() {
    let args = SchemaArgs::new(&schema()).expect("compiles");
    for text in WHOLE_FLOATS {
        let call: Value = serde_json::from_str(&format!(r#"{{"count": {text}}}"#)).unwrap();
        let report = args.check(&call).expect_err(text);
        let issue = report.at("count").expect("an issue at count");
        assert!(
            issue.message.contains("Expected an integer"),
            "{text}: {}",
            issue.message
        );
    }
    args.check(&json!({"count": 5})).expect("an integer passes");
}

#[test]
fn a_whole_float_is_an_integer_as_json_schema_counts_it() {
    let options = SchemaOptions::new().schema_integers(true);
    let args = SchemaArgs::with_options(&schema(), options).expect("compiles");
    for text in WHOLE_FLOATS {
        let call: Value = serde_json::from_str(&format!(r#"{{"count": {text}}}"#)).unwrap();
        args.check(&call)
            .unwrap_or_else(|report| panic!("{text}: {report:?}"));
    }
    // A fraction is not an integer, and the bounds still hold.
    for refused in [
        json!({"count": 5.5}),
        json!({"count": 2e3}),
        json!({"count": "5"}),
    ] {
        assert!(args.check(&refused).is_err(), "{refused}");
    }
}
