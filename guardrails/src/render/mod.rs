//! Rendering: every message of [`crate::message`] in the format a server chose: compact
//! XML-style tags (the default), Markdown, or a structured JSON object.
//!
//! One module per format ([`xml`], [`markdown`], [`json`]), each rendering every kind of
//! message; the format is matched in one place. Everything echoed back from the caller is
//! escaped for the format (with [`crate::text`]'s one escaper) and was bounded before, and at
//! most [`RenderOptions::max_issues`] issues are listed, so a rendered message has a bounded
//! size whatever the input.

pub mod json;
pub mod markdown;
pub mod xml;

use serde_json::Value;

use crate::message::{
    ByteCut, Failure, PolicyAdvice, Rejection, ToolError, Truncated, TruncationNotice,
};
use crate::validation::{ArgsInfo, Report};

pub use crate::message::RECOVERY;

/// The shape of rendered messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum RenderFormat {
    /// Compact XML-style tags: `<validation_error>` with a `<field>` per issue.
    #[default]
    Xml,
    /// Markdown with issues, suggestions, an optional schema summary and the valid example.
    Markdown,
    /// A structured JSON object: `{"error": {"type": "validation", …}}`.
    Json,
}

/// How messages are rendered.
///
/// Build it from a format and change what you need with the `with_…` methods; a format alone
/// converts into options too. The fields are public to read and to set on a value you have,
/// but the struct is `#[non_exhaustive]` so that options can be added without breaking your
/// code: that is why `RenderOptions { format, ..Default::default() }` does not compile
/// (E0639) outside this crate. Write `RenderOptions::new(format)` instead.
///
/// ```
/// use guardrails::{RenderFormat, RenderOptions};
///
/// let options = RenderOptions::new(RenderFormat::Markdown).with_schema_summary(true);
/// assert_eq!(options.format, RenderFormat::Markdown);
///
/// // The same, in other words.
/// let from_format: RenderOptions = RenderFormat::Markdown.into();
/// let from_default = RenderOptions::default().with_format(RenderFormat::Markdown);
/// assert_eq!(from_format, from_default);
///
/// // Fields can be set on a value.
/// let mut options = RenderOptions::default();
/// options.max_issues = 5;
/// assert_eq!(options, RenderOptions::default().with_max_issues(5));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RenderOptions {
    /// The output shape.
    pub format: RenderFormat,
    /// Whether to include a summary of the tool's fields.
    pub schema_summary: bool,
    /// The most issues listed; the rest are counted.
    pub max_issues: usize,
    /// Whether messages echo what the caller sent (on by default). Off, a server's calls
    /// echo no value at all, sensitive or not: each issue says what kind of value was sent
    /// and its size (`(withheld: a string of 14 characters)`), an output policy's issue names
    /// the rule and the place but not the text. Keys are still named, so that a misspelt one
    /// can be corrected. Fields marked `#[guard(sensitive)]` are withheld either way.
    ///
    /// It takes effect where arguments are validated: the call pipeline of a
    /// [`Server`](crate::Server) reads it; validate with
    /// [`Cx::withholding_values`](crate::validation::Cx::withholding_values) to get such a
    /// report yourself.
    pub echo_values: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            format: RenderFormat::Xml,
            schema_summary: false,
            max_issues: 20,
            echo_values: true,
        }
    }
}

impl RenderOptions {
    /// The default options in the given format: the way to build options.
    #[must_use]
    pub fn new(format: RenderFormat) -> Self {
        Self {
            format,
            ..Self::default()
        }
    }

    /// Sets the format.
    #[must_use]
    pub fn with_format(mut self, format: RenderFormat) -> Self {
        self.format = format;
        self
    }

    /// Turns the schema summary on or off.
    #[must_use]
    pub fn with_schema_summary(mut self, on: bool) -> Self {
        self.schema_summary = on;
        self
    }

    /// Sets how many issues are listed at most (at least one is always listed).
    #[must_use]
    pub fn with_max_issues(mut self, max: usize) -> Self {
        self.max_issues = max.max(1);
        self
    }
}

impl RenderOptions {
    /// Turns the echo of sent values on or off (see [`RenderOptions::echo_values`]).
    ///
    /// ```
    /// # use guardrails::{RenderOptions, Server};
    /// let server = Server::new(()).render_options(RenderOptions::default().with_echo_values(false));
    /// assert!(!server.options().echo_values);
    /// ```
    #[must_use]
    pub fn with_echo_values(mut self, on: bool) -> Self {
        self.echo_values = on;
        self
    }
}

impl From<RenderFormat> for RenderOptions {
    /// The default options in `format`.
    fn from(format: RenderFormat) -> Self {
        Self::new(format)
    }
}

/// One format: how each kind of message is written, into one buffer.
pub(crate) trait Renderer {
    fn rejection(&self, message: &Rejection<'_>, options: &RenderOptions, out: &mut String);
    fn failure(&self, message: &Failure<'_>, out: &mut String);
    fn truncation(&self, message: &TruncationNotice<'_>, out: &mut String);
    fn byte_cut(&self, message: &ByteCut<'_>, out: &mut String);
    fn policy_advice(&self, message: &PolicyAdvice<'_>, out: &mut String);
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
pub fn rejection(message: &Rejection<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).rejection(message, options, out))
}

/// Renders a failed call.
#[must_use]
pub fn failure(message: &Failure<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).failure(message, out))
}

/// The structured report of a rejected call: the object the JSON format renders
/// (`{"error": {"type": "validation", "issues": [{"field", "code", "problem", "received",
/// "expected", "fix"}], "validExample", …}}`), as a value, whatever the format of the text.
/// What an error result carries for clients and agents that read data (see
/// [`CallOutput::report`](crate::CallOutput::report)).
#[must_use]
pub fn rejection_report(message: &Rejection<'_>, options: &RenderOptions) -> Value {
    json::rejection_value(message, options)
}

/// The structured report of a failed call: `{"error": {"type": "tool_error", "code", …}}`,
/// the object the JSON format renders.
#[must_use]
pub fn failure_report(message: &Failure<'_>) -> Value {
    json::failure_value(message)
}

/// Renders the teaching block of a truncated result.
#[must_use]
pub fn truncation(message: &TruncationNotice<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).truncation(message, out))
}

/// Renders the notice of a text result cut to its byte cap.
#[must_use]
pub fn byte_cut(message: &ByteCut<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).byte_cut(message, out))
}

/// Renders the advice of an output policy on a delivered output.
#[must_use]
pub fn policy_advice(message: &PolicyAdvice<'_>, options: &RenderOptions) -> String {
    into_string(|out| renderer(options.format).policy_advice(message, out))
}

/// Renders a rejected call of tool `tool` whose arguments type is described by `info`.
///
/// The same as [`rejection`] of a [`Rejection`] without contract notice.
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

/// Renders the teaching block of `truncated`: the tool's filters, or the author's `hint`.
#[must_use]
pub fn teaching_block(
    truncated: &Truncated<'_>,
    hint: Option<&str>,
    options: &RenderOptions,
) -> String {
    truncation(&TruncationNotice::new(truncated, hint), options)
}

impl ToolError {
    /// Renders the error of tool `tool` in the format of `options`.
    #[must_use]
    pub fn render(&self, tool: &str, options: &RenderOptions) -> String {
        failure(&Failure::new(tool, self), options)
    }
}
