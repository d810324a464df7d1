//! Where the fields of a schema live, as the derive's field tree gives them for a struct: what a
//! key sent at the wrong level is looked up in (see `misplaced.rs`). Read once per schema, beside
//! the validator.

use std::borrow::Cow;

use serde_json::Value;

use super::lookup::{resolve, types_of};
use super::representation::{Variants, unions_at, variants_of};
use crate::validation::misplaced::{self, Place as FieldPlace};
use crate::validation::report::push_key;

/// The places of the fields of the strict schema `document`, as the derive's field tree gives
/// them (see `misplaced.rs`): each property of an object with the template of its container,
/// nearest the top first; the variants' fields where their enum's representation puts them
/// (beside the tag, in the content, under the variant's key), the keys of the representation
/// (tags, contents, variants' keys) not fields themselves. Maps are not entered: their keys are
/// data, not places.
pub(super) fn schema_places(document: &Value) -> Box<[FieldPlace]> {
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
                                push_key(&mut place, key);
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
                                push_key(&mut place, content);
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
                push_key(&mut inner, name);
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
