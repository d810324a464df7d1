//! Rendering: every message a call can end with, in the format a server chose: compact
//! XML-style tags (the default), Markdown, or a structured JSON object.
//!
//! One private module per format (xml, markdown, json), each rendering every kind of
//! message; the format is matched in one place. Everything echoed back from the caller is
//! escaped for the format (with the crate's one escaper) and was bounded before, and at
//! most as many issues as [`RenderOptions::with_max_issues`] sets are listed, so a rendered message has a bounded
//! size whatever the input.

mod json;
mod markdown;
pub(crate) mod options;
mod xml;

use serde_json::Value;

use crate::message::{
    ByteCut, Failure, PolicyAdvice, Rejection, RepairNotice, RepeatedCall, ToolError,
    TruncationNotice,
};
use crate::validation::{ArgsInfo, Report};

pub(crate) use options::{RenderFormat, RenderOptions};

/// One format: how each kind of message is written, into one buffer.
pub(crate) trait Renderer {
    fn rejection(&self, message: &Rejection<'_>, options: &RenderOptions, out: &mut String);
    fn failure(&self, message: &Failure<'_>, out: &mut String);
    fn truncation(&self, message: &TruncationNotice<'_>, out: &mut String);
    fn byte_cut(&self, message: &ByteCut<'_>, out: &mut String);
    fn policy_advice(&self, message: &PolicyAdvice<'_>, out: &mut String);
    fn repairs(&self, message: &RepairNotice<'_>, out: &mut String);
    fn repeated_call(&self, message: &RepeatedCall<'_>, out: &mut String);
}

/// The renderer of a format: the one place the format is matched.
fn renderer(format: RenderFormat) -> &'static dyn Renderer {
    match format {
        RenderFormat::Xml => &xml::Xml,
        RenderFormat::Markdown => &markdown::Markdown,
        RenderFormat::Json => &json::Json,
    }
}

fn into_string(write: impl FnOnce(&mut String)) -> String {
    let mut out = String::new();
    write(&mut out);
    out
}

/// Renders a rejected call.
#[must_use]
pub(crate) fn rejection(message: &Rejection<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).rejection(message, options, out))
}

/// Renders a failed call.
#[must_use]
pub(crate) fn failure(message: &Failure<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).failure(message, out))
}

/// The structured report of a rejected call: the object the JSON format renders
/// (`{"error": {"type": "validation", "issues": [{"field", "code", "problem", "received",
/// "expected", "fix"}], "validExample", …}}`), as a value, whatever the format of the text.
/// What an error result carries for clients and agents that read data (see
/// [`CallOutput::report`](crate::CallOutput::report)).
#[must_use]
pub(crate) fn rejection_report(message: &Rejection<'_>, options: &RenderOptions) -> Value {
    json::rejection_value(message, options)
}

/// The structured report of a failed call: `{"error": {"type": "tool_error", "code", …}}`,
/// the object the JSON format renders.
#[must_use]
pub(crate) fn failure_report(message: &Failure<'_>) -> Value {
    json::failure_value(message)
}

/// Renders the teaching block of a truncated result.
#[must_use]
pub(crate) fn truncation(message: &TruncationNotice<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).truncation(message, out))
}

/// Renders the notice of a text result cut to its byte cap.
#[must_use]
pub(crate) fn byte_cut(message: &ByteCut<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).byte_cut(message, out))
}

/// Renders the advice of an output policy on a delivered output.
#[must_use]
pub(crate) fn policy_advice(message: &PolicyAdvice<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).policy_advice(message, out))
}

pub(crate) use json::repairs_value;

/// Renders the receipts of a repaired call: one line per repair.
#[must_use]
pub(crate) fn repairs(message: &RepairNotice<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).repairs(message, out))
}

/// Renders the answer to an invalid call seen again, in `format`.
pub(crate) fn repeated_call(message: &RepeatedCall<'_>, format: RenderFormat) -> String {
    into_string(|out| renderer(format).repeated_call(message, out))
}

/// Renders a rejected call of tool `tool` whose arguments type is described by `info`
/// ([`ToolArgs::info`](crate::ToolArgs::info)): every issue of `report`, the valid `example`
/// and what to do, in the format of `options`, as a server answers such a call.
#[must_use]
pub fn render_report(
    tool: &str,
    report: &Report,
    info: &ArgsInfo,
    example: &Value,
    options: &RenderOptions,
) -> String {
    rejection(&Rejection::new(tool, report, info, example), options)
}

impl ToolError {
    /// Renders the error of tool `tool` in the format of `options`.
    #[must_use]
    pub fn render(&self, tool: &str, options: &RenderOptions) -> String {
        failure(&Failure::new(tool, self), options)
    }
}
