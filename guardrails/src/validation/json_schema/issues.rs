//! The validator's errors translated into the library's [`Issue`]s, worded as the derive words
//! them: a value of the wrong type or out of its bounds, a field missing, a key no schema of its
//! object takes (a near miss with a did-you-mean, a field of another variant, a key sent at
//! another level). A value no branch of a union matches is coached in `union_issues`.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError};
use serde_json::{Map, Value};

use super::describe::{describe, noun, num_of};
use super::found::Found;
use super::lookup::{
    declared_names, instance_path, lookup, own_names, pointer_segments, property_names, resolve,
};
use super::representation::{Variants, fields_in, tag_name, unions_at, variants_of};
use super::strict::type_bound;
use super::union_issues::Union;
use super::whole_integer::{WHOLE_INTEGER, whole_float_issue};
use super::{MAX_EXPECTED_CHARS, SchemaArgs};
use crate::text::{cut, preview};
use crate::validation::constraint::first_duplicate;
use crate::validation::correction::Suggestion;
use crate::validation::number::{Bound, Num};
use crate::validation::report::{Issue, IssueCode, push_key};
use crate::validation::string_format::StringFormat;
use crate::validation::wording::{self, CHARACTERS, ENTRIES, ITEMS, Unit};
use crate::validation::{context, json_type_noun, misplaced, value, variants, withheld};

impl SchemaArgs {
    pub(super) fn record(&self, error: &ValidationError<'_>, root: &Value, report: &mut Found) {
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
                push_key(&mut at, &cut(name, 64));
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
                let (code, message, expected) = value::type_range_issue(bound, upper);
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
            push_key(&mut at, &cut(key, 64));
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
        push_key(&mut path, &cut(key, 64));
        if let Some(to) = moved.to {
            report.moves.push((to, path.clone()));
        }
        Issue {
            path: path.into(),
            code: IssueCode::UnknownField,
            message: moved.message.into(),
            received: Some(
                if moved.sensitive {
                    withheld(value)
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
        push_key(&mut at, &cut(content, 64));
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::validation::json_schema::args;

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
}
