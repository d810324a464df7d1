//! Truncated results: which items were left out and why, and how the model narrows its next call
//! with the tool's own filters instead of repeating it.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Serialize;

use crate::text::count;
use crate::validation::{ArgsInfo, FieldInfo};

/// Field names read as paging rather than filtering. Matched by name, because nothing in a
/// field's type says that it pages.
const PAGING_FIELDS: &[&str] = &[
    "limit",
    "offset",
    "page",
    "page_size",
    "per_page",
    "cursor",
    "page_token",
    "skip",
    "take",
    "after",
];

/// One filter parameter of a tool and the values it accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Filter {
    /// The parameter's name.
    pub name: Cow<'static, str>,
    /// What it accepts, e.g. `one of "todo", "done"`.
    pub accepts: String,
}

/// What a teaching block is about: a result that did not show every item. Why it was cut
/// (the agent limit, the byte cap or the token budget) is in [`Truncated::reason`].
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Truncated<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// How many items are shown.
    pub shown: usize,
    /// How many items the whole result holds.
    pub total: usize,
    /// The tool's agent limit.
    pub limit: usize,
    /// Whether the byte cap cut the result below the agent limit.
    pub(crate) by_bytes: bool,
    /// Whether the token budget cut the result below the agent limit.
    pub(crate) by_tokens: bool,
    /// The tool's arguments.
    pub(crate) args: &'static ArgsInfo,
}

impl Truncated<'_> {
    /// The tool's filter parameters: its optional fields that do not page, each with the
    /// values it accepts.
    #[must_use]
    pub fn filters(&self) -> Vec<Filter> {
        filters(self.args)
    }

    /// The tool's paging parameters (optional fields named `offset`, `cursor`, `page`…).
    #[must_use]
    pub fn paging(&self) -> Vec<&'static str> {
        self.args
            .wire_fields()
            .filter(|f| !f.required && is_paging(f))
            .map(|f| f.name)
            .collect()
    }

    /// The limit that cut the result below the agent limit, as the model reads it.
    #[must_use]
    pub(crate) fn budget_name(&self) -> &'static str {
        if self.by_tokens {
            "token budget"
        } else {
            "size cap"
        }
    }

    /// Why items were left out, in one sentence.
    #[must_use]
    pub fn reason(&self) -> String {
        if self.by_bytes || self.by_tokens {
            format!(
                "Only {} of {} fit within this tool's {}.",
                self.shown,
                count(self.total, "item", "items"),
                self.budget_name()
            )
        } else {
            format!(
                "This tool returns at most {} per call, so {} of {} are shown.",
                count(self.limit, "item", "items"),
                self.shown,
                self.total
            )
        }
    }
}

fn is_paging(field: &FieldInfo) -> bool {
    paging_name(field.name).is_some()
}

/// `name` as a paging parameter's name (`offset`, `cursor`, `page`…), or `None` when it filters.
#[must_use]
pub(crate) fn paging_name(name: &str) -> Option<&'static str> {
    PAGING_FIELDS.iter().copied().find(|p| *p == name)
}

/// The filter parameters of an arguments type: its optional fields that do not page.
#[must_use]
pub(crate) fn filters(args: &ArgsInfo) -> Vec<Filter> {
    args.wire_fields()
        .filter(|f| !f.required && !is_paging(f))
        .map(|f| Filter {
            name: Cow::Borrowed(f.name),
            accepts: f.fix(),
        })
        .collect()
}

/// The teaching block after a truncated result: what happened, the filters, what to do.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub(crate) struct TruncationNotice<'a> {
    /// What was shown of what.
    pub truncated: &'a Truncated<'a>,
    /// Why items were left out.
    pub reason: String,
    /// The filters the model can narrow the next call with (empty when the tool's author gave
    /// a hint instead).
    pub filters: Vec<Filter>,
    /// The paging parameters.
    pub paging: Vec<&'static str>,
    /// What to do next.
    pub recovery: String,
}

impl<'a> TruncationNotice<'a> {
    /// The notice of `truncated`, teaching the tool's filters, or the author's `hint` instead.
    #[must_use]
    pub(crate) fn new(truncated: &'a Truncated<'a>, hint: Option<&str>) -> Self {
        let filters = if hint.is_some() {
            Vec::new()
        } else {
            truncated.filters()
        };
        let mut notice = Self::with_parameters(truncated, filters, truncated.paging());
        if let Some(hint) = hint {
            hint.clone_into(&mut notice.recovery);
        }
        notice
    }

    /// The notice of `truncated` teaching the given `filters` and `paging` parameters, for a
    /// tool whose parameters are not declared by an arguments type (a tool known only by its
    /// JSON Schema).
    #[must_use]
    pub(crate) fn with_parameters(
        truncated: &'a Truncated<'a>,
        filters: Vec<Filter>,
        paging: Vec<&'static str>,
    ) -> Self {
        let recovery = recovery_text(truncated.tool, &filters, &paging);
        Self {
            truncated,
            reason: truncated.reason(),
            filters,
            paging,
            recovery,
        }
    }
}

fn recovery_text(tool: &str, filters: &[Filter], paging: &[&str]) -> String {
    let mut out = if filters.is_empty() {
        format!("{tool} has no filter parameters; work with the items shown")
    } else {
        format!(
            "Call {tool} again with one or more of these filters to narrow the results, instead of repeating the same call"
        )
    };
    if !paging.is_empty() {
        let _ = write!(out, ", or use {} to see the next items", paging.join(" / "));
    }
    out.push('.');
    out
}

/// A text result cut to the tool's byte cap.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub(crate) struct ByteCut<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// How many bytes are shown.
    pub shown: usize,
    /// How many bytes the whole result holds.
    pub total: usize,
    /// What to do instead.
    pub advice: String,
}

/// What to do about a result that is too large: the tool's filters, or paging.
#[must_use]
pub(crate) fn refine_advice(args: &ArgsInfo) -> String {
    refine_advice_with(&filters(args))
}

/// What to do about a result that is too large, given the tool's filters.
#[must_use]
pub(crate) fn refine_advice_with(filters: &[Filter]) -> String {
    if filters.is_empty() {
        "Ask for less: call the tool again with narrower arguments or a smaller page.".to_owned()
    } else {
        let names: Vec<&str> = filters.iter().map(|f| &*f.name).collect();
        format!(
            "Call the tool again with filters ({}) or a smaller page.",
            names.join(", ")
        )
    }
}
