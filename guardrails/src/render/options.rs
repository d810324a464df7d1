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
