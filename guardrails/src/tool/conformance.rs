//! Structured results checked against the tool's advertised `outputSchema`: the MCP
//! specification says a server MUST return structured results that conform to it. A result
//! that does not is a bug of the tool; the check turns it into an `INTERNAL` tool error naming
//! the path, so that a test of the tool fails instead of a client rejecting the result.
//!
//! On in debug builds (and so in tests), off in release builds unless a server turns it on
//! ([`Server::check_output_schemas`](crate::Server::check_output_schemas)); each tool's
//! validator is compiled once, on its first checked result.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use serde_json::{Map, Value};

use super::spec::ToolSpec;
use crate::message::ToolError;
use crate::text::cut;

/// The most characters of the validator's description of a mismatch an error carries.
const MISMATCH_CHARS: usize = 200;

/// A compiled validator, or why the schema did not compile.
type Compiled = Arc<Result<jsonschema::Validator, String>>;

/// The validators compiled so far, by the address of the tool's schema (a `&'static` that
/// generated code keeps in a `static`, so one per tool).
fn validators() -> &'static RwLock<HashMap<usize, Compiled>> {
    static VALIDATORS: OnceLock<RwLock<HashMap<usize, Compiled>>> = OnceLock::new();
    VALIDATORS.get_or_init(RwLock::default)
}

fn validator(schema: &'static Map<String, Value>) -> Compiled {
    let key = std::ptr::from_ref(schema) as usize;
    if let Some(compiled) = validators()
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&key)
    {
        return Arc::clone(compiled);
    }
    let compiled = Arc::new(
        jsonschema::validator_for(&Value::Object(schema.clone())).map_err(|e| e.to_string()),
    );
    let mut all = validators()
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Arc::clone(all.entry(key).or_insert(compiled))
}

/// Checks the structured result of `spec` against its output schema.
///
/// # Errors
/// An `INTERNAL` [`ToolError`] naming the first path where the result breaks the schema (or
/// saying that the schema does not compile).
pub(crate) fn check(spec: &ToolSpec, structured: &Value) -> Result<(), ToolError> {
    let Some(schema) = spec.output_schema() else {
        return Ok(());
    };
    let compiled = validator(schema);
    let validator = match &*compiled {
        Ok(validator) => validator,
        Err(why) => {
            return Err(ToolError::internal(format!(
                "The output schema of tool {} does not compile: {}",
                spec.name(),
                cut(why, MISMATCH_CHARS)
            )));
        }
    };
    let Some(first) = validator.iter_errors(structured).next() else {
        return Ok(());
    };
    let path = first.instance_path().as_str();
    let path = if path.is_empty() { "/" } else { path };
    Err(ToolError::internal(format!(
        "The result of tool {} does not match its output schema at {}: {}",
        spec.name(),
        cut(path, MISMATCH_CHARS),
        cut(&first.to_string(), MISMATCH_CHARS)
    ))
    .detail("path", path.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_is_compiled_once() {
        static SCHEMA: OnceLock<Map<String, Value>> = OnceLock::new();
        let schema = SCHEMA.get_or_init(|| {
            let Value::Object(map) = serde_json::json!({"type": "object"}) else {
                unreachable!()
            };
            map
        });
        let first = validator(schema);
        let second = validator(schema);
        assert!(Arc::ptr_eq(&first, &second));
        assert!(
            first
                .as_ref()
                .as_ref()
                .is_ok_and(|v| v.is_valid(&serde_json::json!({})))
        );
    }
}
