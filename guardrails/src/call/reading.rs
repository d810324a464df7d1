//! The tool's own reading of its arguments: for a tool whose argument type is known where it is
//! written (`Parameters<T>` in a `#[tool]` method under [`#[guarded]`](macro@crate::guarded)),
//! a call the schema refuses only for what `T` decides (a JSON type, a name, a field it needs)
//! and that serde reads into `T` is the tool's to take. Asked only once the schema refused a
//! call: a valid call pays nothing for it.
//!
//! A key no schema of its object takes is let through only when serde reads it (a field's
//! alias): it is sent again with values no reading takes in its place, and the call must then
//! fail. A key serde drops in silence (a misspelt field, a field sent at the wrong level) is
//! refused, and so is any call that breaks a rule the schema declares (a length, a range, a
//! pattern), which serde does not check.

use rmcp::model::JsonObject;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::validation::Grounds;

/// Whether a tool's own argument type reads a call's arguments, as rmcp's `Parameters<T>` reads
/// them.
pub(crate) type ArgsReader = fn(&JsonObject) -> bool;

/// The most keys the schema does not declare that one call may hold and still be asked about:
/// each is read twice more.
const MAX_KEYS: usize = 16;

/// Whether serde reads `arguments` into `T` as rmcp's `Parameters<T>` does (from the owned
/// object, so that a type that reads owned strings only reads them here too). What
/// [`#[guarded]`](macro@crate::guarded) registers for each tool.
#[doc(hidden)]
#[must_use]
pub fn reads<T: DeserializeOwned>(arguments: &JsonObject) -> bool {
    serde_json::from_value::<T>(Value::Object(arguments.clone())).is_ok()
}

/// Values no reading of a key takes but one of `serde_json::Value` (or of an untagged enum of
/// both a float and a list): in place of a key that a type reads, one of them makes the call
/// fail.
fn poisons() -> [Value; 2] {
    [json!(-0.5), json!([null, true, -0.5, "\u{0}", [], {}])]
}

/// Whether the tool takes `arguments` as they are although the schema refused them on
/// `grounds`: no declared rule failed, `read` reads them, and every key the schema does not
/// declare is one `read` reads.
pub(crate) fn taken_as_sent(read: ArgsReader, arguments: &JsonObject, grounds: &Grounds) -> bool {
    if grounds.declared || grounds.keys.len() > MAX_KEYS || !read(arguments) {
        return false;
    }
    grounds
        .keys
        .iter()
        .all(|(object, key)| key_is_read(read, arguments, object, key))
}

/// Whether `read` reads the key `key` of the object at the JSON pointer `object`: some value
/// no reading takes, put in its place, makes the call fail.
fn key_is_read(read: ArgsReader, arguments: &JsonObject, object: &str, key: &str) -> bool {
    poisons().into_iter().any(|poison| {
        let mut sent = Value::Object(arguments.clone());
        let Some(slot) = sent
            .pointer_mut(object)
            .and_then(Value::as_object_mut)
            .and_then(|o| o.get_mut(key))
        else {
            return false;
        };
        *slot = poison;
        sent.as_object().is_some_and(|sent| !read(sent))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::*;
    use crate::validation::SchemaArgs;

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "only read")]
    struct Inner {
        #[serde(alias = "colour")]
        color: String,
        size: Option<u8>,
    }

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "only read")]
    struct Args {
        inner: Inner,
        #[serde(default)]
        tags: Vec<String>,
        extra: BTreeMap<String, Value>,
    }

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(object) => object,
            _ => JsonObject::new(),
        }
    }

    fn grounds(keys: &[(&str, &str)]) -> Grounds {
        Grounds {
            declared: false,
            keys: keys
                .iter()
                .map(|(o, k)| ((*o).to_owned(), (*k).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn an_alias_is_read_and_a_dropped_key_is_not() {
        let alias = object(json!({"inner": {"colour": "red"}, "extra": {}}));
        assert!(taken_as_sent(
            reads::<Args>,
            &alias,
            &grounds(&[("/inner", "colour")])
        ));
        let dropped = object(json!({"inner": {"color": "red", "sise": 3}, "extra": {}}));
        assert!(!taken_as_sent(
            reads::<Args>,
            &dropped,
            &grounds(&[("/inner", "sise")])
        ));
        // A key at the top that serde drops.
        let dropped = object(json!({"inner": {"color": "red"}, "extra": {}, "size": 3}));
        assert!(!taken_as_sent(
            reads::<Args>,
            &dropped,
            &grounds(&[("", "size")])
        ));
    }

    #[test]
    fn a_declared_rule_or_a_call_serde_refuses_is_not_taken() {
        let call = object(json!({"inner": {"color": "red"}, "extra": {}}));
        let mut declared = grounds(&[]);
        declared.declared = true;
        assert!(!taken_as_sent(reads::<Args>, &call, &declared));
        let refused = object(json!({"inner": {"color": 3}, "extra": {}}));
        assert!(!taken_as_sent(reads::<Args>, &refused, &grounds(&[])));
        assert!(taken_as_sent(reads::<Args>, &call, &grounds(&[])));
    }

    #[test]
    fn a_key_that_is_not_there_is_not_read() {
        let call = object(json!({"inner": {"color": "red"}, "extra": {}}));
        assert!(!taken_as_sent(
            reads::<Args>,
            &call,
            &grounds(&[("/nowhere", "x")])
        ));
    }

    #[test]
    fn grounds_tell_declared_rules_from_what_the_type_decides() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2},
                "count": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "level": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 9},
                "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2},
                "list": {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
            },
        });
        let args = SchemaArgs::new(schema.as_object().unwrap()).unwrap();
        let declared = |call: Value| args.grounds(&call).declared;
        assert!(declared(json!({"name": "a"})));
        assert!(declared(json!({"level": 10})));
        assert!(declared(json!({"list": [1, 2, 3]})));
        assert!(!declared(json!({"count": 256})));
        assert!(!declared(json!({"count": "x", "pair": [1]})));
        let keys = args.grounds(&json!({"nme": 1})).keys;
        assert_eq!(keys, vec![(String::new(), "nme".to_owned())]);
    }
}
