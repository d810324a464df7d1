//! Tool errors: how a handler fails so that the model can recover on its own.
//!
//! A [`ToolError`] carries a machine-readable [`ErrorCode`], a message, a recovery directive,
//! the tools the model can call instead, key/value details and an optional retry delay. It is
//! rendered in the same formats as validation reports (see [`RenderFormat`](crate::RenderFormat)):
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
use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::text::{cut, preview};

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

/// What kind of failure a [`ToolError`] is. The string form (its `Display`, e.g. `NOT_FOUND`) is
/// rendered and stable.
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
    pub(crate) fn as_str(&self) -> &str {
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
    pub(crate) fn default_recovery(&self) -> &'static str {
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
pub(crate) enum ToolErrorSeverity {
    /// The call failed: the result has `isError: true`.
    #[default]
    Error,
    /// The call did what it could; the model should read the warning. The result has
    /// `isError: false`.
    Warning,
}

impl ToolErrorSeverity {
    /// `error` or `warning`, as rendered.
    #[must_use]
    pub(crate) const fn as_str(self) -> &'static str {
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
/// assert_eq!(err.code().to_string(), "NOT_FOUND");
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
    severity: ToolErrorSeverity,
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
            severity: ToolErrorSeverity::Error,
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

    /// Sets the tools the model can call instead, all of them at once (`.actions(["list_tasks"])`
    /// for one).
    pub fn actions<I>(mut self, actions: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.0.actions = actions.into_iter().map(Into::into).collect();
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

    /// Makes this a warning: the call did what it could, and the model should read the
    /// warning. It renders as a tool error with `severity="warning"` (or its form in the
    /// server's format), and the result is delivered with `isError: false`.
    pub fn warning(mut self) -> Self {
        self.0.severity = ToolErrorSeverity::Warning;
        self
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

    /// When the call may be retried.
    #[must_use]
    pub(crate) fn retry_delay(&self) -> Option<Duration> {
        self.0.retry_after
    }

    /// Whether the result of this error has `isError: true`.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.0.severity == ToolErrorSeverity::Error
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.code, self.0.message)
    }
}

impl std::error::Error for ToolError {}

/// What the model reads of an error converted without a message of its own: the error's text
/// may hold paths, queries or secrets, and says nothing the model can act on.
#[cfg(feature = "anyhow")]
const CONVERTED_MESSAGE: &str = "The tool failed unexpectedly while handling this call.";

impl ToolError {
    /// `INTERNAL`, with the error's text as the message, for an error you know is safe and
    /// useful to show the model. The conversions (`?` on an `io::Error`, an `anyhow::Error`)
    /// keep the text to themselves; this shows it.
    ///
    /// ```
    /// use guardrails::ToolError;
    ///
    /// let parsed: Result<u32, _> = "ten".parse::<u32>();
    /// let error = ToolError::internal_showing(parsed.unwrap_err());
    /// assert_eq!(error.message(), "The tool failed: invalid digit found in string");
    /// ```
    pub fn internal_showing(error: impl fmt::Display) -> Self {
        Self::internal(format!("The tool failed: {error}"))
    }
}

/// `INTERNAL`, naming the kind of input/output error (`entity not found`, `timed out`, …) and
/// nothing of its text, which may hold paths; so `?` works on I/O in a handler. Use
/// [`ToolError::internal_showing`] to show the text, or a code constructor to say more.
///
/// ```
/// use guardrails::{ErrorCode, ToolError};
///
/// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "/srv/secret/config.toml");
/// let error = ToolError::from(io);
/// assert_eq!(error.code(), &ErrorCode::Internal);
/// assert!(!error.message().contains("secret"));
/// ```
impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        Self::internal(format!(
            "The tool failed on an input/output error ({}).",
            error.kind()
        ))
    }
}

/// `INTERNAL`, saying nothing of the error's text, which may hold internals; an
/// `anyhow::Error` that wraps a [`ToolError`] is that error, as it was built. Use
/// [`ToolError::internal_showing`] to show the text.
#[cfg(feature = "anyhow")]
impl From<anyhow::Error> for ToolError {
    fn from(error: anyhow::Error) -> Self {
        error
            .downcast::<ToolError>()
            .unwrap_or_else(|_| Self::internal(CONVERTED_MESSAGE))
    }
}

/// A detail value as text: a string as it is, anything else in JSON notation.
pub(crate) fn detail_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The texts of an error, cut to their bounds before any escaping: what every format renders.
pub(crate) struct BoundedError {
    pub(crate) code: String,
    pub(crate) message: String,
    pub(crate) recovery: String,
    pub(crate) actions: Vec<String>,
    pub(crate) more_actions: usize,
    /// Strings cut, numbers and booleans as they are, anything larger as a bounded preview.
    pub(crate) details: Vec<(String, Value)>,
    pub(crate) more_details: usize,
    pub(crate) retry_seconds: Option<u64>,
    pub(crate) severity: ToolErrorSeverity,
}

impl BoundedError {
    pub(crate) fn new(e: &ToolError) -> Self {
        let name = |s: &str| cut(s, MAX_NAME_CHARS).into_owned();
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
                    Value::String(s) => Value::String(cut(s, MAX_DETAIL_CHARS).into_owned()),
                    Value::Array(_) | Value::Object(_) => Value::String(preview(v)),
                    scalar => scalar.clone(),
                };
                (name(k), value)
            })
            .collect();
        Self {
            code: name(e.code.as_str()),
            message: cut(&e.message, MAX_MESSAGE_CHARS).into_owned(),
            recovery: cut(recovery, MAX_RECOVERY_CHARS).into_owned(),
            actions: e.actions.iter().take(MAX_LISTED).map(|a| name(a)).collect(),
            more_actions: e.actions.len().saturating_sub(MAX_LISTED),
            details,
            more_details: e.details.len().saturating_sub(MAX_LISTED),
            // Whole seconds, rounded up: "retry after 0 seconds" would invite an instant retry.
            retry_seconds: e
                .retry_after
                .map(|d| d.as_secs() + u64::from(d.subsec_nanos() > 0)),
            severity: e.severity,
        }
    }
}

/// A call that failed in its handler, or whose output was withheld, as the model is told about
/// it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub(crate) struct Failure<'a> {
    /// The tool that was called.
    pub tool: &'a str,
    /// What went wrong.
    pub error: &'a ToolError,
    /// What changed in the tool's contract, when the server annotates every error of a changed
    /// tool.
    pub contract: Option<super::ContractNotice<'a>>,
}

impl<'a> Failure<'a> {
    /// The failure of a call to `tool`.
    #[must_use]
    pub(crate) fn new(tool: &'a str, error: &'a ToolError) -> Self {
        Self {
            tool,
            error,
            contract: None,
        }
    }

    /// Adds the contract notice of the tool.
    #[must_use]
    pub(crate) fn with_contract(mut self, contract: Option<super::ContractNotice<'a>>) -> Self {
        self.contract = contract;
        self
    }
}
