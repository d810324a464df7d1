//! A whole number written as a float (`3.0`, `1e2`) where serde reads an integer: JSON Schema
//! counts it an integer, serde refuses it for every integer type. The validator checks a keyword
//! of its own beside every integer type, kept out of the advertised schema, and the issue of its
//! failure gives the number to send instead.

use jsonschema::ValidationError;
use serde_json::{Map, Value};

use super::DATA_KEYWORDS;
use crate::validation::report::IssueCode;

/// The validator's own keyword beside an integer type: a number that serde reads into an
/// integer type is written without a fraction or an exponent.
pub(super) const WHOLE_INTEGER: &str = "x-guardrails-whole-integer";

/// Adds [`WHOLE_INTEGER`] beside every `type` that takes integers and not other numbers.
pub(super) fn mark_integers(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let integer = match map.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(types)) => {
                    types.iter().any(|t| t == "integer") && !types.iter().any(|t| t == "number")
                }
                _ => false,
            };
            for (keyword, value) in map.iter_mut() {
                if !DATA_KEYWORDS.contains(&keyword.as_str()) {
                    mark_integers(value);
                }
            }
            if integer {
                map.insert(WHOLE_INTEGER.to_owned(), Value::Bool(true));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mark_integers),
        _ => {}
    }
}

/// Whether `value` is a number JSON Schema counts an integer but serde reads only as a float.
fn is_whole_float(value: &Value) -> bool {
    matches!(value, Value::Number(n) if n.is_f64())
}

/// The check of [`WHOLE_INTEGER`]. A float with a fraction fails `type` already; this one
/// fails only the floats `type: integer` lets through.
struct WholeInteger;

impl<'i> jsonschema::Keyword<'i> for WholeInteger {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(ValidationError::custom("a whole number written as a float"))
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        !is_whole_float(instance) || instance.as_f64().is_some_and(|f| f.fract() != 0.0)
    }
}

#[allow(clippy::unnecessary_wraps)] // the signature `with_keyword` takes
pub(super) fn whole_integer<'a>(
    _parent: &'a Map<String, Value>,
    _value: &'a Value,
    _path: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, ValidationError<'a>> {
    Ok(Box::new(WholeInteger))
}

/// The issue of a whole number written as a float where an integer is read: serde refuses
/// `3.0` for an integer type, so the fix is the same number without its fraction.
pub(super) fn whole_float_issue(
    sent: &Value,
) -> (IssueCode, String, Option<String>, Option<String>) {
    let whole = sent
        .as_f64()
        .filter(|f| f.abs() < 1e18)
        .map_or_else(|| "a whole number".to_owned(), |f| format!("{f:.0}"));
    (
        IssueCode::Type,
        "Expected an integer, got a number written with a decimal point or an exponent: \
         integers are read only without one."
            .to_owned(),
        Some("an integer".to_owned()),
        Some(format!("Send {whole}, without the decimal point.")),
    )
}
#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validation::json_schema::args;
    use crate::validation::report::IssueCode;

    #[test]
    fn a_whole_number_written_as_a_float_is_refused_where_an_integer_is_read() {
        // serde refuses `3.0` for every integer type; JSON Schema counts it an integer.
        let checked = args(&json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "format": "int32"},
                "maybe": {"type": ["integer", "null"]},
                "xs": {"type": "array", "items": {"type": "integer"}},
                "x": {"type": "number"},
                "const_like": {"enum": [1.0, 2]}
            }
        }));
        let fine = json!({"n": 3, "maybe": null, "xs": [1, -2], "x": 3.0, "const_like": 1.0});
        assert!(checked.is_valid(&fine), "{:?}", checked.check(&fine));
        assert!(checked.check(&fine).is_ok());
        for (args, path, send) in [
            (json!({"n": 3.0}), "n", "Send 3,"),
            (json!({"maybe": -7.0}), "maybe", "Send -7,"),
            (json!({"xs": [1, 2e3]}), "xs[1]", "Send 2000,"),
        ] {
            assert!(!checked.is_valid(&args), "{args}");
            let report = checked.check(&args).unwrap_err();
            let issue = report
                .at(path)
                .unwrap_or_else(|| panic!("{path}: {report}"));
            assert_eq!(issue.code, IssueCode::Type, "{report}");
            assert!(issue.fix.as_deref().unwrap().starts_with(send), "{report}");
            assert_eq!(report.len(), 1, "{report}");
        }
        // A fraction is the type's own issue, reported once.
        let report = checked.check(&json!({"n": 3.5})).unwrap_err();
        assert_eq!(report.len(), 1, "{report}");
        // The advertised schema stays standard.
        assert!(!format!("{:?}", checked.schema()).contains(WHOLE_INTEGER));
    }
}
