//! The literal prefilter of the one-pass scan: where in a text a match of some pattern can start.
//!
//! Most patterns of a policy can only match text that starts with one of a few literals: `$`, a
//! digit, `"`, `[source:`, `will`, `according to`. [`prefix_literals`] finds such a set for a
//! pattern, with ASCII letters lowercased (so one literal stands for all its case variants, and a
//! case-sensitive pattern is simply over-approximated). [`Literals`] searches for all of them
//! at once with the fastest multi-literal searches of `regex-automata` (vectorized when they can
//! be), in the text lowercased the same way, and [`Literals::starts`] lists, in increasing order,
//! every position of a stretch of text where some literal starts: no match of any pattern
//! starts anywhere else.
//!
//! A literal is not searched whole: only its rarest window of at most [`WINDOW`] bytes is, and
//! where the literal would start is worked out from where the window was found, then the whole
//! literal compared there: "repo" is found in every "reports", which starts no "the report".
//! A window is what the vectorized searches compare first, and "the " makes a far worse one
//! than "repo" for "the report". Windows are grouped by length, one search per length, so that
//! single bytes (`$`, digits) do not make the longer windows compare on one byte only.

use regex_automata::MatchKind;
use regex_automata::Span;
use regex_automata::util::prefilter::Prefilter;
use regex_syntax::hir::{Class, Hir, HirKind};
use std::collections::HashMap;
use std::ops::Range;

/// At most this many literals per pattern (after lowercasing); beyond, the pattern is taken to
/// have no literal set.
const LITERAL_LIMIT: usize = 64;
/// Literals are cut to this many bytes: only a window of [`WINDOW`] bytes of each is searched,
/// and longer literals would only have more variants.
const LITERAL_LENGTH: usize = 8;
/// A class of at most this many characters (after lowercasing) is expanded into literals.
const CLASS_LIMIT: usize = 16;
/// A larger class is replaced by the bytes its characters start with, when there are at most
/// this many (`\d`: the ASCII digits and the first bytes of the other scripts' digits), and
/// ends the literals before it otherwise.
const FIRST_BYTE_LIMIT: usize = 32;
/// The longest window searched for in a literal.
const WINDOW: usize = 4;

/// One literal being built: its bytes, and whether it is still the whole of what the pattern
/// matched so far (only then may what follows in the pattern be appended to it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Partial {
    bytes: Vec<u8>,
    complete: bool,
}

/// Literals one of which starts every match of `hir`, ASCII letters lowercased; `None` when no
/// small set of non-empty literals is known.
pub(crate) fn prefix_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let partials = prefixes(hir)?;
    if partials.iter().any(|partial| partial.bytes.is_empty()) {
        return None;
    }
    let mut literals: Vec<Vec<u8>> = partials.into_iter().map(|partial| partial.bytes).collect();
    literals.sort();
    literals.dedup();
    // A literal that starts with another one adds no position: keep the shorter.
    let mut kept: Vec<Vec<u8>> = Vec::with_capacity(literals.len());
    for literal in literals {
        if !kept.iter().any(|shorter| literal.starts_with(shorter)) {
            kept.push(literal);
        }
    }
    Some(kept)
}

fn lowered(bytes: &[u8]) -> Vec<u8> {
    bytes.to_ascii_lowercase()
}

/// The prefixes of the matches of `hir`: every match starts with one of them, and a complete
/// one is all the match has when the pattern ends there.
fn prefixes(hir: &Hir) -> Option<Vec<Partial>> {
    let whole = |bytes: Vec<u8>| Partial {
        bytes,
        complete: true,
    };
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![whole(Vec::new())]),
        HirKind::Literal(literal) => Some(vec![whole(lowered(&literal.0))]),
        HirKind::Class(class) => class_prefixes(class),
        HirKind::Capture(capture) => prefixes(&capture.sub),
        HirKind::Repetition(repetition) => {
            // What a repetition's first round starts with; more rounds may follow, so nothing
            // after it can be appended.
            let mut partials: Vec<Partial> = prefixes(&repetition.sub)?
                .into_iter()
                .map(|partial| Partial {
                    complete: false,
                    ..partial
                })
                .collect();
            if repetition.min == 0 {
                partials.push(whole(Vec::new()));
            }
            Some(partials)
        }
        HirKind::Concat(parts) => {
            let mut partials = vec![whole(Vec::new())];
            for part in parts {
                if !partials.iter().any(|partial| partial.complete) {
                    break;
                }
                let Some(next) = prefixes(part) else {
                    end_here(&mut partials);
                    break;
                };
                // The first bytes of a large class are worth having at the start of a pattern
                // only: after some literal, they multiply the literals for little gain.
                let approximate = next.iter().all(|suffix| !suffix.complete);
                if approximate && partials.iter().all(|partial| !partial.bytes.is_empty()) {
                    end_here(&mut partials);
                    break;
                }
                let mut joined = Vec::new();
                for partial in &partials {
                    if !partial.complete {
                        joined.push(partial.clone());
                        continue;
                    }
                    for suffix in &next {
                        let mut bytes = partial.bytes.clone();
                        bytes.extend_from_slice(&suffix.bytes);
                        let complete = suffix.complete && bytes.len() < LITERAL_LENGTH;
                        bytes.truncate(LITERAL_LENGTH);
                        joined.push(Partial { bytes, complete });
                    }
                }
                joined.sort();
                joined.dedup();
                if joined.len() > LITERAL_LIMIT {
                    end_here(&mut partials);
                    break;
                }
                partials = joined;
            }
            Some(partials)
        }
        HirKind::Alternation(branches) => {
            let mut partials = Vec::new();
            for branch in branches {
                partials.extend(prefixes(branch)?);
                if partials.len() > LITERAL_LIMIT * 4 {
                    return None;
                }
            }
            partials.sort();
            partials.dedup();
            (partials.len() <= LITERAL_LIMIT).then_some(partials)
        }
    }
}

/// Marks every literal as ending here: nothing more is appended to them.
fn end_here(partials: &mut [Partial]) {
    for partial in partials {
        partial.complete = false;
    }
}

/// The literals of a class: its characters when there are few, else their first bytes when
/// there are few of those.
fn class_prefixes(class: &Class) -> Option<Vec<Partial>> {
    let mut literals: Vec<Vec<u8>> = Vec::new();
    let mut count = 0_usize;
    let mut small = true;
    match class {
        Class::Unicode(class) => {
            for range in class.ranges() {
                count += (u32::from(range.end()) - u32::from(range.start()) + 1) as usize;
                if count > CLASS_LIMIT * 2 {
                    small = false;
                    break;
                }
                for code in u32::from(range.start())..=u32::from(range.end()) {
                    if let Some(character) = char::from_u32(code) {
                        let mut buffer = [0; 4];
                        literals.push(lowered(character.encode_utf8(&mut buffer).as_bytes()));
                    }
                }
            }
        }
        Class::Bytes(class) => {
            for range in class.ranges() {
                count += usize::from(range.end() - range.start()) + 1;
                if count > CLASS_LIMIT * 2 {
                    small = false;
                    break;
                }
                for byte in range.start()..=range.end() {
                    literals.push(vec![byte.to_ascii_lowercase()]);
                }
            }
        }
    }
    literals.sort();
    literals.dedup();
    if small && literals.len() <= CLASS_LIMIT {
        return Some(
            literals
                .into_iter()
                .map(|bytes| Partial {
                    bytes,
                    complete: true,
                })
                .collect(),
        );
    }
    // Too many characters: the bytes they can start with, as literals that end there.
    let mut first = [false; 256];
    match class {
        Class::Unicode(class) => {
            for range in class.ranges() {
                let mut buffer = [0; 4];
                let low = range.start().encode_utf8(&mut buffer).as_bytes()[0];
                let high = range.end().encode_utf8(&mut buffer).as_bytes()[0];
                // UTF-8 keeps the order of code points, so the first bytes of a range of code
                // points are exactly the bytes between those of its ends.
                for byte in low..=high {
                    first[usize::from(byte.to_ascii_lowercase())] = true;
                }
            }
        }
        Class::Bytes(class) => {
            for range in class.ranges() {
                for byte in range.start()..=range.end() {
                    first[usize::from(byte.to_ascii_lowercase())] = true;
                }
            }
        }
    }
    let bytes: Vec<u8> = (0..=255_u8)
        .filter(|&byte| first[usize::from(byte)])
        .collect();
    (bytes.len() <= FIRST_BYTE_LIMIT).then(|| {
        bytes
            .into_iter()
            .map(|byte| Partial {
                bytes: vec![byte],
                complete: false,
            })
            .collect()
    })
}

/// How common a byte is in prose, higher for more common: what picks a literal's window.
/// A window of at most four bytes as one number: windows of one stream have the same length.
fn window_key(window: &[u8]) -> u32 {
    let mut bytes = [0; 4];
    for (slot, &byte) in bytes.iter_mut().zip(window) {
        *slot = byte;
    }
    u32::from_le_bytes(bytes)
}

fn commonness(byte: u8) -> u32 {
    const BY_FREQUENCY: &[u8] = b" etaoinsrhldcumfpgwybvkxjqz";
    match BY_FREQUENCY.iter().position(|&common| common == byte) {
        Some(rank) => 64 - u32::try_from(rank).unwrap_or(63),
        None if byte.is_ascii_digit() || b".,\n".contains(&byte) => 24,
        None => 8,
    }
}

/// The window of `literal` to search for: its offset and length.
fn window_of(literal: &[u8]) -> (usize, usize) {
    let length = literal.len().min(WINDOW);
    let score = |offset: usize| {
        literal[offset..offset + length]
            .iter()
            .map(|&byte| commonness(byte))
            .sum::<u32>()
    };
    let offset = (0..=literal.len() - length)
        .min_by_key(|&offset| score(offset))
        .unwrap_or(0);
    (offset, length)
}

/// Where a window sits in the literals that hold it, with those literals: where the window is
/// found, one of them must be found whole for a literal to start there.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Placement {
    /// The window's offset in its literals.
    offset: usize,
    /// The literals that hold the window at that offset, ASCII letters lowercased, each with
    /// its index in [`Literals::patterns_of`].
    literals: Vec<(Vec<u8>, usize)>,
}

/// From this many windows on, a stream is searched with fat Teddy.
const FAT_FROM: usize = 17;
/// Up to this many windows: beyond, a bucket holds too many of them.
const PACKED_UP_TO: usize = 64;

/// The search for the windows of one stream.
#[derive(Debug)]
enum Search {
    /// The prefilter `regex-automata` picks for the windows (`memchr`, `memmem`, slim Teddy).
    Prefilter(Prefilter),
    /// The fat Teddy of `aho-corasick`, for many windows: it spreads them over 16 buckets
    /// where the slim one has 8, and windows of common letters packed 4 to a bucket make a
    /// candidate every few dozen bytes of prose. It also tells which window it found: `windows`
    /// maps its pattern ids to the stream's windows.
    Packed {
        searcher: aho_corasick::packed::Searcher,
        windows: Vec<Option<usize>>,
    },
}

impl Search {
    /// The search for `needles`, sorted, each the window at the same index of `windows`.
    fn new(needles: &[&[u8]], windows: &[(u32, Vec<Placement>)]) -> Option<Search> {
        if (FAT_FROM..=PACKED_UP_TO).contains(&needles.len()) {
            // Its limit on single bytes is meant for slim Teddy: fat Teddy's 16 buckets hold
            // a few dozen single bytes (`$`, digits, the first bytes of other scripts' digits)
            // with few false hits, where the search `regex-automata` would pick reads one byte
            // at a time.
            let mut builder = aho_corasick::packed::Config::new()
                .only_teddy(true)
                .only_teddy_fat(Some(true))
                .heuristic_pattern_limits(false)
                .builder();
            builder.extend(needles);
            if let Some(searcher) = builder.build() {
                let windows = needles
                    .iter()
                    .map(|needle| {
                        windows
                            .binary_search_by_key(&window_key(needle), |(key, _)| *key)
                            .ok()
                    })
                    .collect();
                return Some(Search::Packed { searcher, windows });
            }
        }
        Prefilter::new(MatchKind::LeftmostFirst, needles).map(Search::Prefilter)
    }

    /// The first window in `span` of `haystack`, with its index in the stream's windows when
    /// the search tells it.
    fn find(&self, haystack: &[u8], span: Span) -> Option<(Span, Option<usize>)> {
        match self {
            Search::Prefilter(prefilter) => prefilter.find(haystack, span).map(|at| (at, None)),
            Search::Packed { searcher, windows } => searcher
                .find_in(haystack, aho_corasick::Span::from(span.start..span.end))
                .map(|found| {
                    (
                        Span::from(found.start()..found.end()),
                        windows.get(found.pattern().as_usize()).copied().flatten(),
                    )
                }),
        }
    }
}

/// The search for windows of one length.
#[derive(Debug)]
struct Stream {
    searcher: Search,
    /// The search for the windows that are all ASCII, the only ones an ASCII text can hold:
    /// fewer windows search faster. `None` when there are none.
    ascii_searcher: Option<Search>,
    /// Each window (as [`window_key`]), with where it is found in its literals, sorted by
    /// window.
    windows: Vec<(u32, Vec<Placement>)>,
    /// Whether the windows hold ASCII letters, so that the search runs in the lowercased text.
    lowercase: bool,
}

/// The windows of every literal of a set of patterns, searched for together.
#[derive(Debug)]
pub(crate) struct Literals {
    streams: Vec<Stream>,
    /// Per literal, the patterns a match of which can start with it.
    patterns: Vec<Vec<usize>>,
}

impl Literals {
    /// The literal search for patterns with these literal sets; `None` when some pattern has
    /// none, or no search can be built.
    pub(crate) fn build(sets: &[Option<Vec<Vec<u8>>>]) -> Option<Literals> {
        // Only where some literal starts matters: one that starts with another adds nothing.
        let mut all: Vec<&[u8]> = Vec::new();
        for set in sets {
            all.extend(set.as_ref()?.iter().map(Vec::as_slice));
        }
        all.sort_unstable();
        all.dedup();
        let mut literals: Vec<&[u8]> = Vec::with_capacity(all.len());
        for literal in all {
            if !literals.iter().any(|shorter| literal.starts_with(shorter)) {
                literals.push(literal);
            }
        }
        // A pattern can start where one of its literals does, so where a literal that begins
        // one of them does.
        let patterns: Vec<Vec<usize>> = literals
            .iter()
            .map(|kept| {
                sets.iter()
                    .enumerate()
                    .filter(|(_, set)| {
                        set.iter()
                            .flatten()
                            .any(|literal| literal.starts_with(kept))
                    })
                    .map(|(pattern, _)| pattern)
                    .collect()
            })
            .collect();
        // Shorter literals first, and a window already taken is reused where a literal holds
        // it (one as long as its own would be): fewer windows make a faster search.
        let mut literals: Vec<(usize, &[u8])> = literals.into_iter().enumerate().collect();
        literals.sort_by_key(|(_, literal)| literal.len());
        let mut chosen: Vec<Vec<u8>> = Vec::new();
        let mut by_length: Vec<HashMap<Vec<u8>, Vec<Placement>>> = vec![HashMap::new(); WINDOW + 1];
        for (id, literal) in literals {
            let length = literal.len().min(WINDOW);
            let reused = chosen
                .iter()
                .filter(|window| window.len() == length)
                .find_map(|window| {
                    literal
                        .windows(window.len())
                        .position(|part| part == window.as_slice())
                        .map(|offset| (offset, window.len()))
                });
            let (offset, length) = reused.unwrap_or_else(|| window_of(literal));
            let window = literal[offset..offset + length].to_vec();
            if reused.is_none() {
                chosen.push(window.clone());
            }
            let placements = by_length[length].entry(window).or_default();
            match placements
                .iter_mut()
                .find(|placement| placement.offset == offset)
            {
                Some(placement) => placement.literals.push((literal.to_vec(), id)),
                None => placements.push(Placement {
                    offset,
                    literals: vec![(literal.to_vec(), id)],
                }),
            }
        }
        let mut streams = Vec::new();
        for windows in by_length.into_iter().filter(|windows| !windows.is_empty()) {
            let mut needles: Vec<&[u8]> = windows.keys().map(Vec::as_slice).collect();
            // The same search whatever the order the map keeps.
            needles.sort_unstable();
            let lowercase = needles
                .iter()
                .any(|needle| needle.iter().any(u8::is_ascii_alphabetic));
            let mut keyed: Vec<(u32, Vec<Placement>)> = windows
                .iter()
                .map(|(window, placements)| (window_key(window), placements.clone()))
                .collect();
            keyed.sort_unstable();
            let searcher = Search::new(&needles, &keyed)?;
            let ascii: Vec<&[u8]> = needles
                .iter()
                .copied()
                .filter(|needle| needle.is_ascii())
                .collect();
            let ascii_searcher = if ascii.is_empty() {
                None
            } else {
                Some(Search::new(&ascii, &keyed)?)
            };
            let windows = keyed;
            streams.push(Stream {
                searcher,
                ascii_searcher,
                windows,
                lowercase,
            });
        }
        if streams.is_empty() {
            return None;
        }
        Some(Literals { streams, patterns })
    }

    /// The patterns a match of which can start where the literal `literal` (as
    /// [`Literals::starts`] gives it) starts.
    pub(crate) fn patterns_of(&self, literal: usize) -> &[usize] {
        self.patterns.get(literal).map_or(&[], Vec::as_slice)
    }

    /// Whether the search needs the text with its ASCII letters lowercased.
    pub(crate) fn needs_lowercase(&self) -> bool {
        self.streams.iter().any(|stream| stream.lowercase)
    }
}

impl Literals {
    /// Every position of `range` in `text` where a literal starts, with the literal (for
    /// [`Literals::patterns_of`]), in increasing order, into `starts` (cleared first). `ascii` tells whether the whole text is ASCII, so that windows
    /// with other bytes need not be searched; `lower` is a buffer for the stretch of text
    /// searched with its ASCII letters lowercased, kept by the caller across calls.
    ///
    /// A literal that starts in `range` may end past it: its window is searched for, and the
    /// literal compared, up to the text's end or [`LITERAL_LENGTH`] bytes past the range.
    pub(crate) fn starts(
        &self,
        text: &[u8],
        range: Range<usize>,
        ascii: bool,
        lower: &mut Vec<u8>,
        starts: &mut Vec<(usize, usize)>,
    ) {
        starts.clear();
        let base = range.start;
        let reach = range.end.saturating_add(LITERAL_LENGTH).min(text.len());
        let Some(stretch) = text.get(base..reach) else {
            return;
        };
        if self.needs_lowercase() {
            lower.clear();
            lower.extend_from_slice(stretch);
            lower.make_ascii_lowercase();
        }
        for stream in &self.streams {
            let searcher = if ascii {
                stream.ascii_searcher.as_ref()
            } else {
                Some(&stream.searcher)
            };
            let Some(searcher) = searcher else {
                continue;
            };
            // Positions in the haystack are relative to `base`.
            let haystack: &[u8] = if stream.lowercase { lower } else { stretch };
            let mut at = 0;
            while at < haystack.len() {
                let Some((span, window)) = searcher.find(haystack, Span::from(at..haystack.len()))
                else {
                    break;
                };
                at = span.start + 1;
                let window = window.or_else(|| {
                    let key = window_key(&haystack[span.start..span.end]);
                    stream
                        .windows
                        .binary_search_by_key(&key, |(known, _)| *known)
                        .ok()
                });
                let Some(window) = window else {
                    continue;
                };
                // A window is only a hint: a literal starts where one that holds it is found
                // whole, compared without regard to ASCII case as the literals were lowercased.
                for placement in &stream.windows[window].1 {
                    let Some(start) = span.start.checked_sub(placement.offset) else {
                        continue;
                    };
                    if base + start >= range.end {
                        continue;
                    }
                    for (literal, id) in &placement.literals {
                        if stretch
                            .get(start..start + literal.len())
                            .is_some_and(|found| found.eq_ignore_ascii_case(literal))
                        {
                            starts.push((base + start, *id));
                        }
                    }
                }
            }
        }
        // Each stream finds its windows in order, but the streams (and the offsets of the
        // windows in their literals) interleave: the list is a few sorted runs, which the
        // standard library's stable sort finds and merges.
        #[expect(
            clippy::stable_sort_primitive,
            reason = "a few sorted runs: the stable sort merges them in one pass"
        )]
        starts.sort();
        starts.dedup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(pattern: &str) -> Option<Vec<String>> {
        let hir = regex_syntax::parse(pattern).expect("valid pattern");
        prefix_literals(&hir).map(|set| {
            set.into_iter()
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .collect()
        })
    }

    #[test]
    fn literals_follow_the_pattern() {
        // The first bytes of a large class start a literal, but do not lengthen one.
        assert_eq!(literals(r"\$\d+"), Some(vec!["$".into()]));
        assert!(literals(r"\d").expect("digits").contains(&"7".into()));
        assert_eq!(
            literals(r"(?i)\b(?:will|certain\s+to)\b"),
            Some(vec!["certain".into(), "will".into()])
        );
        // `(?i)s` also matches the long s.
        assert_eq!(
            literals(r"(?i)costs?"),
            Some(vec!["cost".into(), "coſt".into()])
        );
        assert_eq!(literals(r"x?y"), Some(vec!["x".into(), "y".into()]));
        assert_eq!(literals(r"ab*c"), Some(vec!["ab".into(), "ac".into()]));
        assert_eq!(literals(r"\w+x"), None);
        assert_eq!(literals(r"[^a]"), None);
    }

    /// Every literal start of `text`, listed stretch by stretch of `stretch` bytes.
    fn all_starts(literals: &Literals, text: &[u8], stretch: usize) -> Vec<usize> {
        let mut lower = Vec::new();
        let mut starts = Vec::new();
        let mut found = Vec::new();
        for base in (0..text.len()).step_by(stretch) {
            let range = base..(base + stretch).min(text.len());
            literals.starts(text, range, text.is_ascii(), &mut lower, &mut starts);
            found.extend(starts.iter().map(|&(start, _)| start));
        }
        found.dedup();
        found
    }

    #[test]
    fn starts_come_in_order_whatever_the_windows() {
        let sets = vec![
            prefix_literals(&regex_syntax::parse("(?i)the report").unwrap()),
            prefix_literals(&regex_syntax::parse(r"\$").unwrap()),
            prefix_literals(&regex_syntax::parse("ab").unwrap()),
        ];
        let literals = Literals::build(&sets).expect("literals");
        let text = b"$ The Report ab the report $x ab";
        // Whole, and in stretches that cut literals and windows at every place.
        for stretch in [text.len(), 1, 2, 3, 5, 7] {
            assert_eq!(
                all_starts(&literals, text, stretch),
                vec![0, 2, 13, 16, 27, 30],
                "stretches of {stretch} bytes"
            );
        }
    }

    #[test]
    fn starts_are_exactly_where_a_whole_literal_starts() {
        const PIECES: &[&str] = &[
            "the report shows",
            "reports",
            "The Reported",
            "as repor",
            "estimate",
            "estimation",
            "EſTIMATE",
            "unconfirmed",
            "confirmed",
            "it follows",
            "follows",
            "conclude",
            "preſumably",
            "\u{212a}elvin",
            "KELVIN",
            "cost",
            "coſt",
            "$5",
            "$",
            "[Source:",
            "[source",
            " ",
            " ",
            "\n",
            "é",
            "日本",
        ];
        // More windows than the slim searches hold well, some of them found in words that
        // hold no literal ("reports", "estimation"), with the long s and the Kelvin sign.
        let patterns = [
            r"(?i)\b(?:the report shows|as reported in|estimate|unconfirmed|it follows that)\b",
            r"(?i)\b(?:we conclude|presumably|definitely|assuming|approximately|roughly)\b",
            r"(?i)\b(?:hence|unverified|according to|the study finds|therefore|certainly)\b",
            r"(?i)\b(?:we infer|to be confirmed|as stated in|kelvin|costs?)\b",
            r"\$\d+|\[Source:",
        ];
        let sets: Vec<_> = patterns
            .iter()
            .map(|pattern| prefix_literals(&regex_syntax::parse(pattern).unwrap()))
            .collect();
        let all: Vec<Vec<u8>> = sets.iter().flatten().flatten().cloned().collect();
        let literals = Literals::build(&sets).expect("literals");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            assert!(
                literals
                    .streams
                    .iter()
                    .any(|stream| matches!(stream.ascii_searcher, Some(Search::Packed { .. })))
            );
        }
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |bound: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(state >> 33).unwrap_or_default() % bound
        };
        for _ in 0..200 {
            let text: String = (0..next(120)).map(|_| PIECES[next(PIECES.len())]).collect();
            let text = text.as_bytes();
            let expected: Vec<usize> = (0..text.len())
                .filter(|&at| {
                    all.iter().any(|literal| {
                        text[at..]
                            .get(..literal.len())
                            .is_some_and(|found| found.eq_ignore_ascii_case(literal))
                    })
                })
                .collect();
            let stretch = 1 + next(text.len().max(1));
            let found = all_starts(&literals, text, stretch);
            assert_eq!(
                found,
                expected,
                "text: {:?}, stretches of {stretch} bytes",
                String::from_utf8_lossy(text)
            );
        }
    }
}
