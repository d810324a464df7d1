//! The compiled form of a policy and the scan that finds every match of every rule.
//!
//! # Why one pass gives the same answer as one scan per rule
//!
//! The reference semantics are those of running each rule's pattern on its own, left to right,
//! each search starting where that rule's previous match ended ([`Engine::scan_each_rule`]). The
//! fast scan ([`Engine::scan`]) runs all forbidden patterns as one multi-pattern automaton with
//! leftmost-first semantics. Such a scan reports, from a position, the leftmost place where *any*
//! pattern matches, and then continues after that match: so between two reported matches no
//! pattern matches at all, and the only matches it can hide are those of other patterns that
//! start inside a reported match. For each reported match the engine therefore asks which
//! patterns could start inside it, using per-pattern sets of possible first bytes computed from
//! the patterns themselves, and settles those patterns with their own search. Each such search
//! finds that pattern's true next match and is remembered until the scan reaches it, so a
//! pattern is never searched twice over the same stretch of text: the total work is bounded by
//! one multi-pattern pass plus, at worst, the per-rule scans of the patterns that actually
//! overlap others, and stays linear in the length of the text.
//!
//! Patterns that cannot match the empty string are the only ones accepted, which keeps the
//! semantics of "the next match" simple and the same in both scans. A first multi-pattern pass
//! (`which_overlapping_matches`) tells which patterns occur at all, required patterns included:
//! a text that breaks no rule costs that one pass.

use regex_automata::meta::{self, Regex};
use regex_automata::{Input, MatchKind, PatternSet};
use regex_syntax::hir::{Class, Hir, HirKind};

use super::rule::{Rule, RuleKind};

/// One problem found while compiling a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompileProblem {
    /// Index of the rule in the policy, when the problem belongs to one rule.
    pub(crate) rule: Option<usize>,
    /// The field of the rule the problem is in (`pattern`, `words`, `tag`, …).
    pub(crate) field: Option<&'static str>,
    pub(crate) message: String,
}

/// A match of one rule's pattern, before the tag check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RawMatch {
    pub(crate) start: usize,
    pub(crate) rule: usize,
    pub(crate) end: usize,
}

/// What one scan found: the matches of forbidden patterns, sorted by position then rule, and
/// the required rules that have no match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScanOutcome {
    pub(crate) matches: Vec<RawMatch>,
    pub(crate) missing_required: Vec<usize>,
}

/// The tag check of one rule.
#[derive(Debug, Clone)]
pub(crate) struct TagCheck {
    pub(crate) tag: Regex,
    pub(crate) window: usize,
}

/// A set of pattern ids as a bit set, one bit per pattern.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct PatternBits {
    words: Vec<u64>,
}

impl PatternBits {
    fn with_capacity(patterns: usize) -> Self {
        PatternBits {
            words: vec![0; patterns.div_ceil(64)],
        }
    }

    fn insert(&mut self, pattern: usize) {
        self.words[pattern / 64] |= 1 << (pattern % 64);
    }

    fn union_with(&mut self, other: &PatternBits) {
        for (mine, theirs) in self.words.iter_mut().zip(&other.words) {
            *mine |= theirs;
        }
    }

    fn clear(&mut self) {
        self.words.fill(0);
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(index, &word)| {
            (0..64)
                .filter(move |bit| word & (1 << bit) != 0)
                .map(move |bit| index * 64 + bit)
        })
    }
}

/// What is known about a pattern's next true match during a one-pass scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NextMatch {
    /// Not searched since the pattern's last match.
    Unknown,
    /// The pattern has no further match.
    Exhausted,
    /// The pattern's next match, found by its own search, not yet reached by the scan.
    At { start: usize, end: usize },
}

/// The compiled form of a policy's rules.
#[derive(Debug, Clone)]
pub(crate) struct Engine {
    /// Every pattern, forbidden ones first then required ones, matched in overlapping mode to
    /// learn which occur at all.
    detector: Option<Regex>,
    /// Every forbidden pattern in one leftmost-first automaton; pattern id = forbidden index.
    finder: Option<Regex>,
    /// Each forbidden pattern on its own, for the searches that settle overlaps (and for the
    /// reference scan).
    singles: Vec<Regex>,
    /// Each required pattern on its own, for the reference scan.
    required_singles: Vec<Regex>,
    /// For each byte, the forbidden patterns whose match can start with it.
    starters: Vec<PatternBits>,
    /// Rule index of each forbidden pattern.
    forbidden_rule: Vec<usize>,
    /// Rule index of each required pattern.
    required_rule: Vec<usize>,
    /// Tag check per rule, for rules that have one.
    tags: Vec<Option<TagCheck>>,
}

/// The pattern a rule matches with, and the tag that may or must follow it.
fn patterns_of(rule: &Rule) -> (String, Option<&str>) {
    match rule.kind() {
        RuleKind::Forbidden {
            pattern,
            unless_followed_by,
        } => (pattern.clone(), unless_followed_by.as_deref()),
        RuleKind::MandatoryTag { content, tag } => (content.clone(), Some(tag.as_str())),
        RuleKind::Required { pattern } => (pattern.clone(), None),
        RuleKind::Words {
            words,
            unless_followed_by,
        } => (words_pattern(words), unless_followed_by.as_deref()),
    }
}

/// The pattern of a word list: whole words, case-insensitive, longest first so that a phrase
/// wins over a word it starts with.
fn words_pattern(words: &[String]) -> String {
    let mut sorted: Vec<&String> = words.iter().collect();
    sorted.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    let alternatives: Vec<String> = sorted
        .iter()
        .map(|word| {
            word.split_whitespace()
                .map(regex_syntax::escape)
                .collect::<Vec<_>>()
                .join(r"\s+")
        })
        .collect();
    format!(r"(?i)\b(?:{})\b", alternatives.join("|"))
}

/// Parses a pattern, with a one-line message on failure.
fn parse(pattern: &str) -> Result<Hir, String> {
    regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|error| match &error {
            regex_syntax::Error::Parse(parse) => format!(
                "does not compile: {} (at character {})",
                parse.kind(),
                parse.span().start.column
            ),
            regex_syntax::Error::Translate(translate) => format!(
                "does not compile: {} (at character {})",
                translate.kind(),
                translate.span().start.column
            ),
            other => format!("does not compile: {other}"),
        })
}

/// Parses a pattern that must match some text: a pattern that can match the empty string
/// would match everywhere, and would make "the next match" ambiguous.
fn parse_non_empty(pattern: &str) -> Result<Hir, String> {
    let hir = parse(pattern)?;
    match hir.properties().minimum_len() {
        Some(0) => Err("can match the empty string; it must match at least one character".into()),
        None => Err("can never match anything".into()),
        Some(_) => Ok(hir),
    }
}

fn build_one(hir: &Hir) -> Result<Regex, String> {
    meta::Builder::new()
        .build_from_hir(hir)
        .map_err(|error| format!("is too large to compile: {error}"))
}

/// The bytes a match of `hir` can start with, and whether `hir` can match the empty string
/// (in which case what follows it decides the first byte too). Over-approximates, never
/// under-approximates: a pattern left out of a byte's set truly cannot start there.
fn first_bytes(hir: &Hir, set: &mut [bool; 256]) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(literal) => match literal.0.first() {
            Some(&byte) => {
                set[usize::from(byte)] = true;
                false
            }
            None => true,
        },
        HirKind::Class(Class::Unicode(class)) => {
            for range in class.ranges() {
                let mut buffer = [0; 4];
                let low = range.start().encode_utf8(&mut buffer).as_bytes()[0];
                let high = range.end().encode_utf8(&mut buffer).as_bytes()[0];
                // UTF-8 preserves the order of code points, so the lead bytes of a range of
                // code points are exactly the bytes between those of its ends.
                for byte in low..=high {
                    set[usize::from(byte)] = true;
                }
            }
            false
        }
        HirKind::Class(Class::Bytes(class)) => {
            for range in class.ranges() {
                for byte in range.start()..=range.end() {
                    set[usize::from(byte)] = true;
                }
            }
            false
        }
        HirKind::Repetition(repetition) => {
            let nullable = first_bytes(&repetition.sub, set);
            nullable || repetition.min == 0
        }
        HirKind::Capture(capture) => first_bytes(&capture.sub, set),
        HirKind::Concat(parts) => parts.iter().all(|part| first_bytes(part, set)),
        HirKind::Alternation(branches) => branches.iter().fold(false, |nullable, branch| {
            first_bytes(branch, set) | nullable
        }),
    }
}

/// Checks one rule and compiles its tag: returns the parsed pattern (and whether it is a required
/// one) and the tag check, recording each problem found.
fn compile_rule(
    index: usize,
    rule: &Rule,
    problems: &mut Vec<CompileProblem>,
) -> (Option<(Hir, bool)>, Option<TagCheck>) {
    let mut problem = |field: Option<&'static str>, message: String| {
        problems.push(CompileProblem {
            rule: Some(index),
            field,
            message,
        });
    };
    for misuse in rule.misuse() {
        problem(None, misuse.clone());
    }
    let (pattern, tag) = patterns_of(rule);
    let field = match rule.kind() {
        RuleKind::MandatoryTag { .. } => "content",
        RuleKind::Words { words, .. } => {
            if words.is_empty() {
                problem(Some("words"), "the word list is empty".into());
            }
            if words.iter().any(|word| word.trim().is_empty()) {
                problem(Some("words"), "the word list has an empty word".into());
            }
            "words"
        }
        RuleKind::Forbidden { .. } | RuleKind::Required { .. } => "pattern",
    };
    let is_required = matches!(rule.kind(), RuleKind::Required { .. });
    if is_required && rule.replacement().is_some() {
        problem(
            Some("fix"),
            "a required pattern has no match to replace, so it cannot have a fix".into(),
        );
    }
    let words_are_wrong = matches!(rule.kind(), RuleKind::Words { words, .. }
        if words.is_empty() || words.iter().any(|word| word.trim().is_empty()));
    let parsed = match parse_non_empty(&pattern) {
        // The pattern of a bad word list is wrong only because of the list, already reported.
        _ if words_are_wrong => None,
        Ok(hir) => Some((hir, is_required)),
        Err(message) => {
            problem(Some(field), format!("`{field}` {message}"));
            None
        }
    };
    let tag_field = match rule.kind() {
        RuleKind::MandatoryTag { .. } => "tag",
        _ => "unless_followed_by",
    };
    let tag_check =
        tag.and_then(
            |tag| match parse_non_empty(tag).and_then(|hir| build_one(&hir)) {
                Ok(tag) => Some(TagCheck {
                    tag,
                    window: rule.tag_window(),
                }),
                Err(message) => {
                    problem(Some(tag_field), format!("`{tag_field}` {message}"));
                    None
                }
            },
        );
    if tag.is_some() && rule.tag_window() == 0 {
        problem(
            Some("within"),
            "`within` is 0, so no tag could ever follow a match".into(),
        );
    }
    (parsed, tag_check)
}

impl Engine {
    /// Compiles `rules`, collecting every problem rather than stopping at the first.
    pub(crate) fn compile(rules: &[Rule]) -> Result<Engine, Vec<CompileProblem>> {
        let mut problems = Vec::new();
        let mut forbidden_hirs = Vec::new();
        let mut forbidden_rule = Vec::new();
        let mut required_hirs = Vec::new();
        let mut required_rule = Vec::new();
        let mut tags = Vec::with_capacity(rules.len());

        for (index, rule) in rules.iter().enumerate() {
            let (pattern, tag_check) = compile_rule(index, rule, &mut problems);
            match pattern {
                Some((hir, true)) => {
                    required_hirs.push(hir);
                    required_rule.push(index);
                }
                Some((hir, false)) => {
                    forbidden_hirs.push(hir);
                    forbidden_rule.push(index);
                }
                None => {}
            }
            tags.push(tag_check);
        }

        let mut singles = Vec::with_capacity(forbidden_hirs.len());
        let mut required_singles = Vec::with_capacity(required_hirs.len());
        for (hirs, compiled, owners) in [
            (&forbidden_hirs, &mut singles, &forbidden_rule),
            (&required_hirs, &mut required_singles, &required_rule),
        ] {
            for (hir, &rule) in hirs.iter().zip(owners) {
                match build_one(hir) {
                    Ok(regex) => compiled.push(regex),
                    Err(message) => problems.push(CompileProblem {
                        rule: Some(rule),
                        field: Some("pattern"),
                        message: format!("the pattern {message}"),
                    }),
                }
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }

        let whole_policy_problem = |error: meta::BuildError| {
            vec![CompileProblem {
                rule: None,
                field: None,
                message: format!("the rules together are too large to compile: {error}"),
            }]
        };
        let all_hirs: Vec<&Hir> = forbidden_hirs.iter().chain(&required_hirs).collect();
        let detector = if all_hirs.is_empty() {
            None
        } else {
            Some(
                meta::Builder::new()
                    .configure(meta::Config::new().match_kind(MatchKind::All))
                    .build_many_from_hir(&all_hirs)
                    .map_err(whole_policy_problem)?,
            )
        };
        let finder = if forbidden_hirs.is_empty() {
            None
        } else {
            Some(
                meta::Builder::new()
                    .build_many_from_hir(&forbidden_hirs)
                    .map_err(whole_policy_problem)?,
            )
        };

        let mut starters = vec![PatternBits::with_capacity(forbidden_hirs.len()); 256];
        for (pattern, hir) in forbidden_hirs.iter().enumerate() {
            let mut set = [false; 256];
            if first_bytes(hir, &mut set) {
                // Unreachable for accepted patterns (they cannot match empty), but a pattern
                // whose start is unknown must be considered everywhere.
                set = [true; 256];
            }
            for (byte, _) in set.iter().enumerate().filter(|(_, possible)| **possible) {
                starters[byte].insert(pattern);
            }
        }

        Ok(Engine {
            detector,
            finder,
            singles,
            required_singles,
            starters,
            forbidden_rule,
            required_rule,
            tags,
        })
    }

    /// The tag check of a rule, if it has one.
    pub(crate) fn tag_check(&self, rule: usize) -> Option<&TagCheck> {
        self.tags.get(rule).and_then(Option::as_ref)
    }

    /// Finds every match of every rule in one multi-pattern pass (see the module docs).
    pub(crate) fn scan(&self, text: &str) -> ScanOutcome {
        let Some(detector) = &self.detector else {
            return ScanOutcome {
                matches: Vec::new(),
                missing_required: Vec::new(),
            };
        };
        let forbidden_count = self.singles.len();
        let mut present = PatternSet::new(detector.pattern_len());
        detector.which_overlapping_matches(&Input::new(text), &mut present);
        let mut occurs = vec![false; detector.pattern_len()];
        for pattern in present.iter() {
            occurs[pattern.as_usize()] = true;
        }
        let missing_required = self
            .required_rule
            .iter()
            .enumerate()
            .filter(|(pattern, _)| !occurs[forbidden_count + pattern])
            .map(|(_, &rule)| rule)
            .collect();

        let mut matches = Vec::new();
        if let Some(finder) = &self.finder {
            let any_forbidden = occurs[..forbidden_count].contains(&true);
            if any_forbidden {
                self.scan_forbidden(finder, text, &occurs, &mut matches);
            }
        }
        matches.sort_unstable();
        ScanOutcome {
            matches,
            missing_required,
        }
    }

    fn scan_forbidden(
        &self,
        finder: &Regex,
        text: &str,
        occurs: &[bool],
        matches: &mut Vec<RawMatch>,
    ) {
        let length = text.len();
        let pattern_count = self.singles.len();
        // Where each pattern's own scan would search next: the end of its last match.
        let mut resume_at = vec![0_usize; pattern_count];
        let mut next: Vec<NextMatch> = (0..pattern_count)
            .map(|pattern| {
                if occurs[pattern] {
                    NextMatch::Unknown
                } else {
                    NextMatch::Exhausted
                }
            })
            .collect();
        let mut candidates = PatternBits::with_capacity(pattern_count);
        let mut record = |pattern: usize, start: usize, end: usize| {
            matches.push(RawMatch {
                start,
                rule: self.forbidden_rule[pattern],
                end,
            });
        };

        let mut position = 0;
        while position < length {
            let Some(found) = finder.search(&Input::new(text).span(position..length)) else {
                break;
            };
            let (reported, start, end) = (found.pattern().as_usize(), found.start(), found.end());
            // No pattern starts in [position, start), and the reported pattern's own scan has
            // nothing unsettled before `start`: this is its true next match, unless it lies
            // inside the pattern's previous match.
            if resume_at[reported] <= start {
                record(reported, start, end);
                resume_at[reported] = end;
                next[reported] = NextMatch::Unknown;
            }
            candidates.clear();
            for &byte in &text.as_bytes()[start..end] {
                candidates.union_with(&self.starters[usize::from(byte)]);
            }
            for pattern in candidates.iter() {
                // Settle every match of `pattern` that starts before `end`.
                while resume_at[pattern] < end {
                    let (next_start, next_end) = match next[pattern] {
                        NextMatch::Exhausted => break,
                        NextMatch::At { start, end } => (start, end),
                        NextMatch::Unknown => {
                            let from = resume_at[pattern].max(start);
                            let input = Input::new(text).span(from..length);
                            let Some(own) = self.singles[pattern].search(&input) else {
                                next[pattern] = NextMatch::Exhausted;
                                break;
                            };
                            (own.start(), own.end())
                        }
                    };
                    if next_start >= end {
                        next[pattern] = NextMatch::At {
                            start: next_start,
                            end: next_end,
                        };
                        break;
                    }
                    record(pattern, next_start, next_end);
                    resume_at[pattern] = next_end;
                    next[pattern] = NextMatch::Unknown;
                }
            }
            position = end;
        }
    }

    /// The reference scan: each rule's pattern on its own over the whole text. Gives the same
    /// outcome as [`Engine::scan`], at the cost of one pass per rule.
    pub(crate) fn scan_each_rule(&self, text: &str) -> ScanOutcome {
        let mut matches = Vec::new();
        for (pattern, regex) in self.singles.iter().enumerate() {
            for found in regex.find_iter(text) {
                matches.push(RawMatch {
                    start: found.start(),
                    rule: self.forbidden_rule[pattern],
                    end: found.end(),
                });
            }
        }
        matches.sort_unstable();
        let missing_required = self
            .required_singles
            .iter()
            .zip(&self.required_rule)
            .filter(|(regex, _)| !regex.is_match(text))
            .map(|(_, &rule)| rule)
            .collect();
        ScanOutcome {
            matches,
            missing_required,
        }
    }
}

impl TagCheck {
    /// Whether the tag follows a match ending at `end`: after optional whitespace, the tag
    /// matches anchored there and ends within the window.
    pub(crate) fn is_satisfied(&self, text: &str, end: usize) -> bool {
        let mut limit = end.saturating_add(self.window).min(text.len());
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let Some(window) = text.get(end..limit) else {
            return false;
        };
        let tag_start = end + (window.len() - window.trim_start().len());
        let input = Input::new(text)
            .span(tag_start..limit)
            .anchored(regex_automata::Anchored::Yes);
        self.tag.search(&input).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(pattern: &str) -> Vec<u8> {
        let hir = parse_non_empty(pattern).expect("valid pattern");
        let mut set = [false; 256];
        assert!(!first_bytes(&hir, &mut set));
        (0..=255_u8).filter(|&b| set[usize::from(b)]).collect()
    }

    #[test]
    fn first_bytes_follow_the_structure_of_the_pattern() {
        assert_eq!(starts(r"\$\d+"), b"$");
        assert_eq!(starts(r"\b(?:ab|cd)"), b"ac");
        assert_eq!(starts(r"x?y"), b"xy");
        assert_eq!(starts(r"(?i)will"), b"Ww");
        // Unicode digits start with many lead bytes; ASCII ones must be among them.
        assert!(starts(r"\d").contains(&b'7'));
        assert!(starts("é").contains(&0xC3));
    }

    #[test]
    fn empty_matching_patterns_are_refused() {
        assert!(parse_non_empty("a*").is_err());
        assert!(parse_non_empty(r"\b").is_err());
        assert!(parse_non_empty("(").is_err());
        assert!(parse_non_empty("a+").is_ok());
    }

    #[test]
    fn word_lists_escape_and_prefer_longer_phrases() {
        let pattern = words_pattern(&["will".into(), "will definitely".into(), "a.b".into()]);
        assert_eq!(pattern, r"(?i)\b(?:will\s+definitely|will|a\.b)\b");
    }
}
