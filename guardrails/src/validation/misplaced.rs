//! Misplaced fields: an unknown key that is a field at another level of the arguments type
//! (`quantity` at the top level when it belongs in each item of `lines`, `search` beside
//! `filter` instead of inside it), found from the field tree the derive declares.
//!
//! Places are written as templates: field names joined by `.`, `[]` for "each item of", so
//! that `lines[3].quantity` and the place `lines[].quantity` compare equal once indices are
//! dropped ([`template_of`]).
//!
//! The places of an arguments type, with each field's name in the form did-you-mean compares,
//! depend on the type alone: they are found once per type ([`places_of`]), and an unknown key
//! is then looked up in them without allocating until its message is worded.

use std::any::Any;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use foldhash::fast::FixedState;

use super::info::{ArgsInfo, FieldInfo, Kind};
use crate::text::{closest, normalize};

/// How deep the field tree is searched: far deeper than any argument type a model fills in,
/// and with [`MAX_PLACES`] a bound on the walk of recursive types.
const MAX_DEPTH: usize = 8;

/// The most places collected.
const MAX_PLACES: usize = 1024;

/// A field of the tree under an arguments type: the template of its container (`""` for the top
/// level, `filter`, `lines[]`), the field, and its name as did-you-mean compares it.
#[derive(Debug)]
pub(crate) struct Place {
    pub(crate) container: Box<str>,
    pub(crate) field: &'static FieldInfo,
    normalized: Box<str>,
}

/// Tables built once per `'static` description and kept for the life of the process, by the
/// description's address and length: there is one description per declared type, so they are
/// few. The length is part of the key because two slices may start at one address (a prefix,
/// or identical constants merged), and a table built for the shorter would lose candidates.
///
/// Each thread remembers the tables it has looked up (see [`NEAR`]), so that a lookup after
/// the first takes no lock: a rejected call looks up a dozen texts and tables, and the lock's
/// atomic operations were a tenth of its time.
struct Tables<T: 'static>(RwLock<HashMap<(usize, usize), &'static T, FixedState>>);

/// A table a thread remembers, by the address of its [`Tables`] and its key.
type Near = HashMap<(usize, usize, usize), &'static (dyn Any + Send + Sync), FixedState>;

/// The most tables a thread remembers; past it, lookups take the lock.
const NEAR_TABLES: usize = 4096;

thread_local! {
    /// The tables this thread looked up.
    static NEAR: RefCell<Near> = const { RefCell::new(HashMap::with_hasher(FixedState::with_seed(0))) };
}

impl<T: Any + Send + Sync> Tables<T> {
    const fn new() -> Self {
        Self(RwLock::new(HashMap::with_hasher(FixedState::with_seed(0))))
    }

    /// The table at `key`, if it was built.
    fn find(&'static self, key: (usize, usize)) -> Option<&'static T> {
        let near = (std::ptr::from_ref(self) as usize, key.0, key.1);
        // A thread that is ending has no memory of its own left: the lock is taken there.
        let remembered = NEAR
            .try_with(|tables| {
                tables
                    .borrow()
                    .get(&near)
                    .and_then(|table| table.downcast_ref::<T>())
            })
            .ok()
            .flatten();
        if remembered.is_some() {
            return remembered;
        }
        let found = self
            .0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .copied()?;
        let _ = NEAR.try_with(|tables| {
            let mut tables = tables.borrow_mut();
            if tables.len() < NEAR_TABLES {
                tables.insert(near, found);
            }
        });
        Some(found)
    }

    /// The table at `key`, built by `build` the first time while fewer than `cap` are kept;
    /// past that, built anew and not kept.
    fn get_bounded(
        &'static self,
        key: (usize, usize),
        cap: usize,
        build: impl FnOnce() -> T,
    ) -> Result<&'static T, T> {
        if let Some(table) = self.find(key) {
            return Ok(table);
        }
        let table = build();
        let mut tables = self.0.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(kept) = tables.get(&key) {
            return Ok(kept);
        }
        if tables.len() >= cap {
            return Err(table);
        }
        let kept: &'static T = Box::leak(Box::new(table));
        tables.insert(key, kept);
        Ok(kept)
    }

    /// The table of the description at `address` of `len` items, built by `build` the first
    /// time.
    fn get(&'static self, address: usize, len: usize, build: impl FnOnce() -> T) -> &'static T {
        self.get_bounded((address, len), usize::MAX, build)
            .unwrap_or_else(|_| unreachable!("a table without a cap is always kept"))
    }
}

/// The places of every field of the tree under `root` (see [`places`]), found once per type.
pub(crate) fn places_of(root: &'static ArgsInfo) -> &'static [Place] {
    static PLACES: Tables<Box<[Place]>> = Tables::new();
    PLACES.get(std::ptr::from_ref(root) as usize, 1, || {
        places(root)
            .into_iter()
            .map(|(container, field)| Place {
                container: container.into_boxed_str(),
                field,
                normalized: normalize(field.name).into_boxed_str(),
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

/// The most texts a [`TextTable`] keeps: one per declaration (a field of a type, an enum, a
/// format), so a program reaches it only by building descriptions at run time, whose texts are
/// then worded per call.
const MAX_DECLARED_TEXTS: usize = 4096;

/// Texts that depend on a declaration alone (the fix of a field, the message of an enum), by
/// the addresses of the `'static` parts they are worded from: worded the first time, borrowed
/// after, so that a rejected call allocates only for what it sent.
pub(crate) struct TextTable(Tables<Box<str>>);

impl TextTable {
    pub(crate) const fn new() -> Self {
        Self(Tables::new())
    }

    /// The text at `key`, worded by `word` the first time; past [`MAX_DECLARED_TEXTS`], worded
    /// anew each time and not kept.
    pub(crate) fn text(
        &'static self,
        key: (usize, usize),
        word: impl FnOnce() -> String,
    ) -> Cow<'static, str> {
        match self
            .0
            .get_bounded(key, MAX_DECLARED_TEXTS, || word().into_boxed_str())
        {
            Ok(text) => Cow::Borrowed(text),
            Err(text) => Cow::Owned(text.into_string()),
        }
    }
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
pub(crate) fn find(
    places: &'static [Place],
    here: &str,
    key: &str,
    near_misses: bool,
) -> Option<Vec<&'static Place>> {
    let elsewhere = || places.iter().filter(|place| !same(&place.container, here));
    let exact: Vec<&'static Place> = elsewhere()
        .filter(|place| place.field.name == key || place.field.rust_name == key)
        .collect();
    if !exact.is_empty() {
        return Some(exact);
    }
    if !near_misses {
        return None;
    }
    let best = closest(
        key,
        elsewhere().map(|place| (place.field.name, Cow::Borrowed(&*place.normalized))),
    )?;
    Some(
        elsewhere()
            .filter(|place| place.field.name == best)
            .collect(),
    )
}

/// Whether two containers are the same, compared byte by byte: most are short or empty (the
/// top level), and every unknown key compares each place's, where a call into the C library's
/// `memcmp` per comparison was a quarter of the time of rejecting a call with an unknown key.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// The template of a place's field: `lines[].quantity`.
pub(crate) fn field_template(container: &str, field: &FieldInfo) -> String {
    let mut out = container.to_owned();
    super::report::push_key(&mut out, field.name);
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
pub(crate) fn field_of(container: &str) -> String {
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
pub(crate) fn example_path(container: &str, field: &FieldInfo) -> String {
    field_template(container, field).replace("[]", "[i]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_table_lends_each_text_once_worded_and_words_anew_past_its_cap() {
        static TEXTS: TextTable = TextTable::new();
        let first = TEXTS.text((1, 1), || "first".to_owned());
        let again = TEXTS.text((1, 1), || unreachable!("a kept text is not worded again"));
        assert!(matches!(first, Cow::Borrowed("first")), "{first:?}");
        assert!(matches!(again, Cow::Borrowed("first")), "{again:?}");
        // Keys differing in either part are texts of their own.
        assert_eq!(TEXTS.text((1, 2), || "second".to_owned()), "second");
        assert_eq!(TEXTS.text((2, 1), || "third".to_owned()), "third");
        for n in 0..MAX_DECLARED_TEXTS {
            let _ = TEXTS.text((10, n), || n.to_string());
        }
        // Full: a new key's text is still right, only no longer kept.
        let past = TEXTS.text((11, 0), || "past the cap".to_owned());
        assert!(
            matches!(past, Cow::Owned(ref text) if text == "past the cap"),
            "{past:?}"
        );
        assert!(matches!(
            TEXTS.text((1, 1), || unreachable!()),
            Cow::Borrowed("first")
        ));
    }

    #[test]
    fn a_table_is_kept_per_slice_not_per_start_address() {
        static ITEMS: [u8; 3] = [1, 2, 3];
        static TABLES: Tables<Box<[u8]>> = Tables::new();
        let table = |items: &'static [u8]| {
            TABLES.get(items.as_ptr() as usize, items.len(), || items.into())
        };
        // A prefix starts where the whole does: each gets the table of its own items.
        assert_eq!(**table(&ITEMS[..2]), [1, 2]);
        assert_eq!(**table(&ITEMS), [1, 2, 3]);
        assert_eq!(**table(&ITEMS[..2]), [1, 2]);
    }

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
