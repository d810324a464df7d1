//! The compiled form of a policy and the scan that finds every match of every rule.
//!
//! # Why one pass gives the same answer as one scan per rule
//!
//! The reference semantics are those of running each rule's pattern on its own, left to right,
//! each search starting where that rule's previous match ended ([`Engine::scan_each_rule`]). The
//! fast scan ([`Engine::scan`]) runs all patterns, forbidden and required, as one multi-pattern
//! automaton with leftmost-first semantics. From a position, such a scan reports the leftmost
//! place where *any* pattern matches and continues after that match: so between two reported
//! matches no pattern matches at all, and the only matches it can hide are those of other
//! patterns that start inside a reported match (or at its start, with a lower priority).
//!
//! For each reported match the engine therefore settles the patterns that could start inside
//! it. Which ones could is known from per-pattern sets of possible first bytes, computed from
//! the patterns themselves. A candidate pattern is then *probed* at each position where it could
//! start: its own lazy DFA runs anchored there for at most `PROBE_WINDOW` bytes and usually
//! dies after a byte or two. A probe that finds a match fixes the pattern's next match (its end
//! is taken from an anchored search, so it is exactly what the pattern alone would report). A
//! probe that cannot tell, because the window ran out or the text is beyond what its automaton
//! judges, hands over to a full search of that pattern from there, whose answer is remembered
//! until the scan reaches it, so a pattern is never searched twice over the same stretch.
//!
//! The work is one multi-pattern pass (the literals' search, plus checks of their candidates
//! bounded per byte of text, or the automaton's search), plus probes bounded by the window for
//! each byte of each reported match, plus at worst the per-rule scans of the patterns whose
//! probes cannot tell: linear in the length of the text whatever it holds.
//!
//! Only patterns that cannot match the empty string are accepted, which keeps "the next match"
//! the same notion in both scans.
//!
//! # Where the multi-pattern search looks
//!
//! Running the automaton of all the patterns over every byte is what one pass costs: it is
//! large, and it reads prose at a few hundred megabytes a second. But most patterns can only
//! match text that starts with one of a few literals (`$`, a digit, `will`, `according to`),
//! so when every pattern has such a set, the search looks for the literals first (see
//! [`super::prefilter`]) and checks only where one starts (see [`Verifier`]): the same
//! leftmost-first match, found by reading little more than the literals' own search reads. A
//! policy with a pattern that has no literal set is searched as before, byte by byte.
//!
//! Once every required pattern has been seen, the search goes on with the forbidden patterns
//! alone: a required pattern that keeps matching would otherwise be reported, and its overlaps
//! settled, at each of its matches. The reasoning above holds for any set of patterns, so it
//! holds for the smaller one from there on.

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::pool::{Pool, PoolGuard};
use regex_automata::{Anchored, Input, MatchKind, hybrid};
use regex_syntax::hir::{Capture, Class, Hir, HirKind, Look, LookSet, Repetition};
use std::panic::{RefUnwindSafe, UnwindSafe};

use super::prefilter::{Candidates, Literals, prefix_literals};
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

    fn contains(&self, pattern: usize) -> bool {
        self.words[pattern / 64] & (1 << (pattern % 64)) != 0
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

/// The lazy DFA caches of the probes, one per pattern, created on first use.
type ProbeCaches = Vec<Option<hybrid::dfa::Cache>>;
type ProbeCachesFn = Box<dyn Fn() -> ProbeCaches + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// The compiled form of a policy's rules.
#[derive(Debug)]
pub(crate) struct Engine {
    /// Every pattern in one leftmost-first search: forbidden patterns have the ids
    /// `0..singles.len()`, required patterns the ids after them.
    finder: Option<Finder>,
    /// The forbidden patterns alone, with the same ids: what the scan goes on with once every
    /// required pattern has been seen. `None` when there is no required or no forbidden pattern.
    forbidden_finder: Option<Finder>,
    /// Buffers for the text with its ASCII letters lowercased, where the literal prefilter
    /// searches; kept across checks.
    lowered: Pool<Vec<u8>, LoweredFn>,
    /// Each forbidden pattern on its own, for the searches that settle overlaps (and for the
    /// reference scan).
    singles: Vec<Regex>,
    /// Each required pattern on its own, for the reference scan.
    required_singles: Vec<Regex>,
    /// Per pattern id, a lazy DFA to ask cheaply whether the pattern matches at a position.
    probes: Vec<Option<hybrid::dfa::DFA>>,
    /// Caches of the probes, kept across checks: creating one costs more than checking a short
    /// text.
    probe_caches: Pool<ProbeCaches, ProbeCachesFn>,
    /// For each byte, the pattern ids whose match can start with it.
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

        let whole_policy_problem = |error: Box<meta::BuildError>| {
            vec![CompileProblem {
                rule: None,
                field: None,
                message: format!("the rules together are too large to compile: {error}"),
            }]
        };
        // Pattern ids of the finder: forbidden patterns first, then required ones.
        let all_hirs: Vec<&Hir> = forbidden_hirs.iter().chain(&required_hirs).collect();
        let finder = if all_hirs.is_empty() {
            None
        } else {
            Some(Finder::build(&all_hirs).map_err(whole_policy_problem)?)
        };
        let forbidden_finder = if required_hirs.is_empty() || forbidden_hirs.is_empty() {
            None
        } else {
            Some(Finder::build(&all_hirs[..forbidden_hirs.len()]).map_err(whole_policy_problem)?)
        };

        let mut starters = vec![PatternBits::with_capacity(all_hirs.len()); 256];
        for (pattern, hir) in all_hirs.iter().enumerate() {
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
        let probes = all_hirs.iter().map(|hir| build_probe(hir)).collect();
        let pattern_count = all_hirs.len();
        let create_caches: ProbeCachesFn =
            Box::new(move || (0..pattern_count).map(|_| None).collect());

        let create_lowered: LoweredFn = Box::new(Vec::new);
        Ok(Engine {
            finder,
            forbidden_finder,
            lowered: Pool::new(create_lowered),
            singles,
            required_singles,
            probes,
            probe_caches: Pool::new(create_caches),
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
        let Some(finder) = &self.finder else {
            return ScanOutcome {
                matches: Vec::new(),
                missing_required: Vec::new(),
            };
        };
        let mut scan = Scan::new(self, text);
        let non_ascii = !text.is_ascii();
        let mut lowered = None;
        if [Some(finder), self.forbidden_finder.as_ref()]
            .into_iter()
            .flatten()
            .any(Finder::needs_lowercase)
        {
            let mut buffer = self.lowered.get();
            buffer.clear();
            buffer.extend(text.bytes().map(|byte| byte.to_ascii_lowercase()));
            lowered = Some(buffer);
        }
        let lower: &[u8] = lowered.as_deref().map_or(&[], Vec::as_slice);
        let mut all = Walk::new(finder);
        let mut forbidden = self.forbidden_finder.as_ref().map(Walk::new);
        let has_required = !self.required_singles.is_empty();
        let mut position = 0;
        while position < text.len() {
            // Once every required pattern has been seen, only the forbidden ones are looked for.
            let walk = if has_required && scan.required_found.iter().all(|&found| found) {
                match forbidden.as_mut() {
                    Some(walk) => walk,
                    None => break,
                }
            } else {
                &mut all
            };
            let Some(found) = walk.next(text, lower, position, non_ascii) else {
                break;
            };
            scan.settle_span(found.pattern().as_usize(), found.start(), found.end());
            position = found.end();
        }
        drop(all);
        drop(forbidden);
        if let Some(mut buffer) = lowered
            && buffer.capacity() > LOWERED_KEPT
        {
            // Not kept for the next check: one huge text must not hold its size for good.
            *buffer = Vec::new();
        }
        scan.finish()
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

/// `hir` without its Unicode word-boundary assertions. It matches wherever `hir` does (an
/// assertion only ever removes matches), and a lazy DFA runs it over any text, where one with a
/// Unicode word boundary gives up at the first byte that is not ASCII.
fn without_unicode_word_boundaries(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Look(look) if is_unicode_word_boundary(*look) => Hir::empty(),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => hir.clone(),
        HirKind::Repetition(repetition) => Hir::repetition(Repetition {
            sub: Box::new(without_unicode_word_boundaries(&repetition.sub)),
            ..repetition.clone()
        }),
        HirKind::Capture(capture) => Hir::capture(Capture {
            sub: Box::new(without_unicode_word_boundaries(&capture.sub)),
            ..capture.clone()
        }),
        HirKind::Concat(parts) => {
            Hir::concat(parts.iter().map(without_unicode_word_boundaries).collect())
        }
        HirKind::Alternation(branches) => Hir::alternation(
            branches
                .iter()
                .map(without_unicode_word_boundaries)
                .collect(),
        ),
    }
}

fn is_unicode_word_boundary(look: Look) -> bool {
    LookSet::singleton(look).contains_word_unicode()
}

/// How far past a candidate start the loose automaton may still be alive for the exact
/// pattern to be checked on that stretch only.
const VERIFY_WINDOW: usize = 256;

type LooseCacheFn = Box<dyn Fn() -> hybrid::dfa::Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// The lazy DFA of the loose patterns, with all of their matches (not only the preferred
/// one's: where the automaton dies bounds the matches of every pattern), and a pool of its
/// caches; `None` when it does not compile, which only costs speed.
fn loose_automaton(
    loose: &[Hir],
) -> Option<(hybrid::dfa::DFA, Pool<hybrid::dfa::Cache, LooseCacheFn>)> {
    let nfa = thompson::Compiler::new()
        .configure(thompson::Config::new().which_captures(WhichCaptures::None))
        .build_many_from_hir(loose)
        .ok()?;
    let dfa = hybrid::dfa::DFA::builder()
        .configure(hybrid::dfa::DFA::config().match_kind(MatchKind::All))
        .build_from_nfa(nfa)
        .ok()?;
    let for_caches = dfa.clone();
    let create: LooseCacheFn = Box::new(move || for_caches.create_cache());
    Some((dfa, Pool::new(create)))
}

/// Patterns with Unicode word boundaries, loosened for text that is not ASCII.
///
/// Their matches start where those of the loose patterns (the same without their Unicode word
/// boundaries) start, or later: the loose finder, a DFA on any text, finds the first place
/// where one can start, and the exact patterns are checked there, anchored. An anchored check
/// is bounded: the loose automaton, run anchored from the candidate, dies within a few bytes in
/// practice, and no exact match can extend past where it died. When it is still alive after
/// [`VERIFY_WINDOW`] bytes, the exact search runs from the candidate on, as it would have
/// without the loose finder. Either way the answer is the exact patterns' own, and each byte
/// is read a bounded number of times.
#[derive(Debug)]
struct Loose {
    finder: Regex,
    dfa: hybrid::dfa::DFA,
    caches: Pool<hybrid::dfa::Cache, LooseCacheFn>,
}

impl Loose {
    /// The loose form of `hirs`, or `None` when none has a Unicode word boundary (or the loose
    /// form does not compile, which only costs speed).
    fn build(hirs: &[&Hir]) -> Option<Loose> {
        if !hirs
            .iter()
            .any(|hir| hir.properties().look_set().contains_word_unicode())
        {
            return None;
        }
        let loose: Vec<Hir> = hirs
            .iter()
            .map(|hir| without_unicode_word_boundaries(hir))
            .collect();
        let finder = meta::Builder::new().build_many_from_hir(&loose).ok()?;
        let (dfa, caches) = loose_automaton(&loose)?;
        Some(Loose {
            finder,
            dfa,
            caches,
        })
    }

    /// The match `exact` finds searching `text` from `from`: the same answer, found with the
    /// loose finder.
    fn find(&self, exact: &Regex, text: &str, from: usize) -> Option<regex_automata::Match> {
        let length = text.len();
        let mut cache = self.caches.get();
        let mut at = from;
        while at < length {
            let candidate = self.finder.search(&Input::new(text).span(at..length))?;
            let start = candidate.start();
            let Some(reach) = self.reach(&mut cache, text, start) else {
                // No exact match starts between `from` and the candidate.
                return exact.search(&Input::new(text).span(start..length));
            };
            let input = Input::new(text).span(start..reach).anchored(Anchored::Yes);
            if let Some(found) = exact.search(&input) {
                return Some(found);
            }
            at = start + text[start..].chars().next().map_or(1, char::len_utf8);
        }
        None
    }

    /// Where the loose automaton run anchored at `start` dies (no match of it, so none of the
    /// exact patterns, extends past there), or the end of the text; `None` when it is still
    /// alive after [`VERIFY_WINDOW`] bytes or gives up.
    fn reach(&self, cache: &mut hybrid::dfa::Cache, text: &str, start: usize) -> Option<usize> {
        let length = text.len();
        let input = Input::new(text).span(start..length).anchored(Anchored::Yes);
        let mut state = self.dfa.start_state_forward(cache, &input).ok()?;
        let limit = start.saturating_add(VERIFY_WINDOW).min(length);
        for (offset, &byte) in text.as_bytes()[start..limit].iter().enumerate() {
            state = self.dfa.next_state(cache, state, byte).ok()?;
            if state.is_dead() {
                return Some(start + offset);
            }
            if state.is_quit() || state.is_unknown() {
                return None;
            }
        }
        (limit == length).then_some(length)
    }
}

type LoweredFn = Box<dyn Fn() -> Vec<u8> + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// The largest lowercased copy of a text kept for the next check.
const LOWERED_KEPT: usize = 16 << 20;

/// How many bytes the candidates' checks may read per byte of text the scan went past (plus
/// one [`VERIFY_WINDOW`]) before the scan stops using the prefilter: text full of literals
/// that start no match cannot make the scan much slower than a search without prefilter.
const VERIFY_PER_BYTE: usize = 8;

/// What taking one candidate costs, counted as that many bytes read: a text where literals
/// start every few bytes is searched without the prefilter.
const CANDIDATE_COST: usize = 32;

/// A leftmost-first search over a set of patterns: the policy's patterns, or its forbidden
/// ones alone.
#[derive(Debug)]
struct Finder {
    /// The patterns in one leftmost-first automaton.
    exact: Regex,
    /// The patterns without their Unicode word boundaries, for text that is not ASCII (see
    /// [`Loose`]); `None` when they have none.
    loose: Option<Loose>,
    /// The literal prefilter and what checks its candidates; `None` when some pattern has no
    /// literal set.
    verifier: Option<Verifier>,
}

impl Finder {
    fn build(hirs: &[&Hir]) -> Result<Finder, Box<meta::BuildError>> {
        Ok(Finder {
            exact: meta::Builder::new()
                .build_many_from_hir(hirs)
                .map_err(Box::new)?,
            loose: Loose::build(hirs),
            verifier: Verifier::build(hirs),
        })
    }

    fn needs_lowercase(&self) -> bool {
        self.verifier
            .as_ref()
            .is_some_and(|verifier| verifier.literals.needs_lowercase())
    }

    /// The leftmost-first match from `from`, without the prefilter.
    fn find_plain(
        &self,
        text: &str,
        from: usize,
        non_ascii: bool,
    ) -> Option<regex_automata::Match> {
        // Over text that is not ASCII, a Unicode word boundary stops the lazy DFA at the first
        // such byte and the search falls back to a far slower engine: there the loose finder,
        // which runs as a DFA on any text, finds where matches can start.
        match self.loose.as_ref().filter(|_| non_ascii) {
            Some(loose) => loose.find(&self.exact, text, from),
            None => self.exact.search(&Input::new(text).span(from..text.len())),
        }
    }
}

/// The literal prefilter of a [`Finder`], and the automaton that checks its candidates.
///
/// Every match of the finder starts where a literal of its pattern starts ([`Literals`]), so
/// its leftmost-first match from a position is at the first candidate, at or after that
/// position, where some pattern matches. A candidate is checked by running the patterns
/// without their Unicode word boundaries as one automaton of all their runs, anchored there:
/// it usually dies within a few bytes, and no match of the exact patterns starting there can
/// extend past where it died, nor exist if it saw no match of its own. When it saw one, the
/// exact patterns are searched anchored at the candidate up to that point, so the match is
/// theirs. When it is still alive after [`VERIFY_WINDOW`] bytes, or when the checks have read
/// more than [`VERIFY_PER_BYTE`] bytes per byte of text passed, the exact search without
/// prefilter runs from the candidate on, as it would have without the prefilter: each byte of
/// the text is read a bounded number of times whatever it holds.
#[derive(Debug)]
struct Verifier {
    literals: Literals,
    dfa: hybrid::dfa::DFA,
    caches: Pool<hybrid::dfa::Cache, LooseCacheFn>,
}

/// What running the candidate check anchored at a position found.
enum Reach {
    /// No pattern matches there.
    Nothing,
    /// Some pattern may match there; no match starting there extends past this position.
    Until(usize),
    /// The check cannot tell.
    Unknown,
}

impl Verifier {
    /// `None` when some pattern has no literal set (or the automaton does not build, which only
    /// costs speed).
    fn build(hirs: &[&Hir]) -> Option<Verifier> {
        let sets: Vec<Option<Vec<Vec<u8>>>> = hirs.iter().map(|hir| prefix_literals(hir)).collect();
        let literals = Literals::build(&sets)?;
        let loose: Vec<Hir> = hirs
            .iter()
            .map(|hir| without_unicode_word_boundaries(hir))
            .collect();
        let (dfa, caches) = loose_automaton(&loose)?;
        Some(Verifier {
            literals,
            dfa,
            caches,
        })
    }

    /// Runs the check anchored at `start`, adding the bytes it read to `spent`.
    fn reach(
        &self,
        cache: &mut hybrid::dfa::Cache,
        text: &str,
        start: usize,
        spent: &mut usize,
    ) -> Reach {
        let length = text.len();
        let input = Input::new(text).span(start..length).anchored(Anchored::Yes);
        let Ok(mut state) = self.dfa.start_state_forward(cache, &input) else {
            return Reach::Unknown;
        };
        let limit = start.saturating_add(VERIFY_WINDOW).min(length);
        let mut matched = false;
        for (offset, &byte) in text.as_bytes()[start..limit].iter().enumerate() {
            *spent += 1;
            let Ok(next) = self.dfa.next_state(cache, state, byte) else {
                return Reach::Unknown;
            };
            state = next;
            if state.is_tagged() {
                // Matches show one byte late: a match state means a match ended before `byte`.
                if state.is_match() {
                    matched = true;
                }
                if state.is_dead() {
                    return if matched {
                        Reach::Until(start + offset)
                    } else {
                        Reach::Nothing
                    };
                }
                if state.is_quit() || state.is_unknown() {
                    return Reach::Unknown;
                }
            }
        }
        if limit < length {
            return Reach::Unknown;
        }
        match self.dfa.next_eoi_state(cache, state) {
            Ok(last) if matched || last.is_match() => Reach::Until(length),
            Ok(_) => Reach::Nothing,
            Err(_) => Reach::Unknown,
        }
    }
}

/// One scan's use of a [`Finder`]: where its prefilter is in the text, and what its checks cost.
struct Walk<'f> {
    finder: &'f Finder,
    candidates: Option<Candidates<'f>>,
    cache: Option<PoolGuard<'f, hybrid::dfa::Cache, LooseCacheFn>>,
    /// Where the walk began, and the bytes its candidate checks have read since.
    began: Option<usize>,
    spent: usize,
}

impl<'f> Walk<'f> {
    fn new(finder: &'f Finder) -> Self {
        Walk {
            finder,
            candidates: None,
            cache: None,
            began: None,
            spent: 0,
        }
    }

    /// The finder's leftmost-first match from `from`: the same answer as
    /// [`Finder::find_plain`], found through the prefilter. `from` must not decrease from one
    /// call to the next, and `lower` is the text lowercased when the prefilter needs it.
    fn next(
        &mut self,
        text: &str,
        lower: &[u8],
        from: usize,
        non_ascii: bool,
    ) -> Option<regex_automata::Match> {
        let finder = self.finder;
        let Some(verifier) = &finder.verifier else {
            return finder.find_plain(text, from, non_ascii);
        };
        let began = *self.began.get_or_insert(from);
        let candidates = self
            .candidates
            .get_or_insert_with(|| Candidates::new(&verifier.literals, !non_ascii));
        let cache = self.cache.get_or_insert_with(|| verifier.caches.get());
        let mut at = from;
        loop {
            let start = candidates.next(text.as_bytes(), lower, at)?;
            at = start + 1;
            if !text.is_char_boundary(start) {
                continue;
            }
            let allowance = VERIFY_PER_BYTE
                .saturating_mul(start - began)
                .saturating_add(VERIFY_WINDOW);
            if self.spent > allowance {
                return finder.find_plain(text, start, non_ascii);
            }
            self.spent += CANDIDATE_COST;
            match verifier.reach(cache, text, start, &mut self.spent) {
                Reach::Nothing => {}
                Reach::Until(end) => {
                    let input = Input::new(text).span(start..end).anchored(Anchored::Yes);
                    if let Some(found) = finder.exact.search(&input) {
                        return Some(found);
                    }
                }
                Reach::Unknown => return finder.find_plain(text, start, non_ascii),
            }
        }
    }
}

/// How far a probe looks for a match before it gives up and lets a full search decide.
const PROBE_WINDOW: usize = 256;

/// What a probe learned about a pattern at one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// The pattern has no match starting here.
    Absent,
    /// The pattern has at least one match starting here.
    Present,
    /// The probe could not tell within its window (or met text its automaton cannot judge).
    Undecided,
}

/// A lazy DFA of one pattern, for anchored probes. `None` when the pattern cannot have one;
/// its probes are then always undecided, which only costs speed.
fn build_probe(hir: &Hir) -> Option<hybrid::dfa::DFA> {
    let nfa = thompson::Compiler::new()
        .configure(thompson::Config::new().which_captures(WhichCaptures::None))
        .build_from_hir(hir)
        .ok()?;
    hybrid::dfa::DFA::builder()
        .configure(hybrid::dfa::DFA::config().unicode_word_boundary(true))
        .build_from_nfa(nfa)
        .ok()
}

/// The state of one one-pass scan: per pattern, where its own scan would resume and what is
/// known of its next match.
struct Scan<'e, 't> {
    engine: &'e Engine,
    text: &'t str,
    /// Where each forbidden pattern's own scan would search next: the end of its last match.
    resume_at: Vec<usize>,
    next: Vec<NextMatch>,
    /// Per required pattern: found, and whether some probe of it was undecided.
    required_found: Vec<bool>,
    required_undecided: Vec<bool>,
    caches: PoolGuard<'e, ProbeCaches, ProbeCachesFn>,
    candidates: PatternBits,
    matches: Vec<RawMatch>,
}

impl<'e, 't> Scan<'e, 't> {
    fn new(engine: &'e Engine, text: &'t str) -> Self {
        let forbidden = engine.singles.len();
        let required = engine.required_singles.len();
        Scan {
            engine,
            text,
            resume_at: vec![0; forbidden],
            next: vec![NextMatch::Unknown; forbidden],
            required_found: vec![false; required],
            required_undecided: vec![false; required],
            caches: engine.probe_caches.get(),
            candidates: PatternBits::with_capacity(forbidden + required),
            matches: Vec::new(),
        }
    }

    fn record(&mut self, pattern: usize, start: usize, end: usize) {
        self.matches.push(RawMatch {
            start,
            rule: self.engine.forbidden_rule[pattern],
            end,
        });
        self.resume_at[pattern] = end;
        self.next[pattern] = NextMatch::Unknown;
    }

    /// Handles a match of the multi-pattern scan: records it when it is its pattern's true
    /// next match, then settles every pattern that could start inside it.
    fn settle_span(&mut self, reported: usize, start: usize, end: usize) {
        let forbidden = self.engine.singles.len();
        // No pattern starts in [previous end, start): if the reported pattern's own scan is not
        // still inside its previous match, this is its next match.
        if reported >= forbidden {
            self.required_found[reported - forbidden] = true;
        } else if self.resume_at[reported] <= start {
            self.record(reported, start, end);
        }
        self.candidates.clear();
        for &byte in &self.text.as_bytes()[start..end] {
            self.candidates
                .union_with(&self.engine.starters[usize::from(byte)]);
        }
        // Taken out while settling, which needs `self` whole; put back to reuse its memory.
        let candidates = std::mem::take(&mut self.candidates);
        for pattern in candidates.iter() {
            if pattern >= forbidden {
                self.settle_required(pattern, start, end);
            } else {
                self.settle_forbidden(pattern, start, end);
            }
        }
        self.candidates = candidates;
    }

    /// Records every true match of a forbidden pattern that starts before `end`.
    fn settle_forbidden(&mut self, pattern: usize, start: usize, end: usize) {
        let length = self.text.len();
        while self.resume_at[pattern] < end {
            match self.next[pattern] {
                NextMatch::Exhausted => return,
                NextMatch::At {
                    start: next_start,
                    end: next_end,
                } => {
                    if next_start >= end {
                        return;
                    }
                    self.record(pattern, next_start, next_end);
                }
                NextMatch::Unknown => {
                    // Probe each position where the pattern could start, in order: the first
                    // one present is its next match. Only when a probe cannot tell does a full
                    // search from there decide, and its answer is kept.
                    let from = self.resume_at[pattern].max(start);
                    let undecided_at = match self.probe_range(pattern, from, end) {
                        ProbeOutcome::NoneBefore => return,
                        ProbeOutcome::PresentAt(position) => {
                            let input = Input::new(self.text)
                                .span(position..length)
                                .anchored(Anchored::Yes);
                            match self.engine.singles[pattern].search(&input) {
                                Some(found) => {
                                    self.record(pattern, found.start(), found.end());
                                    continue;
                                }
                                // Cannot happen when the probe and the search agree; the
                                // full search below is right either way.
                                None => position,
                            }
                        }
                        ProbeOutcome::UndecidedAt(position) => position,
                    };
                    let input = Input::new(self.text).span(undecided_at..length);
                    self.next[pattern] = match self.engine.singles[pattern].search(&input) {
                        Some(found) => NextMatch::At {
                            start: found.start(),
                            end: found.end(),
                        },
                        None => NextMatch::Exhausted,
                    };
                }
            }
        }
    }

    /// Notes a required pattern that starts inside a match of another pattern.
    fn settle_required(&mut self, pattern: usize, start: usize, end: usize) {
        let required = pattern - self.engine.singles.len();
        if self.required_found[required] {
            return;
        }
        match self.probe_range(pattern, start, end) {
            ProbeOutcome::NoneBefore => {}
            ProbeOutcome::PresentAt(_) => self.required_found[required] = true,
            ProbeOutcome::UndecidedAt(_) => self.required_undecided[required] = true,
        }
    }

    /// Probes the positions of `from..end` where `pattern` could start, in order.
    fn probe_range(&mut self, pattern: usize, from: usize, end: usize) -> ProbeOutcome {
        let bytes = self.text.as_bytes();
        for (position, &byte) in bytes.iter().enumerate().take(end).skip(from) {
            let could_start = self.engine.starters[usize::from(byte)].contains(pattern);
            if !could_start || !self.text.is_char_boundary(position) {
                continue;
            }
            match self.probe(pattern, position) {
                Probe::Absent => {}
                Probe::Present => return ProbeOutcome::PresentAt(position),
                Probe::Undecided => return ProbeOutcome::UndecidedAt(position),
            }
        }
        ProbeOutcome::NoneBefore
    }

    /// Runs the pattern's lazy DFA anchored at `position`, at most `PROBE_WINDOW` bytes.
    fn probe(&mut self, pattern: usize, position: usize) -> Probe {
        let Some(dfa) = &self.engine.probes[pattern] else {
            return Probe::Undecided;
        };
        let cache = self.caches[pattern].get_or_insert_with(|| dfa.create_cache());
        let length = self.text.len();
        let limit = position.saturating_add(PROBE_WINDOW).min(length);
        let input = Input::new(self.text)
            .span(position..length)
            .anchored(Anchored::Yes);
        let Ok(mut state) = dfa.start_state_forward(cache, &input) else {
            return Probe::Undecided;
        };
        for &byte in &self.text.as_bytes()[position..limit] {
            let Ok(next) = dfa.next_state(cache, state, byte) else {
                return Probe::Undecided;
            };
            state = next;
            if state.is_tagged() {
                // Matches show one byte late: a match state means a match ended before `byte`.
                if state.is_match() {
                    return Probe::Present;
                }
                if state.is_dead() {
                    return Probe::Absent;
                }
                if state.is_quit() || state.is_unknown() {
                    return Probe::Undecided;
                }
            }
        }
        if limit < length {
            return Probe::Undecided;
        }
        match dfa.next_eoi_state(cache, state) {
            Ok(last) if last.is_match() => Probe::Present,
            Ok(_) => Probe::Absent,
            Err(_) => Probe::Undecided,
        }
    }

    fn finish(mut self) -> ScanOutcome {
        let mut missing_required = Vec::new();
        for (required, regex) in self.engine.required_singles.iter().enumerate() {
            // A required pattern never reported nor probed present is missing, unless a probe
            // could not tell: only then is it searched for on its own.
            let found = self.required_found[required]
                || (self.required_undecided[required] && regex.is_match(self.text));
            if !found {
                missing_required.push(self.engine.required_rule[required]);
            }
        }
        self.matches.sort_unstable();
        ScanOutcome {
            matches: self.matches,
            missing_required,
        }
    }
}

/// What probing a range of positions found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProbeOutcome {
    /// The pattern has no match starting in the range.
    NoneBefore,
    /// The first position of the range where the pattern has a match.
    PresentAt(usize),
    /// The first position of the range where a probe could not tell; the positions before it
    /// have no match.
    UndecidedAt(usize),
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
            .anchored(Anchored::Yes);
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
    fn loose_patterns_drop_only_unicode_word_boundaries() {
        let loose = |pattern: &str| {
            let hir = without_unicode_word_boundaries(&parse_non_empty(pattern).unwrap());
            Regex::builder().build_from_hir(&hir).unwrap()
        };
        // Every match of the pattern is one of its loose form, which also matches more.
        assert!(loose(r"\bwill\b").is_match("willing"));
        assert!(loose(r"\bwill\b").is_match("café will é"));
        // Other assertions stay.
        assert!(!loose(r"(?-u:\b)will(?-u:\b)").is_match("willing"));
        assert!(!loose(r"^will").is_match("a will"));
        assert!(Loose::build(&[&parse_non_empty(r"(?-u:\b)ab").unwrap()]).is_none());
        assert!(Loose::build(&[&parse_non_empty(r"\bab").unwrap()]).is_some());
    }

    #[test]
    fn word_lists_escape_and_prefer_longer_phrases() {
        let pattern = words_pattern(&["will".into(), "will definitely".into(), "a.b".into()]);
        assert_eq!(pattern, r"(?i)\b(?:will\s+definitely|will|a\.b)\b");
    }
}
