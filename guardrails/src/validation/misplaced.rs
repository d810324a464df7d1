//! Misplaced fields: an unknown key that is a field at another level of the arguments type
//! (`quantity` at the top level when it belongs in each item of `lines`, `search` beside
//! `filter` instead of inside it), found from the places of the fields: those of the field tree
//! the derive declares ([`places_of`]), or those of a JSON Schema (built by
//! `json_schema/places.rs` with [`Place::new`]). One search and one wording serve both.
//!
//! Places are written as templates: field names joined by `.`, `[]` for "each item of", so
//! that `lines[3].quantity` and the place `lines[].quantity` compare equal once indices are
//! dropped ([`template_of`]).
//!
//! The places of an arguments type, with each field's name in the form did-you-mean compares,
//! depend on the type alone: they are found once per type ([`places_of`]), and an unknown key
//! is then looked up in them without allocating until its message is worded.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::info::{ArgsInfo, FieldInfo, Kind};
use super::report::Issue;
use super::report::IssueCode;
use super::tables::Tables;
use crate::text::{closest, normalize};

/// How deep the field tree is searched: far deeper than any argument type a model fills in,
/// and with [`MAX_PLACES`] a bound on the walk of recursive types.
pub(crate) const MAX_DEPTH: usize = 8;

/// The most places collected.
pub(crate) const MAX_PLACES: usize = 1024;

/// A field of the tree under an arguments type: the template of its container (`""` for the top
/// level, `filter`, `lines[]`), the field's wire name and Rust name, whether its value is
/// sensitive, and its name as did-you-mean compares it.
#[derive(Debug)]
pub(crate) struct Place {
    pub(crate) container: Box<str>,
    pub(crate) name: Cow<'static, str>,
    rust_name: Cow<'static, str>,
    pub(crate) sensitive: bool,
    normalized: Box<str>,
}

impl Place {
    /// The field `name` (`rust_name` in Rust, the same for a field known by its schema) of the
    /// container template `container`.
    pub(crate) fn new(
        container: String,
        name: Cow<'static, str>,
        rust_name: Cow<'static, str>,
        sensitive: bool,
    ) -> Self {
        Self {
            container: container.into_boxed_str(),
            normalized: normalize(&name).into_boxed_str(),
            name,
            rust_name,
            sensitive,
        }
    }
}

/// The places of every field of the tree under `root` (see [`places`]), found once per type.
pub(crate) fn places_of(root: &'static ArgsInfo) -> &'static [Place] {
    static PLACES: Tables<Box<[Place]>> = Tables::new();
    PLACES.get(std::ptr::from_ref(root) as usize, 1, || {
        places(root)
            .into_iter()
            .map(|(container, field)| {
                Place::new(
                    container,
                    Cow::Borrowed(field.name),
                    Cow::Borrowed(field.rust_name),
                    field.sensitive,
                )
            })
            .collect()
    })
}

/// The names of `fields` as did-you-mean compares them, in order, found once per type.
pub(crate) fn normalized_names(fields: &'static [FieldInfo]) -> &'static [Box<str>] {
    static NAMES: Tables<Box<[Box<str>]>> = Tables::new();
    // A slice of a type with no field has no address of its own: it needs no table.
    if fields.is_empty() {
        return &[];
    }
    NAMES.get(fields.as_ptr() as usize, fields.len(), || {
        fields
            .iter()
            .map(|field| normalize(field.name).into_boxed_str())
            .collect()
    })
}

/// A text of `fields` (the fields of one type), worded by `word` once per type. `word`
/// depends on the fields alone, and a caller words the text of no field itself: the slices
/// of types with no field may share an address, and so one text.
pub(crate) fn fields_text(
    fields: &'static [FieldInfo],
    word: impl FnOnce() -> String,
) -> &'static str {
    static TEXTS: Tables<Box<str>> = Tables::new();
    TEXTS.get(fields.as_ptr() as usize, fields.len(), || {
        word().into_boxed_str()
    })
}

/// A text of the names `names` (the variants of one enum), worded by `word` once per enum.
/// `word` depends on the names alone: two empty lists may share an address, and so one text.
pub(crate) fn list_text(
    names: &'static [&'static str],
    word: impl FnOnce() -> String,
) -> &'static str {
    static TEXTS: Tables<Box<str>> = Tables::new();
    TEXTS.get(names.as_ptr() as usize, names.len(), || {
        word().into_boxed_str()
    })
}

/// Every field of the tree under `root` with the template of its container (`""` for the top
/// level, `filter`, `lines[]`), nearest the top first. Maps are not entered: their keys are
/// data, not places.
fn places(root: &'static ArgsInfo) -> Vec<(String, &'static FieldInfo)> {
    let mut out = Vec::new();
    let mut level: Vec<(String, &'static ArgsInfo)> = vec![(String::new(), root)];
    // A type may sit at several places (`card` and `cards[]`); a recursive one at every
    // depth, which the bounds cut.
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for (container, info) in &level {
            // The variants of a flattened enum: their fields sit beside the holder's own, or
            // in its content.
            for flattened in info.flattened {
                for (key, nested) in flattened.field_places() {
                    let mut place = container.clone();
                    if let Some(key) = key {
                        super::report::push_key(&mut place, key);
                    }
                    next.push((place, nested));
                }
            }
            for field in info.wire_fields() {
                if out.len() == MAX_PLACES {
                    return out;
                }
                out.push((container.clone(), field));
                let mut inner = container.clone();
                super::report::push_key(&mut inner, field.name);
                let mut kind = (field.kind)();
                while let Kind::Array(item) = kind {
                    inner.push_str("[]");
                    kind = *item;
                }
                match kind {
                    Kind::Object(nested) => next.push((inner, nested)),
                    // The fields of every variant, where the enum's representation puts them.
                    Kind::Variants(variants) => {
                        for (key, nested) in variants.field_places() {
                            let mut place = inner.clone();
                            if let Some(key) = key {
                                super::report::push_key(&mut place, key);
                            }
                            next.push((place, nested));
                        }
                    }
                    _ => {}
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    out
}

/// Where an unknown key at the container `here` (a template) belongs, when it names a field
/// at another level: the places of that field, exact matches first, else the places of the
/// closest name by did-you-mean. `None` when no other level has such a field.
pub(crate) fn find<'p>(
    places: &'p [Place],
    here: &str,
    key: &str,
    near_misses: bool,
) -> Option<Vec<&'p Place>> {
    let elsewhere = || places.iter().filter(|place| !same(&place.container, here));
    let exact: Vec<&'p Place> = elsewhere()
        .filter(|place| place.name == key || place.rust_name == key)
        .collect();
    if !exact.is_empty() {
        return Some(exact);
    }
    if !near_misses {
        return None;
    }
    let best = closest(
        key,
        elsewhere().map(|place| (&*place.name, Cow::Borrowed(&*place.normalized))),
    )?;
    Some(elsewhere().filter(|place| place.name == best).collect())
}

/// What an unknown key that is a field at other `places` is told: the message, the fix,
/// whether its value is sensitive there, and the template of its one place (none when it has
/// several), where a missing-field issue can refer to it ([`note_moves`]).
pub(crate) struct Moved {
    pub(crate) message: String,
    pub(crate) fix: String,
    pub(crate) sensitive: bool,
    pub(crate) to: Option<String>,
}

/// The texts of `key`, not a field where it was sent (`not_a_field` says so), and a field at
/// `places`: its exact name there (`exact`), or a near miss of it.
pub(crate) fn moved(not_a_field: &str, key: &str, places: &[&Place], exact: bool) -> Moved {
    let shown = &places[..places.len().min(3)];
    let wheres: Vec<String> = shown
        .iter()
        .map(|place| field_of(&place.container))
        .collect();
    let wheres = wheres.join(" and ");
    let name = &*shown[0].name;
    let there = if shown.len() == 1 {
        "there"
    } else {
        "to the one you meant"
    };
    let message = if exact && name == key {
        format!("{not_a_field} `{name}` is {wheres}: move it {there}.")
    } else {
        format!("{not_a_field} Did you mean `{name}`, {wheres}? Move it {there}.")
    };
    let paths: Vec<String> = shown
        .iter()
        .map(|place| format!("`{}`", example_path(&place.container, &place.name)))
        .collect();
    let fix = format!("Remove it here and send it as {}.", paths.join(" or "));
    let to = match shown {
        [place] => Some(field_template(&place.container, &place.name)),
        _ => None,
    };
    Moved {
        message,
        fix,
        sensitive: shown.iter().any(|place| place.sensitive),
        to,
    }
}

/// Adds to each missing-field issue of `issues` that a misplaced key belongs to where it was
/// sent: `moves` holds the template of each such key's place, and its path.
pub(crate) fn note_moves<'i>(
    issues: impl Iterator<Item = &'i mut Issue>,
    moves: &[(String, String)],
) {
    if moves.is_empty() {
        return;
    }
    for issue in issues {
        if issue.code != IssueCode::Missing {
            continue;
        }
        let template = template_of(&issue.path);
        if let Some((_, sent)) = moves.iter().find(|(to, _)| *to == template) {
            let _ = write!(
                issue.message.to_mut(),
                " It was sent as `{sent}` instead: move it here."
            );
        }
    }
}

/// Whether two containers are the same, compared byte by byte: most are short or empty (the
/// top level), and every unknown key compares each place's, where a call into the C library's
/// `memcmp` per comparison was a quarter of the time of rejecting a call with an unknown key.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// The template of a place's field: `lines[].quantity`.
fn field_template(container: &str, name: &str) -> String {
    let mut out = container.to_owned();
    super::report::push_key(&mut out, name);
    out
}

/// The template of an issue path: array indices dropped (`lines[3].quantity` →
/// `lines[].quantity`).
pub(crate) fn template_of(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after.as_bytes().get(digits) == Some(&b']') {
            out.push_str("[]");
            rest = &after[digits + 1..];
        } else {
            out.push('[');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// "a field of each item of `lines`", "a field of `filter`", or "a top-level field of this
/// tool": what a field of a container template is, in words.
fn field_of(container: &str) -> String {
    if container.is_empty() {
        return "a top-level field of this tool".to_owned();
    }
    let mut each = 0;
    let mut base = container;
    while let Some(inner) = base.strip_suffix("[]") {
        each += 1;
        base = inner;
    }
    let base = crate::text::code_span(base);
    match each {
        0 => format!("a field of {base}"),
        1 => format!("a field of each item of {base}"),
        _ => format!("a field of each innermost item of {base}"),
    }
}

/// The path a model writes for a place's field, with `[i]` for "any item": `lines[i].quantity`.
fn example_path(container: &str, name: &str) -> String {
    field_template(container, name).replace("[]", "[i]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_drop_indices_only() {
        assert_eq!(template_of("lines[3].quantity"), "lines[].quantity");
        assert_eq!(template_of("a[0][12].b"), "a[][].b");
        assert_eq!(template_of("quantity"), "quantity");
        assert_eq!(template_of("a[x]"), "a[x]");
    }

    #[test]
    fn containers_in_words() {
        assert_eq!(field_of(""), "a top-level field of this tool");
        assert_eq!(field_of("filter"), "a field of `filter`");
        assert_eq!(field_of("lines[]"), "a field of each item of `lines`");
        assert_eq!(
            field_of("order.lines[]"),
            "a field of each item of `order.lines`"
        );
        assert_eq!(
            field_of("grid[][]"),
            "a field of each innermost item of `grid`"
        );
    }
}
