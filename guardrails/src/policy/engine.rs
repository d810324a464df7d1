//! The compiled form of a policy and the scan that finds every match of every rule.
//!
//! # What one pass must find
//!
//! The reference semantics are those of running each rule's pattern on its own, left to right,
//! each search starting where that rule's previous match ended ([`Engine::scan_each_rule`]).
//! The one pass ([`Engine::scan`]) keeps, per pattern, where that pattern's own scan would
//! resume, and finds each pattern's next match from there: the matches are the reference's
//! whatever other patterns match around or across them.
//!
//! Only patterns that cannot match the empty string are accepted, which keeps "the next match"
//! the same notion in both scans.
//!
//! # Where literals decide
//!
//! Most patterns can only match text that starts with one of a few literals (`$`, a digit,
//! `will`, `according to`). When every pattern has such a set, one search looks for all the
//! literals at once (see [`super::prefilter`]), a stretch of text at a time, and each position
//! where a literal starts is a candidate for the patterns that can start with its byte. A
//! candidate pattern whose own scan has reached the position is *probed* there: its own lazy
//! DFA runs anchored for at most `PROBE_WINDOW` bytes, usually dies after a byte or two, and
//! when it saw a match, the last one it saw is exactly the match the pattern's own search would
//! report there. No match starts anywhere else, so the first candidate where a pattern's probe
//! finds a match is that pattern's next match.
//!
//! A probe that cannot tell, because the window ran out, hands over to the pattern's own search
//! from there, whose match is recorded and moves the pattern's scan past it (or ends it). Over
//! text that is not ASCII, a probe with a Unicode word boundary gives up at the first such
//! byte; there the same pattern without its Unicode word boundaries, a DFA on any text, runs
//! instead: where it dies bounds any match, and the exact pattern is searched anchored within
//! that bound.
//!
//! The work is the literals' search, plus probes: each reads a bounded number of bytes, and the
//! bytes a pattern's probes read are counted. Past `PROBE_PER_BYTE` bytes per byte of text,
//! a pattern stops taking probes and its own scan finds the rest of its matches, so text
//! crowded with literals that start no match cannot cost more than a few scans per rule: the
//! pass is linear in the length of the text whatever it holds.
//!
//! # When some pattern has no literal set
//!
//! Then every pattern runs in one multi-pattern automaton with leftmost-first semantics. From a
//! position, it reports the leftmost place where *any* pattern matches and continues after that
//! match: between two reported matches no pattern matches at all, and the only matches it can
//! hide are those of other patterns that start inside a reported match (or at its start, with a
//! lower priority). For each reported match the engine therefore probes, as above, the
//! patterns that could start inside it (known from per-pattern sets of possible first bytes),
//! at each position where they could.
//!
//! Once every required pattern has been seen, that search goes on with the forbidden patterns
//! alone: a required pattern that keeps matching would otherwise be reported, and its overlaps
//! settled, at each of its matches.

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::pool::{Pool, PoolGuard};
use regex_automata::{Anchored, Input, MatchKind, hybrid};
use regex_syntax::hir::{Capture, Class, Hir, HirKind, Look, LookSet, Repetition};
use std::panic::{RefUnwindSafe, UnwindSafe};

use super::prefilter::{Literals, prefix_literals};
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

/// The lazy DFA caches of the probes, one per pattern, created on first use.
type ProbeCaches = Vec<Option<hybrid::dfa::Cache>>;
type ProbeCachesFn = Box<dyn Fn() -> ProbeCaches + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// The compiled form of a policy's rules.
#[derive(Debug)]
pub(crate) struct Engine {
    /// Every pattern in one leftmost-first search: forbidden patterns have the ids
    /// `0..singles.len()`, required patterns the ids after them. `None` when there is no
    /// pattern, or when `literals` is known and the scan has no use for it.
    finder: Option<Finder>,
    /// The forbidden patterns alone, with the same ids: what the scan goes on with once every
    /// required pattern has been seen. `None` when there is no required or no forbidden pattern.
    forbidden_finder: Option<Finder>,
    /// The literals one of which starts every match of every pattern, forbidden and required;
    /// `None` when some pattern has no small set of them.
    literals: Option<Literals>,
    /// The buffers of the literal search, kept across checks.
    buffers: Pool<Buffers, BuffersFn>,
    /// Each forbidden pattern on its own, for the searches that settle overlaps (and for the
    /// reference scan).
    singles: Vec<Regex>,
    /// Each required pattern on its own, for the reference scan.
    required_singles: Vec<Regex>,
    /// Per pattern id, a lazy DFA to ask cheaply whether the pattern matches at a position.
    probes: Vec<Option<hybrid::dfa::DFA>>,
    /// Per pattern id, the same without its Unicode word boundaries, for where the probe meets
    /// text it cannot judge; `None` for a pattern without them.
    loose_probes: Vec<Option<hybrid::dfa::DFA>>,
    /// Caches of the probes, kept across checks: creating one costs more than checking a short
    /// text.
    probe_caches: Pool<ProbeCaches, ProbeCachesFn>,
    /// For each byte, the pattern ids whose match can start with it.
    starters: Vec<PatternBits>,
    /// Per pattern id, whether its matches start with a word boundary then a word character:
    /// none starts right after an ASCII letter, digit or underscore.
    word_start: Vec<bool>,
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

/// For each byte, the pattern ids whose match can start with it.
fn starters_of(hirs: &[&Hir]) -> Vec<PatternBits> {
    let mut starters = vec![PatternBits::with_capacity(hirs.len()); 256];
    for (pattern, hir) in hirs.iter().enumerate() {
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
    starters
}

/// Whether every match of `hir` starts with a word boundary followed by a word character: then
/// the character before a match is not a word character.
fn starts_a_word(hir: &Hir) -> bool {
    let HirKind::Concat(parts) = hir.kind() else {
        return false;
    };
    let [first, second, ..] = parts.as_slice() else {
        return false;
    };
    matches!(
        first.kind(),
        HirKind::Look(Look::WordAscii | Look::WordUnicode)
    ) && starts_with_word_character(second)
}

/// Whether every match of `hir` starts with a word character (conservatively: false when
/// unsure).
fn starts_with_word_character(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Literal(literal) => std::str::from_utf8(&literal.0)
            .ok()
            .and_then(|text| text.chars().next())
            .is_some_and(regex_syntax::is_word_character),
        // Characters are checked one by one in small ranges only (`\d` is ranges of ten
        // digits); a larger range counts as unsure.
        HirKind::Class(Class::Unicode(class)) => class.ranges().iter().all(|range| {
            u32::from(range.end()) - u32::from(range.start()) <= 256
                && (range.start()..=range.end()).all(regex_syntax::is_word_character)
        }),
        HirKind::Class(Class::Bytes(class)) => class
            .ranges()
            .iter()
            .all(|range| (range.start()..=range.end()).all(regex_syntax::is_word_byte)),
        HirKind::Capture(capture) => starts_with_word_character(&capture.sub),
        HirKind::Repetition(repetition) => {
            repetition.min > 0 && starts_with_word_character(&repetition.sub)
        }
        HirKind::Concat(parts) => parts.first().is_some_and(starts_with_word_character),
        HirKind::Alternation(branches) => branches.iter().all(starts_with_word_character),
        HirKind::Empty | HirKind::Look(_) => false,
    }
}

/// A pattern's probe, and its loose probe when it has Unicode word boundaries.
fn probes_of(hir: &Hir) -> (Option<hybrid::dfa::DFA>, Option<hybrid::dfa::DFA>) {
    let loose = if hir.properties().look_set().contains_word_unicode() {
        build_loose_probe(&without_unicode_word_boundaries(hir))
    } else {
        None
    };
    (build_probe(hir), loose)
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
        let sets: Vec<Option<Vec<Vec<u8>>>> =
            all_hirs.iter().map(|hir| prefix_literals(hir)).collect();
        let literals = Literals::build(&sets);
        // The multi-pattern automata serve only when literals cannot.
        let finder = if all_hirs.is_empty() || literals.is_some() {
            None
        } else {
            Some(Finder::build(&all_hirs).map_err(whole_policy_problem)?)
        };
        let forbidden_finder = if finder.is_none()
            || required_hirs.is_empty()
            || forbidden_hirs.is_empty()
        {
            None
        } else {
            Some(Finder::build(&all_hirs[..forbidden_hirs.len()]).map_err(whole_policy_problem)?)
        };

        let starters = starters_of(&all_hirs);
        let (probes, loose_probes) = all_hirs.iter().map(|hir| probes_of(hir)).unzip();
        let word_start = all_hirs.iter().map(|hir| starts_a_word(hir)).collect();
        let pattern_count = all_hirs.len();
        let create_caches: ProbeCachesFn =
            Box::new(move || (0..pattern_count * 2).map(|_| None).collect());

        let create_buffers: BuffersFn = Box::new(Buffers::default);
        Ok(Engine {
            finder,
            forbidden_finder,
            literals,
            buffers: Pool::new(create_buffers),
            singles,
            required_singles,
            probes,
            loose_probes,
            probe_caches: Pool::new(create_caches),
            starters,
            word_start,
            forbidden_rule,
            required_rule,
            tags,
        })
    }

    /// The tag check of a rule, if it has one.
    pub(crate) fn tag_check(&self, rule: usize) -> Option<&TagCheck> {
        self.tags.get(rule).and_then(Option::as_ref)
    }

    /// Finds every match of every rule in one pass (see the module docs).
    pub(crate) fn scan(&self, text: &str) -> ScanOutcome {
        match &self.literals {
            Some(literals) => self.scan_by_literals(literals, text),
            None => self.scan_by_automaton(text),
        }
    }

    /// The one pass when every pattern has a literal set: each pattern is probed where one of
    /// its literals starts, from where its own scan would resume.
    fn scan_by_literals(&self, literals: &Literals, text: &str) -> ScanOutcome {
        let mut scan = Scan::new(self, text);
        self.walk_literals(literals, &mut scan);
        scan.finish()
    }

    /// Settles every candidate of the text's literals, in order.
    fn walk_literals(&self, literals: &Literals, scan: &mut Scan<'_, '_>) {
        let text = scan.text;
        let mut buffers = self.buffers.get();
        let Buffers { lower, starts } = &mut *buffers;
        let ascii = text.is_ascii();
        let mut base = 0;
        while base < text.len() && !scan.all_settled() {
            let range = base..base.saturating_add(STRETCH).min(text.len());
            base = range.end;
            literals.starts(text.as_bytes(), range, ascii, lower, starts);
            for &(position, literal) in starts.iter() {
                scan.settle_candidate(position, literals.patterns_of(literal));
            }
        }
    }

    /// The one pass when some pattern has no literal set: every pattern in one leftmost-first
    /// automaton, whose matches hide only those that start inside them.
    fn scan_by_automaton(&self, text: &str) -> ScanOutcome {
        let Some(finder) = &self.finder else {
            return ScanOutcome {
                matches: Vec::new(),
                missing_required: Vec::new(),
            };
        };
        let mut scan = Scan::new(self, text);
        let non_ascii = !text.is_ascii();
        let has_required = !self.required_singles.is_empty();
        let mut position = 0;
        while position < text.len() {
            // Once every required pattern has been seen, only the forbidden ones are looked for.
            let finder = if has_required && scan.required_found.iter().all(|&found| found) {
                match self.forbidden_finder.as_ref() {
                    Some(forbidden) => forbidden,
                    None => break,
                }
            } else {
                finder
            };
            let Some(found) = finder.find(text, position, non_ascii) else {
                break;
            };
            scan.settle_span(found.pattern().as_usize(), found.start(), found.end());
            position = found.end();
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
    let dfa = lazy_dfa(loose, hybrid::dfa::DFA::config().match_kind(MatchKind::All))?;
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

/// A leftmost-first search over a set of patterns: the policy's patterns, or its forbidden
/// ones alone.
#[derive(Debug)]
struct Finder {
    /// The patterns in one leftmost-first automaton.
    exact: Regex,
    /// The patterns without their Unicode word boundaries, for text that is not ASCII (see
    /// [`Loose`]); `None` when they have none.
    loose: Option<Loose>,
}

impl Finder {
    fn build(hirs: &[&Hir]) -> Result<Finder, Box<meta::BuildError>> {
        Ok(Finder {
            exact: meta::Builder::new()
                .build_many_from_hir(hirs)
                .map_err(Box::new)?,
            loose: Loose::build(hirs),
        })
    }

    /// The leftmost-first match from `from`.
    fn find(&self, text: &str, from: usize, non_ascii: bool) -> Option<regex_automata::Match> {
        // Over text that is not ASCII, a Unicode word boundary stops the lazy DFA at the first
        // such byte and the search falls back to a far slower engine: there the loose finder,
        // which runs as a DFA on any text, finds where matches can start.
        match self.loose.as_ref().filter(|_| non_ascii) {
            Some(loose) => loose.find(&self.exact, text, from),
            None => self.exact.search(&Input::new(text).span(from..text.len())),
        }
    }
}

/// How far a probe looks for a match before it gives up and lets a full search decide.
const PROBE_WINDOW: usize = 256;

/// The literal search looks at the text one stretch of this many bytes at a time: the stretch
/// lowercased and its literal starts stay in the processor's cache.
const STRETCH: usize = 32 << 10;

/// How many bytes the probes of one pattern may read per byte of text the scan went past
/// (plus one [`PROBE_WINDOW`]) before the pattern is searched on its own from there: text full
/// of literals that start no match of a pattern cannot make the scan much slower than that
/// pattern's own search.
const PROBE_PER_BYTE: usize = 8;

/// What one probe costs, counted as that many bytes read: a text where a pattern's literals
/// start every few bytes is searched with that pattern on its own.
const PROBE_COST: usize = 32;

/// The buffers of one literal search: the stretch of text lowercased, and the literal starts
/// found in it. Both are bounded by [`STRETCH`] (times the few literals that can start at one
/// position) whatever the text, so they are kept across checks as they are.
#[derive(Debug, Default)]
struct Buffers {
    lower: Vec<u8>,
    starts: Vec<(usize, usize)>,
}

type BuffersFn = Box<dyn Fn() -> Buffers + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// What a probe learned about a pattern at one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// The pattern has no match starting here.
    Absent,
    /// The pattern's match starting here ends at this position: the match its own search,
    /// anchored here, reports.
    Match(usize),
    /// The probe could not tell within its window (or met text its automaton cannot judge):
    /// a search of the pattern decides.
    Undecided,
}

/// A lazy DFA of one pattern, for anchored probes, with the leftmost-first semantics of the
/// pattern's own search. `None` when the pattern cannot have one; its probes are then always
/// undecided, which only costs speed.
fn build_probe(hir: &Hir) -> Option<hybrid::dfa::DFA> {
    lazy_dfa(
        &[hir],
        hybrid::dfa::DFA::config().unicode_word_boundary(true),
    )
}

/// A lazy DFA of a pattern without its Unicode word boundaries, with all of its matches: where
/// it dies, no match of the exact pattern extends past (see [`Loose`]).
fn build_loose_probe(loose: &Hir) -> Option<hybrid::dfa::DFA> {
    lazy_dfa(
        &[loose],
        hybrid::dfa::DFA::config().match_kind(MatchKind::All),
    )
}

/// A lazy DFA of `hirs`, without captures; `None` when it does not build, which only costs
/// speed wherever one is used.
fn lazy_dfa<H: std::borrow::Borrow<Hir>>(
    hirs: &[H],
    config: hybrid::dfa::Config,
) -> Option<hybrid::dfa::DFA> {
    let nfa = thompson::Compiler::new()
        .configure(thompson::Config::new().which_captures(WhichCaptures::None))
        .build_many_from_hir(hirs)
        .ok()?;
    hybrid::dfa::DFA::builder()
        .configure(config)
        .build_from_nfa(nfa)
        .ok()
}

/// The state of one one-pass scan: per pattern, where its own scan would resume.
struct Scan<'e, 't> {
    engine: &'e Engine,
    text: &'t str,
    /// Where each forbidden pattern's own scan would search next: the end of its last match,
    /// or `usize::MAX` once it has no further match.
    resume_at: Vec<usize>,
    /// Per required pattern: found, and whether some probe of it was undecided.
    required_found: Vec<bool>,
    required_undecided: Vec<bool>,
    /// Per pattern id, the bytes its probes have read (see [`PROBE_PER_BYTE`]); `usize::MAX`
    /// once the pattern no longer takes probes.
    spent: Vec<usize>,
    /// The probes' caches: per pattern id, the probe's, then per pattern id the loose probe's.
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
            required_found: vec![false; required],
            required_undecided: vec![false; required],
            spent: vec![0; forbidden + required],
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
    }

    /// Whether no pattern can add to what the scan found: every forbidden pattern has no
    /// further match, and every required one is found or left to [`Scan::finish`].
    fn all_settled(&self) -> bool {
        let forbidden = self.engine.singles.len();
        self.resume_at.iter().all(|&at| at == usize::MAX)
            && self
                .required_found
                .iter()
                .enumerate()
                .all(|(required, &found)| found || self.spent[forbidden + required] == usize::MAX)
    }

    /// Settles `patterns`, whose match could start at `position`, where a literal starts: a
    /// forbidden pattern whose own scan has reached `position`, a required pattern not found
    /// yet.
    fn settle_candidate(&mut self, position: usize, patterns: &[usize]) {
        if !self.text.is_char_boundary(position) {
            return;
        }
        let forbidden = self.engine.singles.len();
        // After a word character, no pattern that starts a word can start here.
        let after_word = position
            .checked_sub(1)
            .is_some_and(|at| regex_syntax::is_word_byte(self.text.as_bytes()[at]));
        for &pattern in patterns {
            let waiting = if pattern < forbidden {
                self.resume_at[pattern] <= position
            } else {
                !self.required_found[pattern - forbidden]
            };
            if !waiting || self.spent[pattern] == usize::MAX {
                continue;
            }
            if after_word && self.engine.word_start[pattern] {
                continue;
            }
            let allowance = PROBE_PER_BYTE
                .saturating_mul(position)
                .saturating_add(PROBE_WINDOW);
            if self.spent[pattern] > allowance {
                self.give_up_probes(pattern);
                continue;
            }
            if pattern < forbidden {
                self.settle_forbidden_at(pattern, position);
            } else {
                self.settle_required_at(pattern, position);
            }
        }
    }

    /// Stops probing `pattern`, whose probes have read too much: a forbidden pattern's own
    /// scan finds the rest of its matches, a required one is searched for at the end.
    fn give_up_probes(&mut self, pattern: usize) {
        self.spent[pattern] = usize::MAX;
        let engine = self.engine;
        let forbidden = engine.singles.len();
        if pattern < forbidden {
            let from = self.resume_at[pattern].min(self.text.len());
            let input = Input::new(self.text).span(from..self.text.len());
            for found in engine.singles[pattern].find_iter(input) {
                self.record(pattern, found.start(), found.end());
            }
            self.resume_at[pattern] = usize::MAX;
        } else {
            self.required_undecided[pattern - forbidden] = true;
        }
    }

    /// Records a forbidden pattern's match at `position`, or, when a probe cannot tell, its
    /// next match from there, found by its own search.
    fn settle_forbidden_at(&mut self, pattern: usize, position: usize) {
        match self.probe(pattern, position) {
            Probe::Absent => {}
            Probe::Match(end) => self.record(pattern, position, end),
            Probe::Undecided => self.search_from(pattern, position),
        }
    }

    /// The next match of a forbidden pattern from `position` (none starts between where its
    /// scan resumes and there), found by its own search, and recorded.
    fn search_from(&mut self, pattern: usize, position: usize) {
        let input = Input::new(self.text).span(position..self.text.len());
        match self.engine.singles[pattern].search(&input) {
            Some(found) => self.record(pattern, found.start(), found.end()),
            None => self.resume_at[pattern] = usize::MAX,
        }
    }

    /// Notes a required pattern found at `position`.
    fn settle_required_at(&mut self, pattern: usize, position: usize) {
        let required = pattern - self.engine.singles.len();
        match self.probe(pattern, position) {
            Probe::Absent => {}
            Probe::Match(_) => self.required_found[required] = true,
            Probe::Undecided => self.required_undecided[required] = true,
        }
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
                if !self.required_found[pattern - forbidden] {
                    self.settle_required_in(pattern, start, end);
                }
            } else {
                self.settle_forbidden_in(pattern, start, end);
            }
        }
        self.candidates = candidates;
    }

    /// Records every true match of a forbidden pattern that starts in `start..end`: each
    /// position where it could start is probed, in order, from where its own scan resumes.
    fn settle_forbidden_in(&mut self, pattern: usize, start: usize, end: usize) {
        let mut position = self.resume_at[pattern].max(start);
        while position < end {
            if self.could_start(pattern, position) {
                self.settle_forbidden_at(pattern, position);
                // A match found moves the pattern's own scan past it.
                let resume = self.resume_at[pattern];
                if resume > position {
                    position = resume;
                    continue;
                }
            }
            position += 1;
        }
    }

    /// Notes a required pattern that starts inside a match of another pattern.
    fn settle_required_in(&mut self, pattern: usize, start: usize, end: usize) {
        let required = pattern - self.engine.singles.len();
        for position in start..end {
            if self.required_found[required] {
                return;
            }
            if self.could_start(pattern, position) {
                self.settle_required_at(pattern, position);
            }
        }
    }

    /// Whether `pattern` could start at `position`, by the byte there.
    fn could_start(&self, pattern: usize, position: usize) -> bool {
        let byte = self.text.as_bytes()[position];
        self.engine.starters[usize::from(byte)].contains(pattern)
            && self.text.is_char_boundary(position)
    }

    /// Whether `pattern` has a match starting at `position`, and where it ends: its probe runs
    /// anchored there for at most [`PROBE_WINDOW`] bytes. Where the probe meets text it cannot
    /// judge (a byte that is not ASCII, for a pattern with a Unicode word boundary), the loose
    /// probe bounds how far a match could reach, and the pattern's own search, anchored,
    /// decides within that.
    fn probe(&mut self, pattern: usize, position: usize) -> Probe {
        let engine = self.engine;
        let bytes = self.text.as_bytes();
        let beside_non_ascii = |at: usize| bytes.get(at).is_some_and(|byte| !byte.is_ascii());
        if engine.loose_probes[pattern].is_some()
            && (beside_non_ascii(position) || position > 0 && beside_non_ascii(position - 1))
        {
            // The probe would give up at once, on the byte it starts with or looks behind at.
            return self.probe_loose(pattern, position);
        }
        let Some(dfa) = &engine.probes[pattern] else {
            return Probe::Undecided;
        };
        let cache = self.caches[pattern].get_or_insert_with(|| dfa.create_cache());
        let (outcome, read) = run_probe(dfa, cache, self.text, position);
        self.spend(pattern, read);
        match outcome {
            Run::Dead(Some(end)) | Run::End(Some(end)) => Probe::Match(end),
            Run::Dead(None) | Run::End(None) => Probe::Absent,
            Run::Alive => Probe::Undecided,
            Run::Quit => self.probe_loose(pattern, position),
        }
    }

    /// The loose probe of `pattern` at `position` (see [`Scan::probe`]).
    fn probe_loose(&mut self, pattern: usize, position: usize) -> Probe {
        let engine = self.engine;
        let Some(dfa) = &engine.loose_probes[pattern] else {
            return Probe::Undecided;
        };
        let slot = engine.probes.len() + pattern;
        let cache = self.caches[slot].get_or_insert_with(|| dfa.create_cache());
        let (outcome, read) = run_probe(dfa, cache, self.text, position);
        self.spend(pattern, read);
        let reach = match outcome {
            Run::Dead(None) | Run::End(None) => return Probe::Absent,
            Run::Dead(Some(_)) => position + read,
            Run::End(Some(_)) => self.text.len(),
            Run::Alive | Run::Quit => return Probe::Undecided,
        };
        let regex = match pattern.checked_sub(engine.singles.len()) {
            Some(required) => &engine.required_singles[required],
            None => &engine.singles[pattern],
        };
        let input = Input::new(self.text)
            .span(position..reach.min(self.text.len()))
            .anchored(Anchored::Yes);
        match regex.search(&input) {
            Some(found) => Probe::Match(found.end()),
            None => Probe::Absent,
        }
    }

    fn spend(&mut self, pattern: usize, read: usize) {
        let spent = &mut self.spent[pattern];
        if *spent != usize::MAX {
            *spent = spent.saturating_add(PROBE_COST + read);
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

/// How an anchored run of a lazy DFA ended, with the end of the last match it saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    /// The automaton died: no match extends further.
    Dead(Option<usize>),
    /// The text ended.
    End(Option<usize>),
    /// Still alive after [`PROBE_WINDOW`] bytes.
    Alive,
    /// The automaton met text it cannot judge.
    Quit,
}

/// Runs `dfa` anchored at `position` for at most [`PROBE_WINDOW`] bytes; returns how it ended
/// and how many bytes it read. The last match seen before it dies is the match a search of
/// the same automaton reports.
fn run_probe(
    dfa: &hybrid::dfa::DFA,
    cache: &mut hybrid::dfa::Cache,
    text: &str,
    position: usize,
) -> (Run, usize) {
    let length = text.len();
    let limit = position.saturating_add(PROBE_WINDOW).min(length);
    let input = Input::new(text)
        .span(position..length)
        .anchored(Anchored::Yes);
    let Ok(mut state) = dfa.start_state_forward(cache, &input) else {
        return (Run::Quit, 0);
    };
    let mut last = None;
    for (offset, &byte) in text.as_bytes()[position..limit].iter().enumerate() {
        let Ok(next) = dfa.next_state(cache, state, byte) else {
            return (Run::Quit, offset);
        };
        state = next;
        if state.is_tagged() {
            // Matches show one byte late: a match state means a match ended before `byte`.
            if state.is_match() {
                last = Some(position + offset);
            }
            if state.is_dead() {
                return (Run::Dead(last), offset + 1);
            }
            if state.is_quit() || state.is_unknown() {
                return (Run::Quit, offset + 1);
            }
        }
    }
    let read = limit - position;
    if limit < length {
        return (Run::Alive, read);
    }
    match dfa.next_eoi_state(cache, state) {
        Ok(eoi) if eoi.is_match() => (Run::End(Some(length)), read),
        Ok(_) => (Run::End(last), read),
        Err(_) => (Run::Quit, read),
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
    fn word_starts_are_told_from_the_pattern() {
        let word_start = |pattern: &str| starts_a_word(&parse_non_empty(pattern).unwrap());
        assert!(word_start(r"\b\d+"));
        assert!(word_start(r"(?i)\b(?:will|we infer)\b"));
        assert!(word_start(r"(?-u:\b)ab"));
        // A boundary before a character that is not a word one needs a word before it.
        assert!(!word_start(r"\b\$\d"));
        assert!(!word_start(r"\b(?:a|-)"));
        assert!(!word_start(r"\b\w+"), "a large class counts as unsure");
        assert!(!word_start(r"\b(?:a?)b"));
        assert!(!word_start(r"ab\b"));
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

    /// The one pass over `text`, with what it spent per pattern; the outcome is checked
    /// against the reference.
    fn walk(rules: &[Rule], text: &str) -> (ScanOutcome, Vec<usize>) {
        let engine = Engine::compile(rules).expect("compiles");
        let literals = engine
            .literals
            .as_ref()
            .expect("every pattern has literals");
        let mut scan = Scan::new(&engine, text);
        engine.walk_literals(literals, &mut scan);
        let spent = scan.spent.clone();
        let outcome = scan.finish();
        assert_eq!(outcome, engine.scan_each_rule(text));
        (outcome, spent)
    }

    #[test]
    fn a_pattern_whose_probes_read_too_much_is_searched_on_its_own() {
        let rules = [
            Rule::forbidden("bracketed", r"\[[^\]\n]*\]"),
            Rule::forbidden("dollar", r"\$\d+"),
        ];
        // Every `[` starts a probe that reads to the end of its line and finds nothing.
        let text = format!("{}[x] $5 [y]", format!("{}\n", "[".repeat(100)).repeat(50));
        let (outcome, spent) = walk(&rules, &text);
        assert_eq!(
            spent[0],
            usize::MAX,
            "the bracket rule stopped taking probes"
        );
        assert!(spent[1] < usize::MAX, "the dollar rule did not");
        assert_eq!(outcome.matches.len(), 3);
    }

    #[test]
    fn probes_next_to_text_that_is_not_ascii_are_exact() {
        let rules = [
            Rule::forbidden_words("will", ["will"]),
            Rule::forbidden("number", r"\b\d+\b"),
        ];
        // Unicode word boundaries: `é` is a word character, `—` and `🚀` are not.
        let text = "éwill will— 🚀will 5é 5— é5 🚀5 ５ will";
        let (outcome, spent) = walk(&rules, text);
        assert!(spent.iter().all(|&spent| spent < usize::MAX));
        let found: Vec<&str> = outcome
            .matches
            .iter()
            .map(|found| &text[found.start..found.end])
            .collect();
        assert_eq!(found, ["will", "will", "5", "5", "５", "will"]);
    }

    #[test]
    fn word_lists_escape_and_prefer_longer_phrases() {
        let pattern = words_pattern(&["will".into(), "will definitely".into(), "a.b".into()]);
        assert_eq!(pattern, r"(?i)\b(?:will\s+definitely|will|a\.b)\b");
    }
}
