//! Tables kept for the life of the process, one per `'static` declaration (a type's fields,
//! an enum's names, a field's fix text): built the first time they are needed and lent after,
//! so that validating a call words nothing its declaration already fixes.

use std::any::Any;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use foldhash::fast::FixedState;

/// Tables built once per `'static` description and kept for the life of the process, by the
/// description's address and length: there is one description per declared type, so they are
/// few. The length is part of the key because two slices may start at one address (a prefix,
/// or identical constants merged), and a table built for the shorter would lose candidates.
///
/// Each thread remembers the tables it has looked up (see [`NEAR`]), so that a lookup after
/// the first takes no lock: a rejected call looks up a dozen texts and tables, and the lock's
/// atomic operations were a tenth of its time.
pub(crate) struct Tables<T: 'static>(RwLock<HashMap<(usize, usize), &'static T, FixedState>>);

/// A table a thread remembers, by the address of its [`Tables`] and its key.
type Near = HashMap<(usize, usize, usize), &'static (dyn Any + Send + Sync), FixedState>;

/// The most tables a thread remembers; past it, lookups take the lock.
const NEAR_TABLES: usize = 4096;

thread_local! {
    /// The tables this thread looked up.
    static NEAR: RefCell<Near> = const { RefCell::new(HashMap::with_hasher(FixedState::with_seed(0))) };
}

impl<T: Any + Send + Sync> Tables<T> {
    pub(crate) const fn new() -> Self {
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
    pub(crate) fn get(
        &'static self,
        address: usize,
        len: usize,
        build: impl FnOnce() -> T,
    ) -> &'static T {
        self.get_bounded((address, len), usize::MAX, build)
            .unwrap_or_else(|_| unreachable!("a table without a cap is always kept"))
    }
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
}
