//! Policies in TOML files, for people who do not write Rust.
//!
//! The file is read in two steps, each with its own errors: the TOML itself (syntax, types,
//! unknown keys, reported at the line the parser points to), then the meaning of each rule
//! (missing fields, unknown severities, patterns that do not compile, reported at the line of
//! the offending value). Every value that can be wrong is kept with its position for that.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::error::{PolicyError, Problem};
use super::profiles::Profile;
use super::rule::{Rule, RuleSeverity};
use super::set::{Policy, PolicyBuilder};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    extends: Option<Spanned<String>>,
    #[serde(default)]
    disable: Vec<Spanned<String>>,
    #[serde(default, rename = "rule")]
    rules: Vec<Spanned<RuleEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleEntry {
    name: Option<Spanned<String>>,
    severity: Option<Spanned<String>>,
    pattern: Option<Spanned<String>>,
    words: Option<Spanned<Vec<String>>>,
    content: Option<Spanned<String>>,
    required: Option<Spanned<String>>,
    tag: Option<Spanned<String>>,
    unless_followed_by: Option<Spanned<String>>,
    within: Option<Spanned<usize>>,
    message: Option<String>,
    alternative: Option<String>,
    fix: Option<Spanned<String>>,
}

/// Only the names and positions of the rules, read leniently to say which rule a TOML error is
/// in when the strict reading fails.
#[derive(Deserialize)]
struct RuleNames {
    #[serde(default, rename = "rule")]
    rules: Vec<Spanned<RuleName>>,
}

#[derive(Deserialize)]
struct RuleName {
    name: Option<toml::Value>,
}

/// Line and column (1-based, column in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = 1 + before.bytes().filter(|&byte| byte == b'\n').count();
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    (line, 1 + before[line_start..].chars().count())
}

/// What the rules of a file look like before they are compiled: each rule's position, and the
/// position of each of its fields, to place the problems the compiler finds.
#[derive(Default)]
struct Positions {
    rule_header: HashMap<String, usize>,
    fields: HashMap<(String, &'static str), usize>,
}

impl Policy {
    /// Reads a policy from the text of a TOML policy file.
    ///
    /// ```toml
    /// # Start from a built-in profile (optional): base, observation or decision.
    /// extends = "decision"
    /// # Rules of that profile to leave out (optional).
    /// disable = ["timeline_justification"]
    ///
    /// [[rule]]
    /// name = "untagged_dollar_amount"  # replaces the profile's rule of that name
    /// severity = "critical"            # critical | warning | advisory
    /// pattern = '\$\d[\d,]*'           # forbidden text (regex)...
    /// unless_followed_by = '\[AI estimation'   # ...unless this tag follows it
    /// within = 200                     # bytes the tag may end within (default 256)
    /// message = "Dollar amounts need an estimation tag."
    /// alternative = "Substantial investment [AI estimation: enterprise scope]"
    /// fix = "substantial investment [AI estimation: enterprise scope]"  # {found} = the match
    ///
    /// [[rule]]
    /// name = "overconfident_language"
    /// severity = "warning"
    /// words = ["will", "guaranteed", "definitely", "certainly"]  # whole words, any case
    ///
    /// [[rule]]
    /// name = "inference_tag"
    /// severity = "warning"
    /// content = '\b(?:therefore|thus)\b'   # this kind of content...
    /// tag = '[^.!?\n\[]*\[Inference:'      # ...must be followed by this tag
    ///
    /// [[rule]]
    /// name = "mandatory_source"
    /// severity = "critical"
    /// required = '\[Source: [^\]]+\]'      # must occur somewhere in the text
    /// ```
    ///
    /// Each rule has a `name`, a `severity` and exactly one of `pattern`, `words`, `content`
    /// (with `tag`) or `required`. A rule named like one of the extended profile replaces it in
    /// its place; two rules of the file cannot share a name.
    ///
    /// # Errors
    ///
    /// [`PolicyError::Invalid`] with every problem found, each naming its line and, where it
    /// is in one, its rule.
    pub fn from_toml_str(text: &str) -> Result<Policy, PolicyError> {
        read_policy(text).map_err(PolicyError::invalid)
    }

    /// Reads a policy from a TOML policy file; see [`Policy::from_toml_str`] for the format.
    ///
    /// # Errors
    ///
    /// [`PolicyError::Read`] when the file cannot be read, [`PolicyError::Invalid`] (naming
    /// the file, and each problem's line and rule) when it is not a valid policy.
    pub fn from_toml_file(path: impl AsRef<Path>) -> Result<Policy, PolicyError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        read_policy(&text).map_err(|problems| PolicyError::Invalid {
            origin: Some(path.to_path_buf()),
            problems,
        })
    }
}

fn read_policy(text: &str) -> Result<Policy, Vec<Problem>> {
    let file: PolicyFile =
        toml::from_str(text).map_err(|error| vec![toml_problem(text, &error)])?;
    let mut problems = Vec::new();
    let at = |span: Range<usize>| line_column(text, span.start);

    let mut builder = match &file.extends {
        None => Policy::builder(),
        Some(name) => match name.get_ref().parse::<Profile>() {
            Ok(profile) => profile.builder(),
            Err(error) => {
                let (line, column) = at(name.span());
                problems.push(
                    Problem::new(error.to_string())
                        .in_field("extends")
                        .at(line, column),
                );
                Policy::builder()
            }
        },
    };
    for name in &file.disable {
        if builder.contains(name.get_ref()) {
            builder = builder.without(name.get_ref());
        } else {
            let (line, column) = at(name.span());
            let known: Vec<&str> = builder.rule_names().collect();
            let whose = match (
                &file.extends,
                crate::text::did_you_mean(name.get_ref(), known),
            ) {
                (None, _) => "there is no `extends` profile to take it from".to_owned(),
                (Some(_), Some(close)) => format!("no such rule, did you mean `{close}`?"),
                (Some(profile), None) => {
                    format!("profile `{}` has no such rule", profile.get_ref())
                }
            };
            problems.push(
                Problem::new(format!("cannot disable `{}`: {whose}", name.get_ref()))
                    .in_field("disable")
                    .at(line, column),
            );
        }
    }

    let mut positions = Positions::default();
    for (index, entry) in file.rules.iter().enumerate() {
        let header = entry.span().start;
        match rule_from_entry(text, index, header, entry.get_ref(), &mut positions) {
            Ok(rule) => builder = builder.rule(rule),
            Err(rule_problems) => problems.extend(rule_problems),
        }
    }
    if !problems.is_empty() {
        problems.sort_by_key(|problem| problem.line);
        return Err(problems);
    }
    build_placed(text, builder, &positions)
}

/// Builds the policy and places each compile problem at the line of the field it is in.
fn build_placed(
    text: &str,
    builder: PolicyBuilder,
    positions: &Positions,
) -> Result<Policy, Vec<Problem>> {
    builder.build().map_err(|error| {
        let problems = match error {
            PolicyError::Invalid { problems, .. } => problems,
            PolicyError::Read { .. } | PolicyError::UnknownProfile { .. } => Vec::new(),
        };
        let mut problems: Vec<Problem> = problems
            .into_iter()
            .map(|problem| {
                let Some(rule) = problem.rule.clone() else {
                    return problem;
                };
                let offset = problem
                    .field
                    .as_deref()
                    .and_then(|field| {
                        positions
                            .fields
                            .iter()
                            .find(|((name, known), _)| *name == rule && *known == field)
                            .map(|(_, &offset)| offset)
                    })
                    .or_else(|| positions.rule_header.get(&rule).copied());
                match offset {
                    Some(offset) => {
                        let (line, column) = line_column(text, offset);
                        problem.at(line, column)
                    }
                    None => problem,
                }
            })
            .collect();
        problems.sort_by_key(|problem| problem.line);
        problems
    })
}

fn rule_from_entry(
    text: &str,
    index: usize,
    header: usize,
    entry: &RuleEntry,
    positions: &mut Positions,
) -> Result<Rule, Vec<Problem>> {
    let mut problems = Vec::new();
    let place = |problem: Problem, offset: usize| {
        let (line, column) = line_column(text, offset);
        problem.at(line, column)
    };
    let Some(name) = &entry.name else {
        return Err(vec![place(
            Problem::new(format!("rule #{} has no `name`", index + 1)).in_field("name"),
            header,
        )]);
    };
    let rule_name = name.get_ref().clone();
    if let Some(&earlier) = positions.rule_header.get(&rule_name) {
        let (earlier_line, _) = line_column(text, earlier);
        problems.push(place(
            Problem::new(format!(
                "the name is already used by the rule at line {earlier_line}"
            ))
            .in_rule(&rule_name)
            .in_field("name"),
            name.span().start,
        ));
    }
    positions.rule_header.insert(rule_name.clone(), header);
    let mut remember = |field: &'static str, span: Option<Range<usize>>| {
        if let Some(span) = span {
            positions
                .fields
                .insert((rule_name.clone(), field), span.start);
        }
    };
    remember("name", Some(name.span()));
    remember("pattern", entry.pattern.as_ref().map(Spanned::span));
    remember("pattern", entry.required.as_ref().map(Spanned::span));
    remember("words", entry.words.as_ref().map(Spanned::span));
    remember("content", entry.content.as_ref().map(Spanned::span));
    remember("tag", entry.tag.as_ref().map(Spanned::span));
    remember(
        "unless_followed_by",
        entry.unless_followed_by.as_ref().map(Spanned::span),
    );
    remember("within", entry.within.as_ref().map(Spanned::span));
    remember("fix", entry.fix.as_ref().map(Spanned::span));

    let problem = |message: String| Problem::new(message).in_rule(&rule_name);
    let severity = match &entry.severity {
        None => {
            problems.push(place(
                problem("missing field `severity` (critical, warning or advisory)".into())
                    .in_field("severity"),
                header,
            ));
            None
        }
        Some(severity) => match RuleSeverity::parse(severity.get_ref()) {
            Ok(severity) => Some(severity),
            Err(error) => {
                problems.push(place(
                    problem(error.to_string()).in_field("severity"),
                    severity.span().start,
                ));
                None
            }
        },
    };

    let mut rule = rule_kind_from_entry(entry, &rule_name, header, &mut |problem, offset| {
        problems.push(place(problem, offset));
    });
    if let (Some(tag), None) = (&entry.tag, &entry.content) {
        problems.push(place(
            problem("`tag` belongs to a `content` rule; use `unless_followed_by` with `pattern` or `words`".into())
                .in_field("tag"),
            tag.span().start,
        ));
    }

    if let Some(found) = &mut rule {
        let mut built = found.clone();
        if let Some(follow) = &entry.unless_followed_by {
            built = built.unless_followed_by(follow.get_ref().as_str());
        }
        if let Some(within) = &entry.within {
            built = built.within(*within.get_ref());
        }
        if let Some(message) = &entry.message {
            built = built.message(message.as_str());
        }
        if let Some(alternative) = &entry.alternative {
            built = built.alternative(alternative.as_str());
        }
        if let Some(fix) = &entry.fix {
            built = built.fix(fix.get_ref().as_str());
        }
        if let Some(severity) = severity {
            built = built.with_severity(severity);
        }
        *found = built;
    }
    match rule {
        Some(rule) if problems.is_empty() => Ok(rule),
        _ => Err(problems),
    }
}

/// The rule an entry describes, without its options: which of `pattern`, `words`, `content`
/// or `required` it has decides its kind.
fn rule_kind_from_entry(
    entry: &RuleEntry,
    rule_name: &str,
    header: usize,
    report: &mut dyn FnMut(Problem, usize),
) -> Option<Rule> {
    let problem = |message: String| Problem::new(message).in_rule(rule_name);
    let kinds: Vec<&str> = [
        ("pattern", entry.pattern.is_some()),
        ("words", entry.words.is_some()),
        ("content", entry.content.is_some()),
        ("required", entry.required.is_some()),
    ]
    .into_iter()
    .filter_map(|(field, present)| present.then_some(field))
    .collect();
    match (
        kinds.as_slice(),
        &entry.pattern,
        &entry.words,
        &entry.content,
        &entry.required,
    ) {
        (["pattern"], Some(pattern), ..) => {
            Some(Rule::forbidden(rule_name, pattern.get_ref().as_str()))
        }
        (["words"], _, Some(words), ..) => Some(Rule::forbidden_words(
            rule_name,
            words.get_ref().iter().cloned(),
        )),
        (["content"], _, _, Some(content), _) => {
            let Some(tag) = &entry.tag else {
                report(
                    problem(
                        "missing field `tag`: a `content` rule needs the tag that must follow it"
                            .into(),
                    )
                    .in_field("tag"),
                    content.span().start,
                );
                return None;
            };
            Some(Rule::mandatory_tag(
                rule_name,
                content.get_ref().as_str(),
                tag.get_ref().as_str(),
            ))
        }
        (["required"], .., Some(required)) => {
            Some(Rule::required(rule_name, required.get_ref().as_str()))
        }
        ([], ..) => {
            report(
                problem("missing field: give one of `pattern`, `words`, `content` (with `tag`) or `required`".into()),
                header,
            );
            None
        }
        (several, ..) => {
            report(
                problem(format!(
                    "give only one of `pattern`, `words`, `content` or `required`, not {}",
                    several
                        .iter()
                        .map(|field| format!("`{field}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                )),
                header,
            );
            None
        }
    }
}

/// A TOML error at its line, in the rule it falls in when that can be told.
fn toml_problem(text: &str, error: &toml::de::Error) -> Problem {
    let message = error.message().trim().to_owned();
    let Some(span) = error.span() else {
        return Problem::new(message);
    };
    let (line, column) = line_column(text, span.start);
    let mut problem = Problem::new(message).at(line, column);
    // The rule an error is in is the last one whose header comes before the error.
    if let Ok(names) = toml::from_str::<RuleNames>(text) {
        let containing = names
            .rules
            .iter()
            .rev()
            .find(|rule| rule.span().start <= span.start);
        if let Some(name) = containing
            .and_then(|rule| rule.get_ref().name.as_ref())
            .and_then(toml::Value::as_str)
        {
            problem = problem.in_rule(name);
        }
    }
    problem
}
