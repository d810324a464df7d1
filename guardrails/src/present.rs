//! Presentation: what a successful result looks like to the model, and how big it may get.
//!
//! - **Agent limit.** A tool whose output is a collection ([`Truncate`]) and that declares
//!   `agent_limit = N` shows at most `N` items. Only those are serialized: the cost of
//!   presenting does not depend on the size of the collection. The structured result is
//!   `{"items": […], "shown": n, "total": t}`, and when items were left out a teaching block
//!   follows the data: how many are shown of how many, why, and the tool's own filter
//!   parameters with the values they accept, read from its arguments type (or the tool's own
//!   hint).
//! - **Byte cap.** `max_bytes = N` bounds any payload: a collection keeps the items that fit,
//!   text is cut at a character boundary, and both say so. A JSON object cannot be cut and stay
//!   valid, so one that is too large is replaced by an error telling the model to filter.

use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io;

use crate::error::ToolError;
use crate::render::{RenderFormat, RenderOptions, code_span, escape_xml, escape_xml_attr};
use crate::tool::{CallOutput, Teaching, ToolSpec, Verdict};
use crate::validation::{ArgsInfo, FieldInfo};

/// The first items of a collection and how many it holds in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head<T> {
    /// The items kept, at most the limit.
    pub items: Vec<T>,
    /// The number of items in the whole collection.
    pub total: usize,
}

/// A collection the agent limit can cut. Implemented for `Vec<T>`, `&[T]`, `Box<[T]>`,
/// `VecDeque<T>` and iterators wrapped in [`Iter`]; implement it for a type of yours to say how
/// it is cut.
///
/// ```
/// use guardrails::present::{Head, Truncate};
///
/// struct Page { rows: Vec<String>, total_in_db: usize }
///
/// impl Truncate for Page {
///     type Item = String;
///     fn head(mut self, limit: usize) -> Head<String> {
///         self.rows.truncate(limit);
///         Head { items: self.rows, total: self.total_in_db }
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`agent_limit` needs a collection result, and `{Self}` is not one",
    label = "the result of this tool does not implement `Truncate`",
    note = "return a `Vec`, a slice, a `VecDeque`, an iterator wrapped in `guardrails::present::Iter`, or implement `Truncate` for your type"
)]
pub trait Truncate {
    /// The items, as serialized.
    type Item: Serialize;

    /// Keeps at most `limit` items, the first ones, and counts the whole collection. Keep the
    /// cost independent of the items past `limit`.
    fn head(self, limit: usize) -> Head<Self::Item>;
}

impl<T: Serialize> Truncate for Vec<T> {
    type Item = T;
    fn head(mut self, limit: usize) -> Head<T> {
        let total = self.len();
        self.truncate(limit);
        Head { items: self, total }
    }
}

impl<T: Serialize> Truncate for Box<[T]> {
    type Item = T;
    fn head(self, limit: usize) -> Head<T> {
        self.into_vec().head(limit)
    }
}

impl<'a, T: Serialize> Truncate for &'a [T] {
    type Item = &'a T;
    fn head(self, limit: usize) -> Head<&'a T> {
        Head {
            items: self.iter().take(limit).collect(),
            total: self.len(),
        }
    }
}

impl<T: Serialize> Truncate for VecDeque<T> {
    type Item = T;
    fn head(mut self, limit: usize) -> Head<T> {
        let total = self.len();
        self.truncate(limit);
        Head {
            items: self.into(),
            total,
        }
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
    fn head(self, limit: usize) -> Head<I::Item> {
        let mut iter = self.0;
        let items: Vec<I::Item> = iter.by_ref().take(limit).collect();
        let rest = match iter.size_hint() {
            (low, Some(high)) if low == high => low,
            _ => iter.count(),
        };
        Head {
            total: items.len() + rest,
            items,
        }
    }
}

// Only the schema of this type is used (its doc comment is the schema's description, read by
// clients); the value is built from the items already serialized.
/// The first items of the result and how many the whole result holds.
#[derive(Serialize, schemars::JsonSchema)]
#[doc(hidden)]
pub struct Listing<T> {
    /// The items shown.
    pub items: Vec<T>,
    /// How many items are shown.
    pub shown: usize,
    /// How many items the whole result holds.
    pub total: usize,
}

/// Finds the output schema of a type when it has one. Generated code calls
/// `(&Probe::<T>::new()).output_schema()`: method resolution picks [`WithSchema`](probe::WithSchema) for types
/// that implement `JsonSchema`, and [`WithoutSchema`](probe::WithoutSchema) for the rest.
#[doc(hidden)]
pub mod probe {
    use std::marker::PhantomData;

    use serde_json::{Map, Value};

    /// A type to probe.
    pub struct Probe<T: ?Sized>(PhantomData<T>);

    impl<T: ?Sized> Probe<T> {
        /// A probe of `T`.
        #[must_use]
        pub fn new(_: PhantomData<T>) -> Self {
            Self(PhantomData)
        }
    }

    /// Chosen for types with a schema.
    pub trait WithSchema {
        /// The object schema of the type, when it describes an object (MCP requires one).
        fn output_schema(&self) -> Option<Map<String, Value>>;
    }
    impl<T: schemars::JsonSchema + ?Sized> WithSchema for Probe<T> {
        fn output_schema(&self) -> Option<Map<String, Value>> {
            let mut settings = schemars::generate::SchemaSettings::draft2020_12();
            // Several clients do not resolve `$ref`: inline every subschema.
            settings.inline_subschemas = true;
            let schema = settings.into_generator().into_root_schema_for::<T>();
            match schema.to_value() {
                Value::Object(map) if map.get("type").is_some_and(|t| t == "object") => Some(map),
                _ => None,
            }
        }
    }

    /// Chosen for every other type, one auto-reference later.
    pub trait WithoutSchema {
        /// No schema.
        fn output_schema(&self) -> Option<Map<String, Value>> {
            None
        }
    }
    impl<T: ?Sized> WithoutSchema for &Probe<T> {}

    /// The type-level output of a tool with an agent limit: the envelope of its items.
    pub trait ListingOf {
        /// The envelope type.
        type Listing;
        /// The envelope of a collection output.
        fn listing(&self) -> PhantomData<Self::Listing> {
            PhantomData
        }
    }
    impl<O: super::Truncate> ListingOf for Probe<O> {
        type Listing = super::Listing<O::Item>;
    }

    /// Chosen when the output is not a collection; the presenter reports that, once.
    pub trait NotListing {
        /// No envelope.
        fn listing(&self) -> PhantomData<()> {
            PhantomData
        }
    }
    impl<O: ?Sized> NotListing for &Probe<O> {}
}

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
    pub name: &'static str,
    /// What it accepts, e.g. `one of "todo", "done"`.
    pub accepts: String,
}

/// What a teaching block is about: a result that did not show every item.
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
    pub by_bytes: bool,
    /// The tool's arguments.
    pub args: &'static ArgsInfo,
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
}

fn is_paging(field: &FieldInfo) -> bool {
    PAGING_FIELDS.contains(&field.name)
}

/// The filter parameters of an arguments type: its optional fields that do not page.
#[must_use]
pub fn filters(args: &ArgsInfo) -> Vec<Filter> {
    args.wire_fields()
        .filter(|f| !f.required && !is_paging(f))
        .map(|f| Filter {
            name: f.name,
            accepts: f.fix(),
        })
        .collect()
}

/// The teaching block of a truncated result, in the format of `options`.
#[must_use]
pub fn teaching_block(t: &Truncated<'_>, teaching: Teaching, options: &RenderOptions) -> String {
    if let Teaching::Teach(teach) = teaching {
        return teach(t);
    }
    let reason = if t.by_bytes {
        format!(
            "Only {} of {} items fit within this tool's size cap.",
            t.shown, t.total
        )
    } else {
        format!(
            "This tool returns at most {} items per call, so {} of {} are shown.",
            t.limit, t.shown, t.total
        )
    };
    let filters = match teaching {
        Teaching::Filters => t.filters(),
        _ => Vec::new(),
    };
    let paging = t.paging();
    let recovery = match teaching {
        Teaching::Hint(hint) => hint.to_owned(),
        _ => recovery_text(t.tool, &filters, &paging),
    };
    match options.format {
        RenderFormat::Markdown => {
            let mut out = format!("⚠️ {reason}\n");
            if !filters.is_empty() {
                let _ = writeln!(
                    out,
                    "\nNarrow the results with the filters of {}:",
                    code_span(t.tool)
                );
                for f in &filters {
                    let _ = writeln!(out, "- {}: {}", code_span(f.name), f.accepts);
                }
            }
            let _ = write!(out, "\n{recovery}\n");
            out
        }
        RenderFormat::Json => json!({
            "truncated": {
                "tool": t.tool,
                "shown": t.shown,
                "total": t.total,
                "reason": reason,
                "filters": filters,
                "paging": paging,
                "recovery": recovery,
            }
        })
        .to_string(),
        _ => {
            let mut out = format!(
                "<truncated tool=\"{}\" shown=\"{}\" total=\"{}\">\n<reason>{}</reason>\n",
                escape_xml_attr(t.tool),
                t.shown,
                t.total,
                escape_xml(&reason)
            );
            if !filters.is_empty() {
                out.push_str("<filters>\n");
                for f in &filters {
                    let _ = writeln!(
                        out,
                        "<filter name=\"{}\">{}</filter>",
                        escape_xml_attr(f.name),
                        escape_xml(&f.accepts)
                    );
                }
                out.push_str("</filters>\n");
            }
            let _ = write!(
                out,
                "<recovery>{}</recovery>\n</truncated>",
                escape_xml(&recovery)
            );
            out
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

/// Counts the bytes of a value's JSON text without building it.
fn json_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The error returned when an output cannot be serialized. It says nothing of the cause.
fn unserializable(spec: &ToolSpec, options: &RenderOptions) -> CallOutput {
    let error = ToolError::internal("The tool produced a result that could not be encoded.");
    CallOutput::tool_error(spec.name(), &error, options)
}

/// Presents the output of a tool without an agent limit. Used by generated code.
#[doc(hidden)]
pub fn present_value<O: Serialize>(
    spec: &'static ToolSpec,
    output: O,
    options: &RenderOptions,
) -> CallOutput {
    let Ok(value) = serde_json::to_value(&output) else {
        return unserializable(spec, options);
    };
    drop(output);
    let out = match value {
        Value::String(text) => match spec.max_bytes() {
            Some(max) if text.len() > max => {
                let notice = byte_notice(spec, text.len(), max, options);
                CallOutput::text(vec![cut_at_boundary(&text, max).to_owned(), notice])
            }
            _ => CallOutput::text(vec![text]),
        },
        Value::Array(items) => present_items(spec, items, None, options),
        Value::Object(map) => {
            let value = Value::Object(map);
            let text = value.to_string();
            match spec.max_bytes() {
                Some(max) if text.len() > max => too_large(spec, text.len(), max, options),
                _ => CallOutput {
                    text: vec![text],
                    structured: Some(value),
                    is_error: false,
                },
            }
        }
        other => CallOutput::text(vec![other.to_string()]),
    };
    check_policy(spec, out, options)
}

/// Presents the output of a tool with an agent limit. Used by generated code.
#[doc(hidden)]
pub fn present_collection<O: Truncate>(
    spec: &'static ToolSpec,
    output: O,
    options: &RenderOptions,
) -> CallOutput {
    let limit = spec.agent_limit().map_or(usize::MAX, |l| l.max);
    let Head { items, total } = output.head(limit);
    let values: Result<Vec<Value>, _> = items.iter().map(serde_json::to_value).collect();
    drop(items);
    let Ok(values) = values else {
        return unserializable(spec, options);
    };
    let out = present_items(spec, values, Some(total), options);
    check_policy(spec, out, options)
}

/// The values that fit the byte cap, in the envelope `{"items":[…],"shown":n,"total":t}` when
/// the tool has an agent limit, and a teaching block when items were left out.
fn present_items(
    spec: &'static ToolSpec,
    mut values: Vec<Value>,
    total: Option<usize>,
    options: &RenderOptions,
) -> CallOutput {
    let total = total.unwrap_or(values.len());
    let mut by_bytes = false;
    if let Some(max) = spec.max_bytes() {
        let mut size = json_len(&json!({"items": [], "shown": total, "total": total}));
        let mut fits = 0;
        for value in &values {
            // One more byte for the comma between items.
            size += json_len(value) + usize::from(fits > 0);
            if size > max {
                break;
            }
            fits += 1;
        }
        if fits < values.len() {
            values.truncate(fits);
            by_bytes = true;
        }
    }
    let shown = values.len();
    let limited = spec.agent_limit().is_some();
    if !limited {
        // A plain array (no agent limit) stays an array; a cut one says so after the data.
        let mut text = vec![Value::Array(values).to_string()];
        if by_bytes {
            let truncated = Truncated {
                tool: spec.name(),
                shown,
                total,
                limit: total,
                by_bytes,
                args: spec.args(),
            };
            text.push(teaching_block(&truncated, Teaching::Filters, options));
        }
        return CallOutput::text(text);
    }
    let mut envelope = Map::new();
    envelope.insert("items".into(), Value::Array(values));
    envelope.insert("shown".into(), shown.into());
    envelope.insert("total".into(), total.into());
    let structured = Value::Object(envelope);
    let mut text = vec![structured.to_string()];
    if shown < total {
        let truncated = Truncated {
            tool: spec.name(),
            shown,
            total,
            limit: spec.agent_limit().map_or(total, |l| l.max),
            by_bytes,
            args: spec.args(),
        };
        let teaching = spec.agent_limit().map_or(Teaching::Filters, |l| l.teaching);
        text.push(teaching_block(&truncated, teaching, options));
    }
    CallOutput {
        text,
        structured: Some(structured),
        is_error: false,
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends at a character boundary.
fn cut_at_boundary(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn byte_notice(spec: &ToolSpec, size: usize, max: usize, options: &RenderOptions) -> String {
    let advice = refine_advice(spec);
    match options.format {
        RenderFormat::Markdown => format!(
            "⚠️ The result was cut to {max} of {size} bytes (this tool's size cap). {advice}"
        ),
        RenderFormat::Json => json!({
            "truncated": {"tool": spec.name(), "bytesShown": max, "bytesTotal": size, "recovery": advice}
        })
        .to_string(),
        _ => format!(
            "<truncated tool=\"{}\" bytes_shown=\"{max}\" bytes_total=\"{size}\">\n<recovery>{}</recovery>\n</truncated>",
            escape_xml_attr(spec.name()),
            escape_xml(&advice)
        ),
    }
}

/// What to do about a result that is too large: the tool's filters, or paging.
fn refine_advice(spec: &ToolSpec) -> String {
    let filters = filters(spec.args());
    if filters.is_empty() {
        "Ask for less: call the tool again with narrower arguments or a smaller page.".to_owned()
    } else {
        let names: Vec<&str> = filters.iter().map(|f| f.name).collect();
        format!(
            "Call the tool again with filters ({}) or a smaller page.",
            names.join(", ")
        )
    }
}

fn too_large(spec: &ToolSpec, size: usize, max: usize, options: &RenderOptions) -> CallOutput {
    let error = ToolError::custom(
        "RESULT_TOO_LARGE",
        format!("The result is {size} bytes, over this tool's cap of {max} bytes."),
    )
    .recovery(refine_advice(spec))
    .detail("bytes", size)
    .detail("max_bytes", max);
    CallOutput::tool_error(spec.name(), &error, options)
}

fn check_policy(spec: &ToolSpec, mut out: CallOutput, options: &RenderOptions) -> CallOutput {
    let Some(policy) = spec.policy() else {
        return out;
    };
    let Some(data) = out.text.first() else {
        return out;
    };
    match policy.check(spec.name(), data) {
        Verdict::Block(error) => CallOutput::tool_error(spec.name(), &error, options),
        Verdict::Advise(advice) => {
            out.text.push(advice);
            out
        }
        // `Verdict` is non-exhaustive; anything unknown delivers the output.
        _ => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_char_boundaries() {
        assert_eq!(cut_at_boundary("héllo", 2), "h");
        assert_eq!(cut_at_boundary("héllo", 3), "hé");
        assert_eq!(cut_at_boundary("abc", 10), "abc");
    }

    #[test]
    fn iterators_count_without_collecting_the_rest() {
        let head = Iter(0..1_000_000u32).head(3);
        assert_eq!(head.items, vec![0, 1, 2]);
        assert_eq!(head.total, 1_000_000);
        let head = Iter((0..10u32).filter(|n| n % 2 == 0)).head(2);
        assert_eq!(head.items, vec![0, 2]);
        assert_eq!(head.total, 5);
    }
}
