//! Arguments described only by a JSON Schema, such as those of a tool written with another
//! framework: the schema made strict, checked with the `jsonschema` crate, every failure mapped
//! into the same [`Issue`]s the derive reports, and a valid example built from the schema and
//! proven against it.
//!
//! Everything costly happens once, in [`SchemaArgs::new`]: the strict schema, the compiled
//! validator, the example. A valid call costs one `is_valid` pass; only an invalid one pays for
//! the issues.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Write as _;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError, Validator};
use serde_json::{Map, Value};

use super::constraint::first_duplicate;
use super::correction::Suggestion;
use super::example::regex_sample::plausible_sample;
use super::info::Kind;
use super::misplaced::{self, Place as FieldPlace};
use super::number::{Bound, Num};
use super::repair::Repair;
use super::report::{Issue, IssueCode, MAX_KEPT_ISSUES, Report};
use super::string_format::StringFormat;
use super::wording::{self, CHARACTERS, ENTRIES, ITEMS, Unit};
use super::{context, json_type_noun, variants};
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
    /// Whether a string `format` (`date-time`, `uuid`, `email`, …) is checked. JSON Schema
    /// 2020-12 makes `format` an annotation by default, and the types a native tool reads its
    /// arguments into are often more lenient than the format they advertise (chrono reads
    /// `2024-01-02 03:04:05Z`, uuid reads the simple and `urn:` forms), so it is off unless
    /// asked for. Integer formats (`int32`, `uint8`, …) are always checked, as the bounds they
    /// imply.
    pub assert_formats: bool,
    /// Whether a whole number written as a float (`5.0`, `1e2`, `-0.0`) is an integer, as
    /// JSON Schema counts it, and as pydantic, zod and JavaScript read it. Off by default:
    /// serde refuses it for every integer type, so where a tool is written in Rust it is
    /// refused with the number to send instead ("send 5").
    pub schema_integers: bool,
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

    /// Reads a whole number written as a float as an integer, as JSON Schema does (see
    /// [`schema_integers`](Self::schema_integers)): for a tool not written in Rust.
    #[must_use]
    pub const fn schema_integers(mut self, yes: bool) -> Self {
        self.schema_integers = yes;
        self
    }

    /// Checks string formats too.
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
    pub fn check(&self, arguments: &Value) -> Result<(), Report> {
        if self.is_valid(arguments) {
            return Ok(());
        }
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
        Err(report)
    }

    #[cfg(feature = "rmcp")]
    /// What a refusal of `arguments` rests on, for a caller that can also ask the tool's own
    /// type whether it reads them ([`Grounds`]). Call it on arguments [`SchemaArgs::check`]
    /// refuses: it walks the validator's errors again, the branches of failed unions included.
    #[must_use]
    pub(crate) fn grounds(&self, arguments: &Value) -> Grounds {
        let mut grounds = Grounds::default();
        for error in self.validator.iter_errors(arguments) {
            self.ground(&error, &mut grounds, 0);
        }
        grounds
    }

    #[cfg(feature = "rmcp")]
    fn ground(&self, error: &ValidationError<'_>, grounds: &mut Grounds, depth: usize) {
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                let at = error.instance_path().as_str();
                for key in unexpected {
                    if !grounds.keys.iter().any(|(o, k)| o == at && k == key) {
                        grounds.keys.push((at.to_owned(), key.clone()));
                    }
                }
            }
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context }
            | ValidationErrorKind::OneOfMultipleValid { context } => {
                if depth >= MAX_UNION_DEPTH {
                    grounds.declared = true;
                    return;
                }
                for inner in context.iter().flatten() {
                    self.ground(inner, grounds, depth + 1);
                }
            }
            // What the type a value is read into decides: its JSON type, the names it takes,
            // the fields it needs, the length of a tuple, a whole number, the duplicates of a
            // set (which serde folds).
            ValidationErrorKind::Type { .. }
            | ValidationErrorKind::Enum { .. }
            | ValidationErrorKind::Constant { .. }
            | ValidationErrorKind::Required { .. }
            | ValidationErrorKind::FalseSchema
            | ValidationErrorKind::AdditionalItems { .. }
            | ValidationErrorKind::UnevaluatedItems { .. }
            | ValidationErrorKind::UniqueItems => {}
            ValidationErrorKind::Custom { keyword, .. } if keyword == WHOLE_INTEGER => {}
            ValidationErrorKind::MinItems { .. } | ValidationErrorKind::MaxItems { .. }
                if self
                    .at_failed(error)
                    .is_some_and(|s| s.get("prefixItems").is_some()) => {}
            ValidationErrorKind::Minimum { limit }
            | ValidationErrorKind::Maximum { limit }
            | ValidationErrorKind::ExclusiveMinimum { limit }
            | ValidationErrorKind::ExclusiveMaximum { limit }
                if self
                    .at_failed(error)
                    .and_then(|s| s.get("format"))
                    .and_then(Value::as_str)
                    .and_then(integer_format_bounds)
                    .is_some_and(|(low, high)| *limit == low || *limit == high) => {}
            // A rule the schema declares (a length, a range, a pattern, an asserted format):
            // the tool's reading does not check it.
            _ => grounds.declared = true,
        }
    }

    #[cfg(feature = "rmcp")]
    /// The schema whose keyword `error` failed.
    fn at_failed(&self, error: &ValidationError<'_>) -> Option<&Value> {
        let parent = error
            .schema_path()
            .as_str()
            .rsplit_once('/')
            .map_or("", |(parent, _)| parent);
        lookup(&self.schema, parent)
    }

    /// `arguments` with the slips whose meaning is not in doubt repaired, and the receipts;
    /// `None` when there is none to repair. Call it on arguments [`SchemaArgs::check`]
    /// refuses, then check what it returns: the repaired arguments are checked like any
    /// others.
    ///
    /// A value is repaired where the schema expects one JSON type (or that type or `null`)
    /// and the value is a string holding exactly such a value (see
    /// [`Repair`](super::Repair)): never where a string is accepted, never in a `writeOnly`
    /// value (a secret) or inside one. In a union (`oneOf`, `anyOf`), only where the value
    /// says which branch it is, as the derive repairs an enum: in the variant a tag names, in
    /// the variant an externally tagged value's one key names, in the value of an `Option`
    /// that is not `null`, and a tagged value sent whole as a string (every branch an object);
    /// never in an untagged union, where which branch a value matches is not for a repair to
    /// decide.
    #[must_use]
    pub fn repair(&self, arguments: &Value) -> Option<(Value, Vec<Repair>)> {
        let mut fixed = arguments.clone();
        let mut repairs = Vec::new();
        // A repaired object may hold slips of its own: each round reads one level deeper.
        for _ in 0..MAX_REPAIR_ROUNDS {
            let mut slips: Vec<(String, Kind)> = Vec::new();
            for error in self.validator.iter_errors(&fixed) {
                self.slips(&error, &fixed, &mut slips, 0);
            }
            let before = repairs.len();
            for (pointer, kind) in slips {
                let path = instance_path(&pointer_segments(&pointer), &fixed);
                let Some(slot) = fixed.pointer_mut(&pointer) else {
                    continue;
                };
                let Some((read, slip)) = super::repair::attempt(&kind, slot) else {
                    continue;
                };
                repairs.push(Repair {
                    path,
                    kind: slip,
                    sent: preview(slot),
                    read_as: preview(&read),
                });
                *slot = read;
            }
            if repairs.len() == before {
                break;
            }
        }
        (!repairs.is_empty()).then_some((fixed, repairs))
    }

    /// The slips `error` reports in `arguments`: a value of the wrong type that a repair may
    /// read, where its pointer and the kind it is read as; in a union, those of the branch the
    /// value names (see [`repair`](Self::repair)).
    fn slips(
        &self,
        error: &ValidationError<'_>,
        arguments: &Value,
        out: &mut Vec<(String, Kind)>,
        depth: usize,
    ) {
        match error.kind() {
            ValidationErrorKind::Type { kind } => {
                if self.write_only_along(error.schema_path().as_str()) {
                    return;
                }
                if let Some(kind) = repair_kind(kind) {
                    out.push((error.instance_path().as_str().to_owned(), kind));
                }
            }
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context }
                if depth < MAX_UNION_DEPTH =>
            {
                let Some(sent) = arguments.pointer(error.instance_path().as_str()) else {
                    return;
                };
                let schema_path = error.schema_path().as_str();
                let (parent, keyword) = schema_path.rsplit_once('/').unwrap_or(("", ""));
                let root = self.root();
                let branches: Vec<&Value> = lookup(&self.schema, parent)
                    .and_then(|u| u.get(keyword))
                    .and_then(Value::as_array)
                    .map(|b| b.iter().map(|b| resolve(b, root)).collect())
                    .unwrap_or_default();
                if branches.len() != context.len() {
                    return;
                }
                match chosen_branch(&branches, sent) {
                    Some(i) => {
                        for inner in &context[i] {
                            self.slips(inner, arguments, out, depth + 1);
                        }
                    }
                    // A tagged value sent whole as a string: every branch reads an object.
                    None if sent.is_string()
                        && matches!(variants_of(&branches), Variants::Tagged { .. }) =>
                    {
                        out.push((
                            error.instance_path().as_str().to_owned(),
                            Kind::Map(Box::new(Kind::Any)),
                        ));
                    }
                    None => {}
                }
            }
            _ => {}
        }
    }

    /// Whether the schema at `schema_path`, or one it is inside, is `writeOnly`.
    fn write_only_along(&self, schema_path: &str) -> bool {
        let mut prefix = String::new();
        std::iter::once("")
            .chain(schema_path.split('/').skip(1))
            .any(|segment| {
                if !segment.is_empty() {
                    prefix.push('/');
                    prefix.push_str(segment);
                }
                lookup(&self.schema, &prefix)
                    .and_then(|schema| schema.get("writeOnly"))
                    .and_then(Value::as_bool)
                    == Some(true)
            })
    }

    /// The optional properties of the arguments: what a caller can narrow a call with, each
    /// with a description of what it accepts.
    #[must_use]
    pub fn optional_properties(&self) -> Vec<(String, String)> {
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

    fn record(&self, error: &ValidationError<'_>, root: &Value, report: &mut Found) {
        let segments = pointer_segments(error.instance_path().as_str());
        let path = instance_path(&segments, root);
        // The schema that failed: the error's schema path without its keyword.
        let schema_pointer = error.schema_path().as_str();
        let parent = schema_pointer
            .rsplit_once('/')
            .map_or("", |(parent, _)| parent);
        let root_schema = self.root();
        let here = lookup(&self.schema, parent);
        let fix = here.map(|s| describe(s, root_schema));
        let sent = error.instance();
        let mut push =
            |code: IssueCode, message: String, path: String, expected: Option<String>| {
                let issue = Issue {
                    path: path.into(),
                    code,
                    message: message.into(),
                    received: Some(preview(sent).into()),
                    expected: expected.map(Into::into),
                    fix: fix.clone().map(Into::into),
                };
                report.push(issue);
            };
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                self.record_unknown_keys(error, unexpected, &path, here, report);
            }
            ValidationErrorKind::Required { property }
                if let Some(issue) = self.missing_content(parent, property, &path) =>
            {
                report.push(issue);
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                let field = here
                    .and_then(|s| s.get("properties"))
                    .and_then(|p| p.get(name));
                let mut at = path.clone();
                super::report::push_key(&mut at, &cut(name, 64));
                let issue = Issue {
                    path: at.into(),
                    code: IssueCode::Missing,
                    message: "Required field is missing.".into(),
                    received: None,
                    expected: field.map(|f| noun(f, root_schema)).map(Into::into),
                    fix: field.map(|f| describe(f, root_schema)).map(Into::into),
                };
                report.push(issue);
            }
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                let keyword = schema_pointer.rsplit('/').next().unwrap_or_default();
                let branches: Vec<&Value> = here
                    .and_then(|s| s.get(keyword))
                    .and_then(Value::as_array)
                    .map(|b| b.iter().map(|b| resolve(b, root_schema)).collect())
                    .unwrap_or_default();
                let union = Union {
                    path,
                    sent,
                    instance: error.instance_path().as_str(),
                    branches: if branches.len() == context.len() {
                        branches
                    } else {
                        Vec::new()
                    },
                };
                self.record_union(&union, context, root, report);
            }
            ValidationErrorKind::Custom { keyword, .. } if keyword == WHOLE_INTEGER => {
                let (code, message, expected, fix) = whole_float_issue(sent);
                report.push(Issue {
                    path: path.into(),
                    code,
                    message: message.into(),
                    received: Some(preview(sent).into()),
                    expected: expected.map(Into::into),
                    fix: fix.map(Into::into),
                });
            }
            ValidationErrorKind::Minimum { limit } | ValidationErrorKind::Maximum { limit }
                if type_bound(here, limit).is_some() =>
            {
                // The bound of the type an integer `format` names: worded as the derive words
                // the range of an integer type.
                let upper = matches!(error.kind(), ValidationErrorKind::Maximum { .. });
                let bound = type_bound(here, limit).unwrap_or_default();
                let (code, message, expected) = super::value::type_range_issue(bound, upper);
                push(code, message, path, Some(expected));
            }
            other => {
                let (code, message, expected) = plain_issue(other, sent, here, root_schema);
                push(code, message, path, expected);
            }
        }
    }

    /// The issues of keys that no schema of their object takes, judged as the derive judges
    /// them: a field of another variant than the one the tag names is said to be one, a field
    /// at another level of the arguments is pointed to its place, a near miss gets a
    /// did-you-mean, and anything else the list of the fields the object takes as sent (those
    /// of the variant its tag names, not of every variant). Keys a union's own issue covers
    /// (its tag is wrong or missing, the value is an externally tagged one) are not named again.
    fn record_unknown_keys(
        &self,
        error: &ValidationError<'_>,
        unexpected: &[String],
        path: &str,
        here: Option<&Value>,
        report: &mut Found,
    ) {
        let Value::Object(object) = &**error.instance() else {
            return;
        };
        let union_failed = matches!(
            error.kind(),
            ValidationErrorKind::UnevaluatedProperties { .. }
        ) && report
            .failed_unions
            .iter()
            .any(|at| at == error.instance_path().as_str());
        let keys = match here {
            Some(here) => self.keys_of(here, object, error.schema_path().as_str(), union_failed),
            None => ObjectKeys::default(),
        };
        if keys.covered {
            return;
        }
        for key in unexpected {
            // A field the object takes is unevaluated only because a branch failed: that
            // branch's issues say what is wrong.
            if keys.skipped.contains(&key.as_str()) || keys.fields.contains(&key.as_str()) {
                continue;
            }
            let value = object.get(key).unwrap_or(&Value::Null);
            let mut at = path.to_owned();
            super::report::push_key(&mut at, &cut(key, 64));
            if let Some((tag, content)) = keys.adjacent {
                let issue = match &keys.unit {
                    Some(name) if key == content => {
                        let (message, fix) = variants::words::unit_content(tag, content, name);
                        Issue {
                            code: IssueCode::Type,
                            ..key_issue(at, message, value, fix)
                        }
                    }
                    _ => {
                        let (message, fix) =
                            variants::words::beside_tag_and_content(key, tag, content);
                        key_issue(at, message, value, fix)
                    }
                };
                report.push(issue);
                continue;
            }
            if let Some(chosen) = &keys.chosen
                && let Some((owner, _)) = chosen
                    .others
                    .iter()
                    .find(|(_, fields)| fields.contains(&key.as_str()))
            {
                let (message, fix) = variants::words::foreign_field(
                    chosen.word,
                    key,
                    owner,
                    &chosen.name,
                    &chosen.fields,
                );
                report.push(key_issue(at, message, value, fix));
                continue;
            }
            let issue = self.unknown_key_issue(path, key, value, &keys, report);
            // The did-you-mean the issue words, for the corrected call (a misplaced key's
            // place is in `moves`).
            if !report.moves.iter().any(|(_, sent)| *sent == issue.path)
                && let Some(to) = crate::text::did_you_mean(key, keys.fields.iter().copied())
            {
                report.suggestions.push(Suggestion::rename_at_pointer(
                    error.instance_path().as_str(),
                    key,
                    to,
                ));
            }
            report.push(issue);
        }
    }

    /// The issue of `key`, which the object at `container` (whose fields are `names`) does not
    /// take, as the derive words it: a field of another level pointed to its place, a near miss
    /// here, a near miss elsewhere, else the fields there are.
    fn unknown_key_issue(
        &self,
        container: &str,
        key: &str,
        value: &Value,
        keys: &ObjectKeys<'_>,
        report: &mut Found,
    ) -> Issue {
        let names = &keys.fields;
        let here = misplaced::template_of(container);
        let moved = |near_misses: bool| {
            misplaced::find(&self.places[..], &here, key, near_misses).map(|places| {
                misplaced::moved(&context::not_a_field(container), key, &places, !near_misses)
            })
        };
        let moved = moved(false).or_else(|| {
            if crate::text::did_you_mean(key, names.iter().copied()).is_some() {
                None
            } else {
                moved(true)
            }
        });
        let Some(moved) = moved else {
            let rename = crate::text::did_you_mean(key, names.iter().copied());
            return context::unknown_field_issue(container, key, value, &keys.listed, rename);
        };
        let mut path = container.to_owned();
        super::report::push_key(&mut path, &cut(key, 64));
        if let Some(to) = moved.to {
            report.moves.push((to, path.clone()));
        }
        Issue {
            path: path.into(),
            code: IssueCode::UnknownField,
            message: moved.message.into(),
            received: Some(
                if moved.sensitive {
                    super::withheld(value)
                } else {
                    preview(value)
                }
                .into(),
            ),
            expected: None,
            fix: Some(moved.fix.into()),
        }
    }

    /// What the keys of `object`, whose schema is `here` (failed at `schema_path`), are judged
    /// against: its own fields and those of the variant each of its unions names.
    fn keys_of<'s>(
        &'s self,
        here: &'s Value,
        object: &Map<String, Value>,
        schema_path: &str,
        union_failed: bool,
    ) -> ObjectKeys<'s> {
        let root = self.root();
        let here = resolve(here, root);
        let mut keys = ObjectKeys::default();
        // The object is the content of an adjacently tagged variant: the fields of the other
        // variants are theirs.
        if let Some(chosen) = self.content_of(schema_path) {
            keys.chosen = Some(chosen);
        }
        let mut own: Vec<&'s str> = Vec::new();
        own_names(here, root, 0, &mut own);
        keys.listed.clone_from(&own);
        keys.fields = own;
        for branches in unions_at(here, root) {
            match variants_of(&branches) {
                Variants::External { .. } => keys.covered = true,
                Variants::Tagged {
                    tag,
                    tags,
                    content: Some(content),
                } => {
                    keys.adjacent = Some((tag, content));
                    keys.skipped.push(tag);
                    // The content is a key of the variants that have fields; a unit variant
                    // takes none.
                    let unit = object
                        .get(tag)
                        .and_then(|sent| tags.iter().find(|(_, t)| *t == sent))
                        .filter(|(i, _)| {
                            branches[*i]
                                .get("properties")
                                .is_none_or(|p| p.get(content).is_none())
                        });
                    match unit {
                        Some((_, name)) => keys.unit = Some(tag_name(name)),
                        None => keys.skipped.push(content),
                    }
                }
                Variants::Tagged {
                    tag,
                    tags,
                    content: None,
                } => {
                    let Some((i, value)) = object
                        .get(tag)
                        .and_then(|sent| tags.iter().find(|(_, t)| *t == sent))
                    else {
                        // The union names the tag that is wrong or missing.
                        keys.covered = true;
                        continue;
                    };
                    let fields_of = |b: &'s Value| -> Vec<&'s str> {
                        property_names(b)
                            .into_iter()
                            .filter(|name| *name != tag)
                            .collect()
                    };
                    let chosen = fields_of(branches[*i]);
                    keys.fields.extend(chosen.iter().copied());
                    // The fields listed are the variant's; beside the fields of an object that
                    // flattens the enum, those of that object (as the derive lists them).
                    if keys.listed.is_empty() {
                        keys.listed.extend(chosen.iter().copied());
                    }
                    keys.skipped.push(tag);
                    keys.chosen = Some(Chosen {
                        word: tag,
                        name: tag_name(value),
                        fields: chosen,
                        others: tags
                            .iter()
                            .filter(|(j, _)| j != i)
                            .map(|(j, t)| (tag_name(t), fields_of(branches[*j])))
                            .collect(),
                    });
                }
                Variants::Untagged => {
                    let mut declared = Vec::new();
                    for branch in &branches {
                        declared_names(branch, root, 0, &mut declared);
                    }
                    if union_failed {
                        // The union's issue says what is wrong with the branch meant.
                        keys.skipped.extend(declared.iter().copied());
                    }
                    for name in declared {
                        if !keys.fields.contains(&name) {
                            keys.fields.push(name);
                        }
                        if !keys.listed.contains(&name) {
                            keys.listed.push(name);
                        }
                    }
                }
            }
        }
        keys
    }

    /// The issue of the missing content `property` of the variant at `branch_path`, when that
    /// is a variant of an adjacently tagged enum, as the derive words it.
    fn missing_content(&self, branch_path: &str, property: &Value, path: &str) -> Option<Issue> {
        let (tag, content, name) = self.adjacent_branch(branch_path)?;
        if property.as_str() != Some(content) {
            return None;
        }
        let (message, fix) = variants::words::missing_content(tag, content, &name);
        let mut at = path.to_owned();
        super::report::push_key(&mut at, &cut(content, 64));
        Some(Issue {
            path: at.into(),
            code: IssueCode::Missing,
            message: message.into(),
            received: None,
            expected: None,
            fix: Some(fix.into()),
        })
    }

    /// The tag, the content and the variant's name of the branch at `branch_path`
    /// (`…/anyOf/<i>`), when it is a variant of an adjacently tagged enum.
    fn adjacent_branch(&self, branch_path: &str) -> Option<(&str, &str, String)> {
        let root = self.root();
        let (union_path, index) = branch_path.rsplit_once('/')?;
        let index: usize = index.parse().ok()?;
        let (union_path, keyword) = union_path.rsplit_once('/')?;
        if keyword != "anyOf" && keyword != "oneOf" {
            return None;
        }
        let branches: Vec<&Value> = lookup(&self.schema, union_path)?
            .get(keyword)?
            .as_array()?
            .iter()
            .map(|b| resolve(b, root))
            .collect();
        let Variants::Tagged {
            tag,
            tags,
            content: Some(content),
        } = variants_of(&branches)
        else {
            return None;
        };
        let (_, name) = tags.iter().find(|(i, _)| *i == index)?;
        Some((tag, content, tag_name(name)))
    }

    /// The variant an object is the content of, when its schema (failed at `schema_path`) is
    /// the content of an adjacently tagged variant: that variant, and the fields of the others.
    fn content_of<'s>(&'s self, schema_path: &str) -> Option<Chosen<'s>> {
        let root = self.root();
        // `…/anyOf/<i>/properties/<content>/<keyword>`
        let mut segments: Vec<&str> = schema_path.split('/').collect();
        segments.pop()?;
        let content = segments.pop()?;
        if segments.pop()? != "properties" {
            return None;
        }
        let index: usize = segments.pop()?.parse().ok()?;
        let keyword = segments.pop()?;
        if keyword != "anyOf" && keyword != "oneOf" {
            return None;
        }
        let union = lookup(&self.schema, &segments.join("/"))?;
        let branches: Vec<&Value> = union
            .get(keyword)?
            .as_array()?
            .iter()
            .map(|b| resolve(b, root))
            .collect();
        let Variants::Tagged {
            tag,
            tags,
            content: Some(declared),
        } = variants_of(&branches)
        else {
            return None;
        };
        if declared != content {
            return None;
        }
        let fields_of = |b: &'s Value| fields_in(b, content, root);
        let (_, chosen) = tags.iter().find(|(i, _)| *i == index)?;
        Some(Chosen {
            word: tag,
            name: tag_name(chosen),
            fields: fields_of(branches[index]),
            others: tags
                .iter()
                .filter(|(i, _)| *i != index)
                .map(|(i, t)| (tag_name(t), fields_of(branches[*i])))
                .collect(),
        })
    }

    /// The issues of a value that matches none of a union's branches, coached as serde
    /// would and better: the branch its tag (or its one key, or its type and fewest issues)
    /// picks, with that branch's own issues at their paths; a wrong or missing tag with the
    /// tags allowed and a did-you-mean. A union whose branches are the variants of a tagged
    /// enum is worded as the derive words that enum.
    fn record_union(
        &self,
        union: &Union<'_, '_>,
        context: &[Vec<ValidationError<'static>>],
        root: &Value,
        report: &mut Found,
    ) {
        let branches = &union.branches;
        let branch = |i: usize, report: &mut Found| {
            for inner in &context[i] {
                self.record(inner, root, report);
            }
        };
        match variants_of(branches) {
            Variants::Tagged { tag, tags, content } => {
                self.record_tagged(union, (tag, &tags, content), context, root, report);
                return;
            }
            Variants::External { keys, units } => {
                self.record_external(union, (&keys, &units), context, root, report);
                return;
            }
            Variants::Untagged => {}
        }
        // A string where every string the union takes is a constant (a unit variant) names a
        // variant; where a branch takes other strings, that branch's issues say more.
        let free_strings = branches.iter().any(|b| {
            types_of(b).contains(&"string") && b.get("const").is_none() && b.get("enum").is_none()
        });
        if let (Value::String(_), false) = (union.sent, free_strings) {
            let constants = string_constants(branches);
            if !constants.is_empty() && !constants.contains(union.sent) {
                let allowed: Vec<&Value> = constants.iter().collect();
                report.push(not_one_of(
                    union.path.clone(),
                    "variant",
                    union.sent,
                    &allowed,
                ));
                return;
            }
        }
        // The branches of the value's own type; of those, the one it is closest to.
        let fitting = (0..context.len()).filter(|i| {
            !context[*i].iter().any(|e| {
                matches!(e.kind(), ValidationErrorKind::Type { .. })
                    && e.instance_path().as_str() == union.instance
            })
        });
        // On a tie, a branch of constants (a unit variant) is the less likely meant: the value
        // was not one of them, and the other branch says what it lacks.
        let constant = |i: usize| {
            branches
                .get(i)
                .is_some_and(|b| b.get("const").is_some() || b.get("enum").is_some())
        };
        if let Some(best) = fitting.min_by_key(|i| (context[*i].len(), constant(*i))) {
            // The branches of an untagged enum with data: which fits best, as the derive says.
            if let Some(shapes) = untagged_shapes(branches)
                && let Some(closest) = shapes.get(best)
            {
                let noun = variants::words::untagged_noun(&shapes);
                report.push(Issue {
                    path: union.path.clone().into(),
                    code: IssueCode::Type,
                    message: variants::words::fits_none_message(shapes.len(), closest).into(),
                    received: Some(preview(union.sent).into()),
                    expected: Some(noun.clone().into()),
                    fix: Some(noun.into()),
                });
            }
            branch(best, report);
            return;
        }
        report.push(no_branch_issue(union, self.root()));
    }

    /// [`record_union`](Self::record_union) of the variants of an internally or adjacently
    /// tagged enum: the variant its tag names, or the tag's issue.
    fn record_tagged(
        &self,
        union: &Union<'_, '_>,
        (tag, tags, content_key): (&str, &[(usize, &Value)], Option<&str>),
        context: &[Vec<ValidationError<'static>>],
        root: &Value,
        report: &mut Found,
    ) {
        let branch = |i: usize, report: &mut Found| {
            for inner in &context[i] {
                self.record(inner, root, report);
            }
        };
        let names: Vec<String> = tags.iter().map(|(_, t)| tag_name(t)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let Value::Object(object) = union.sent else {
            let noun = variants::words::tagged_noun(tag, content_key, &names);
            report.push(mismatch(union, &noun));
            return;
        };
        let mut at = union.path.clone();
        super::report::push_key(&mut at, &cut(tag, 64));
        match object.get(tag) {
            Some(sent) => match tags.iter().find(|(_, t)| *t == sent) {
                Some((i, _)) => branch(*i, report),
                None if sent.is_string() => {
                    let (message, expected, fix) = variants::words::unknown_variant(
                        tag,
                        sent.as_str().unwrap_or_default(),
                        &names,
                    );
                    report.push(Issue {
                        path: at.into(),
                        code: IssueCode::Enum,
                        message: message.into(),
                        received: Some(preview(sent).into()),
                        expected: Some(expected.into()),
                        fix: Some(fix.into()),
                    });
                    wrong_tag(union, object, (tag, sent), tags, report);
                }
                None => {
                    let (message, expected, fix) = variants::words::tag_not_a_string(tag, &names);
                    report.push(Issue {
                        path: at.into(),
                        code: IssueCode::Type,
                        message: message.into(),
                        received: Some(preview(sent).into()),
                        expected: Some(expected.into()),
                        fix: Some(fix.into()),
                    });
                }
            },
            None => {
                let (message, fix) = variants::words::missing_tag(tag, &names);
                report.push(Issue {
                    path: at.into(),
                    code: IssueCode::Missing,
                    message: message.into(),
                    received: None,
                    expected: None,
                    fix: Some(fix.into()),
                });
            }
        }
    }

    /// [`record_union`](Self::record_union) of the variants of an externally tagged enum: the
    /// variant the value's one key names, or what is wrong with the value.
    fn record_external(
        &self,
        union: &Union<'_, '_>,
        (keys, units): (&[(usize, &str)], &[Value]),
        context: &[Vec<ValidationError<'static>>],
        root: &Value,
        report: &mut Found,
    ) {
        let branch = |i: usize, report: &mut Found| {
            for inner in &context[i] {
                self.record(inner, root, report);
            }
        };
        let data: Vec<&str> = keys.iter().map(|(_, k)| *k).collect();
        let units: Vec<&str> = units.iter().filter_map(|u| u.as_str()).collect();
        let names: Vec<&str> = units.iter().chain(&data).copied().collect();
        let noun = variants::words::external_noun(&units, &data);
        let unknown = |name: &str, report: &mut Found| {
            let (message, expected, fix) =
                variants::words::unknown_variant("variant", name, &names);
            report.push(Issue {
                path: union.path.clone().into(),
                code: IssueCode::Enum,
                message: message.into(),
                received: Some(preview(&Value::from(name)).into()),
                expected: Some(expected.into()),
                fix: Some(fix.into()),
            });
        };
        match union.sent {
            Value::Object(object) if object.len() == 1 => {
                let Some((name, fields)) = object.iter().next() else {
                    return;
                };
                if let Some((i, _)) = keys.iter().find(|(_, k)| k == name) {
                    branch(*i, report);
                } else if units.contains(&name.as_str()) {
                    let (message, fix) = variants::words::carries_no_fields(name);
                    let mut at = union.path.clone();
                    super::report::push_key(&mut at, &cut(name, 64));
                    report.push(Issue {
                        path: at.into(),
                        code: IssueCode::Type,
                        message: message.into(),
                        received: Some(preview(fields).into()),
                        expected: None,
                        fix: Some(fix.into()),
                    });
                } else {
                    unknown(name, report);
                }
            }
            Value::Object(object) => report.push(Issue {
                path: union.path.clone().into(),
                code: IssueCode::Type,
                message: variants::words::key_count_message(object.len()).into(),
                received: Some(preview(union.sent).into()),
                expected: Some(noun.clone().into()),
                fix: Some(noun.into()),
            }),
            Value::String(name) if data.contains(&name.as_str()) => report.push(Issue {
                path: union.path.clone().into(),
                code: IssueCode::Type,
                message: variants::words::carries_fields_message(name).into(),
                received: Some(preview(union.sent).into()),
                expected: Some(noun.clone().into()),
                fix: Some(noun.into()),
            }),
            Value::String(name) => unknown(name, report),
            _ => report.push(mismatch(union, &noun)),
        }
    }
}

/// The keys of one object as the coaching judges them (see [`SchemaArgs::keys_of`]).
#[derive(Default)]
struct ObjectKeys<'s> {
    /// The fields the object takes as sent: a near miss of one is a did-you-mean.
    fields: Vec<&'s str>,
    /// The fields a key that is no near miss is told of.
    listed: Vec<&'s str>,
    /// Keys not named: a tag, a key whose union's issue says what is wrong.
    skipped: Vec<&'s str>,
    /// Every key is the union's: the object is an externally tagged value, or its tag names
    /// no variant.
    covered: bool,
    /// The tag and the content of an adjacently tagged value, the only keys it takes.
    adjacent: Option<(&'s str, &'s str)>,
    /// The name of the unit variant an adjacently tagged value's tag names, which takes no
    /// content.
    unit: Option<String>,
    /// The variant the object's tag names, and the others.
    chosen: Option<Chosen<'s>>,
}

/// The variant a tag names: the tag's name, the variant's name and fields, and the other
/// variants' names and fields.
struct Chosen<'s> {
    word: &'s str,
    name: String,
    fields: Vec<&'s str>,
    others: Vec<(String, Vec<&'s str>)>,
}

/// The name a tag's value gives its variant (a string; any other constant written as JSON).
fn tag_name(value: &Value) -> String {
    value.as_str().map_or_else(|| preview(value), str::to_owned)
}

/// The fields of the content `content` of the variant `branch` of an adjacently tagged enum.
fn fields_in<'a>(branch: &'a Value, content: &str, root: &'a Map<String, Value>) -> Vec<&'a str> {
    branch
        .get("properties")
        .and_then(|p| p.get(content))
        .map(|c| property_names(resolve(c, root)))
        .unwrap_or_default()
}

/// The names of the properties `schema` declares itself.
fn property_names(schema: &Value) -> Vec<&str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// The keys an object schema declares in itself and in the schemas it is made of in whole
/// (`allOf`), not in the branches of its unions.
fn own_names<'a>(
    schema: &'a Value,
    root: &'a Map<String, Value>,
    depth: usize,
    names: &mut Vec<&'a str>,
) {
    if depth > MAX_EXAMPLE_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    for name in property_names(schema) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    for branch in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        own_names(branch, root, depth + 1, names);
    }
}

/// An issue of a key, with texts of its own.
fn key_issue(path: String, message: String, value: &Value, fix: String) -> Issue {
    Issue {
        path: path.into(),
        code: IssueCode::UnknownField,
        message: message.into(),
        received: Some(preview(value).into()),
        expected: None,
        fix: Some(fix.into()),
    }
}

/// The issue of a value of a type no variant of an enum takes, worded as the derive words it.
fn mismatch(union: &Union<'_, '_>, noun: &str) -> Issue {
    Issue {
        path: union.path.clone().into(),
        code: IssueCode::Type,
        message: format!("Expected {noun}, got {}.", json_type_noun(union.sent)).into(),
        received: Some(preview(union.sent).into()),
        expected: Some(noun.to_owned().into()),
        fix: Some(noun.to_owned().into()),
    }
}

/// How the branches of a union name their variant, read as serde's representations of an
/// enum write them.
enum Variants<'a> {
    /// Internally tagged (`content` none) or adjacently tagged: the tag, and each branch's
    /// value of it.
    Tagged {
        tag: &'a str,
        tags: Vec<(usize, &'a Value)>,
        content: Option<&'a str>,
    },
    /// Externally tagged: the key of each variant with data, and the names of the unit
    /// variants.
    External {
        keys: Vec<(usize, &'a str)>,
        units: Vec<Value>,
    },
    /// Anything else: the first branch that reads the value.
    Untagged,
}

/// How `branches` name their variant. A union of objects that all carry one constant property
/// is tagged by it, adjacently when the only other property any branch has is one name shared
/// by at least two of them (the content); a union of objects of one closed key and of string
/// constants is externally tagged.
fn variants_of<'a>(branches: &[&'a Value]) -> Variants<'a> {
    if let Some((tag, tags)) = tag_property(branches) {
        let others: Vec<Vec<&str>> = branches
            .iter()
            .map(|b| {
                property_names(b)
                    .into_iter()
                    .filter(|name| *name != tag)
                    .collect()
            })
            .collect();
        let content = others.iter().find_map(|o| o.first().copied()).filter(|c| {
            others.iter().all(|o| o.is_empty() || o.as_slice() == [*c])
                && others.iter().filter(|o| !o.is_empty()).count() >= 2
        });
        return Variants::Tagged { tag, tags, content };
    }
    let keys = variant_keys(branches);
    let all_variants = branches.iter().all(|b| {
        variant_keys(&[b]).len() == 1 || {
            let constants = string_constants(&[b]);
            !constants.is_empty()
                && b.get("enum").and_then(Value::as_array).map_or(1, Vec::len) == constants.len()
        }
    });
    if !keys.is_empty() && all_variants {
        return Variants::External {
            keys,
            units: string_constants(branches),
        };
    }
    Variants::Untagged
}

/// The issue of a value of a type no branch of its union takes: what each branch takes.
fn no_branch_issue(union: &Union<'_, '_>, root: &Map<String, Value>) -> Issue {
    let expected = if union.branches.is_empty() {
        "one of the allowed shapes".to_owned()
    } else {
        let branches: Vec<Value> = union.branches.iter().map(|b| (*b).clone()).collect();
        alternatives(&branches, root)
    };
    Issue {
        path: union.path.clone().into(),
        code: IssueCode::Type,
        message: format!("Expected {expected}, got {}.", json_type_noun(union.sent)).into(),
        received: Some(preview(union.sent).into()),
        expected: Some(expected.clone().into()),
        fix: Some(expected.into()),
    }
}

/// The instance paths of the unions that failed, at any depth of the branches tried.
fn failed_unions(error: &ValidationError<'_>, out: &mut Vec<String>, depth: usize) {
    if let ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } =
        error.kind()
    {
        let at = error.instance_path().as_str();
        if !out.iter().any(|known| known == at) {
            out.push(at.to_owned());
        }
        if depth < MAX_UNION_DEPTH {
            for inner in context.iter().flatten() {
                failed_unions(inner, out, depth + 1);
            }
        }
    }
}

/// The issues of the keys of an object whose tag names no variant that belong to another
/// variant than the one the tag was surely meant for (its did-you-mean), now rather than once
/// the tag is fixed.
fn wrong_tag(
    union: &Union<'_, '_>,
    object: &Map<String, Value>,
    (tag, value): (&str, &Value),
    tags: &[(usize, &Value)],
    report: &mut Found,
) {
    let meant = value.as_str().and_then(|sent| {
        let names = tags.iter().filter_map(|(_, t)| t.as_str());
        let best = crate::text::did_you_mean(sent, names)?;
        tags.iter().find(|(_, t)| t.as_str() == Some(best))
    });
    let Some(&(i, meant)) = meant else {
        return;
    };
    for (key, owner) in keys_of_other_variants(&union.branches, tags, i, object) {
        report.push(other_variant_issue(
            &union.path,
            (tag, meant),
            key,
            owner,
            object.get(key).unwrap_or(&Value::Null),
        ));
    }
}

/// The keys of `object` that the branch `meant` does not declare and another tagged branch
/// does, each with the tag of the first that does.
fn keys_of_other_variants<'o, 'a>(
    branches: &[&'a Value],
    tags: &[(usize, &'a Value)],
    meant: usize,
    object: &'o Map<String, Value>,
) -> Vec<(&'o str, &'a Value)> {
    let declares = |i: usize, key: &str| {
        branches
            .get(i)
            .and_then(|b| b.get("properties"))
            .is_some_and(|p| p.get(key).is_some())
    };
    object
        .keys()
        .filter(|key| !declares(meant, key))
        .filter_map(|key| {
            let (_, owner) = tags.iter().find(|(i, _)| declares(*i, key))?;
            Some((key.as_str(), *owner))
        })
        .take(MAX_KEPT_ISSUES)
        .collect()
}

/// The issue of a key of another variant than the one a mistyped tag was meant for.
fn other_variant_issue(
    container: &str,
    (tag, meant): (&str, &Value),
    key: &str,
    owner: &Value,
    value: &Value,
) -> Issue {
    let tag = Value::from(tag);
    let mut path = container.to_owned();
    super::report::push_key(&mut path, &cut(key, 64));
    Issue {
        path: path.into(),
        code: IssueCode::UnknownField,
        message: format!(
            "Not a field of the variant with {tag}: {}: it belongs to the variant with {tag}: {}.",
            preview(meant),
            preview(owner)
        )
        .into(),
        received: Some(preview(value).into()),
        expected: None,
        fix: Some(format!("Remove it, or send {tag}: {} with it.", preview(owner)).into()),
    }
}

/// A value that matched none of a union's branches, where it was sent.
struct Union<'a, 'v> {
    path: String,
    sent: &'v Value,
    instance: &'a str,
    /// The branches, in the order of the errors' context (empty when they could not be read).
    branches: Vec<&'a Value>,
}

/// The property every object branch of a union carries as a constant (the `tag` of an
/// internally or adjacently tagged enum), with each branch's value.
fn tag_property<'a>(branches: &[&'a Value]) -> Option<(&'a str, Vec<(usize, &'a Value)>)> {
    let objects: Vec<(usize, &Map<String, Value>)> = branches
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            b.get("properties")
                .and_then(Value::as_object)
                .map(|props| (i, props))
        })
        .collect();
    if objects.len() < 2 || objects.len() != branches.len() {
        return None;
    }
    let constant = |schema: &'a Value| -> Option<&'a Value> {
        schema.get("const").or_else(|| match schema.get("enum") {
            Some(Value::Array(values)) if values.len() == 1 => values.first(),
            _ => None,
        })
    };
    objects[0].1.iter().find_map(|(name, first)| {
        constant(first)?;
        let tags: Option<Vec<(usize, &Value)>> = objects
            .iter()
            .map(|(i, props)| props.get(name).and_then(constant).map(|v| (*i, v)))
            .collect();
        tags.map(|tags| (name.as_str(), tags))
    })
}

/// The keys of the branches that are objects of one closed key (the variants with data of an
/// externally tagged enum), with each branch's index.
fn variant_keys<'a>(branches: &[&'a Value]) -> Vec<(usize, &'a str)> {
    branches
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let props = b.get("properties")?.as_object()?;
            let closed = b.get("additionalProperties") == Some(&Value::Bool(false))
                || b.get("unevaluatedProperties") == Some(&Value::Bool(false));
            match (props.keys().next(), props.len(), closed) {
                (Some(key), 1, true) => Some((i, key.as_str())),
                _ => None,
            }
        })
        .collect()
}

/// The strings the branches of a union allow as constants (the unit variants of an
/// externally tagged enum).
fn string_constants(branches: &[&Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for b in branches {
        let values = b
            .get("const")
            .map(std::slice::from_ref)
            .or_else(|| b.get("enum").and_then(Value::as_array).map(Vec::as_slice))
            .unwrap_or_default();
        out.extend(values.iter().filter(|v| v.is_string()).cloned());
    }
    out
}

fn allowed_values_of(values: &[&Value]) -> String {
    let listed: Vec<String> = values.iter().map(|v| preview(v)).collect();
    cut(&format!("one of {}", listed.join(", ")), MAX_EXPECTED_CHARS).into_owned()
}

/// A tag or variant that is none of those `allowed`: the allowed ones, and the closest as a
/// did-you-mean.
fn not_one_of(path: String, what: &str, sent: &Value, allowed: &[&Value]) -> Issue {
    let names: Vec<&str> = allowed.iter().filter_map(|v| v.as_str()).collect();
    let close = sent
        .as_str()
        .and_then(|s| crate::text::did_you_mean(s, names.iter().copied()));
    let list = allowed_values_of(allowed);
    let message = match close {
        Some(best) => format!("Not a known {what}. Did you mean {}?", Value::from(best)),
        None => format!(
            "Not a known {what}: the {what}s are {}.",
            &list["one of ".len()..]
        ),
    };
    Issue {
        path: path.into(),
        code: IssueCode::Enum,
        message: message.into(),
        received: Some(preview(sent).into()),
        expected: Some(list.clone().into()),
        fix: Some(list.into()),
    }
}

/// What one branch of a union accepts, told apart from its siblings: the object of a
/// variant's key by that key, the tagged object by its tag.
fn branch_noun(branch: &Value, root: &Map<String, Value>, depth: usize) -> String {
    if let Some(Value::Array(values)) = branch.get("enum")
        && let [only] = values.as_slice()
    {
        return preview(only);
    }
    if let [(_, key)] = variant_keys(&[branch]).as_slice() {
        return format!("an object {{{}: …}}", Value::from(*key));
    }
    if let Some(props) = branch.get("properties").and_then(Value::as_object) {
        // The tag first, with its value: it is what tells this branch from the others.
        let (tags, fields): (Vec<_>, Vec<_>) =
            props.iter().partition(|(_, p)| p.get("const").is_some());
        let names: Vec<String> = tags
            .iter()
            .map(|(k, p)| format!("{}: {}", Value::from(k.as_str()), preview(&p["const"])))
            .chain(
                fields
                    .iter()
                    .map(|(k, _)| Value::from(k.as_str()).to_string()),
            )
            .take(6)
            .collect();
        if !names.is_empty() {
            return format!("an object with {}", names.join(", "));
        }
    }
    noun_at(branch, root, depth + 1)
}

/// What the branches of a union accept, each told apart from the others and named once:
/// `"zero", or an object {"num": …}, or an object {"add": …}`.
fn alternatives(branches: &[Value], root: &Map<String, Value>) -> String {
    alternatives_at(branches, root, 0)
}

fn alternatives_at(branches: &[Value], root: &Map<String, Value>, depth: usize) -> String {
    let mut nouns: Vec<String> = Vec::new();
    for branch in branches {
        let noun = branch_noun(resolve(branch, root), root, depth);
        if !nouns.contains(&noun) {
            nouns.push(noun);
        }
    }
    cut(&nouns.join(", or "), MAX_EXPECTED_CHARS).into_owned()
}

/// The keys an object schema declares: its own `properties` and those of its branches in
/// place (a flattened enum's variants), for the did-you-mean of a key none of them takes.
fn declared_names<'a>(
    schema: &'a Value,
    root: &'a Map<String, Value>,
    depth: usize,
    names: &mut Vec<&'a str>,
) {
    if depth > MAX_EXAMPLE_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for name in props.keys() {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    for keyword in ["allOf", "anyOf", "oneOf"] {
        for branch in schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            declared_names(branch, root, depth + 1, names);
        }
    }
}

/// The places of the fields of the strict schema `document`, as the derive's field tree gives
/// them (see `misplaced.rs`): each property of an object with the template of its container,
/// nearest the top first; the variants' fields where their enum's representation puts them
/// (beside the tag, in the content, under the variant's key), the keys of the representation
/// (tags, contents, variants' keys) not fields themselves. Maps are not entered: their keys are
/// data, not places.
fn schema_places(document: &Value) -> Box<[FieldPlace]> {
    let Some(root) = document.as_object() else {
        return Box::new([]);
    };
    let mut out: Vec<FieldPlace> = Vec::new();
    // Each object to read: its container's template, its schema, and a property that is its
    // tag rather than a field.
    let mut level: Vec<(String, &Value, Option<&str>)> = vec![(String::new(), document, None)];
    for _ in 0..misplaced::MAX_DEPTH {
        let mut next = Vec::new();
        for (container, schema, tag) in &level {
            let schema = resolve(schema, root);
            for branch in schema
                .get("allOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                next.push((container.clone(), branch, None));
            }
            for branches in unions_at(schema, root) {
                match variants_of(&branches) {
                    Variants::External { keys, .. } => {
                        for (i, key) in keys {
                            if let Some(fields) =
                                branches[i].get("properties").and_then(|p| p.get(key))
                            {
                                let mut place = container.clone();
                                super::report::push_key(&mut place, key);
                                next.push((place, fields, None));
                            }
                        }
                    }
                    Variants::Tagged {
                        content: Some(content),
                        ..
                    } => {
                        for branch in &branches {
                            if let Some(fields) =
                                branch.get("properties").and_then(|p| p.get(content))
                            {
                                let mut place = container.clone();
                                super::report::push_key(&mut place, content);
                                next.push((place, fields, None));
                            }
                        }
                    }
                    Variants::Tagged { tag, .. } => {
                        for branch in branches {
                            next.push((container.clone(), branch, Some(tag)));
                        }
                    }
                    Variants::Untagged => {
                        for branch in branches {
                            next.push((container.clone(), branch, None));
                        }
                    }
                }
            }
            for (name, field) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if Some(name.as_str()) == *tag {
                    continue;
                }
                if out.len() == misplaced::MAX_PLACES {
                    return out.into_boxed_slice();
                }
                let mut field = resolve(field, root);
                let sensitive = field.get("writeOnly") == Some(&Value::Bool(true));
                out.push(FieldPlace::new(
                    container.clone(),
                    Cow::Owned(name.clone()),
                    Cow::Owned(name.clone()),
                    sensitive,
                ));
                let mut inner = container.clone();
                super::report::push_key(&mut inner, name);
                while let Some(items) = field
                    .get("items")
                    .filter(|_| types_of(field).contains(&"array"))
                {
                    inner.push_str("[]");
                    field = resolve(items, root);
                }
                next.push((inner, field, None));
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    out.into_boxed_slice()
}

/// The unions of the object `schema` describes, each as its branches: those of its `anyOf` and
/// `oneOf`, seen through an `Option` (a union of one schema and `null`, whose schema is itself
/// a union).
fn unions_at<'a>(schema: &'a Value, root: &'a Map<String, Value>) -> Vec<Vec<&'a Value>> {
    unions_within(schema, root, 0)
}

fn unions_within<'a>(
    schema: &'a Value,
    root: &'a Map<String, Value>,
    depth: usize,
) -> Vec<Vec<&'a Value>> {
    let mut out = Vec::new();
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = schema.get(keyword) else {
            continue;
        };
        let branches: Vec<&Value> = branches.iter().map(|b| resolve(b, root)).collect();
        let mut others = branches.iter().filter(|b| types_of(b) != ["null"]);
        if let (Some(only), None) = (others.next(), others.next())
            && branches.len() == 2
            && depth < MAX_NOUN_DEPTH
            && (only.get("anyOf").is_some() || only.get("oneOf").is_some())
        {
            out.extend(unions_within(only, root, depth + 1));
            continue;
        }
        out.push(branches);
    }
    out
}

/// The branch of a union that `sent` names itself: the variant its tag names, the variant its
/// one key names (externally tagged), the schema of an `Option` when it is not `null`. `None`
/// when the value does not say (an untagged union), as serde would have to try each.
fn chosen_branch(branches: &[&Value], sent: &Value) -> Option<usize> {
    match variants_of(branches) {
        Variants::Tagged { tag, tags, .. } => {
            let value = sent.get(tag)?;
            tags.iter().find(|(_, t)| *t == value).map(|(i, _)| *i)
        }
        Variants::External { keys, .. } => {
            let object = sent.as_object().filter(|o| o.len() == 1)?;
            keys.iter()
                .find(|(_, k)| object.contains_key(*k))
                .map(|(i, _)| *i)
        }
        Variants::Untagged => {
            let mut others = (0..branches.len()).filter(|i| types_of(branches[*i]) != ["null"]);
            match (others.next(), others.next(), sent.is_null()) {
                (Some(only), None, false) if branches.len() == 2 => Some(only),
                _ => None,
            }
        }
    }
}

/// The shapes of the branches of an untagged enum with data, as the derive names them: each an
/// object with its fields, or `null` (a unit variant); `None` unless at least two branches are
/// objects with fields and every other is `null`.
fn untagged_shapes(branches: &[&Value]) -> Option<Vec<String>> {
    let mut objects = 0;
    let shapes: Option<Vec<String>> = branches
        .iter()
        .map(|b| {
            if types_of(b) == ["null"] {
                return Some("null".to_owned());
            }
            let names = property_names(b);
            if names.is_empty() || b.get("anyOf").is_some() || b.get("oneOf").is_some() {
                return None;
            }
            objects += 1;
            Some(variants::words::object_shape(&names))
        })
        .collect();
    shapes.filter(|_| objects >= 2)
}

/// What a union of the variants of an enum accepts, as the derive words that enum: `None`
/// unless `schema`'s branches are a tagged, externally tagged or untagged enum's.
fn enum_noun(schema: &Value, root: &Map<String, Value>) -> Option<String> {
    let [branches] = unions_at(schema, root).try_into().ok()?;
    Some(match variants_of(&branches) {
        Variants::Tagged { tag, tags, content } => {
            let names: Vec<String> = tags.iter().map(|(_, t)| tag_name(t)).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            variants::words::tagged_noun(tag, content, &names)
        }
        Variants::External { keys, units } => {
            let data: Vec<&str> = keys.iter().map(|(_, k)| *k).collect();
            let units: Vec<&str> = units.iter().filter_map(|u| u.as_str()).collect();
            variants::words::external_noun(&units, &data)
        }
        Variants::Untagged => variants::words::untagged_noun(&untagged_shapes(&branches)?),
    })
}

/// How many levels of values sent as strings a repair reads into.
const MAX_REPAIR_ROUNDS: usize = 8;

/// What a value is read as where the schema expects `kind`: one JSON type, or one and `null`
/// (an `Option`); `None` where a string is accepted or the types leave a choice.
fn repair_kind(kind: &TypeKind) -> Option<Kind> {
    let single = match kind {
        TypeKind::Single(t) => *t,
        TypeKind::Multiple(types) => {
            let mut others = types.iter().filter(|t| *t != JsonType::Null);
            match (others.next(), others.next()) {
                (Some(t), None) => t,
                _ => return None,
            }
        }
    };
    let safe = i128::from(super::MAX_SAFE_INTEGER);
    Some(match single {
        JsonType::Integer => Kind::Integer {
            min: -safe,
            max: safe,
        },
        JsonType::Number => Kind::Number {
            max_magnitude: None,
        },
        JsonType::Boolean => Kind::Boolean,
        JsonType::Array => Kind::Array(Box::new(Kind::Any)),
        JsonType::Object => Kind::Map(Box::new(Kind::Any)),
        JsonType::String | JsonType::Null => return None,
    })
}

/// The issue of a value of the wrong JSON type.
fn type_issue(kind: &TypeKind, sent: &Value) -> (IssueCode, String, Option<String>) {
    let expected = match kind {
        TypeKind::Single(t) => type_noun(*t).to_owned(),
        TypeKind::Multiple(types) => {
            let nouns: Vec<&str> = types.iter().map(type_noun).collect();
            nouns.join(" or ")
        }
    };
    let got = json_type_noun(sent);
    (
        IssueCode::Type,
        format!("Expected {expected}, got {got}."),
        Some(expected),
    )
}

/// The issue of a length past `limit`, worded as the derived validators word it.
fn length(
    sent: &Value,
    limit: u64,
    unit: Unit,
    upper: bool,
) -> (IssueCode, String, Option<String>) {
    let len = match sent {
        Value::String(s) => s.chars().count(),
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        _ => 0,
    };
    let (code, message, expected) = wording::length_issue(len as u64, limit, unit, upper);
    (code, message, Some(expected.into_owned()))
}

/// The issue of a number past `limit`, worded as the derived validators word it.
fn number(limit: &Value, exclusive: bool, upper: bool) -> (IssueCode, String, Option<String>) {
    let bound = Bound {
        value: num_of(limit),
        exclusive,
    };
    let (code, message, expected) = wording::number_issue(bound, upper);
    (code, message.into_owned(), Some(expected.into_owned()))
}

/// A bound of a schema as a number of the derived validators: an integer when it is one.
fn num_of(value: &Value) -> Num {
    value
        .as_i64()
        .map(i128::from)
        .or_else(|| value.as_u64().map(i128::from))
        .map_or_else(|| Num::Float(value.as_f64().unwrap_or(f64::NAN)), Num::Int)
}

/// The issue code, message and expected value of a failed keyword whose issue is about the
/// value itself.
fn plain_issue(
    kind: &ValidationErrorKind,
    sent: &Value,
    here: Option<&Value>,
    root: &Map<String, Value>,
) -> (IssueCode, String, Option<String>) {
    match kind {
        ValidationErrorKind::Type { kind } => type_issue(kind, sent),
        ValidationErrorKind::MinLength { limit } => length(sent, *limit, CHARACTERS, false),
        ValidationErrorKind::MaxLength { limit } => length(sent, *limit, CHARACTERS, true),
        ValidationErrorKind::MinItems { limit } => length(sent, *limit, ITEMS, false),
        ValidationErrorKind::MaxItems { limit } => length(sent, *limit, ITEMS, true),
        ValidationErrorKind::MinProperties { limit } => length(sent, *limit, ENTRIES, false),
        ValidationErrorKind::MaxProperties { limit } => length(sent, *limit, ENTRIES, true),
        ValidationErrorKind::Minimum { limit } => number(limit, false, false),
        ValidationErrorKind::ExclusiveMinimum { limit } => number(limit, true, false),
        ValidationErrorKind::Maximum { limit } => number(limit, false, true),
        ValidationErrorKind::ExclusiveMaximum { limit } => number(limit, true, true),
        ValidationErrorKind::Pattern { pattern } => {
            let (message, expected) = wording::pattern_issue(&cut(pattern, MAX_EXPECTED_CHARS));
            (IssueCode::Pattern, message, Some(expected))
        }
        ValidationErrorKind::Format { format } => match StringFormat::from_name(format) {
            Some(known) => {
                let (message, expected) = wording::format_issue(known);
                (
                    IssueCode::Format,
                    message.into_owned(),
                    Some(expected.into_owned()),
                )
            }
            None => (
                IssueCode::Format,
                format!("Not a valid {}.", cut(format, 64)),
                None,
            ),
        },
        ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. } => (
            IssueCode::Enum,
            "Not one of the allowed values.".to_owned(),
            here.map(|s| noun(s, root)),
        ),
        ValidationErrorKind::UniqueItems => {
            let items = sent.as_array().map_or(&[][..], Vec::as_slice);
            let (first, second) = first_duplicate(items).unwrap_or((0, 1));
            let (message, expected) = wording::unique_issue(first, second);
            (IssueCode::NotUnique, message, Some(expected))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            let (message, expected) = wording::multiple_of_issue(Num::Float(*multiple_of));
            (IssueCode::MultipleOf, message, Some(expected))
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => (
            IssueCode::Custom,
            "Matches more than one of the allowed shapes; it must match exactly one.".to_owned(),
            None,
        ),
        other => (
            IssueCode::Custom,
            format!("Breaks the schema's `{}` rule.", other.keyword()),
            None,
        ),
    }
}

/// The issues of one check as they are found: the fields' own, and unknown keys, each kept up
/// to the report's cap and counted past it.
#[derive(Default)]
struct Found {
    fields: Vec<Issue>,
    unknown: Vec<Issue>,
    omitted: usize,
    /// The instance paths (JSON pointers) of the unions that failed.
    failed_unions: Vec<String>,
    /// What unknown keys surely meant, for the corrected call.
    suggestions: Vec<Suggestion>,
    /// Misplaced keys: the template of the field each belongs to, and the path it was sent at.
    moves: Vec<(String, String)>,
}

impl Found {
    fn push(&mut self, issue: Issue) {
        let list = if issue.code == IssueCode::UnknownField {
            &mut self.unknown
        } else {
            &mut self.fields
        };
        if list.len() < MAX_KEPT_ISSUES {
            list.push(issue);
        } else {
            self.omitted += 1;
        }
    }
}

#[cfg(feature = "rmcp")]
/// What a refusal rests on: whether a rule the schema declares failed, and the keys no schema
/// of their object takes. Every other issue is about what the type a value is read into
/// accepts (a JSON type, a name, a field it needs), which that type's own reading can decide.
#[derive(Debug, Default)]
pub(crate) struct Grounds {
    /// A rule the schema declares failed: a length, a range, a pattern, an asserted format.
    pub(crate) declared: bool,
    /// The keys no schema of their object takes: the JSON pointer of the object, and the key.
    pub(crate) keys: Vec<(String, String)>,
}

fn type_noun(t: JsonType) -> &'static str {
    match t {
        JsonType::Array => "an array",
        JsonType::Boolean => "a boolean",
        JsonType::Integer => "an integer",
        JsonType::Null => "null",
        JsonType::Number => "a number",
        JsonType::Object => "an object",
        JsonType::String => "a string",
    }
}

/// The segments of a JSON pointer, unescaped.
fn pointer_segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// `items[2].name` for the pointer `/items/2/name`: an index where the value is an array.
fn instance_path(segments: &[String], root: &Value) -> String {
    let mut out = String::new();
    let mut at = Some(root);
    for segment in segments {
        match at {
            Some(Value::Array(items)) => {
                let _ = write!(out, "[{segment}]");
                at = segment.parse::<usize>().ok().and_then(|i| items.get(i));
            }
            other => {
                super::report::push_key(&mut out, &cut(segment, 64));
                at = other.and_then(|v| v.get(segment.as_str()));
            }
        }
    }
    out
}

/// The subschema at `pointer` in `schema`, following the references a recursive type keeps.
fn lookup<'a>(schema: &'a Value, pointer: &str) -> Option<&'a Value> {
    let root = schema.as_object()?;
    let mut at = schema;
    for segment in pointer_segments(pointer) {
        if segment == "$ref" {
            // A path through a reference that was kept (a recursive type) goes on in the
            // definition it names.
            at = at
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| local_ref(r, root))?;
            continue;
        }
        let next = match at {
            Value::Object(map) => map.get(&segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }?;
        at = resolve(next, root);
    }
    Some(at)
}

/// `schema` itself, or the definition its local `$ref` names.
fn resolve<'a>(schema: &'a Value, root: &'a Map<String, Value>) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| local_ref(r, root))
        .unwrap_or(schema)
}

fn local_ref<'a>(reference: &str, root: &'a Map<String, Value>) -> Option<&'a Value> {
    let (section, name) = reference
        .strip_prefix("#/$defs/")
        .map(|n| ("$defs", n))
        .or_else(|| {
            reference
                .strip_prefix("#/definitions/")
                .map(|n| ("definitions", n))
        })?;
    root.get(section)?
        .get(name.replace("~1", "/").replace("~0", "~"))
}

fn required_of(schema: &Map<String, Value>) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The validator's own keyword beside an integer type: a number that serde reads into an
/// integer type is written without a fraction or an exponent.
const WHOLE_INTEGER: &str = "x-guardrails-whole-integer";

/// Adds [`WHOLE_INTEGER`] beside every `type` that takes integers and not other numbers.
fn mark_integers(schema: &mut Value) {
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
fn whole_integer<'a>(
    _parent: &'a Map<String, Value>,
    _value: &'a Value,
    _path: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, ValidationError<'a>> {
    Ok(Box::new(WholeInteger))
}

/// The issue of a whole number written as a float where an integer is read: serde refuses
/// `3.0` for an integer type, so the fix is the same number without its fraction.
fn whole_float_issue(sent: &Value) -> (IssueCode, String, Option<String>, Option<String>) {
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
fn type_bound(schema: Option<&Value>, limit: &Value) -> Option<i128> {
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
fn integer_format_bounds(format: &str) -> Option<(Value, Value)> {
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

/// The types a schema allows, `null` last.
fn types_of(schema: &Value) -> Vec<&str> {
    let mut types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if schema.get("properties").is_some() => vec!["object"],
        _ => Vec::new(),
    };
    types.sort_by_key(|t| *t == "null");
    types
}

/// A short noun phrase for what a schema accepts: `a string`, `one of "a", "b"`.
fn noun(schema: &Value, root: &Map<String, Value>) -> String {
    noun_at(schema, root, 0)
}

/// [`noun`] of a schema `depth` unions deep, which names a union it is nested in no deeper
/// than a few levels (a union of itself would never end).
fn noun_at(schema: &Value, root: &Map<String, Value>, depth: usize) -> String {
    let schema = resolve(schema, root);
    if let Some(noun) = enum_noun(schema, root) {
        return noun;
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return allowed_values(values);
    }
    if let Some(value) = schema.get("const") {
        return format!("exactly {}", preview(value));
    }
    let nouns: Vec<&str> = types_of(schema)
        .into_iter()
        .map(|t| match t {
            "string" => "a string",
            "integer" => "an integer",
            "number" => "a number",
            "boolean" => "a boolean",
            "array" => "an array",
            "object" => "an object",
            "null" => "null",
            _ => "a value",
        })
        .collect();
    if !nouns.is_empty() {
        return nouns.join(" or ");
    }
    match schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        Some(Value::Array(branches)) if depth < MAX_NOUN_DEPTH => {
            alternatives_at(branches, root, depth)
        }
        Some(Value::Array(_)) => "one of several shapes".to_owned(),
        _ => "any JSON value".to_owned(),
    }
}

fn allowed_values(values: &[Value]) -> String {
    let listed: Vec<String> = values.iter().map(preview).collect();
    cut(&format!("one of {}", listed.join(", ")), MAX_EXPECTED_CHARS).into_owned()
}

/// What a schema accepts, in full: `a string of 3 to 20 characters matching ^[a-z]+$`,
/// `an integer from 1 to 100`, `an array of at most 5 items, each item a string`.
fn describe(schema: &Value, root: &Map<String, Value>) -> String {
    describe_at(schema, root, 0)
}

/// [`describe`] of a schema `depth` items or values deep: past a few levels (a recursive type
/// would never end), an item is named by its [`noun`].
fn describe_at(schema: &Value, root: &Map<String, Value>, depth: usize) -> String {
    let schema = resolve(schema, root);
    if let Some(noun) = enum_noun(schema, root) {
        return noun;
    }
    if schema.get("enum").is_some() || schema.get("const").is_some() {
        return noun(schema, root);
    }
    // An item or a value, described as the derive describes it, in full.
    let inner = |schema: &Value| {
        if depth < MAX_NOUN_DEPTH {
            describe_at(schema, root, depth + 1)
        } else {
            noun(schema, root)
        }
    };
    let types = types_of(schema);
    let Some(first) = types.first() else {
        if let Some(branches) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            return alternatives(branches, root);
        }
        return "any JSON value".to_owned();
    };
    let mut out = match *first {
        "string" => describe_string(schema),
        kind @ ("integer" | "number") => describe_number(schema, kind),
        "boolean" => "true or false".to_owned(),
        "array" => {
            let mut s = String::from("an array");
            let (min, max) = (
                keyword_count(schema, "minItems"),
                keyword_count(schema, "maxItems"),
            );
            wording::length_window(&mut s, min, max, ITEMS);
            if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
                wording::unique_phrase(&mut s);
            }
            if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
                let _ = write!(s, ", each item {}", inner(items));
            }
            s
        }
        "object" => match schema.get("properties").and_then(Value::as_object) {
            Some(props) if !props.is_empty() => {
                let names: Vec<String> = props
                    .keys()
                    .map(|k| Value::from(k.as_str()).to_string())
                    .collect();
                format!("an object with the fields {}", names.join(", "))
            }
            _ => {
                // A map: its entries counted, each value described, as a derived map field.
                let mut s = String::from("an object");
                let min = keyword_count(schema, "minProperties");
                let max = keyword_count(schema, "maxProperties");
                wording::length_window(&mut s, min, max, ENTRIES);
                if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
                    let _ = write!(s, ", each value {}", inner(values));
                }
                s
            }
        },
        "null" => "null".to_owned(),
        other => format!("a value of type {}", cut(other, 32)),
    };
    if types.len() > 1 {
        let rest: Vec<&str> = types[1..]
            .iter()
            .map(|t| if *t == "null" { "null" } else { "another type" })
            .collect();
        let _ = write!(out, ", or {}", rest.join(" or "));
    }
    cut(&out, MAX_EXPECTED_CHARS).into_owned()
}

/// The value of a count keyword of `schema` (`minLength`, `maxItems`, …).
fn keyword_count(schema: &Value, key: &str) -> Option<u64> {
    schema.get(key).and_then(Value::as_u64)
}

/// A numeric bound of `schema`: the exclusive keyword when there is one, else the inclusive one.
fn keyword_bound(schema: &Value, inclusive: &str, exclusive: &str) -> Option<Bound> {
    let bound = |key: &str, exclusive: bool| {
        schema.get(key).filter(|v| v.is_number()).map(|v| Bound {
            value: num_of(v),
            exclusive,
        })
    };
    bound(exclusive, true).or_else(|| bound(inclusive, false))
}

fn describe_string(schema: &Value) -> String {
    let mut s = String::from("a string");
    let (min, max) = (
        keyword_count(schema, "minLength"),
        keyword_count(schema, "maxLength"),
    );
    wording::length_window(&mut s, min, max, CHARACTERS);
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        wording::pattern_phrase(&mut s, pattern);
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        match StringFormat::from_name(format) {
            Some(f) => wording::format_phrase(&mut s, f),
            None => {
                let _ = write!(s, " in the {} format", cut(format, 64));
            }
        }
    }
    s
}

fn describe_number(schema: &Value, kind: &str) -> String {
    let mut s = String::from(if kind == "integer" {
        "an integer"
    } else {
        "a number"
    });
    // The limits of 64-bit types go unsaid, as the derived validators leave them: no value a
    // model means to send is near them.
    let safe = i128::from(super::MAX_SAFE_INTEGER);
    let said = |b: &Bound| !matches!(b.value, Num::Int(n) if n <= -safe || n >= safe);
    let low = keyword_bound(schema, "minimum", "exclusiveMinimum").filter(said);
    let high = keyword_bound(schema, "maximum", "exclusiveMaximum").filter(said);
    wording::number_window(&mut s, low, high);
    if let Some(step) = schema.get("multipleOf").filter(|v| v.is_number()) {
        wording::multiple_of_phrase(&mut s, num_of(step));
    }
    s
}

/// How many ways of choosing among a union's branches the example tries.
const EXAMPLE_CHOICES: usize = 4;

/// Examples to try, best first: every property, then only the required ones, each with the
/// first branch of every union, then the next ones (the first may be a variant that cannot
/// be built, such as a recursive one).
fn example_candidates(root: &Map<String, Value>) -> Vec<Value> {
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

    use super::*;

    fn args(schema: &Value) -> SchemaArgs {
        SchemaArgs::new(schema.as_object().unwrap()).unwrap()
    }

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
    fn every_issue_is_collected_with_paths_and_suggestions() {
        let checked = args(&json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "minLength": 3, "pattern": "^[a-z_]+$"},
                "age": {"type": "integer", "minimum": 18, "maximum": 120},
                "role": {"type": "string", "enum": ["admin", "user"]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
            },
            "required": ["username", "age", "role"]
        }));
        let report = checked
            .check(&json!({"username": "ab", "age": "x", "usrname": 1, "tags": ["a", "a"]}))
            .unwrap_err();
        let codes: Vec<(&str, &str)> = report
            .issues()
            .iter()
            .map(|i| (&*i.path, i.code.as_str()))
            .collect();
        for expected in [
            ("username", "too_short"),
            ("age", "type"),
            ("role", "missing"),
            ("usrname", "unknown_field"),
            ("tags", "not_unique"),
        ] {
            assert!(codes.contains(&expected), "{expected:?} not in {codes:?}");
        }
        let unknown = report.at("usrname").unwrap();
        assert!(
            unknown.message.contains("Did you mean \"username\"?"),
            "{unknown:?}"
        );
        let age = report.at("age").unwrap();
        assert_eq!(age.fix.as_deref(), Some("an integer from 18 to 120"));
        assert_eq!(age.received.as_deref(), Some("\"x\""));
    }

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

    #[test]
    fn optional_and_listed_unions_are_coached_by_their_tag() {
        let schema = json!({
            "type": "object",
            "properties": {
                "maybe": {"anyOf": [{"$ref": "#/$defs/Shape"}, {"type": "null"}]},
                "many": {"type": "array", "items": {"$ref": "#/$defs/Shape"}}
            },
            "$defs": {"Shape": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "dot"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "line"}, "len": {"type": "integer"}}, "required": ["kind", "len"]}
            ]}}
        });
        let checked = args(&schema);
        assert!(checked.is_valid(
            &json!({"maybe": null, "many": [{"kind": "dot"}, {"kind": "line", "len": 2}]})
        ));
        let report = checked
            .check(&json!({"maybe": {"kind": "lin", "len": 1}, "many": [{"kind": "line"}, {"kind": "dot", "len": 1}]}))
            .unwrap_err();
        let codes: Vec<(&str, &str)> = report
            .issues()
            .iter()
            .map(|i| (&*i.path, i.code.as_str()))
            .collect();
        for expected in [
            ("maybe.kind", "enum"),
            ("many[0].len", "missing"),
            ("many[1].len", "unknown_field"),
        ] {
            assert!(codes.contains(&expected), "{expected:?} not in {report}");
        }
        assert_eq!(codes.len(), 3, "{report}");
        let tag = report.at("maybe.kind").unwrap();
        assert!(tag.message.contains("Did you mean \"line\"?"), "{report}");
        let other = report.at("many[1].len").unwrap();
        assert_eq!(
            other.message,
            "`len` belongs to kind `line`; you chose `dot`."
        );
        assert_eq!(
            other.fix.as_deref(),
            Some("Remove it: kind \"dot\" has no fields; or choose kind \"line\".")
        );
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
    fn a_union_of_itself_is_described_without_end() {
        let checked = args(&json!({
            "type": "object",
            "properties": {"loop": {"$ref": "#/$defs/L"}},
            "required": ["loop"],
            "$defs": {"L": {"anyOf": [{"$ref": "#/$defs/L"}, {"type": "integer"}]}}
        }));
        let report = checked.check(&json!({})).unwrap_err();
        let missing = report.at("loop").unwrap();
        assert!(
            missing.expected.as_deref().unwrap().contains("an integer"),
            "{report}"
        );
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

    #[test]
    fn a_string_a_branch_takes_is_coached_by_that_branch() {
        let checked = args(&json!({
            "type": "object",
            "properties": {"mode": {"anyOf": [
                {"type": "string", "enum": ["auto"]},
                {"type": "string", "pattern": "^x"}
            ]}}
        }));
        let report = checked.check(&json!({"mode": "fast"})).unwrap_err();
        assert_eq!(
            report.at("mode").unwrap().code,
            IssueCode::Pattern,
            "{report}"
        );
        let checked = args(&json!({
            "type": "object",
            "properties": {"mode": {"anyOf": [
                {"type": "string", "enum": ["auto"]},
                {"type": "object", "properties": {"named": {"type": "string"}}, "required": ["named"], "additionalProperties": false}
            ]}}
        }));
        let report = checked.check(&json!({"mode": "aut"})).unwrap_err();
        let issue = report.at("mode").unwrap();
        assert_eq!(issue.code, IssueCode::Enum, "{report}");
        assert!(issue.message.contains("Did you mean \"auto\"?"), "{report}");
    }

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

    #[test]
    fn a_mistyped_tag_names_the_keys_of_other_variants_at_once() {
        let checked = args(&json!({
            "type": "object",
            "properties": {"shape": {"oneOf": [
                {"type": "object", "properties": {"type": {"const": "circle"}, "radius": {"type": "number"}}, "required": ["type", "radius"]},
                {"type": "object", "properties": {"type": {"const": "square"}, "side": {"type": "number"}}, "required": ["type", "side"]}
            ]}}
        }));
        let report = checked
            .check(&json!({"shape": {"type": "circel", "radius": 1, "side": 2}}))
            .unwrap_err();
        assert_eq!(
            report.at("shape.type").unwrap().code,
            IssueCode::Enum,
            "{report}"
        );
        let side = report
            .at("shape.side")
            .unwrap_or_else(|| panic!("{report}"));
        assert_eq!(side.code, IssueCode::UnknownField, "{report}");
        assert!(side.message.contains(r#""type": "square""#), "{report}");
        assert!(side.message.contains(r#""type": "circle""#), "{report}");
        assert!(report.at("shape.radius").is_none(), "{report}");
        assert_eq!(report.len(), 2, "{report}");
        // No tag is surely meant: only the tag is reported.
        let report = checked
            .check(&json!({"shape": {"type": "hexagon", "radius": 1, "side": 2}}))
            .unwrap_err();
        assert_eq!(report.len(), 1, "{report}");
    }
}

#[cfg(test)]
mod zod_draft07 {
    use serde_json::json;

    use super::*;

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
