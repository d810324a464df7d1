//! Tool errors: how a handler fails so that the model can recover on its own.
//!
//! A [`ToolError`] carries a machine-readable [`ErrorCode`], a message, a recovery directive,
//! the tools the model can call instead, key/value details and an optional retry delay. It is
//! rendered in the same formats as validation reports (see [`RenderFormat`]):
//!
//! ```text
//! <tool_error tool="delete_task" code="NOT_FOUND">
//! <message>Task 42 does not exist.</message>
//! <recovery>Call list_tasks to find the id of the task.</recovery>
//! <available_actions>list_tasks</available_actions>
//! </tool_error>
//! ```
//!
//! Every text is escaped for the output format and cut to a bounded length, so a message that
//! quotes caller input cannot break the format or grow the result without bound.

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::render::{RenderFormat, RenderOptions, code_span, escape_xml, escape_xml_attr};
use crate::validation::cut;

/// The most characters of a message that are rendered.
const MAX_MESSAGE_CHARS: usize = 2_000;
/// The most characters of a recovery directive that are rendered.
const MAX_RECOVERY_CHARS: usize = 1_000;
/// The most available actions and details that are rendered.
const MAX_LISTED: usize = 20;
/// The most characters of an action name, a detail key or a custom code.
const MAX_NAME_CHARS: usize = 64;
/// The most characters of a detail value.
const MAX_DETAIL_CHARS: usize = 300;

/// What kind of failure a [`ToolError`] is. The string form ([`ErrorCode::as_str`]) is rendered
/// and stable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// The thing the call names does not exist.
    NotFound,
    /// The arguments are well-formed but not acceptable (e.g. a date in the past).
    InvalidArgument,
    /// The caller is not authenticated.
    Unauthorized,
    /// The caller is authenticated but may not do this.
    Forbidden,
    /// The call conflicts with the current state (e.g. a duplicate name).
    Conflict,
    /// Too many calls; retry later.
    RateLimited,
    /// The operation took too long.
    Timeout,
    /// A dependency is down; retry later.
    Unavailable,
    /// An unexpected failure on the server's side.
    Internal,
    /// A code of the application's own, rendered as given (e.g. `QUOTA_EXCEEDED`).
    Custom(Cow<'static, str>),
}

impl ErrorCode {
    /// The rendered name of the code, e.g. `NOT_FOUND`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::NotFound => "NOT_FOUND",
            Self::InvalidArgument => "INVALID_ARGUMENT",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::Forbidden => "FORBIDDEN",
            Self::Conflict => "CONFLICT",
            Self::RateLimited => "RATE_LIMITED",
            Self::Timeout => "TIMEOUT",
            Self::Unavailable => "UNAVAILABLE",
            Self::Internal => "INTERNAL",
            Self::Custom(code) => code,
        }
    }

    /// The recovery directive used when the error does not carry its own.
    #[must_use]
    pub fn default_recovery(&self) -> &'static str {
        match self {
            Self::NotFound => {
                "Check the identifier; use a listing or search tool to find a valid one, then call again."
            }
            Self::InvalidArgument => "Change the arguments as the message says and call again.",
            Self::Unauthorized | Self::Forbidden => {
                "Do not retry this call. Tell the user that it is not permitted."
            }
            Self::Conflict => {
                "Read the current state first, then call again with arguments that fit it."
            }
            Self::RateLimited => "Wait before calling again; do not retry at once.",
            Self::Timeout | Self::Unavailable => {
                "Retry once a little later; if it fails again, tell the user."
            }
            Self::Internal => {
                "Do not retry with the same arguments. Tell the user the tool failed."
            }
            Self::Custom(_) => "Follow the message above, then decide whether to call again.",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a [`ToolError`] fails the call or only warns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Severity {
    /// The call failed: the result has `isError: true`.
    #[default]
    Error,
    /// The call did what it could; the model should read the warning. The result has
    /// `isError: false`.
    Warning,
}

impl Severity {
    /// `error` or `warning`, as rendered.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

/// A failure of a tool handler, rendered as a coaching message the model can act on.
///
/// Build one from a code constructor and chain what the model needs to recover:
///
/// ```
/// use guardrails::ToolError;
///
/// let err = ToolError::not_found("Task 42 does not exist.")
///     .recovery("Call list_tasks to find the id of the task, then call delete_task again.")
///     .actions(["list_tasks"])
///     .detail("task_id", 42);
/// assert_eq!(err.code().as_str(), "NOT_FOUND");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct ToolError(
    // Boxed so that `Result<T, ToolError>` stays as small as `T` plus a pointer.
    Box<Inner>,
);

#[derive(Debug, Clone, PartialEq)]
struct Inner {
    code: ErrorCode,
    message: String,
    recovery: Option<String>,
    actions: Vec<String>,
    details: Vec<(String, Value)>,
    retry_after: Option<Duration>,
    severity: Severity,
}

macro_rules! code_constructors {
    ($($(#[$doc:meta])* $fn:ident => $code:ident;)*) => {$(
        $(#[$doc])*
        pub fn $fn(message: impl Into<String>) -> Self {
            Self::new(ErrorCode::$code, message)
        }
    )*};
}

impl ToolError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self(Box::new(Inner {
            code,
            message: message.into(),
            recovery: None,
            actions: Vec::new(),
            details: Vec::new(),
            retry_after: None,
            severity: Severity::Error,
        }))
    }

    /// An error with a code of the application's own, e.g. `QUOTA_EXCEEDED`.
    pub fn custom(code: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Custom(code.into()), message)
    }

    code_constructors! {
        /// `NOT_FOUND`: the thing the call names does not exist.
        not_found => NotFound;
        /// `INVALID_ARGUMENT`: well-formed arguments that are not acceptable.
        invalid_argument => InvalidArgument;
        /// `UNAUTHORIZED`: the caller is not authenticated.
        unauthorized => Unauthorized;
        /// `FORBIDDEN`: the caller may not do this.
        forbidden => Forbidden;
        /// `CONFLICT`: the call conflicts with the current state.
        conflict => Conflict;
        /// `RATE_LIMITED`: too many calls; combine with [`ToolError::retry_after`].
        rate_limited => RateLimited;
        /// `TIMEOUT`: the operation took too long.
        timeout => Timeout;
        /// `UNAVAILABLE`: a dependency is down.
        unavailable => Unavailable;
        /// `INTERNAL`: an unexpected failure. Say nothing about internals in the message.
        internal => Internal;
    }

    /// Tells the model what to do next (replaces the code's default directive).
    pub fn recovery(mut self, recovery: impl Into<String>) -> Self {
        self.0.recovery = Some(recovery.into());
        self
    }

    /// Sets the tools the model can call instead.
    pub fn actions<I>(mut self, actions: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.0.actions = actions.into_iter().map(Into::into).collect();
        self
    }

    /// Adds one tool the model can call instead.
    pub fn action(mut self, action: impl Into<String>) -> Self {
        self.0.actions.push(action.into());
        self
    }

    /// Adds a key/value detail (an id, a limit, the current state…).
    pub fn detail(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.0.details.push((key.into(), value.into()));
        self
    }

    /// Says when the call may be retried.
    pub fn retry_after(mut self, delay: Duration) -> Self {
        self.0.retry_after = Some(delay);
        self
    }

    /// Sets the severity.
    pub fn severity(mut self, severity: Severity) -> Self {
        self.0.severity = severity;
        self
    }

    /// Makes this a warning: the result is delivered with `isError: false`.
    pub fn warning(self) -> Self {
        self.severity(Severity::Warning)
    }

    /// The code.
    #[must_use]
    pub fn code(&self) -> &ErrorCode {
        &self.0.code
    }

    /// The message.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The recovery directive given, if any (rendering falls back to
    /// [`ErrorCode::default_recovery`]).
    #[must_use]
    pub fn recovery_text(&self) -> Option<&str> {
        self.0.recovery.as_deref()
    }

    /// The tools the model can call instead.
    #[must_use]
    pub fn available_actions(&self) -> &[String] {
        &self.0.actions
    }

    /// The key/value details, in the order they were added.
    #[must_use]
    pub fn details(&self) -> &[(String, Value)] {
        &self.0.details
    }

    /// When the call may be retried.
    #[must_use]
    pub fn retry_delay(&self) -> Option<Duration> {
        self.0.retry_after
    }

    /// The severity.
    #[must_use]
    pub fn severity_level(&self) -> Severity {
        self.0.severity
    }

    /// Whether the result of this error has `isError: true`.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.0.severity == Severity::Error
    }

    /// Renders the error of tool `tool` in the format of `options`.
    #[must_use]
    pub fn render(&self, tool: &str, options: &RenderOptions) -> String {
        let bounded = Bounded::new(self);
        match options.format {
            RenderFormat::Markdown => bounded.markdown(tool, self),
            RenderFormat::Json => bounded.json(tool, self),
            // `RenderFormat` is non-exhaustive: any later format falls back to the default.
            _ => bounded.xml(tool, self),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.code, self.0.message)
    }
}

impl std::error::Error for ToolError {}

/// A detail value as text: a string as it is, anything else in JSON notation.
fn detail_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The texts of an error, cut to their bounds before any escaping.
struct Bounded {
    code: String,
    message: String,
    recovery: String,
    actions: Vec<String>,
    more_actions: usize,
    /// Strings cut, numbers and booleans as they are, anything larger as a bounded preview.
    details: Vec<(String, Value)>,
    more_details: usize,
    retry_seconds: Option<u64>,
}

impl Bounded {
    fn new(e: &ToolError) -> Self {
        let name = |s: &str| cut(s, MAX_NAME_CHARS, false);
        let e = &*e.0;
        let recovery = e
            .recovery
            .as_deref()
            .unwrap_or_else(|| e.code.default_recovery());
        let details = e
            .details
            .iter()
            .take(MAX_LISTED)
            .map(|(k, v)| {
                let value = match v {
                    Value::String(s) => Value::String(cut(s, MAX_DETAIL_CHARS, false)),
                    Value::Array(_) | Value::Object(_) => {
                        Value::String(crate::validation::preview(v))
                    }
                    scalar => scalar.clone(),
                };
                (name(k), value)
            })
            .collect();
        Self {
            code: name(e.code.as_str()),
            message: cut(&e.message, MAX_MESSAGE_CHARS, false),
            recovery: cut(recovery, MAX_RECOVERY_CHARS, false),
            actions: e.actions.iter().take(MAX_LISTED).map(|a| name(a)).collect(),
            more_actions: e.actions.len().saturating_sub(MAX_LISTED),
            details,
            more_details: e.details.len().saturating_sub(MAX_LISTED),
            // Whole seconds, rounded up: "retry after 0 seconds" would invite an instant retry.
            retry_seconds: e
                .retry_after
                .map(|d| d.as_secs() + u64::from(d.subsec_nanos() > 0)),
        }
    }

    fn xml(&self, tool: &str, e: &ToolError) -> String {
        let mut out = String::new();
        let severity = match e.0.severity {
            Severity::Error => String::new(),
            Severity::Warning => " severity=\"warning\"".to_owned(),
        };
        let _ = writeln!(
            out,
            "<tool_error tool=\"{}\" code=\"{}\"{severity}>",
            escape_xml_attr(tool),
            escape_xml_attr(&self.code)
        );
        let _ = writeln!(out, "<message>{}</message>", escape_xml(&self.message));
        let _ = writeln!(out, "<recovery>{}</recovery>", escape_xml(&self.recovery));
        if !self.actions.is_empty() {
            let mut list = self.actions.join(", ");
            if self.more_actions > 0 {
                let _ = write!(list, " (and {} more)", self.more_actions);
            }
            let _ = writeln!(
                out,
                "<available_actions>{}</available_actions>",
                escape_xml(&list)
            );
        }
        if !self.details.is_empty() {
            out.push_str("<details>\n");
            for (k, v) in &self.details {
                let _ = writeln!(
                    out,
                    "<detail key=\"{}\">{}</detail>",
                    escape_xml_attr(k),
                    escape_xml(&detail_text(v))
                );
            }
            if self.more_details > 0 {
                let _ = writeln!(out, "<more_details count=\"{}\"/>", self.more_details);
            }
            out.push_str("</details>\n");
        }
        if let Some(s) = self.retry_seconds {
            let _ = writeln!(
                out,
                "<retry_after seconds=\"{s}\">Wait {s} second(s) before calling again.</retry_after>"
            );
        }
        out.push_str("</tool_error>");
        out
    }

    fn markdown(&self, tool: &str, e: &ToolError) -> String {
        let mut out = String::new();
        let what = match e.0.severity {
            Severity::Error => "failed",
            Severity::Warning => "reported a warning",
        };
        let _ = writeln!(
            out,
            "Tool {} {what}: {}\n\n{}\n",
            code_span(tool),
            code_span(&self.code),
            self.message
        );
        let _ = writeln!(out, "**Recovery:** {}", self.recovery);
        if !self.actions.is_empty() {
            let spans: Vec<String> = self.actions.iter().map(|a| code_span(a)).collect();
            let _ = write!(out, "\n**Available actions:** {}", spans.join(", "));
            if self.more_actions > 0 {
                let _ = write!(out, " (and {} more)", self.more_actions);
            }
            out.push('\n');
        }
        if !self.details.is_empty() {
            out.push_str("\n**Details:**\n");
            for (k, v) in &self.details {
                let _ = writeln!(out, "- {}: {}", code_span(k), code_span(&detail_text(v)));
            }
            if self.more_details > 0 {
                let _ = writeln!(out, "- and {} more", self.more_details);
            }
        }
        if let Some(s) = self.retry_seconds {
            let _ = writeln!(out, "\n**Retry after:** {s} second(s).");
        }
        out
    }

    fn json(&self, tool: &str, e: &ToolError) -> String {
        let details: Map<String, Value> = self
            .details
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        json!({
            "error": {
                "type": "tool_error",
                "tool": tool,
                "code": self.code,
                "severity": e.0.severity.as_str(),
                "message": self.message,
                "recovery": self.recovery,
                "availableActions": self.actions,
                "omittedActions": self.more_actions,
                "details": details,
                "retryAfterSeconds": self.retry_seconds,
            }
        })
        .to_string()
    }
}
