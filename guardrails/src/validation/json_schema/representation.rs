//! How the branches of a union name their variant, read as serde's representations of an enum
//! write them: internally, adjacently or externally tagged, or untagged. The issues, the
//! descriptions, the places of fields and the repairs all decide by it, so it is read in one
//! place, the same way for each.

use serde_json::{Map, Value};

use super::MAX_NOUN_DEPTH;
use super::lookup::{property_names, resolve, types_of};
use crate::text::preview;
use crate::validation::variants;

/// How the branches of a union name their variant, read as serde's representations of an
/// enum write them.
pub(super) enum Variants<'a> {
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
pub(super) fn variants_of<'a>(branches: &[&'a Value]) -> Variants<'a> {
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
pub(super) fn variant_keys<'a>(branches: &[&'a Value]) -> Vec<(usize, &'a str)> {
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
pub(super) fn string_constants(branches: &[&Value]) -> Vec<Value> {
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

/// The name a tag's value gives its variant (a string; any other constant written as JSON).
pub(super) fn tag_name(value: &Value) -> String {
    value.as_str().map_or_else(|| preview(value), str::to_owned)
}

/// The fields of the content `content` of the variant `branch` of an adjacently tagged enum.
pub(super) fn fields_in<'a>(
    branch: &'a Value,
    content: &str,
    root: &'a Map<String, Value>,
) -> Vec<&'a str> {
    branch
        .get("properties")
        .and_then(|p| p.get(content))
        .map(|c| property_names(resolve(c, root)))
        .unwrap_or_default()
}

/// The unions of the object `schema` describes, each as its branches: those of its `anyOf` and
/// `oneOf`, seen through an `Option` (a union of one schema and `null`, whose schema is itself
/// a union).
pub(super) fn unions_at<'a>(
    schema: &'a Value,
    root: &'a Map<String, Value>,
) -> Vec<Vec<&'a Value>> {
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
pub(super) fn chosen_branch(branches: &[&Value], sent: &Value) -> Option<usize> {
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
pub(super) fn untagged_shapes(branches: &[&Value]) -> Option<Vec<String>> {
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
