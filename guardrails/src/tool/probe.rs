//! What generated code asks of a tool's types by method resolution ("autoref specialization"):
//! whether its output type has a JSON Schema, and the envelope of a collection output. Reached
//! only through `guardrails::__private`.

use std::marker::PhantomData;

use serde::Serialize;
use serde_json::{Map, Value};

use super::present::Truncate;

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
        match schema.to_value() {
            Value::Object(map) if map.get("type").is_some_and(|t| t == "object") => Some(map),
            _ => None,
        }
    }
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
