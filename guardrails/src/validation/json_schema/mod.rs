//! Arguments described only by a JSON Schema, such as those of a tool written with another
//! framework: the schema made strict, checked with the `jsonschema` crate, every failure mapped
//! into the same [`Issue`]s the derive reports, and a valid example built from the schema and
//! proven against it.
//!
//! Everything costly happens once, in [`SchemaArgs::new`]: the strict schema, the compiled
//! validator, the example. A valid call costs one `is_valid` pass; only an invalid one pays for
//! the issues.
//!
//! This module holds the checker itself ([`SchemaArgs`], its options and the limits its parts
//! share); each other concern has a module of its own:
//! - `lookup`: finding one's way in a schema (pointers, local references, declared names);
//! - `representation`: how the branches of a union represent an enum, as serde writes one;
//! - `strict`: the strict-schema normaliser ([`strict_schema`]);
//! - `whole_integer`: the validator's own keyword that refuses `3.0` where serde reads an
//!   integer;
//! - `describe`: what a schema accepts, in the words the derive uses;
//! - `example`: a valid example built from a schema;
//! - `places`: where the fields of a schema live, for a key sent at the wrong level;
//! - `issues` and `union_issues`: the validator's errors translated into the library's issues;
//! - `slips`: the repair of values sent as strings;
//! - `grounds`: what a refusal rests on.

mod describe;
mod example;
mod found;
#[cfg(feature = "rmcp")]
mod grounds;
mod issues;
mod lookup;
mod places;
mod representation;
mod slips;
mod strict;
mod union_issues;
mod whole_integer;

#[cfg(feature = "rmcp")]
pub(crate) use grounds::Grounds;
pub use strict::strict_schema;

use std::borrow::Cow;

use jsonschema::{ValidationError, Validator};
use serde_json::{Map, Value};

use describe::describe;
use example::example_candidates;
use found::Found;
#[cfg(feature = "rmcp")]
use lookup::required_of;
use places::schema_places;
use union_issues::failed_unions;
use whole_integer::{WHOLE_INTEGER, mark_integers, whole_integer};

use super::misplaced::{self, Place as FieldPlace};
use super::report::{Issue, IssueCode, Report};
use crate::text::{cut, preview};

/// The most characters of a description of what a value must be (a long pattern or a long
/// list of allowed values is cut).
const MAX_EXPECTED_CHARS: usize = 300;

/// How deep the description of a union names the unions it is made of.
const MAX_NOUN_DEPTH: usize = 3;

/// How deep the unions inside the branches of a failed union are looked into.
const MAX_UNION_DEPTH: usize = 32;

/// How deep the example of a recursive schema follows its references.
const MAX_EXAMPLE_DEPTH: usize = 6;

/// Keywords whose values are data, not subschemas: never made strict, never inlined.
const DATA_KEYWORDS: &[&str] = &[
    "enum", "const", "default", "examples", "example", "required",
];

/// A schema that `jsonschema` could not compile.
#[derive(Debug, thiserror::Error)]
#[error("the input schema does not compile: {0}")]
pub struct SchemaError(String);

/// How [`SchemaArgs`] reads a schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaOptions {
    /// See [`SchemaOptions::assert_formats`].
    pub(crate) assert_formats: bool,
    /// See [`SchemaOptions::schema_integers`].
    pub(crate) schema_integers: bool,
}

impl SchemaOptions {
    /// Formats are annotations, and an integer is what serde reads as one.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            assert_formats: false,
            schema_integers: false,
        }
    }

    /// Reads a whole number written as a float (`5.0`, `1e2`, `-0.0`) as an integer, as JSON
    /// Schema counts it, and as pydantic, zod and JavaScript read it: for a tool not written in
    /// Rust. Off by default: serde refuses it for every integer type, so where a tool is
    /// written in Rust it is refused with the number to send instead ("send 5").
    #[must_use]
    pub const fn schema_integers(mut self, yes: bool) -> Self {
        self.schema_integers = yes;
        self
    }

    /// Checks string formats too (`date-time`, `uuid`, `email`, …). JSON Schema 2020-12 makes
    /// `format` an annotation by default, and the types a native tool reads its arguments into
    /// are often more lenient than the format they advertise (chrono reads
    /// `2024-01-02 03:04:05Z`, uuid reads the simple and `urn:` forms), so it is off unless
    /// asked for. Integer formats (`int32`, `uint8`, …) are always checked, as the bounds they
    /// imply.
    #[must_use]
    pub const fn assert_formats(mut self, yes: bool) -> Self {
        self.assert_formats = yes;
        self
    }
}

/// The arguments of a tool known only by its JSON Schema: its strict schema, the compiled
/// validator and a valid example.
#[derive(Debug)]
pub struct SchemaArgs {
    /// The strict schema, always an object.
    schema: Value,
    validator: Validator,
    example: Option<Value>,
    /// The places of the fields of the schema, where a key sent at the wrong level is looked
    /// up (see `misplaced.rs`).
    places: Box<[FieldPlace]>,
}

impl SchemaArgs {
    /// Makes `schema` strict ([`strict_schema`]), compiles it as JSON Schema 2020-12 (string
    /// formats are annotations, see [`SchemaOptions`]) and builds its example.
    ///
    /// # Errors
    /// The schema does not compile (a reference to another document, an invalid keyword).
    pub fn new(schema: &Map<String, Value>) -> Result<Self, SchemaError> {
        Self::with_options(schema, SchemaOptions::new())
    }

    /// [`new`](Self::new), reading the schema as `options` say.
    ///
    /// # Errors
    /// The schema does not compile (a reference to another document, an invalid keyword).
    pub fn with_options(
        schema: &Map<String, Value>,
        options: SchemaOptions,
    ) -> Result<Self, SchemaError> {
        let schema = strict_schema(schema);
        let document = Value::Object(schema);
        // The validator reads the strict schema with one keyword of its own beside every
        // integer type, which refuses a whole number written as a float (`3.0`): JSON Schema
        // counts it an integer, serde refuses it for every integer type. The advertised
        // schema stays standard; the keyword only adds, so both share their paths.
        let mut checked = document.clone();
        if !options.schema_integers {
            mark_integers(&mut checked);
        }
        let checked = &checked;
        let formats = options.assert_formats;
        // Patterns run on the `regex` crate, as the derive's do (linear time, and faster);
        // a schema whose patterns need look-around or back-references falls back to
        // `jsonschema`'s default engine. The draft is 2020-12, the one MCP names, whose
        // `unevaluatedProperties` closes the objects that branches add keys to.
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(formats)
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .with_keyword(WHOLE_INTEGER, whole_integer)
            .build(checked)
            .or_else(|_| {
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .should_validate_formats(formats)
                    .with_keyword(WHOLE_INTEGER, whole_integer)
                    .build(checked)
            })
            .map_err(|e| SchemaError(cut(&e.to_string(), MAX_EXPECTED_CHARS).into_owned()))?;
        let example = document.as_object().and_then(|schema| {
            example_candidates(schema)
                .into_iter()
                .find(|candidate| validator.is_valid(candidate))
        });
        let places = schema_places(&document);
        Ok(Self {
            schema: document,
            validator,
            example,
            places,
        })
    }

    /// The strict schema, as advertised.
    #[must_use]
    pub fn schema(&self) -> &Map<String, Value> {
        self.root()
    }

    fn root(&self) -> &Map<String, Value> {
        self.schema
            .as_object()
            .unwrap_or_else(|| unreachable!("built from a map"))
    }

    /// A complete example that the validator accepts, when one could be built.
    #[must_use]
    pub fn example(&self) -> Option<&Value> {
        self.example.as_ref()
    }

    /// Whether `arguments` are valid; the fast path of a call.
    #[must_use]
    pub fn is_valid(&self, arguments: &Value) -> bool {
        self.validator.is_valid(arguments)
    }

    /// Checks `arguments`, collecting every issue.
    ///
    /// # Errors
    /// Every issue found, unknown keys with a did-you-mean, each with what was sent, what is
    /// expected and how to fix it.
    #[inline]
    pub fn check(&self, arguments: &Value) -> Result<(), Report> {
        if self.is_valid(arguments) {
            return Ok(());
        }
        Err(self.report(arguments))
    }

    /// Every issue of `arguments`, which the validator refuses: the slow path of
    /// [`check`](Self::check), kept out of the valid call's way.
    #[cold]
    pub(crate) fn report(&self, arguments: &Value) -> Report {
        let mut found = Found::default();
        let errors: Vec<ValidationError<'_>> = self.validator.iter_errors(arguments).collect();
        // Where a union (`oneOf`, `anyOf`) failed, the keys its branches declare were left
        // unevaluated because no branch matched, not because they are unknown: the union's
        // issue says what is wrong there.
        for error in &errors {
            failed_unions(error, &mut found.failed_unions, 0);
        }
        for error in &errors {
            self.record(error, arguments, &mut found);
        }
        // Unknown keys last, as the derive reports them: the model reads about its real
        // fields first.
        // A missing field that a misplaced key belongs to says where that key was sent.
        misplaced::note_moves(found.fields.iter_mut(), &found.moves);
        let mut report = Report::new();
        for issue in found.fields.into_iter().chain(found.unknown) {
            report.push(issue);
        }
        for _ in 0..found.omitted {
            report.count_omitted();
        }
        for suggestion in found.suggestions {
            report.suggest(suggestion);
        }
        if report.is_empty() {
            // The validator rejects the value without saying where: say so rather than pass it.
            report.push(Issue {
                path: Cow::Borrowed(""),
                code: IssueCode::Type,
                message: "The arguments do not match the tool's input schema.".into(),
                received: Some(preview(arguments).into()),
                expected: Some(describe(&self.schema, self.root()).into()),
                fix: None,
            });
        }
        report
    }

    /// The optional properties of the arguments: what a caller can narrow a call with, each
    /// with a description of what it accepts.
    #[cfg(feature = "rmcp")]
    #[must_use]
    pub(crate) fn optional_properties(&self) -> Vec<(String, String)> {
        let root = self.root();
        let required = required_of(root);
        root.get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(name, _)| !required.contains(name.as_str()))
            .map(|(name, schema)| (name.clone(), describe(schema, root)))
            .collect()
    }
}

/// The checker of `schema`, for the tests of every part.
#[cfg(test)]
fn args(schema: &Value) -> SchemaArgs {
    SchemaArgs::new(schema.as_object().unwrap()).unwrap()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validation::report::IssueCode;

    #[test]
    fn string_formats_are_checked_only_when_asked() {
        let schema = json!({
            "type": "object",
            "properties": {"id": {"type": "string", "format": "uuid"}}
        });
        let lenient = args(&schema);
        let strict = SchemaArgs::with_options(
            schema.as_object().unwrap(),
            SchemaOptions::new().assert_formats(true),
        )
        .unwrap();
        let simple = json!({"id": "67e5504410b1426f9247bb680e5fe0c8"});
        assert!(lenient.is_valid(&simple));
        let report = strict.check(&simple).unwrap_err();
        assert_eq!(report.at("id").unwrap().code, IssueCode::Format);
    }
}
