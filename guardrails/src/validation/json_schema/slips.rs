//! The repair of slips whose meaning is not in doubt: a value sent as a string that holds exactly
//! the JSON value the schema expects (see [`SchemaArgs::repair`]). The validator's errors are
//! read here for what to repair, never for what to tell the model, so this stands apart from the
//! issues.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError};
use serde_json::Value;

use super::lookup::{instance_path, lookup, pointer_segments, resolve};
use super::representation::{Variants, chosen_branch, variants_of};
use super::{MAX_UNION_DEPTH, SchemaArgs};
use crate::text::preview;
use crate::validation::info::Kind;
use crate::validation::{MAX_SAFE_INTEGER, Repair, repair};

/// How many levels of values sent as strings a repair reads into.
const MAX_REPAIR_ROUNDS: usize = 8;

impl SchemaArgs {
    /// `arguments` with the slips whose meaning is not in doubt repaired, and the receipts;
    /// `None` when there is none to repair. Call it on arguments [`SchemaArgs::check`]
    /// refuses, then check what it returns: the repaired arguments are checked like any
    /// others.
    ///
    /// A value is repaired where the schema expects one JSON type (or that type or `null`)
    /// and the value is a string holding exactly such a value (see
    /// [`Repair`]): never where a string is accepted, never in a `writeOnly`
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
                let Some((read, slip)) = repair::attempt(&kind, slot) else {
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
}

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
    let safe = i128::from(MAX_SAFE_INTEGER);
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
