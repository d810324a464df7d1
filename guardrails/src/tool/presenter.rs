//! The presenters generated code hands the pipeline: a successful output serialized as the
//! model will read it, within the agent limit and the byte cap, and checked by the tool's output
//! check. Reached only through `guardrails::__private`.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::budget::Cut;
use super::cursor::{self, Page};
use super::output::{CallOutput, Signal};
use super::spec::{OutputVerdict, Teaching, ToolSpec};
use crate::message::{ByteCut, Rejection, ToolError, Truncated, TruncationNotice, refine_advice};
use crate::present::{Truncate, teaching_block};
use crate::render::RenderOptions;
use crate::text::json_text;
use crate::validation::Report;

/// What presenting a successful output gives: the output as it reaches the model, or the error
/// it is replaced by (an output that cannot be encoded, is too large, or is withheld by its
/// output check).
pub type Presented = Result<CallOutput, ToolError>;

/// The error returned when an output cannot be serialized. It says nothing of the cause.
fn unserializable() -> ToolError {
    ToolError::internal("The tool produced a result that could not be encoded.")
}

/// Presents the output of a tool without an agent limit.
///
/// # Errors
/// The error the output is replaced by: it cannot be encoded, it is an object over the byte
/// cap, or its output check withholds it.
pub fn present_value<O: Serialize>(
    spec: &'static ToolSpec,
    output: O,
    options: &RenderOptions,
) -> Presented {
    let Ok(value) = serde_json::to_value(&output) else {
        return Err(unserializable());
    };
    drop(output);
    let budget = spec.budget();
    let out = match value {
        Value::String(text) => {
            let head = budget.head(&text);
            if head.len() < text.len() {
                let notice = crate::render::byte_cut(
                    &ByteCut {
                        tool: spec.name(),
                        shown: head.len(),
                        total: text.len(),
                        advice: refine_advice(spec.args()),
                    },
                    options,
                );
                CallOutput::text(vec![head.to_owned(), notice])
            } else {
                CallOutput::text(vec![text])
            }
        }
        Value::Array(items) => present_items(spec, items, None, options),
        Value::Object(map) => {
            let value = Value::Object(map);
            let text = json_text(&value);
            if let Some(cut) = budget.broken_by_text(&text) {
                return Err(too_large(spec, &text, cut));
            }
            CallOutput {
                text: vec![text],
                structured: Some(value),
                is_error: false,
                report: None,
                failure: None,
                repairs: None,
                leniency: crate::tool::output::Leniency::default(),
                signal: Signal::None,
            }
        }
        other => CallOutput::text(vec![json_text(&other)]),
    };
    check_policy(spec, out, options)
}

/// Presents the output of a tool with an agent limit.
///
/// # Errors
/// The error the output is replaced by: an item cannot be encoded, or its output check
/// withholds it.
pub fn present_collection<O: Truncate>(
    spec: &'static ToolSpec,
    output: O,
    options: &RenderOptions,
) -> Presented {
    let limit = spec.agent_limit().map_or(usize::MAX, |l| l.max);
    let (items, total) = output.head(limit);
    let values: Result<Vec<Value>, _> = items.iter().map(serde_json::to_value).collect();
    drop(items);
    let Ok(values) = values else {
        return Err(unserializable());
    };
    let out = present_items(spec, values, Some(total), options);
    check_policy(spec, out, options)
}

/// Presents the page of a `paged` tool's output that `page` points to: the envelope
/// `{"items","shown","total"}` with `next_cursor` when items remain, and a teaching block that
/// says how to ask for the next page. A page past the end (the results shrank since the cursor
/// was given) is a rejection of the cursor.
///
/// # Errors
/// The error the output is replaced by: an item cannot be encoded, or its output check
/// withholds it.
pub(crate) fn present_page<O: Truncate>(
    spec: &'static ToolSpec,
    output: O,
    options: &RenderOptions,
    page: Page,
) -> Presented {
    let limit = spec.agent_limit().map_or(usize::MAX, |l| l.max);
    let (items, total) = output.page(page.offset, limit);
    if page.offset > 0 && page.offset >= total {
        let mut report = Report::new();
        report.push(cursor::stale(page.offset, total));
        let rejection = Rejection::new(spec.name(), &report, spec.args(), spec.example());
        return Ok(CallOutput::rejection(&rejection, options));
    }
    let values: Result<Vec<Value>, _> = items.iter().map(serde_json::to_value).collect();
    drop(items);
    let Ok(mut values) = values else {
        return Err(unserializable());
    };
    let budget = spec.budget();
    // Room for the envelope with a cursor.
    let room = json!({"items": [], "shown": total, "total": total,
        "next_cursor": page.next(spec.name(), total)});
    let (fits, mut cut) = budget.fitting(&values, &room);
    // One item larger than the budget on its own is shown cut, and the pages go on after it.
    let mut oversized = fits == 0 && !values.is_empty();
    values.truncate(fits.max(usize::from(oversized)));
    let mut structured = Value::Object(listing(values, total));
    let (cursor, data) = loop {
        let shown = shown_of(&structured);
        let next = page.offset + shown;
        // Without an item shown, a cursor would point at the same page again.
        let cursor = (next < total && shown > 0).then(|| page.next(spec.name(), next));
        if let Value::Object(envelope) = &mut structured {
            match &cursor {
                Some(cursor) => envelope.insert("next_cursor".into(), Value::from(cursor.as_str())),
                None => envelope.remove("next_cursor"),
            };
        }
        let data = json_text(&structured);
        // The sums of the items can differ from the whole by a token: the whole decides. (The
        // last page has no cursor, for which room was made.)
        let broken = budget.broken_by_text(&data);
        if oversized {
            if broken.is_none() {
                oversized = false;
                break (cursor, data);
            }
            structured["item_cut"] = Value::Bool(true);
            budget.cut_item(&mut structured, "/items/0");
            break (cursor, json_text(&structured));
        }
        match broken {
            None => break (cursor, data),
            Some(broken) if shown > 1 => {
                drop_last(&mut structured);
                cut = Some(broken);
            }
            Some(broken) => {
                oversized = true;
                cut = Some(broken);
            }
        }
    };
    let shown = shown_of(&structured);
    let mut text = vec![data];
    if shown < total || oversized {
        let truncated = Truncated {
            tool: spec.name(),
            shown,
            total,
            limit,
            by_bytes: cut == Some(Cut::Bytes),
            by_tokens: cut == Some(Cut::Tokens),
            args: spec.args(),
        };
        let hint = match spec.agent_limit().map(|l| l.teaching) {
            Some(Teaching::Hint(hint)) => Some(hint),
            _ => None,
        };
        let mut notice = TruncationNotice::new(&truncated, hint);
        notice.reason = page_reason(&truncated, page.offset, oversized);
        if let Some(cursor) = &cursor {
            notice.paging = vec![cursor::CURSOR_FIELD];
            let tool = spec.name();
            let mut recovery = format!(
                "To see the next items, call {tool} again with the same arguments and \"cursor\": \"{cursor}\"."
            );
            if let Some(hint) = hint {
                recovery.push(' ');
                recovery.push_str(hint);
            } else if !notice.filters.is_empty() {
                recovery.push_str(
                    " To narrow the results instead, call it with the filters above and no cursor.",
                );
            }
            notice.recovery = recovery;
        }
        text.push(crate::render::truncation(&notice, options));
    }
    let out = CallOutput {
        text,
        structured: Some(structured),
        is_error: false,
        report: None,
        failure: None,
        repairs: None,
        leniency: crate::tool::output::Leniency::default(),
        signal: Signal::None,
    };
    check_policy(spec, out, options)
}

/// The envelope `{"items": […], "shown": n, "total": t}` of the items shown.
fn listing(values: Vec<Value>, total: usize) -> Map<String, Value> {
    let shown = values.len();
    let mut envelope = Map::new();
    envelope.insert("items".into(), Value::Array(values));
    envelope.insert("shown".into(), shown.into());
    envelope.insert("total".into(), total.into());
    envelope
}

/// The number of items in the envelope `structured`.
fn shown_of(structured: &Value) -> usize {
    structured["items"].as_array().map_or(0, Vec::len)
}

/// Drops the last item of the envelope `structured`, and counts it no more.
fn drop_last(structured: &mut Value) {
    if let Some(items) = structured["items"].as_array_mut() {
        items.pop();
        let shown = items.len();
        structured["shown"] = Value::from(shown);
    }
}

/// Which items of how many a page shows, and why not more; `oversized`: its one item is
/// shown cut.
fn page_reason(t: &Truncated<'_>, offset: usize, oversized: bool) -> String {
    let shown = if t.shown == 0 {
        "none are shown".to_owned()
    } else {
        format!(
            "items {} to {} of {} are shown",
            offset + 1,
            offset + t.shown,
            t.total
        )
    };
    if oversized {
        format!(
            "Item {} is larger than this tool's {} on its own: it is shown cut, its longest texts ending in \"…\" (\"item_cut\": true); {shown}.",
            offset + 1,
            t.budget_name()
        )
    } else if t.by_bytes || t.by_tokens {
        format!(
            "Only so many items fit within this tool's {}: {shown}.",
            t.budget_name()
        )
    } else {
        format!(
            "This tool returns at most {} per call: {shown}.",
            crate::text::count(t.limit, "item", "items")
        )
    }
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
    let budget = spec.budget();
    let room = json!({"items": [], "shown": total, "total": total});
    let (fits, mut cut) = budget.fitting(&values, &room);
    values.truncate(fits);
    // The sums of the items' tokens can differ from the whole by a token: the whole decides.
    // (Bytes add up exactly.)
    if budget.tokens.is_some() {
        while !values.is_empty() {
            let whole = json!({"items": &values, "shown": total, "total": total});
            let Some(broken) = budget.broken_by_text(&json_text(&whole)) else {
                break;
            };
            values.pop();
            cut = Some(broken);
        }
    }
    let by_bytes = cut == Some(Cut::Bytes);
    let by_tokens = cut == Some(Cut::Tokens);
    let shown = values.len();
    let limited = spec.agent_limit().is_some();
    if !limited {
        // A plain array (no agent limit) stays an array; a cut one says so after the data.
        let mut text = vec![json_text(&Value::Array(values))];
        if cut.is_some() {
            let truncated = Truncated {
                tool: spec.name(),
                shown,
                total,
                limit: total,
                by_bytes,
                by_tokens,
                args: spec.args(),
            };
            text.push(teaching_block(&truncated, Teaching::Filters, options));
        }
        return CallOutput::text(text);
    }
    let structured = Value::Object(listing(values, total));
    let mut text = vec![json_text(&structured)];
    if shown < total {
        let truncated = Truncated {
            tool: spec.name(),
            shown,
            total,
            limit: spec.agent_limit().map_or(total, |l| l.max),
            by_bytes,
            by_tokens,
            args: spec.args(),
        };
        let teaching = spec.agent_limit().map_or(Teaching::Filters, |l| l.teaching);
        text.push(teaching_block(&truncated, teaching, options));
    }
    CallOutput {
        text,
        structured: Some(structured),
        is_error: false,
        report: None,
        failure: None,
        repairs: None,
        leniency: crate::tool::output::Leniency::default(),
        signal: Signal::None,
    }
}

/// The error of an object result over the byte cap or the token budget: an object cannot be
/// cut and stay valid.
fn too_large(spec: &ToolSpec, text: &str, cut: Cut) -> ToolError {
    let error = match (cut, spec.max_tokens()) {
        (Cut::Tokens, Some(max)) => {
            let tokens = super::budget::estimate_tokens(text);
            ToolError::custom(
                "RESULT_TOO_LARGE",
                format!(
                    "The result is about {tokens} tokens, over this tool's budget of {max} tokens."
                ),
            )
            .detail("tokens", tokens)
            .detail("max_tokens", max)
        }
        _ => {
            let max = spec.max_bytes().unwrap_or_default();
            ToolError::custom(
                "RESULT_TOO_LARGE",
                format!(
                    "The result is {} bytes, over this tool's cap of {max} bytes.",
                    text.len()
                ),
            )
            .detail("bytes", text.len())
            .detail("max_bytes", max)
        }
    };
    error.recovery(refine_advice(spec.args()))
}

/// Runs the tool's output check on the text of its output.
fn check_policy(spec: &ToolSpec, mut out: CallOutput, options: &RenderOptions) -> Presented {
    let Some(policy) = spec.policy() else {
        return Ok(out);
    };
    let Some(data) = out.text.first() else {
        return Ok(out);
    };
    let verdict = policy.check(spec.name(), data);
    if let OutputVerdict::Block(error) = verdict {
        return Err(error);
    }
    out.text.extend(verdict.advice(options));
    Ok(out)
}
