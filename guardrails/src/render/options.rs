//! What a server chooses about its messages: the format, and how much they may show.

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

/// How messages are rendered: the format, whether a schema summary is shown, how many issues
/// are listed and whether the values sent are echoed.
///
/// Build it from a format and change what you need with the `with_…` methods; a format alone
/// converts into options too. Give it to a server or a router guard with
/// [`GuardConfig::render_options`](crate::GuardConfig::render_options).
///
/// ```
/// use guardrails::{RenderFormat, RenderOptions};
///
/// let options = RenderOptions::new(RenderFormat::Markdown)
///     .with_schema_summary(true)
///     .with_max_issues(5);
/// # let _ = options;
///
/// // The same, in other words.
/// let from_format: RenderOptions = RenderFormat::Markdown.into();
/// assert_eq!(from_format, RenderOptions::new(RenderFormat::Markdown));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RenderOptions {
    /// The output shape.
    pub(crate) format: RenderFormat,
    /// Whether to include a summary of the tool's fields.
    pub(crate) schema_summary: bool,
    /// The most issues listed; the rest are counted.
    pub(crate) max_issues: usize,
    /// Whether messages echo what the caller sent.
    pub(crate) echo_values: bool,
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
    /// The default options in the given format: no schema summary, at most 20 issues listed,
    /// the values sent echoed.
    #[must_use]
    pub fn new(format: RenderFormat) -> Self {
        Self {
            format,
            ..Self::default()
        }
    }

    /// Turns the schema summary on or off (off by default): a summary of the tool's fields in
    /// each rejection. It is for derived arguments only: a native tool's schema is the
    /// `inputSchema` the client already has.
    #[must_use]
    pub fn with_schema_summary(mut self, on: bool) -> Self {
        self.schema_summary = on;
        self
    }

    /// Sets how many issues are listed at most (20 by default; at least one is always listed):
    /// the rest are counted.
    #[must_use]
    pub fn with_max_issues(mut self, max: usize) -> Self {
        self.max_issues = max.max(1);
        self
    }
}

impl RenderOptions {
    /// Turns the echo of the values sent on or off (on by default). Off, a server's calls echo
    /// no value at all, sensitive or not: each issue says what kind of value was sent and its
    /// size (`(withheld: a string of 14 characters)`), an output policy's issue names the rule
    /// and the place but not the text. Keys are still named, so that a misspelt one can be
    /// corrected. Fields marked `#[guard(sensitive)]` are withheld either way.
    ///
    /// It takes effect where arguments are validated: the call pipeline of a
    /// [`Server`](crate::Server) reads it; validate with
    /// [`Cx::withholding_values`](crate::validation::Cx::withholding_values) to get such a
    /// report yourself.
    ///
    /// ```
    /// # use guardrails::{GuardConfig, RenderOptions, Server};
    /// let quiet = RenderOptions::default().with_echo_values(false);
    /// let server = Server::new(()).config(GuardConfig::new().render_options(quiet));
    /// # let _ = server;
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
