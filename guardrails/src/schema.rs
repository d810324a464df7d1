//! JSON Schemas of tool arguments, built from the same declarations the validator runs.
//!
//! Every object of an arguments type says `additionalProperties: false`, and nested types are
//! inlined rather than referenced, because several MCP clients do not resolve `$ref`.

use std::cell::RefCell;

use serde_json::{Map, Value};

use crate::validation::{ArgsInfo, ToolArgs};

/// The dialect every schema declares.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Makes a schema also accept `null`, as an `Option` field does.
pub(crate) fn allow_null(schema: &mut Map<String, Value>) {
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
    /// The argument types whose example is being built on this thread, innermost last.
    static EXAMPLES_IN_PROGRESS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Runs `build` with `info` marked as in progress on `stack`, or returns `None` when it already
/// is: a recursive type reached itself.
fn guarded<R>(
    stack: &'static std::thread::LocalKey<RefCell<Vec<usize>>>,
    info: &ArgsInfo,
    build: impl FnOnce() -> R,
) -> Option<R> {
    let id = std::ptr::from_ref(info) as usize;
    if stack.with_borrow(|s| s.contains(&id)) {
        return None;
    }
    stack.with_borrow_mut(|s| s.push(id));
    let out = build();
    stack.with_borrow_mut(Vec::pop);
    Some(out)
}

/// The object schema of an arguments type, without the dialect and the example.
///
/// A recursive type (one that contains itself, e.g. through a `Vec`) is inlined once; where it
/// reaches itself again the schema says only `{"type": "object"}`, because inlined schemas cannot
/// refer to themselves. The validator stays strict at every depth.
#[must_use]
pub fn object_schema(info: &ArgsInfo) -> Map<String, Value> {
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
        properties.insert(field.name.to_owned(), Value::Object(field.schema()));
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
    schema.insert("additionalProperties".into(), false.into());
    schema
}

/// The complete schema of an arguments type: the object schema, the dialect, a title and the
/// valid example. Called once per type by generated code.
#[must_use]
pub fn root_schema<T: ToolArgs>() -> schemars::Schema {
    let info = T::info();
    let mut schema = Map::new();
    schema.insert("$schema".into(), DIALECT.into());
    schema.insert("title".into(), info.type_name.into());
    schema.extend(object_schema(info));
    schema.insert("examples".into(), Value::Array(vec![T::example().clone()]));
    schemars::Schema::from(schema)
}

/// The nested (inlined) schema of an arguments type used as a field.
#[must_use]
pub fn nested_schema<T: ToolArgs>() -> Map<String, Value> {
    object_schema(T::info())
}

/// The example of an arguments type: every field a caller can send, with its example value.
/// Called once per type by generated code.
#[must_use]
pub fn build_example(info: &ArgsInfo) -> Value {
    guarded(&EXAMPLES_IN_PROGRESS, info, || {
        let mut example = Map::new();
        for field in info.wire_fields() {
            example.insert(field.name.to_owned(), field.example_value());
        }
        Value::Object(example)
    })
    .unwrap_or(Value::Null)
}

/// The example of an arguments type used as a field; `null` where a recursive type reaches
/// itself (containers then leave the item out). Used by generated code.
#[must_use]
pub fn nested_example<T: ToolArgs>() -> Value {
    let id = std::ptr::from_ref(T::info()) as usize;
    if EXAMPLES_IN_PROGRESS.with_borrow(|s| s.contains(&id)) {
        return Value::Null;
    }
    T::example().clone()
}
