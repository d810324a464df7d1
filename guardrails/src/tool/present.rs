//! Presentation: what a successful result looks like to the model, and how big it may get.
//!
//! - **Agent limit.** A tool whose output is a collection ([`Truncate`]) and that declares
//!   `agent_limit = N` shows at most `N` items. Only those are serialized: the cost of
//!   presenting does not depend on the size of the collection. The structured result is
//!   `{"items": […], "shown": n, "total": t}`, and when items were left out a teaching block
//!   follows the data: how many are shown of how many, why, and the tool's own filter
//!   parameters with the values they accept, read from its arguments type (or the tool's own
//!   hint).
//! - **Byte cap and token budget.** `max_bytes = N` and `max_tokens = N` bound any payload (its
//!   JSON text; tokens as [`estimate_tokens`] counts them): a collection keeps the items that
//!   fit, text is cut at a character boundary, and both say so. A JSON object cannot be cut and
//!   stay valid, so one that is too large is replaced by an error telling the model to filter.
//!   A page of a `paged` tool always ends at an item, and one item larger than the budget on
//!   its own is shown cut, so that its cursor can go on past it.

use std::collections::VecDeque;

use serde::Serialize;

use crate::message::TruncationNotice;
use crate::render::RenderOptions;
use crate::tool::Teaching;

pub use crate::message::truncation::{Filter, Truncated};
pub use crate::tool::budget::estimate_tokens;

/// A collection the agent limit can cut. Implemented for `Vec<T>`, `&[T]`, `Box<[T]>`,
/// `VecDeque<T>`, iterators wrapped in [`Iter`] and pages of them ([`Paged`]); implement it for a type of yours to say how
/// it is cut.
///
/// ```
/// use guardrails::present::Truncate;
///
/// struct Page { rows: Vec<String>, total_in_db: usize }
///
/// impl Truncate for Page {
///     type Item = String;
///     fn head(mut self, limit: usize) -> (Vec<String>, usize) {
///         self.rows.truncate(limit);
///         (self.rows, self.total_in_db)
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`agent_limit` needs a collection result, and `{Self}` is not one",
    label = "the result of this tool does not implement `Truncate`",
    note = "return a `Vec`, a slice, a `VecDeque`, an iterator wrapped in `guardrails::present::Iter` or `guardrails::present::Paged`, or implement `Truncate` for your type"
)]
pub trait Truncate {
    /// The items, as serialized.
    type Item: Serialize;

    /// Keeps at most `limit` items, the first ones, and counts the whole collection: the items
    /// kept and the number of items in the whole collection. Keep the cost independent of the
    /// items past `limit`.
    fn head(self, limit: usize) -> (Vec<Self::Item>, usize);

    /// Keeps at most `limit` items after the first `offset`, and counts the whole collection:
    /// a page of a `paged` tool. The items before `offset` are dropped unserialized; override
    /// it when your type can skip them for less.
    fn page(self, offset: usize, limit: usize) -> (Vec<Self::Item>, usize)
    where
        Self: Sized,
    {
        let (mut items, total) = self.head(offset.saturating_add(limit));
        items.drain(..offset.min(items.len()));
        (items, total)
    }
}

impl<T: Serialize> Truncate for Vec<T> {
    type Item = T;
    fn head(mut self, limit: usize) -> (Vec<T>, usize) {
        let total = self.len();
        self.truncate(limit);
        (self, total)
    }
}

impl<T: Serialize> Truncate for Box<[T]> {
    type Item = T;
    fn head(self, limit: usize) -> (Vec<T>, usize) {
        self.into_vec().head(limit)
    }
}

impl<'a, T: Serialize> Truncate for &'a [T] {
    type Item = &'a T;
    fn head(self, limit: usize) -> (Vec<&'a T>, usize) {
        (self.iter().take(limit).collect(), self.len())
    }
}

impl<T: Serialize> Truncate for VecDeque<T> {
    type Item = T;
    fn head(mut self, limit: usize) -> (Vec<T>, usize) {
        let total = self.len();
        self.truncate(limit);
        (self.into(), total)
    }
}

/// An iterator as a result collection: `Iter(tasks.iter().filter(…))`. Items past the limit
/// are counted, never serialized; an iterator that knows its exact length is not even walked.
#[derive(Debug, Clone)]
pub struct Iter<I>(pub I);

impl<I> Truncate for Iter<I>
where
    I: Iterator,
    I::Item: Serialize,
{
    type Item = I::Item;
    fn head(self, limit: usize) -> (Vec<I::Item>, usize) {
        let mut iter = self.0;
        let items: Vec<I::Item> = iter.by_ref().take(limit).collect();
        let rest = match iter.size_hint() {
            (low, Some(high)) if low == high => low,
            _ => iter.count(),
        };
        let total = items.len() + rest;
        (items, total)
    }
}

/// An iterator paged from an offset, for a tool with an `offset` argument:
/// `Paged::new(tasks.iter().filter(…), args.offset)`. The items before `offset` are skipped,
/// the next ones shown up to the limit, and `total` counts every item, the skipped ones too:
/// a model paging through a result is told how many there are in all, the same on every page.
/// Skipped items are counted, never serialized.
///
/// ```
/// use guardrails::present::{Paged, Truncate};
///
/// let (items, total) = Paged::new(1..=120, 100).head(50);
/// assert_eq!(items, (101..=120).collect::<Vec<_>>());
/// assert_eq!(total, 120);
/// ```
#[derive(Debug, Clone)]
pub struct Paged<I> {
    iter: I,
    offset: usize,
}

impl<I> Paged<I> {
    /// The items of `iter` from `offset` on (an offset past the end shows nothing).
    pub fn new(iter: I, offset: impl TryInto<usize>) -> Self {
        Self {
            iter,
            offset: offset.try_into().unwrap_or(usize::MAX),
        }
    }
}

impl<I> Truncate for Paged<I>
where
    I: Iterator,
    I::Item: Serialize,
{
    type Item = I::Item;
    fn head(self, limit: usize) -> (Vec<I::Item>, usize) {
        let mut iter = self.iter;
        let skipped = iter.by_ref().take(self.offset).count();
        let (items, total) = Iter(iter).head(limit);
        (items, skipped + total)
    }
}

/// The teaching block of a truncated result, in the format of `options`: the tool's filters,
/// the author's hint, or what the author's function writes.
#[must_use]
pub(crate) fn teaching_block(
    t: &Truncated<'_>,
    teaching: Teaching,
    options: &RenderOptions,
) -> String {
    match teaching {
        Teaching::Teach(teach) => teach(t),
        Teaching::Hint(hint) => {
            crate::render::truncation(&TruncationNotice::new(t, Some(hint)), options)
        }
        Teaching::Filters => crate::render::truncation(&TruncationNotice::new(t, None), options),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterators_count_without_collecting_the_rest() {
        assert_eq!(Iter(0..1_000_000u32).head(3), (vec![0, 1, 2], 1_000_000));
        let evens = Iter((0..10u32).filter(|n| n % 2 == 0)).head(2);
        assert_eq!(evens, (vec![0, 2], 5));
    }

    #[test]
    fn a_page_counts_every_item_the_skipped_ones_too() {
        assert_eq!(Paged::new(0..10, 4u32).head(3), (vec![4, 5, 6], 10));
        assert_eq!(Paged::new(0..10, 25u64).head(3), (vec![], 10));
        let (all, total) = Paged::new(0..10, 0usize).head(50);
        assert_eq!((all.len(), total), (10, 10));
    }
}
