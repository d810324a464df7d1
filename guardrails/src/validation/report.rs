//! The issue model: what a rejected call carries back to the model.

use std::borrow::Cow;
use std::fmt;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::suggestion::Suggestion;

/// A machine-readable category of a validation [`Issue`].
///
/// The string form (its `Display`, e.g. `unknown_field`) is part of the rendered output and is
/// stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum IssueCode {
    /// A required field is absent.
    Missing,
    /// A key that is not a field of the arguments.
    UnknownField,
    /// A value of the wrong JSON type (including `null` where a value is required).
    Type,
    /// A string or array shorter than its minimum length.
    TooShort,
    /// A string or array longer than its maximum length.
    TooLong,
    /// A number below its minimum (or the range of its Rust type).
    TooSmall,
    /// A number above its maximum (or the range of its Rust type).
    TooLarge,
    /// A string that does not match the field's pattern.
    Pattern,
    /// A string that is not in the field's format (email, url, …).
    Format,
    /// A value outside the allowed values.
    Enum,
    /// An array whose items must be unique but are not.
    NotUnique,
    /// A number that is not a multiple of the required step.
    MultipleOf,
    /// A failure reported by a custom check function.
    Custom,
    /// Text that breaks an output policy rule.
    Policy,
    /// A paging cursor this tool cannot continue from: edited, made up, given for other
    /// arguments, or stale.
    Cursor,
}

impl IssueCode {
    /// The stable `snake_case` name of the code, as rendered.
    #[must_use]
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Missing => "missing",
            Self::UnknownField => "unknown_field",
            Self::Type => "type",
            Self::TooShort => "too_short",
            Self::TooLong => "too_long",
            Self::TooSmall => "too_small",
            Self::TooLarge => "too_large",
            Self::Pattern => "pattern",
            Self::Format => "format",
            Self::Enum => "enum",
            Self::NotUnique => "not_unique",
            Self::MultipleOf => "multiple_of",
            Self::Custom => "custom",
            Self::Policy => "policy",
            Self::Cursor => "cursor",
        }
    }
}

impl fmt::Display for IssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in the arguments of a call.
///
/// Every text in an issue is bounded: values and keys sent by the caller are cut to a short
/// preview, so a hostile call cannot make a report large. Escaping for a given output format is
/// done when the report is rendered.
///
/// The texts are [`Cow`]s: most of them depend on the declaration alone (the fix of a field,
/// the path of a top-level field, the message of a format), are worded once and borrowed, and
/// a rejected call allocates only for what depends on what it sent. Build one from a `String`
/// or a `&'static str` with `.into()`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Issue {
    /// Where the problem is, e.g. `items[2].name`; empty for the arguments object itself.
    pub path: Cow<'static, str>,
    /// What kind of problem it is.
    pub code: IssueCode,
    /// What is wrong, in one sentence.
    pub message: Cow<'static, str>,
    /// A bounded preview of the value that was sent, in JSON notation (at most 80 characters,
    /// cut between words and marked); `None` when nothing was
    /// sent. For a sensitive field, or in a pass that echoes no value, what kind of value was
    /// sent and its size instead: `(withheld: a string of 14 characters)` (see
    /// [`withheld`](super::withheld)).
    pub received: Option<Cow<'static, str>>,
    /// What was expected instead.
    pub expected: Option<Cow<'static, str>>,
    /// How to fix it.
    pub fix: Option<Cow<'static, str>>,
}

impl Issue {
    /// The path of the issue, or `(root)` for the arguments object itself.
    #[must_use]
    pub(crate) fn location(&self) -> &str {
        if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        }
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.location(), self.message, self.code)
    }
}

/// Where checks record the issues they find: the validation pass ([`Cx`](super::Cx)), or a
/// tally when only whether a value passes matters (picking examples).
pub(crate) trait IssueSink {
    /// Records an issue at the current place.
    fn fail(
        &mut self,
        code: IssueCode,
        message: Cow<'static, str>,
        received: Option<&Value>,
        expected: Option<Cow<'static, str>>,
    );
}

/// An [`IssueSink`] that only counts.
#[derive(Debug, Default)]
pub(crate) struct Tally(pub(crate) usize);

impl IssueSink for Tally {
    fn fail(
        &mut self,
        _: IssueCode,
        _: Cow<'static, str>,
        _: Option<&Value>,
        _: Option<Cow<'static, str>>,
    ) {
        self.0 += 1;
    }
}

/// The most issues a report keeps; later ones are only counted, so that the size of a report
/// does not grow with the size of a hostile input.
pub(crate) const MAX_KEPT_ISSUES: usize = 64;

/// How many issues a report has room for at its first.
const FIRST_ROOM: usize = 8;

/// Every issue found in one pass over a call's arguments. A report keeps the first 64 issues
/// and only counts the rest ([`len`](Self::len) counts them all), so that its size does not
/// grow with the size of a hostile input.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    issues: Vec<Issue>,
    omitted: usize,
    /// What the validator is sure some unknown keys meant, in the structured form the
    /// corrected call of a repeated call applies ([`correction`](super::correction)); the
    /// issues word the same in text.
    #[serde(skip)]
    suggestions: Vec<Suggestion>,
}

impl Report {
    /// An empty report.
    #[must_use]
    pub(crate) const fn new() -> Self {
        Self {
            issues: Vec::new(),
            omitted: 0,
            suggestions: Vec::new(),
        }
    }

    /// Notes what the validator is sure an unknown key meant.
    pub(crate) fn suggest(&mut self, suggestion: Suggestion) {
        self.suggestions.push(suggestion);
    }

    /// What the validator is sure the unknown keys meant.
    pub(crate) fn suggestions(&self) -> &[Suggestion] {
        &self.suggestions
    }

    /// Adds an issue; past [`MAX_KEPT_ISSUES`] it is only counted.
    pub(crate) fn push(&mut self, issue: Issue) {
        if self.issues.capacity() == 0 {
            // Room for the issues of most rejected calls at once: growing the list later moves
            // it, and a move is an allocator's slowest path.
            self.issues.reserve_exact(FIRST_ROOM);
        }
        if self.issues.len() < MAX_KEPT_ISSUES {
            self.issues.push(issue);
        } else {
            self.omitted += 1;
        }
    }

    /// Whether a further issue would still be kept (callers skip costly work otherwise).
    #[must_use]
    pub(crate) fn has_room(&self) -> bool {
        self.issues.len() < MAX_KEPT_ISSUES
    }

    /// The issues kept, to amend.
    pub(crate) fn issues_mut(&mut self) -> &mut [Issue] {
        &mut self.issues
    }

    /// Counts an issue that is not kept.
    pub(crate) fn count_omitted(&mut self) {
        self.omitted += 1;
    }

    /// The issues kept, in the order they were found.
    #[must_use]
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    /// How many issues were found beyond those kept.
    #[must_use]
    pub(crate) fn omitted(&self) -> usize {
        self.omitted
    }

    /// The number of issues found, kept or not.
    #[must_use]
    pub fn len(&self) -> usize {
        self.issues.len() + self.omitted
    }

    /// Whether no issue was found.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether an issue with this code was found among those kept.
    #[must_use]
    pub fn has(&self, code: IssueCode) -> bool {
        self.issues.iter().any(|i| i.code == code)
    }

    /// The first kept issue at `path`, if any.
    #[must_use]
    pub fn at(&self, path: &str) -> Option<&Issue> {
        self.issues.iter().find(|i| i.path == path)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let found = crate::text::count(self.len(), "invalid argument", "invalid arguments");
        write!(f, "{found}")?;
        for issue in &self.issues {
            write!(f, "; {issue}")?;
        }
        if self.omitted > 0 {
            write!(f, "; and {} more", self.omitted)?;
        }
        Ok(())
    }
}

impl std::error::Error for Report {}

/// Whether `name` stands in a path as it is (`name`), rather than quoted (`["odd key"]`).
pub(crate) fn is_plain_key(name: &str) -> bool {
    // Most names are ASCII letters, digits and underscores, told by their bytes; only the
    // others are decoded.
    !name.is_empty()
        && (name.bytes().all(|b| PLAIN_BYTES[usize::from(b)])
            || name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-'))
}

/// The bytes a plain key is made of when it is ASCII: letters, digits, `_` and `-`.
const PLAIN_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b: u8 = 0;
    while b < 128 {
        table[b as usize] = b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        b += 1;
    }
    table
};

/// Appends `name` to a path: `.name`, or `["odd key"]` when it is not a plain name.
pub(crate) fn push_key(out: &mut String, name: &str) {
    if is_plain_key(name) {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(name);
    } else {
        // A key that is not a plain name is quoted as JSON, with nothing invisible left raw.
        let _ = write!(out, "[{}]", crate::text::quote_json(name));
    }
}
