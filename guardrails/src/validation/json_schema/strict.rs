//! The strict-schema normaliser: [`strict_schema`] and the rewrites it applies to each subschema
//! (references inlined, `oneOf` read as `anyOf`, `Option`s and constants folded, integer formats
//! made bounds, objects closed). It works on the schema alone, before anything is compiled, and
//! what it writes is the schema a client is shown, so it stands apart from the checking.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::DATA_KEYWORDS;

/// The strict form of a tool's input schema: every local `$ref` inlined (those of a recursive
/// type stay references, into the `$defs` that remain) with the keywords beside it merged in,
/// `oneOf` read as `anyOf` (serde takes the first variant that reads a value), `anyOf` of a
/// schema and `null` (an `Option`) folded into the schema, integer `format`s
/// (`int32`, `uint64`, …) made the bounds they imply, and every object closed where serde
/// closes it: at the object a value is, never in the branches (`oneOf`, `anyOf`, `allOf`) and
/// referenced definitions it is built from, which see only their own keys.
///
/// An object that says nothing of other keys (no `additionalProperties`, `patternProperties`
/// nor `unevaluatedProperties`) gets `additionalProperties: false` when its own `properties`
/// are all its keys, and `unevaluatedProperties: false` when branches declare more of them (a
/// flattened enum, an internally tagged variant): a key is then known when the object or a
/// branch that matches declares it.
#[must_use]
pub fn strict_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    let defs = |section: &str| schema.get(section).and_then(Value::as_object);
    let mut inliner = Inliner {
        defs: [defs("$defs"), defs("definitions")],
        stack: Vec::new(),
        kept: BTreeSet::new(),
        open: BTreeSet::new(),
    };
    let mut root = schema.clone();
    root.remove("$defs");
    root.remove("definitions");
    let mut out = match inliner.inline(&Value::Object(root), Place::Value) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    // The definitions a recursive type still refers to, strict themselves: closed where they
    // are values, open when one applies in place somewhere (the objects that hold it close it).
    let mut done = BTreeSet::new();
    let mut written_open = BTreeSet::new();
    let mut kept_defs: [Map<String, Value>; 2] = [Map::new(), Map::new()];
    loop {
        // A definition written closed before it was found in place is written again, open.
        let next = inliner
            .kept
            .iter()
            .find(|k| !done.contains(*k))
            .or_else(|| inliner.open.iter().find(|k| !written_open.contains(*k)))
            .cloned();
        let Some(key) = next else {
            break;
        };
        done.insert(key.clone());
        let place = if inliner.open.contains(&key) {
            written_open.insert(key.clone());
            Place::InPlace
        } else {
            Place::Value
        };
        let (section, name) = key;
        let Some(def) = inliner.defs[section].and_then(|d| d.get(&name)) else {
            continue;
        };
        inliner.stack = vec![(section, name.clone())];
        let strict = inliner.inline(def, place);
        kept_defs[section].insert(name, strict);
    }
    for (section, defs) in ["$defs", "definitions"].into_iter().zip(kept_defs) {
        if !defs.is_empty() {
            out.insert(section.to_owned(), Value::Object(defs));
        }
    }
    let kept = |section: &str| out.get(section).and_then(Value::as_object).cloned();
    let kept = [kept("$defs"), kept("definitions")];
    for value in out.values_mut() {
        drop_dangling_mappings(value, &kept);
    }
    out
}

/// Removes the `mapping` of a `discriminator` (an `OpenAPI` keyword; pydantic writes one for a
/// discriminated union) when a reference in it names a definition the strict schema no longer
/// has: the branches are inlined, and a mapping that points nowhere misleads a client that
/// reads it. The `propertyName` stays; the branches themselves still say which tag is theirs.
fn drop_dangling_mappings(value: &mut Value, kept: &[Option<Map<String, Value>>; 2]) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(discriminator)) = map.get_mut("discriminator") {
                let dangling = discriminator
                    .get("mapping")
                    .and_then(Value::as_object)
                    .is_some_and(|mapping| {
                        mapping.values().any(|target| {
                            let Some(target) = target.as_str() else {
                                return true;
                            };
                            let found = [("#/$defs/", 0), ("#/definitions/", 1)].iter().find_map(
                                |(prefix, section)| {
                                    target.strip_prefix(prefix).map(|name| (name, *section))
                                },
                            );
                            found.is_none_or(|(name, section)| {
                                let name = name.replace("~1", "/").replace("~0", "~");
                                !kept[section]
                                    .as_ref()
                                    .is_some_and(|defs| defs.contains_key(&name))
                            })
                        })
                    });
                if dangling {
                    discriminator.remove("mapping");
                }
            }
            for child in map.values_mut() {
                drop_dangling_mappings(child, kept);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| drop_dangling_mappings(item, kept)),
        _ => {}
    }
}

/// Where a subschema applies: to a value of its own (the root, a property, an item), which is
/// closed, or in place, to the value its parent applies to (a branch of `oneOf`, a referenced
/// definition), which is left open for the parent to close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Value,
    InPlace,
}

/// Keywords whose subschemas apply in place, to the value of the schema that holds them.
const IN_PLACE_KEYWORDS: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
];

/// Keywords that say what becomes of keys an object's `properties` do not name.
const OTHER_KEYS_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "patternProperties",
    "unevaluatedProperties",
];

struct Inliner<'a> {
    defs: [Option<&'a Map<String, Value>>; 2],
    stack: Vec<(usize, String)>,
    /// The definitions a recursive type still refers to.
    kept: BTreeSet<(usize, String)>,
    /// Those of them referred to in place, as a branch or beside other keywords.
    open: BTreeSet<(usize, String)>,
}

impl Inliner<'_> {
    fn inline(&mut self, schema: &Value, place: Place) -> Value {
        let Value::Object(map) = schema else {
            return schema.clone();
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let target = reference
                .strip_prefix("#/$defs/")
                .map(|n| (0, n))
                .or_else(|| reference.strip_prefix("#/definitions/").map(|n| (1, n)));
            if let Some((section, name)) = target {
                let name = name.replace("~1", "/").replace("~0", "~");
                let key = (section, name.clone());
                let def = self.defs[section].and_then(|d| d.get(&name));
                if let Some(def) = def {
                    if self.stack.contains(&key) {
                        self.kept.insert(key.clone());
                        if place == Place::InPlace {
                            // A definition that also applies in place is left open, for the
                            // objects that hold it to close.
                            self.open.insert(key);
                            return schema.clone();
                        }
                        // Where it is a value, the reference closes it: the definition may be
                        // written open because it applies in place elsewhere (flattened).
                        let mut closed = map.clone();
                        close(&mut closed);
                        return Value::Object(closed);
                    }
                    self.stack.push(key);
                    // The definition applies in place: the keywords beside the reference (the
                    // tag of an internally tagged variant) add to it, and the whole is closed
                    // here, where the value is.
                    let inlined = self.inline(def, Place::InPlace);
                    self.stack.pop();
                    let Value::Object(mut target) = inlined else {
                        return inlined;
                    };
                    let siblings: Map<String, Value> = map
                        .iter()
                        .filter(|(k, _)| *k != "$ref")
                        .map(|(k, v)| (k.clone(), self.inline_keyword(k, v)))
                        .collect();
                    merge_siblings(&mut target, siblings);
                    first_match(&mut target);
                    if place == Place::Value {
                        close(&mut target);
                    }
                    return Value::Object(target);
                }
            }
        }
        let mut out: Map<String, Value> = map
            .iter()
            .map(|(k, v)| (k.clone(), self.inline_keyword(k, v)))
            .collect();
        first_match(&mut out);
        tuple_items(&mut out);
        fold_constants(&mut out);
        fold_nullable(&mut out);
        integer_bounds(&mut out);
        if place == Place::Value {
            close(&mut out);
        }
        Value::Object(out)
    }

    fn inline_keyword(&mut self, keyword: &str, value: &Value) -> Value {
        if DATA_KEYWORDS.contains(&keyword) {
            return value.clone();
        }
        let place = if IN_PLACE_KEYWORDS.contains(&keyword) {
            Place::InPlace
        } else {
            Place::Value
        };
        match (keyword, value) {
            // Maps of name to subschema.
            ("properties" | "patternProperties" | "dependentSchemas", Value::Object(map)) => {
                Value::Object(
                    map.iter()
                        .map(|(k, v)| (k.clone(), self.inline(v, place)))
                        .collect(),
                )
            }
            (_, Value::Array(items)) => {
                Value::Array(items.iter().map(|v| self.inline(v, place)).collect())
            }
            (_, Value::Object(_)) => self.inline(value, place),
            _ => value.clone(),
        }
    }
}

/// A tuple of drafts before 2020-12 (`items` an array of schemas, `additionalItems` the
/// schema of the rest), which zod and other generators still write, in the words of 2020-12
/// (`prefixItems`, `items`), the draft the schema is checked with: an array-valued `items` is
/// no schema in 2020-12, and would keep the tool from being checked at all.
fn tuple_items(schema: &mut Map<String, Value>) {
    if !matches!(schema.get("items"), Some(Value::Array(_))) || schema.contains_key("prefixItems") {
        return;
    }
    if let Some(items) = schema.remove("items") {
        schema.insert("prefixItems".to_owned(), items);
    }
    if let Some(rest) = schema.remove("additionalItems") {
        schema.insert("items".to_owned(), rest);
    }
}

/// `oneOf` read as serde reads an enum, as `anyOf`: serde takes the variant a tag names or the
/// first that reads the value, and never refuses a value because two variants would read it (a
/// unit variant beside an `#[serde(untagged)]` one of type `String`, both of which take its
/// name). A schema with both keeps its own `anyOf` and gets the other in an `allOf`.
fn first_match(schema: &mut Map<String, Value>) {
    let Some(branches) = schema.remove("oneOf") else {
        return;
    };
    if schema.contains_key("anyOf") {
        let mut one = Map::new();
        one.insert("anyOf".to_owned(), branches);
        match schema.get_mut("allOf") {
            Some(Value::Array(all)) => all.push(Value::Object(one)),
            _ => {
                schema.insert("allOf".to_owned(), Value::Array(vec![Value::Object(one)]));
            }
        }
    } else {
        schema.insert("anyOf".to_owned(), branches);
    }
}

/// Closes the object `schema` describes, when it says nothing of other keys:
/// `additionalProperties: false` when its `properties` are all it declares,
/// `unevaluatedProperties: false` when branches in place declare more.
fn close(schema: &mut Map<String, Value>) {
    if OTHER_KEYS_KEYWORDS.iter().any(|k| schema.contains_key(*k)) {
        return;
    }
    let branches_declare_keys = IN_PLACE_KEYWORDS
        .iter()
        .chain(&["$ref"])
        .any(|k| schema.contains_key(*k));
    if branches_declare_keys {
        if may_be_object(schema) {
            schema.insert("unevaluatedProperties".to_owned(), Value::Bool(false));
        }
    } else if is_object_schema(schema) {
        schema.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
}

/// Whether a value `schema` accepts may be an object: it or one of its branches in place
/// describes one.
fn may_be_object(schema: &Map<String, Value>) -> bool {
    if is_object_schema(schema) || schema.contains_key("$ref") {
        return true;
    }
    IN_PLACE_KEYWORDS.iter().any(|k| match schema.get(*k) {
        Some(Value::Array(branches)) => branches
            .iter()
            .any(|b| b.as_object().is_some_and(may_be_object)),
        Some(Value::Object(branch)) if *k != "dependentSchemas" && *k != "not" => {
            may_be_object(branch)
        }
        _ => false,
    })
}

/// Adds the keywords written beside a `$ref` to the definition it names: both apply, so
/// `properties` are joined (a property both declare must satisfy both), `required` lists
/// united, and any other keyword both declare differently kept in an `allOf`.
fn merge_siblings(target: &mut Map<String, Value>, siblings: Map<String, Value>) {
    let mut both = Vec::new();
    for (keyword, value) in siblings {
        let Some(existing) = target.get_mut(&keyword) else {
            target.insert(keyword, value);
            continue;
        };
        if *existing == value {
            continue;
        }
        match (keyword.as_str(), existing, value) {
            ("properties", Value::Object(mine), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    match mine.get_mut(&name) {
                        None => {
                            mine.insert(name, schema);
                        }
                        Some(same) if *same == schema => {}
                        Some(other) => {
                            let first = other.take();
                            *other = serde_json::json!({ "allOf": [first, schema] });
                        }
                    }
                }
            }
            ("required", Value::Array(mine), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(&name) {
                        mine.push(name);
                    }
                }
            }
            ("title" | "description" | "examples" | "default", existing, value) => {
                *existing = value;
            }
            (_, _, value) => {
                let mut one = Map::new();
                one.insert(keyword, value);
                both.push(Value::Object(one));
            }
        }
    }
    if !both.is_empty() {
        match target.get_mut("allOf") {
            Some(Value::Array(all)) => all.extend(both),
            _ => {
                target.insert("allOf".to_owned(), Value::Array(both));
            }
        }
    }
}

/// The bounds an integer `format` implies (`int32`, `uint8`, …), as the type serde reads the
/// value into has them, added where the schema does not bound the value itself: an overflow is
/// then refused at its field, with the range to use.
fn integer_bounds(schema: &mut Map<String, Value>) {
    let Some(format) = schema.get("format").and_then(Value::as_str) else {
        return;
    };
    let is_integer = match schema.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    };
    if !is_integer {
        return;
    }
    let Some((low, high)) = integer_format_bounds(format) else {
        return;
    };
    // A bound of the schema's own is kept where it is tighter than the type's.
    let number = |key: &str, schema: &Map<String, Value>| schema.get(key).and_then(Value::as_f64);
    let low_f = low.as_f64().unwrap_or(f64::MIN);
    let high_f = high.as_f64().unwrap_or(f64::MAX);
    if number("minimum", schema).is_none_or(|m| m < low_f)
        && number("exclusiveMinimum", schema).is_none_or(|m| m < low_f)
    {
        schema.insert("minimum".to_owned(), low);
    }
    if number("maximum", schema).is_none_or(|m| m > high_f)
        && number("exclusiveMaximum", schema).is_none_or(|m| m > high_f)
    {
        schema.insert("maximum".to_owned(), high);
    }
}

/// `limit`, when it is a bound of the type the integer `format` of `schema` names.
pub(super) fn type_bound(schema: Option<&Value>, limit: &Value) -> Option<i128> {
    let format = schema?.get("format")?.as_str()?;
    let (low, high) = integer_format_bounds(format)?;
    if *limit != low && *limit != high {
        return None;
    }
    limit
        .as_i64()
        .map(i128::from)
        .or_else(|| limit.as_u64().map(i128::from))
}

/// The bounds of the type an integer `format` names (`int32`, `uint8`, …).
pub(super) fn integer_format_bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" => (0.into(), u64::MAX.into()),
        "int" => (isize::MIN.into(), isize::MAX.into()),
        "uint" => (0.into(), usize::MAX.into()),
        _ => return None,
    })
}

fn is_object_schema(schema: &Map<String, Value>) -> bool {
    schema.contains_key("properties")
        || match schema.get("type") {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
            _ => false,
        }
}

/// `{"oneOf": [{"const": "a"}, {"const": "b"}]}` (what an enum whose variants carry doc
/// comments becomes) written as `{"enum": ["a", "b"]}`: the same values pass, and a failure is
/// one "not one of the allowed values" rather than "matches none of the alternatives".
fn fold_constants(schema: &mut Map<String, Value>) {
    for keyword in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = schema.get(keyword) else {
            continue;
        };
        let constants: Option<Vec<&Value>> = branches
            .iter()
            .map(|b| {
                let b = b.as_object()?;
                let only_annotations = b
                    .keys()
                    .all(|k| matches!(k.as_str(), "const" | "type" | "description" | "title"));
                only_annotations.then(|| b.get("const")).flatten()
            })
            .collect();
        let Some(constants) = constants.filter(|c| !c.is_empty()) else {
            continue;
        };
        let distinct = constants
            .iter()
            .enumerate()
            .all(|(i, c)| !constants[..i].contains(c));
        if !distinct && keyword == "oneOf" {
            continue;
        }
        let values: Vec<Value> = constants.into_iter().cloned().collect();
        let mut types: Vec<&str> = values.iter().map(json_type_name).collect();
        types.dedup();
        schema.remove(keyword);
        if let [only] = types.as_slice() {
            schema.entry("type").or_insert_with(|| Value::from(*only));
        }
        schema.insert("enum".to_owned(), Value::Array(values));
        return;
    }
}

fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `{"anyOf": [S, {"type": "null"}]}` (what an `Option` of a struct or an enum becomes) folded
/// into `S` with `null` added to its type: the same values pass, and a failure is reported
/// inside `S` rather than as "matches none of the alternatives".
fn fold_nullable(schema: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = schema.get("anyOf") else {
        return;
    };
    let [a, b] = branches.as_slice() else {
        return;
    };
    let is_null = |v: &Value| {
        v.as_object()
            .is_some_and(|m| m.len() == 1 && m.get("type") == Some(&Value::from("null")))
    };
    let inner = match (is_null(a), is_null(b)) {
        (false, true) => a,
        (true, false) => b,
        _ => return,
    };
    let Some(inner) = inner.as_object() else {
        return;
    };
    // A schema with branches in place keeps `null` apart: its branches, which say `object`,
    // would refuse the `null` folded into its type.
    if inner.contains_key("const")
        || inner.contains_key("$ref")
        || IN_PLACE_KEYWORDS.iter().any(|k| inner.contains_key(*k))
    {
        return;
    }
    let mut types: Vec<Value> = match inner.get("type") {
        Some(Value::String(t)) => vec![Value::from(t.as_str())],
        Some(Value::Array(ts)) => ts.clone(),
        _ => return,
    };
    if !types.contains(&Value::from("null")) {
        types.push(Value::from("null"));
    }
    let mut folded = inner.clone();
    folded.insert("type".to_owned(), Value::Array(types));
    if let Some(Value::Array(values)) = folded.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    schema.remove("anyOf");
    for (k, v) in folded {
        schema.entry(k).or_insert(v);
    }
}
#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validation::json_schema::args;
    use crate::validation::report::IssueCode;

    #[test]
    fn references_are_inlined_and_objects_made_strict() {
        let schema = json!({
            "type": "object",
            "properties": {
                "inner": {"$ref": "#/$defs/Inner"},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}}
            },
            "$defs": {"Inner": {"type": "object", "properties": {"n": {"type": "integer"}}}}
        });
        let strict = strict_schema(schema.as_object().unwrap());
        assert!(strict.get("$defs").is_none(), "{strict:?}");
        assert_eq!(strict["additionalProperties"], false);
        assert_eq!(strict["properties"]["inner"]["additionalProperties"], false);
        assert_eq!(
            strict["properties"]["maybe"]["type"],
            json!(["object", "null"])
        );
        assert_eq!(strict["properties"]["maybe"]["additionalProperties"], false);
        assert_eq!(
            strict["properties"]["map"]["additionalProperties"],
            json!({"type": "integer"})
        );
    }

    #[test]
    fn recursive_types_keep_their_definition() {
        let schema = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }}}
        });
        let checked = args(&schema);
        assert_eq!(
            checked.schema()["$defs"]["Node"]["additionalProperties"],
            false
        );
        assert!(checked.is_valid(&json!({"root": {"children": [{"children": []}]}})));
        let report = checked
            .check(&json!({"root": {"children": [{"kids": []}]}}))
            .unwrap_err();
        assert_eq!(report.issues()[0].path, "root.children[0].kids");
    }

    #[test]
    fn schemas_of_common_serde_shapes_stay_correct_when_strict() {
        use std::collections::BTreeMap;

        #[derive(serde::Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        #[expect(dead_code, reason = "only the schema is used")]
        enum Target {
            /// A folder.
            Folder { name: String },
            /// The bin.
            Trash,
        }

        #[derive(serde::Deserialize, schemars::JsonSchema)]
        #[expect(dead_code, reason = "only the schema is used")]
        struct Paging {
            page: Option<u32>,
        }

        #[derive(serde::Deserialize, schemars::JsonSchema)]
        #[expect(dead_code, reason = "only the schema is used")]
        struct Move {
            target: Target,
            #[serde(flatten)]
            paging: Paging,
            labels: BTreeMap<String, u8>,
            #[serde(default)]
            dry_run: bool,
        }

        let schema = schemars::schema_for!(Move);
        let checked = args(&schema.to_value());
        let example = checked.example().expect("an example");
        assert!(checked.is_valid(example), "{example}");
        for valid in [
            json!({"target": {"kind": "trash"}, "labels": {}}),
            json!({"target": {"kind": "folder", "name": "a"}, "page": 2, "labels": {"x": 1}, "dry_run": true}),
        ] {
            assert!(checked.is_valid(&valid), "{valid}");
        }
        for (invalid, path) in [
            (
                json!({"target": {"kind": "trash"}, "labels": {}, "pgae": 2}),
                "pgae",
            ),
            (
                json!({"target": {"kind": "folder", "name": "a", "nme": 1}, "labels": {}}),
                "target.nme",
            ),
            (
                json!({"target": {"kind": "trash"}, "labels": {"x": 300}}),
                "labels.x",
            ),
        ] {
            let report = checked.check(&invalid).unwrap_err();
            assert!(report.at(path).is_some(), "{path}: {report}");
        }
    }

    #[test]
    fn branches_stay_open_and_the_object_that_holds_them_is_closed() {
        let strict = strict_schema(
            json!({
                "type": "object",
                "properties": {"limit": {"type": "integer"}},
                "oneOf": [
                    {"type": "object", "properties": {"by": {"const": "a"}, "a": {"type": "string"}}, "required": ["by"]},
                    {"$ref": "#/$defs/B", "properties": {"by": {"const": "b"}}, "required": ["by"]}
                ],
                "$defs": {"B": {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}}
            })
            .as_object()
            .unwrap(),
        );
        assert_eq!(strict["unevaluatedProperties"], false, "{strict:?}");
        assert!(strict.get("additionalProperties").is_none(), "{strict:?}");
        for branch in strict["anyOf"].as_array().unwrap() {
            assert!(branch.get("additionalProperties").is_none(), "{branch}");
            assert!(branch.get("unevaluatedProperties").is_none(), "{branch}");
        }
        // The keywords beside the `$ref` are merged into its definition, not dropped.
        let b = &strict["anyOf"][1];
        assert_eq!(b["properties"]["by"], json!({"const": "b"}));
        assert_eq!(b["properties"]["b"], json!({"type": "integer"}));
        assert_eq!(b["required"], json!(["b", "by"]));

        let checked = args(&Value::Object(strict));
        assert!(checked.is_valid(&json!({"by": "a", "a": "x", "limit": 1})));
        assert!(checked.is_valid(&json!({"by": "b", "b": 2})));
        assert!(!checked.is_valid(&json!({"b": 2})), "the tag is required");
        for (invalid, path) in [
            (json!({"by": "a", "limit": 1, "limt": 2}), "limt"),
            (json!({"by": "a", "b": 2}), "b"),
        ] {
            let report = checked.check(&invalid).unwrap_err();
            let unknown = report.at(path).expect(path);
            assert_eq!(unknown.code, IssueCode::UnknownField, "{report}");
        }
    }

    #[test]
    fn a_conflicting_sibling_of_a_ref_applies_with_its_target() {
        let strict = strict_schema(
            json!({
                "type": "object",
                "properties": {"n": {"$ref": "#/$defs/N", "maximum": 10, "properties": {}}},
                "$defs": {"N": {"type": "integer", "maximum": 100}}
            })
            .as_object()
            .unwrap(),
        );
        let n = &strict["properties"]["n"];
        assert_eq!(n["maximum"], 100, "{n}");
        assert_eq!(n["allOf"], json!([{"maximum": 10}]), "{n}");
        let checked = args(&Value::Object(strict));
        assert!(checked.is_valid(&json!({"n": 10})));
        assert!(!checked.is_valid(&json!({"n": 11})));
    }

    #[test]
    fn integer_formats_bound_the_value_unless_the_schema_is_tighter() {
        let strict = strict_schema(
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "format": "int32"},
                    "b": {"type": ["integer", "null"], "format": "uint64", "minimum": 0},
                    "c": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 10},
                    "d": {"type": "integer", "format": "int16", "minimum": -100_000},
                    "e": {"type": "string", "format": "int32"}
                }
            })
            .as_object()
            .unwrap(),
        );
        let bounds = |name: &str| {
            let p = &strict["properties"][name];
            (p.get("minimum").cloned(), p.get("maximum").cloned())
        };
        assert_eq!(bounds("a"), (Some(json!(i32::MIN)), Some(json!(i32::MAX))));
        assert_eq!(bounds("b"), (Some(json!(0)), Some(json!(u64::MAX))));
        assert_eq!(bounds("c"), (Some(json!(1)), Some(json!(10))));
        assert_eq!(bounds("d"), (Some(json!(i16::MIN)), Some(json!(i16::MAX))));
        assert_eq!(bounds("e"), (None, None));
    }

    #[test]
    fn a_recursive_definition_flattened_into_another_is_left_open() {
        // `struct Wrapper { extra: i32, #[serde(flatten)] base: Base }` and
        // `struct Base { name: String, child: Option<Box<Wrapper>> }`.
        let checked = args(&json!({
            "type": "object",
            "properties": {"b": {"$ref": "#/$defs/Base"}},
            "$defs": {
                "Base": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "child": {"anyOf": [{"$ref": "#/$defs/Wrapper"}, {"type": "null"}]}
                }},
                "Wrapper": {"type": "object", "properties": {"extra": {"type": "integer"}},
                    "allOf": [{"$ref": "#/$defs/Base"}]}
            }
        }));
        let valid = json!({"b": {"name": "x", "child": {"extra": 1, "name": "y", "child": null}}});
        assert!(checked.is_valid(&valid), "{:?}", checked.schema());
        for (invalid, path) in [
            (json!({"b": {"name": "x", "zzz": 1}}), "b.zzz"),
            (
                json!({"b": {"child": {"extra": 1, "zzz": 2}}}),
                "b.child.zzz",
            ),
        ] {
            let report = checked.check(&invalid).unwrap_err();
            assert!(report.at(path).is_some(), "{path}: {report}");
        }
    }

    #[test]
    fn a_value_two_variants_read_is_not_refused() {
        // `enum Mode { Auto, #[serde(untagged)] Named(String) }`: serde reads "Auto" as the
        // first variant; `oneOf` would refuse it for matching both.
        let checked = args(&json!({
            "type": "object",
            "properties": {"mode": {"oneOf": [
                {"type": "string", "const": "Auto"},
                {"type": "string"}
            ]}},
            "required": ["mode"]
        }));
        assert!(checked.is_valid(&json!({"mode": "Auto"})));
        assert!(checked.is_valid(&json!({"mode": "fast"})));
        let report = checked.check(&json!({"mode": 1})).unwrap_err();
        assert_eq!(report.at("mode").unwrap().code, IssueCode::Type, "{report}");
    }

    #[test]
    fn a_recursive_definition_open_where_flattened_is_closed_where_it_is_a_value() {
        // `struct Base { name: String, children: Vec<Base>, wrapped: Option<Box<Wrapper>> }`,
        // `struct Wrapper { extra: i32, #[serde(flatten)] base: Base }`.
        let checked = args(&json!({
            "type": "object",
            "properties": {"b": {"$ref": "#/$defs/Base"}},
            "$defs": {
                "Base": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Base"}},
                    "wrapped": {"anyOf": [{"$ref": "#/$defs/Wrapper"}, {"type": "null"}]}
                }},
                "Wrapper": {"type": "object", "properties": {"extra": {"type": "integer"}},
                    "allOf": [{"$ref": "#/$defs/Base"}]}
            }
        }));
        let valid = json!({"b": {"name": "x", "children": [{"name": "y", "children": []}],
            "wrapped": {"extra": 1, "name": "z", "children": [{"name": "w"}]}}});
        assert!(checked.is_valid(&valid), "{:?}", checked.schema());
        for (invalid, path) in [
            (
                json!({"b": {"children": [{"zzz": 1}]}}),
                "b.children[0].zzz",
            ),
            (
                json!({"b": {"wrapped": {"children": [{"name": "w", "extra": 2}]}}}),
                "b.wrapped.children[0].extra",
            ),
            (
                json!({"b": {"wrapped": {"extra": 1, "zzz": 2}}}),
                "b.wrapped.zzz",
            ),
        ] {
            assert!(!checked.is_valid(&invalid), "{invalid}");
            let report = checked.check(&invalid).unwrap_err();
            let issue = report
                .at(path)
                .unwrap_or_else(|| panic!("{path}: {report}"));
            assert_eq!(issue.code, IssueCode::UnknownField, "{report}");
        }
    }
}

#[cfg(test)]
mod zod_draft07 {
    use serde_json::json;

    use super::*;
    use crate::validation::json_schema::SchemaArgs;

    /// Each schema with a value its zod validator accepts: the guard accepts it too, or does
    /// not compile the schema (and then refuses nothing).
    #[test]
    fn what_zod_accepts_is_not_refused() {
        let cases = [
            (
                json!({"type": "array", "items": [{"type": "string"}, {"type": "number"}], "minItems": 2, "maxItems": 2}),
                json!(["a", 1]),
            ),
            (json!({"$ref": "#/definitions/P"}), json!({"x": 1})),
            (
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}),
                json!({"a": "x", "other": 1}),
            ),
            (
                json!({"allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"type": "object", "properties": {"b": {"type": "number"}}, "required": ["b"]}
                ]}),
                json!({"a": "x", "b": 1}),
            ),
            (
                json!({"anyOf": [
                    {"type": "object", "properties": {"kind": {"const": "a"}, "a": {"type": "string"}}, "required": ["kind"]},
                    {"type": "object", "properties": {"kind": {"const": "b"}, "b": {"type": "number"}}, "required": ["kind"]}
                ]}),
                json!({"kind": "b", "b": 2}),
            ),
            (
                json!({"type": ["string", "null"], "default": null}),
                Value::Null,
            ),
            (json!({"type": "number", "exclusiveMinimum": 0}), json!(0.5)),
            (
                json!({"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"minLength": 1}}),
                json!({"k": "v"}),
            ),
        ];
        for (field, value) in cases {
            let schema = json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"field": field},
                "required": ["field"],
                "definitions": {"P": {"type": "object", "properties": {"x": {"type": "number"}}}}
            });
            let args = SchemaArgs::new(schema.as_object().unwrap())
                .unwrap_or_else(|error| panic!("{field} does not compile: {error}"));
            let call = json!({"field": value});
            assert!(
                args.check(&call).is_ok(),
                "{field} refused {call}: {:?}",
                args.check(&call)
            );
        }
    }

    #[test]
    fn a_tuple_of_draft_07_is_checked_as_one() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"pair": {
                "type": "array",
                "items": [{"type": "string"}, {"type": "number"}],
                "additionalItems": false
            }}
        });
        let args = SchemaArgs::new(schema.as_object().unwrap()).expect("a tuple compiles");
        assert!(args.check(&json!({"pair": ["a", 1]})).is_ok());
        assert!(args.check(&json!({"pair": [1, "a"]})).is_err());
        assert!(args.check(&json!({"pair": ["a", 1, 2]})).is_err());
    }
}
