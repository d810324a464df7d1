//! The declarative form of a rule: what it forbids or requires, how much a violation weighs,
//! and what the writer should do instead.

use std::fmt;

use serde::Serialize;

/// How much a violation weighs, from the least to the most serious.
///
/// The order of the variants is the order of seriousness, so `RuleSeverity::Critical >
/// RuleSeverity::Warning` holds and the most serious violation of a list is its `max()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum RuleSeverity {
    /// Suggests an improvement; never holds the text back.
    Advisory,
    /// Holds the text back until the violation is corrected or explicitly acknowledged.
    Warning,
    /// Blocks delivery until the violation is corrected.
    Critical,
}

impl RuleSeverity {
    /// Every severity, from the most serious down.
    pub(crate) const ALL: [RuleSeverity; 3] = [
        RuleSeverity::Critical,
        RuleSeverity::Warning,
        RuleSeverity::Advisory,
    ];

    /// The upper-case name used in verdicts and reports: `CRITICAL`, `WARNING` or `ADVISORY`.
    #[must_use]
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            RuleSeverity::Advisory => "ADVISORY",
            RuleSeverity::Warning => "WARNING",
            RuleSeverity::Critical => "CRITICAL",
        }
    }
}

impl fmt::Display for RuleSeverity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`RuleSeverity`] from a name that is none of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown severity `{name}`, {}", expected_severity(name))]
pub(crate) struct UnknownSeverity {
    /// The name that was given.
    name: String,
}

fn expected_severity(name: &str) -> String {
    let names = RuleSeverity::ALL.map(RuleSeverity::as_str);
    match crate::text::did_you_mean(name, names) {
        Some(close) => format!("did you mean `{}`?", close.to_lowercase()),
        None => "expected `critical`, `warning` or `advisory`".to_owned(),
    }
}

impl RuleSeverity {
    /// Parses `critical`, `warning` or `advisory`, in any case: a policy file's `severity`.
    pub(crate) fn parse(name: &str) -> Result<Self, UnknownSeverity> {
        RuleSeverity::ALL
            .into_iter()
            .find(|severity| severity.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownSeverity {
                name: name.to_owned(),
            })
    }
}

/// What a rule looks for. Patterns use the syntax of the `regex` crate, whose engines run in
/// time linear in the text: no pattern, however written, can make a check take exponential time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum RuleKind {
    /// Every match of `pattern` is a violation, except a match that `unless_followed_by` matches
    /// right after (whitespace between them allowed).
    Forbidden {
        /// The forbidden text.
        pattern: String,
        /// A tag that makes a match acceptable when it follows the match.
        unless_followed_by: Option<String>,
    },
    /// Every match of `content` must be followed by a match of `tag` (whitespace between them
    /// allowed): a kind of content that must always carry its tag.
    MandatoryTag {
        /// The kind of content that needs the tag.
        content: String,
        /// The tag that must follow it.
        tag: String,
    },
    /// The text must contain at least one match of `pattern` somewhere.
    Required {
        /// The pattern that must occur.
        pattern: String,
    },
    /// Whole words or phrases, matched case-insensitively; the spaces inside a phrase match any
    /// run of whitespace.
    Words {
        /// The forbidden words and phrases.
        words: Vec<String>,
        /// A tag that makes an occurrence acceptable when it follows the word.
        unless_followed_by: Option<String>,
    },
}

/// How far past the end of a match its tag may end, in bytes, unless a rule says otherwise.
pub(crate) const DEFAULT_TAG_WINDOW: usize = 256;

/// One rule of a [`Policy`](super::Policy): a name, a [`RuleSeverity`], what it looks for
/// and the guidance shown with each violation. It serializes to what a policy file says of it
/// (`kind` being `forbidden`, `mandatory_tag`, `required` or `words`).
///
/// A rule is a plain description; its patterns are compiled, and any mistake in them reported,
/// when the policy is built.
///
/// ```
/// use guardrails::policy::{Rule, RuleSeverity};
///
/// let rule = Rule::forbidden("untagged_dollar_amount", r"\$\d[\d,]*")
///     .unless_followed_by(r"\[AI estimation")
///     .alternative("Qualitative language with an [AI estimation …] tag")
///     .fix("a substantial investment [AI estimation: scope to be confirmed]");
/// assert_eq!(rule.severity(), RuleSeverity::Critical);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    name: String,
    severity: RuleSeverity,
    #[serde(flatten)]
    kind: RuleKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alternative: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
    tag_window: usize,
    /// Mistakes in how the rule was put together, reported when the policy is built: a rule
    /// value cannot fail while it is being described, so it remembers instead.
    #[serde(skip)]
    misuse: Vec<String>,
}

impl Rule {
    fn new(name: impl Into<String>, kind: RuleKind) -> Self {
        Rule {
            name: name.into(),
            severity: RuleSeverity::Critical,
            kind,
            message: None,
            alternative: None,
            fix: None,
            tag_window: DEFAULT_TAG_WINDOW,
            misuse: Vec::new(),
        }
    }

    /// A rule against every match of `pattern`. Its severity is
    /// [`RuleSeverity::Critical`] unless added to a policy as a warning or an advisory.
    #[must_use]
    pub fn forbidden(name: impl Into<String>, pattern: impl Into<String>) -> Self {
        Rule::new(
            name,
            RuleKind::Forbidden {
                pattern: pattern.into(),
                unless_followed_by: None,
            },
        )
    }

    /// A rule that every match of `content` is followed by a match of `tag`. Its severity is
    /// [`RuleSeverity::Critical`] unless added to a policy as a warning or an advisory.
    #[must_use]
    pub fn mandatory_tag(
        name: impl Into<String>,
        content: impl Into<String>,
        tag: impl Into<String>,
    ) -> Self {
        Rule::new(
            name,
            RuleKind::MandatoryTag {
                content: content.into(),
                tag: tag.into(),
            },
        )
    }

    /// A rule that the text contains `pattern` at least once. Its severity is
    /// [`RuleSeverity::Critical`] unless added to a policy as a warning or an advisory.
    #[must_use]
    pub fn required(name: impl Into<String>, pattern: impl Into<String>) -> Self {
        Rule::new(
            name,
            RuleKind::Required {
                pattern: pattern.into(),
            },
        )
    }

    /// A rule against whole words or phrases, case-insensitive. Its severity is
    /// [`RuleSeverity::Critical`] unless added to a policy as a warning or an advisory.
    #[must_use]
    pub fn forbidden_words<I, W>(name: impl Into<String>, words: I) -> Self
    where
        I: IntoIterator<Item = W>,
        W: Into<String>,
    {
        Rule::new(
            name,
            RuleKind::Words {
                words: words.into_iter().map(Into::into).collect(),
                unless_followed_by: None,
            },
        )
    }

    /// Accepts a match when `tag` matches right after it, whitespace between them allowed, ending
    /// within the rule's tag window ([`Rule::within`]). Applies to forbidden patterns and word
    /// lists; on other kinds, building the policy reports the mistake.
    #[must_use]
    pub fn unless_followed_by(mut self, tag: impl Into<String>) -> Self {
        match &mut self.kind {
            RuleKind::Forbidden {
                unless_followed_by, ..
            }
            | RuleKind::Words {
                unless_followed_by, ..
            } => *unless_followed_by = Some(tag.into()),
            RuleKind::MandatoryTag { .. } => self
                .misuse
                .push("`unless_followed_by` does not apply to a mandatory tag: its tag is the one that must follow".to_owned()),
            RuleKind::Required { .. } => self
                .misuse
                .push("`unless_followed_by` does not apply to a required pattern".to_owned()),
        }
        self
    }

    /// Sets the severity.
    #[must_use]
    pub(crate) fn with_severity(mut self, severity: RuleSeverity) -> Self {
        self.severity = severity;
        self
    }

    /// Explains why the rule exists; shown with each violation.
    #[must_use]
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// The approved alternative: what to write instead, shown with each violation.
    #[must_use]
    pub fn alternative(mut self, alternative: impl Into<String>) -> Self {
        self.alternative = Some(alternative.into());
        self
    }

    /// An automatic fix: the text that replaces each match. `{found}` in it stands for the
    /// matched text, so `"{found} [AI estimation: …]"` keeps the match and adds a tag. A required
    /// pattern has nothing to replace; building the policy reports a fix on one.
    #[must_use]
    pub fn fix(mut self, replacement: impl Into<String>) -> Self {
        self.fix = Some(replacement.into());
        self
    }

    /// How far past the end of a match its tag may end, in bytes (256 unless set). Bounding the look-ahead keeps every check linear in the length of the text.
    #[must_use]
    pub fn within(mut self, bytes: usize) -> Self {
        self.tag_window = bytes;
        self
    }

    /// The name, unique within a policy.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The severity of a violation.
    #[must_use]
    pub fn severity(&self) -> RuleSeverity {
        self.severity
    }

    /// What the rule looks for.
    #[must_use]
    pub(crate) fn kind(&self) -> &RuleKind {
        &self.kind
    }

    /// Why the rule exists, if given.
    #[must_use]
    pub(crate) fn explanation(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// The approved alternative, if given.
    #[must_use]
    pub(crate) fn approved_alternative(&self) -> Option<&str> {
        self.alternative.as_deref()
    }

    /// The replacement of the automatic fix, if any (`{found}` not yet expanded).
    #[must_use]
    pub(crate) fn replacement(&self) -> Option<&str> {
        self.fix.as_deref()
    }

    /// How far past the end of a match its tag may end, in bytes.
    #[must_use]
    pub(crate) fn tag_window(&self) -> usize {
        self.tag_window
    }

    pub(crate) fn misuse(&self) -> &[String] {
        &self.misuse
    }

    /// The text a violation explains itself with when the rule has no message of its own.
    pub(crate) fn default_message(&self) -> String {
        match &self.kind {
            RuleKind::Forbidden {
                unless_followed_by: None,
                ..
            } => "This text is not allowed.".to_owned(),
            RuleKind::Forbidden {
                unless_followed_by: Some(tag),
                ..
            }
            | RuleKind::Words {
                unless_followed_by: Some(tag),
                ..
            } => format!("Allowed only when followed by a tag matching `{tag}`."),
            RuleKind::MandatoryTag { tag, .. } => {
                format!("This content must be followed by a tag matching `{tag}`.")
            }
            RuleKind::Required { pattern } => {
                format!("The text must contain a match of `{pattern}`.")
            }
            RuleKind::Words {
                unless_followed_by: None,
                ..
            } => "This word is not allowed.".to_owned(),
        }
    }
}
