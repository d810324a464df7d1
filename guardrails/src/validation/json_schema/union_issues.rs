//! The issues of a value that matches none of a union's branches: the branch its tag, its one key
//! or its type picks, coached with that branch's own issues, or a wrong or missing tag with the
//! tags allowed and a did-you-mean. A union is judged by how its branches represent an enum (see
//! `representation`), not keyword by keyword as `issues` judges a value.

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use super::describe::alternatives;
use super::found::Found;
use super::lookup::types_of;
use super::representation::{Variants, string_constants, tag_name, untagged_shapes, variants_of};
use super::{MAX_EXPECTED_CHARS, MAX_UNION_DEPTH, SchemaArgs};
use crate::text::{cut, preview};
use crate::validation::report::{Issue, IssueCode, MAX_KEPT_ISSUES, push_key};
use crate::validation::{json_type_noun, variants};

impl SchemaArgs {
    /// The issues of a value that matches none of a union's branches, coached as serde
    /// would and better: the branch its tag (or its one key, or its type and fewest issues)
    /// picks, with that branch's own issues at their paths; a wrong or missing tag with the
    /// tags allowed and a did-you-mean. A union whose branches are the variants of a tagged
    /// enum is worded as the derive words that enum.
    pub(super) fn record_union(
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
        push_key(&mut at, &cut(tag, 64));
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
                    push_key(&mut at, &cut(name, 64));
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

/// A value that matched none of a union's branches, where it was sent.
pub(super) struct Union<'a, 'v> {
    pub(super) path: String,
    pub(super) sent: &'v Value,
    pub(super) instance: &'a str,
    /// The branches, in the order of the errors' context (empty when they could not be read).
    pub(super) branches: Vec<&'a Value>,
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
pub(super) fn failed_unions(error: &ValidationError<'_>, out: &mut Vec<String>, depth: usize) {
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
    push_key(&mut path, &cut(key, 64));
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
#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::validation::json_schema::args;
    use crate::validation::report::IssueCode;

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
