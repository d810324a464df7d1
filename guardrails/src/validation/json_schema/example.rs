//! A valid example built from a schema: candidates from its keywords (every property, then only
//! the required ones, each with the branches of its unions in turn), of which the checker keeps
//! the first its validator accepts. It reads the strict schema alone, never an error, so it
//! stands apart from the checking.

use serde_json::{Map, Value};

use super::MAX_EXAMPLE_DEPTH;
use super::lookup::{required_of, resolve, types_of};
use crate::validation::example::regex_sample::plausible_sample;
use crate::validation::string_format::StringFormat;

/// How many ways of choosing among a union's branches the example tries.
const EXAMPLE_CHOICES: usize = 4;

/// Examples to try, best first: every property, then only the required ones, each with the
/// first branch of every union, then the next ones (the first may be a variant that cannot
/// be built, such as a recursive one).
pub(super) fn example_candidates(root: &Map<String, Value>) -> Vec<Value> {
    let schema = Value::Object(root.clone());
    let mut out: Vec<Value> = Vec::new();
    for choice in 0..EXAMPLE_CHOICES {
        for optional in [true, false] {
            let pick = Pick { optional, choice };
            let candidate = example(&schema, root, 0, pick);
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

/// What an example fills in: optional properties or not, and which branch of a union.
#[derive(Clone, Copy)]
struct Pick {
    optional: bool,
    choice: usize,
}

/// An example value of `schema`: its own keywords, and the properties its branches in place
/// (`allOf`, a chosen branch of `oneOf` / `anyOf`) add to an object.
fn example(schema: &Value, root: &Map<String, Value>, depth: usize, pick: Pick) -> Value {
    if depth > MAX_EXAMPLE_DEPTH {
        return Value::Null;
    }
    let schema = resolve(schema, root);
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return values
            .iter()
            .find(|v| !v.is_null())
            .or(values.first())
            .cloned()
            .unwrap_or(Value::Null);
    }
    if let Some(first) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(default) = schema.get("default").filter(|d| !d.is_null()) {
        return default.clone();
    }
    let mut own = own_example(schema, root, depth, pick);
    let mut parts: Vec<&Value> = schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    if let Some(Value::Array(branches)) = schema.get("oneOf").or_else(|| schema.get("anyOf")) {
        let usable: Vec<&Value> = branches
            .iter()
            .filter(|b| types_of(resolve(b, root)) != ["null"])
            .collect();
        let usable = if usable.is_empty() {
            branches.iter().collect()
        } else {
            usable
        };
        if !usable.is_empty() {
            parts.push(usable[pick.choice % usable.len()]);
        }
    }
    for part in parts {
        let value = example(part, root, depth + 1, pick);
        match (&mut own, value) {
            (Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (k, v) in theirs {
                    mine.entry(k).or_insert(v);
                }
            }
            (None, value) => own = Some(value),
            _ => {}
        }
    }
    own.unwrap_or(Value::Null)
}

/// The example of what `schema` itself says of a value, by its type; `None` when it says no
/// type.
fn own_example(
    schema: &Value,
    root: &Map<String, Value>,
    depth: usize,
    pick: Pick,
) -> Option<Value> {
    let num = |key: &str| schema.get(key).and_then(Value::as_f64);
    Some(match types_of(schema).first().copied()? {
        "object" => {
            let required = schema.as_object().map(required_of).unwrap_or_default();
            let mut out = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    if required.contains(name.as_str()) || (pick.optional && depth < 2) {
                        out.insert(name.clone(), example(prop, root, depth + 1, pick));
                    }
                }
            }
            // A map with a least size gets entries of the values it takes.
            if let Some(Value::Object(values)) = schema.get("additionalProperties") {
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "a small count"
                )]
                let least = num("minProperties").unwrap_or(0.0).min(8.0) as usize;
                let value = example(&Value::Object(values.clone()), root, depth + 1, pick);
                let mut n = 1;
                while out.len() < least {
                    out.entry(format!("key{n}"))
                        .or_insert_with(|| value.clone());
                    n += 1;
                }
            }
            Value::Object(out)
        }
        "array" => {
            let prefix: Vec<Value> = schema
                .get("prefixItems")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|item| example(item, root, depth + 1, pick))
                .collect();
            // Deep in a recursive type, an empty list ends the recursion.
            let least = if depth < 3 { 1.0 } else { 0.0 };
            let min = num("minItems").unwrap_or(least).max(least);
            let max = num("maxItems").unwrap_or(f64::MAX);
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "a small count"
            )]
            let n = (min.min(8.0).min(max) as usize).max(prefix.len());
            let items = match schema.get("items") {
                Some(Value::Bool(false)) => prefix,
                _ if n == prefix.len() => prefix,
                items => {
                    let item = items.map_or(Value::from("example"), |i| {
                        example(i, root, depth + 1, pick)
                    });
                    let mut all = prefix;
                    let start = all.len();
                    all.extend((start..n).map(|i| distinct(&item, i - start)));
                    all
                }
            };
            Value::Array(items)
        }
        "string" => example_string(schema),
        kind @ ("integer" | "number") => example_number(schema, kind),
        "boolean" => Value::Bool(false),
        _ => Value::Null,
    })
}

fn example_string(schema: &Value) -> Value {
    let num = |key: &str| schema.get(key).and_then(Value::as_f64);
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a length"
    )]
    let (min, max) = (
        num("minLength").unwrap_or(0.0) as usize,
        num("maxLength").map(|m| m as usize),
    );
    if let Some(format) = schema
        .get("format")
        .and_then(Value::as_str)
        .and_then(StringFormat::from_name)
    {
        return Value::from(format.example());
    }
    let mut word: String = "example".chars().take(max.unwrap_or(usize::MAX)).collect();
    while word.chars().count() < min {
        word.push('x');
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        // A word reads better than the shortest match, when the pattern takes one.
        let takes_word = regex::Regex::new(pattern).is_ok_and(|re| re.is_match(&word));
        if !takes_word && let Some(sample) = plausible_sample(pattern, min, max) {
            return Value::from(sample);
        }
    }
    Value::from(word)
}

fn example_number(schema: &Value, kind: &str) -> Value {
    let num = |key: &str| schema.get(key).and_then(Value::as_f64);
    let low = num("minimum").or_else(|| num("exclusiveMinimum").map(|l| l.floor() + 1.0));
    let high = num("maximum").or_else(|| num("exclusiveMaximum").map(|h| h.ceil() - 1.0));
    let mut n = 1.0_f64;
    if let Some(l) = low {
        n = n.max(l);
    }
    if let Some(h) = high {
        n = n.min(h);
    }
    if let Some(step) = num("multipleOf").filter(|s| *s > 0.0) {
        n = (n / step).ceil() * step;
    }
    if kind == "integer" {
        n = n.ceil();
        #[expect(clippy::cast_possible_truncation, reason = "a bounded example")]
        return Value::from(n as i64);
    }
    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
}

/// The `i`-th of several distinct items made from `item` (for `uniqueItems` arrays).
fn distinct(item: &Value, i: usize) -> Value {
    if i == 0 {
        return item.clone();
    }
    match item {
        Value::String(s) => Value::from(format!("{s}{i}")),
        Value::Number(n) => n.as_i64().map_or_else(
            || item.clone(),
            |n| Value::from(n.saturating_add(i64::try_from(i).unwrap_or(0))),
        ),
        other => other.clone(),
    }
}
#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::validation::json_schema::args;

    #[test]
    fn the_example_validates() {
        let checked = args(&json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": "^cus_[a-z0-9]+$"},
                "email": {"type": "string", "format": "email"},
                "n": {"type": "integer", "minimum": 5, "multipleOf": 5},
                "xs": {"type": "array", "minItems": 2, "uniqueItems": true, "items": {"type": "integer"}},
                "kind": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]}
            },
            "required": ["id", "email", "n", "xs"]
        }));
        let example = checked.example().expect("an example");
        assert!(checked.is_valid(example), "{example}");
    }

    #[test]
    fn a_tuple_gets_an_example() {
        let checked = args(&json!({
            "type": "object",
            "properties": {"pair": {
                "type": "array", "minItems": 2, "maxItems": 2,
                "prefixItems": [{"type": "integer", "minimum": 5}, {"type": "string", "minLength": 3}]
            }},
            "required": ["pair"]
        }));
        assert_eq!(checked.example(), Some(&json!({"pair": [5, "example"]})));
    }

    #[test]
    fn a_map_with_a_least_size_gets_an_example() {
        let checked = args(&json!({
            "type": "object",
            "properties": {"tags": {
                "type": "object", "minProperties": 2,
                "additionalProperties": {"type": "integer", "minimum": 3}
            }},
            "required": ["tags"]
        }));
        assert_eq!(
            checked.example(),
            Some(&json!({"tags": {"key1": 3, "key2": 3}}))
        );
    }
}
