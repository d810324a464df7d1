//! Errors of building and loading policies.

use std::fmt;
use std::path::PathBuf;

use crate::text::did_you_mean;

/// One problem of a policy: what is wrong, and where (the rule, and the line of a policy file).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// The rule the problem is in, when it is in one.
    pub rule: Option<String>,
    /// The field of the rule, when known (`pattern`, `severity`, …): where in a policy file
    /// the problem is placed. The message names it.
    pub(crate) field: Option<String>,
    /// 1-based line in the policy file; `None` for policies built in Rust.
    pub line: Option<usize>,
    /// 1-based column in the policy file, in characters.
    pub column: Option<usize>,
    /// What is wrong, in lower case.
    pub message: String,
}

impl Problem {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Problem {
            rule: None,
            field: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }

    pub(crate) fn in_rule(mut self, rule: impl Into<String>) -> Self {
        self.rule = Some(rule.into());
        self
    }

    pub(crate) fn in_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub(crate) fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "line {line}, column {column}: ")?,
            (Some(line), None) => write!(f, "line {line}: ")?,
            _ => {}
        }
        if let Some(rule) = &self.rule {
            write!(f, "rule `{rule}`: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Why a policy could not be built or loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The rules have problems: every one found is listed, not only the first.
    #[error("{}", list_problems(origin.as_ref(), problems))]
    Invalid {
        /// The policy file, when the rules came from one.
        origin: Option<PathBuf>,
        /// Every problem found.
        problems: Vec<Problem>,
    },
    /// A policy file could not be read.
    #[error("cannot read policy file `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// No built-in profile has this name.
    #[error("unknown profile `{name}`, {}", expected_profile(name))]
    UnknownProfile {
        /// The name that was asked for.
        name: String,
    },
}

impl PolicyError {
    pub(crate) fn invalid(problems: Vec<Problem>) -> Self {
        PolicyError::Invalid {
            origin: None,
            problems,
        }
    }
}

fn list_problems(origin: Option<&PathBuf>, problems: &[Problem]) -> String {
    let place = origin.map_or_else(
        || "the policy".to_owned(),
        |path| format!("policy file `{}`", path.display()),
    );
    match problems {
        [single] => format!("{place} is invalid: {single}"),
        many => {
            let mut listing = format!("{place} has {} problems:", many.len());
            for problem in many {
                listing.push_str("\n  ");
                listing.push_str(&problem.to_string());
            }
            listing
        }
    }
}

fn expected_profile(name: &str) -> String {
    let profiles = super::Profile::ALL.map(super::Profile::name);
    match did_you_mean(name, profiles) {
        Some(profile) => format!("did you mean `{profile}`?"),
        None => "expected `base`, `observation` or `decision`".to_owned(),
    }
}
