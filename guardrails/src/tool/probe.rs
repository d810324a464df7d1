//! What generated code asks of a tool's types by method resolution ("autoref specialization"):
//! whether its output type has a JSON Schema, and the envelope of a collection output. Reached
//! only through `guardrails::__private`.

use std::marker::PhantomData;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::present::Truncate;

// Only the schema of this type is used (its doc comment is the schema's description, read by
// clients); the value is built from the items already serialized.
/// The first items of the result and how many the whole result holds.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Listing<T> {
    /// The items shown.
    pub items: Vec<T>,
    /// How many items are shown.
    pub shown: usize,
    /// How many items the whole result holds.
    pub total: usize,
}

/// A type to probe. Generated code calls `(&Probe::<T>::new()).output_schema()`: method
/// resolution picks [`WithSchema`] for types that implement `JsonSchema`, and
/// [`WithoutSchema`] for the rest.
pub struct Probe<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> Probe<T> {
    /// A probe of `T`.
    #[must_use]
    pub fn new(_: PhantomData<T>) -> Self {
        Self(PhantomData)
    }
}

/// Chosen for types with a schema.
pub trait WithSchema {
    /// The object schema of the type, when it describes an object (MCP requires one).
    fn output_schema(&self) -> Option<Map<String, Value>>;
}
impl<T: schemars::JsonSchema + ?Sized> WithSchema for Probe<T> {
    fn output_schema(&self) -> Option<Map<String, Value>> {
        let mut settings = schemars::generate::SchemaSettings::draft2020_12();
        // Several clients do not resolve `$ref`: inline every subschema.
        settings.inline_subschemas = true;
        let schema = settings.into_generator().into_root_schema_for::<T>();
        let mut schema = schema.to_value();
        standard_formats(&mut schema);
        match schema {
            Value::Object(map) if map.get("type").is_some_and(|t| t == "object") => Some(map),
            _ => None,
        }
    }
}

/// The formats JSON Schema 2020-12 defines: a strict validator (AJV's `Ajv2020` in the
/// TypeScript SDK) refuses to compile a schema with any other.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The bounds schemars' integer formats stand for, where they are exact in every client:
/// 64-bit and wider types keep only their sign.
fn integer_bounds(format: &str) -> Option<(Option<i64>, Option<i64>)> {
    Some(match format {
        "int8" => (Some(i64::from(i8::MIN)), Some(i64::from(i8::MAX))),
        "int16" => (Some(i64::from(i16::MIN)), Some(i64::from(i16::MAX))),
        "int32" => (Some(i64::from(i32::MIN)), Some(i64::from(i32::MAX))),
        "uint8" => (Some(0), Some(i64::from(u8::MAX))),
        "uint16" => (Some(0), Some(i64::from(u16::MAX))),
        "uint32" => (Some(0), Some(i64::from(u32::MAX))),
        "uint" | "uint64" | "uint128" => (Some(0), None),
        "int" | "int64" | "int128" => (None, None),
        _ => return None,
    })
}

/// Replaces every format JSON Schema 2020-12 does not define (schemars' `uint8`, `int64`,
/// `double`, …) in a schema: an integer format by the `minimum` and `maximum` it stands for
/// (a bound already written stays), any other by nothing. Values that are data (`const`,
/// `enum`, `default`, `examples`) are left as they are.
pub(crate) fn standard_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(format)) = map.get("format")
                && !STANDARD_FORMATS.contains(&format.as_str())
            {
                let bounds = integer_bounds(format);
                map.remove("format");
                if let Some((min, max)) = bounds {
                    if let Some(min) = min {
                        map.entry("minimum").or_insert_with(|| Value::from(min));
                    }
                    if let Some(max) = max {
                        map.entry("maximum").or_insert_with(|| Value::from(max));
                    }
                }
            }
            for (key, value) in map.iter_mut() {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    standard_formats(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(standard_formats),
        _ => {}
    }
}

/// What generated code finds the output schema of an `impl Trait` return type from, when the
/// trait says nothing of items (`impl Serialize`): a type without a schema.
#[derive(Debug)]
pub enum Opaque {}

/// The marker of the type of `value`: how generated code dispatches on a type it cannot name
/// (a handler's `impl Trait`).
#[must_use]
pub fn phantom_of<T>(_: &T) -> PhantomData<T> {
    PhantomData
}

/// Chosen for every other type, one auto-reference later.
pub trait WithoutSchema {
    /// No schema.
    fn output_schema(&self) -> Option<Map<String, Value>> {
        None
    }
}
impl<T: ?Sized> WithoutSchema for &Probe<T> {}

/// Chosen for argument types serde can read: audit mode's fallback when a call does not
/// validate.
pub trait WithDeserialize<T> {
    /// The value as serde reads it, or `None` when serde refuses it too.
    fn read_unchecked(&self, value: Value) -> Option<T>;
}
impl<T: serde::de::DeserializeOwned> WithDeserialize<T> for Probe<T> {
    fn read_unchecked(&self, value: Value) -> Option<T> {
        serde_json::from_value(value).ok()
    }
}

/// Chosen for every other type, one auto-reference later: nothing reads it but the guard.
pub trait WithoutDeserialize<T> {
    /// Nothing.
    fn read_unchecked(&self, value: Value) -> Option<T> {
        let _ = value;
        None
    }
}
impl<T> WithoutDeserialize<T> for &Probe<T> {}

/// The type-level output of a tool with an agent limit: the envelope of its items.
pub trait ListingOf {
    /// The envelope type.
    type Listing;
    /// The envelope of a collection output.
    fn listing(&self) -> PhantomData<Self::Listing> {
        PhantomData
    }
}
impl<O: Truncate> ListingOf for Probe<O> {
    type Listing = Listing<O::Item>;
}

/// Chosen when the output is not a collection; the presenter reports that, once.
pub trait NotListing {
    /// No envelope.
    fn listing(&self) -> PhantomData<()> {
        PhantomData
    }
}
impl<O: ?Sized> NotListing for &Probe<O> {}
