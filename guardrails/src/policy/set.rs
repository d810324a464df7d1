//! A policy: an ordered set of rules, compiled into one engine, and its builder.

use std::fmt;
use std::sync::Arc;

use super::engine::Engine;
use super::error::{PolicyError, Problem};
use super::fix::{FixOutcome, apply_fixes};
use super::rule::{Rule, RuleSeverity};
use super::verdict::{Verdict, assemble};

/// A compiled set of rules that checks text.
///
/// Build one with [`Policy::builder`], load one from a TOML file with
/// [`Policy::from_toml_file`], or start from a built-in [`Profile`](super::Profile). A policy is
/// cheap to clone (its compiled form is shared) and can be used from many threads at once.
///
/// Rule names are unique within a policy. Adding a rule whose name is already taken replaces
/// the earlier rule *in its place*: the order of rules, which decides the order of violations
/// found at the same position, stays that of first appearance. That is how policies compose:
/// a profile's rules can be tightened, relaxed or replaced one by one by name.
///
/// ```
/// use guardrails::policy::{Policy, Rule, RuleSeverity, Status};
///
/// let policy = Policy::builder()
///     .critical(
///         Rule::forbidden("untagged_dollar_amount", r"\$\d[\d,]*")
///             .unless_followed_by(r"\[AI estimation")
///             .alternative("Qualitative language with an [AI estimation …] tag"),
///     )
///     .warning(Rule::forbidden_words("overconfident_language", ["guaranteed", "definitely"]))
///     .build()?;
///
/// let verdict = policy.check("It costs $50,000 and is guaranteed.");
/// assert_eq!(verdict.status, Status::Blocked);
/// assert_eq!(verdict.count(RuleSeverity::Critical), 1);
/// assert_eq!(verdict.count(RuleSeverity::Warning), 1);
///
/// let verdict = policy.check("It costs $50,000 [AI estimation: vendor quote] overall.");
/// assert_eq!(verdict.status, Status::Approved);
/// # Ok::<(), guardrails::policy::PolicyError>(())
/// ```
#[derive(Clone)]
pub struct Policy {
    compiled: Arc<Compiled>,
}

struct Compiled {
    rules: Vec<Rule>,
    engine: Engine,
}

impl Policy {
    /// Starts an empty policy.
    pub fn builder() -> PolicyBuilder {
        PolicyBuilder::default()
    }

    /// The rules, in order.
    #[must_use]
    pub fn rules(&self) -> &[Rule] {
        &self.compiled.rules
    }

    /// The rule with this name.
    #[must_use]
    pub fn rule(&self, name: &str) -> Option<&Rule> {
        self.rules().iter().find(|rule| rule.name() == name)
    }

    /// Checks `text` against every rule in one pass over the text.
    #[must_use]
    pub fn check(&self, text: &str) -> Verdict {
        self.check_at_most(text, usize::MAX)
    }

    /// Checks `text` as [`Policy::check`] does, listing at most `max` violations: the rest are
    /// counted (in [`Verdict::omitted`] and [`Verdict::count`]) but not kept, so a text
    /// with millions of violations costs a counter, not millions of copies of what they found.
    ///
    /// ```
    /// use guardrails::policy::{Profile, RuleSeverity};
    ///
    /// let verdict = Profile::Base.policy().check_at_most(&"$1, ".repeat(100), 3);
    /// assert_eq!(verdict.violations.len(), 3);
    /// assert_eq!(verdict.count(RuleSeverity::Critical), 100);
    /// assert_eq!(verdict.omitted, 97);
    /// ```
    #[must_use]
    pub fn check_at_most(&self, text: &str, max: usize) -> Verdict {
        let scan = self.compiled.engine.scan(text);
        assemble(&self.compiled.rules, &self.compiled.engine, text, scan, max)
    }

    /// Checks `text` by running each rule's pattern separately over the whole text.
    ///
    /// Gives exactly the verdict of [`Policy::check`], one pass per rule instead of one pass in
    /// all: it is the reference the one-pass engine is tested and measured against.
    #[must_use]
    pub fn check_each_rule_separately(&self, text: &str) -> Verdict {
        let scan = self.compiled.engine.scan_each_rule(text);
        assemble(
            &self.compiled.rules,
            &self.compiled.engine,
            text,
            scan,
            usize::MAX,
        )
    }

    /// Applies every automatic fix of a check of `text` and checks the corrected text again.
    ///
    /// Fixes are applied left to right without overlapping: of two violations whose texts
    /// overlap, the one that starts first is fixed (at the same start, the longer one, then the
    /// earlier rule) and the other is left to the re-check.
    #[must_use]
    pub fn fix(&self, text: &str) -> FixOutcome {
        let before = self.check(text);
        let (corrected, changes) = apply_fixes(text, &before);
        let after = self.check(&corrected);
        FixOutcome {
            text: corrected,
            changes,
            after,
        }
    }

    /// A builder holding this policy's rules, to add, replace or remove some.
    pub fn to_builder(&self) -> PolicyBuilder {
        PolicyBuilder {
            rules: self.rules().to_vec(),
        }
    }

    /// This policy with the rules of `overlay` added: a rule of `overlay` whose name is taken
    /// replaces the rule of that name in its place, the others come after.
    ///
    /// # Errors
    ///
    /// Only when the rules together are too large to compile into one engine.
    pub fn merge(&self, overlay: &Policy) -> Result<Policy, PolicyError> {
        self.to_builder().extend(overlay).build()
    }
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policy")
            .field("rules", &self.compiled.rules)
            .finish_non_exhaustive()
    }
}

/// Puts a [`Policy`] together, rule by rule; see [`Policy`] for how names compose.
///
/// Nothing is checked until [`build`](PolicyBuilder::build), which reports every problem of
/// every rule at once.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct PolicyBuilder {
    rules: Vec<Rule>,
}

impl PolicyBuilder {
    /// Adds `rule` with its own severity, or replaces the rule of the same name in its place.
    pub(crate) fn rule(mut self, rule: Rule) -> Self {
        match self
            .rules
            .iter_mut()
            .find(|existing| existing.name() == rule.name())
        {
            Some(existing) => *existing = rule,
            None => self.rules.push(rule),
        }
        self
    }

    /// Adds `rule` as [`RuleSeverity::Critical`]: a violation blocks delivery. A rule of the
    /// same name is replaced in its place.
    pub fn critical(self, rule: Rule) -> Self {
        self.rule(rule.with_severity(RuleSeverity::Critical))
    }

    /// Adds `rule` as [`RuleSeverity::Warning`]: a violation holds the text until corrected or
    /// acknowledged.
    pub fn warning(self, rule: Rule) -> Self {
        self.rule(rule.with_severity(RuleSeverity::Warning))
    }

    /// Adds `rule` as [`RuleSeverity::Advisory`]: a violation only suggests an improvement.
    pub fn advisory(self, rule: Rule) -> Self {
        self.rule(rule.with_severity(RuleSeverity::Advisory))
    }

    /// Adds every rule of `policy`, in order, each replacing a rule of the same name.
    pub(crate) fn extend(self, policy: &Policy) -> Self {
        policy.rules().iter().cloned().fold(self, Self::rule)
    }

    /// Removes the rule of this name, if there is one.
    pub fn without(mut self, name: &str) -> Self {
        self.rules.retain(|rule| rule.name() != name);
        self
    }

    /// The names of the rules in the builder, in order.
    pub(crate) fn rule_names(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(Rule::name)
    }

    /// Whether a rule of this name is in the builder.
    #[must_use]
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.rules.iter().any(|rule| rule.name() == name)
    }

    /// Compiles the rules.
    ///
    /// # Errors
    ///
    /// [`PolicyError::Invalid`] listing every problem: an empty name, a pattern that does not
    /// compile or that can match the empty string, an empty word list, a fix on a required
    /// pattern, a tag window of zero, rules too large to compile together.
    pub fn build(self) -> Result<Policy, PolicyError> {
        let mut problems: Vec<Problem> = self
            .rules
            .iter()
            .filter(|rule| rule.name().trim().is_empty())
            .map(|_| Problem::new("a rule has an empty name").in_field("name"))
            .collect();
        let engine = match Engine::compile(&self.rules) {
            Ok(engine) => Some(engine),
            Err(compile_problems) => {
                problems.extend(compile_problems.into_iter().map(|problem| {
                    let mut converted = Problem::new(problem.message);
                    if let Some(rule) = problem.rule.and_then(|index| self.rules.get(index)) {
                        converted = converted.in_rule(rule.name());
                    }
                    if let Some(field) = problem.field {
                        converted = converted.in_field(field);
                    }
                    converted
                }));
                None
            }
        };
        match engine {
            Some(engine) if problems.is_empty() => Ok(Policy {
                compiled: Arc::new(Compiled {
                    rules: self.rules,
                    engine,
                }),
            }),
            _ => Err(PolicyError::invalid(problems)),
        }
    }
}
