//! Strings that match a regular expression, for the complete valid example an error shows.
//!
//! A field constrained by `pattern` (and perhaps a length window) still needs a value in the
//! example the model is told to copy, and that example must validate. The sample is built by
//! walking the pattern's syntax tree, then always checked with the `regex` crate itself and
//! against the window; a candidate that fails is never returned.

use regex::Regex;
use regex_syntax::hir::{Class, ClassUnicodeRange, Hir, HirKind};

/// Beyond this many characters no sample is attempted: an example that long helps no model.
const MAX_SAMPLE_CHARS: usize = 1 << 16;

/// How many combinations of alternation branches are tried before giving up.
const MAX_BRANCH_COMBINATIONS: usize = 64;

/// How many characters past the needed length a repetition may overshoot, for sub-patterns
/// longer than one character (`(ab)+` cannot grow by one).
const MAX_OVERSHOOT: usize = 4;

/// Characters a sample is padded with when a pattern does not cover the whole string.
const PADDING: [char; 6] = ['a', '0', 'x', '_', '-', ' '];

/// [`sample`] without its count of identifier characters.
#[cfg(test)]
pub(crate) fn sample_matching(
    pattern: &str,
    min_chars: usize,
    max_chars: Option<usize>,
) -> Option<String> {
    sample(pattern, min_chars, max_chars).map(|(text, _)| text)
}

/// How many characters the identifier part of a sample has when the pattern lets it grow:
/// `cus_a1b2c3d4` rather than `cus_a`.
const IDENTIFIER_CHARS: usize = 8;

/// Like [`sample`], for the example a model reads: a pattern for identifiers (a run
/// of a class that holds both letters and digits, such as `^cus_[a-z0-9]+$`) gets one of
/// [`IDENTIFIER_CHARS`] characters (`cus_a1b2c3d4`) when the pattern and the window allow it,
/// rather than the shortest match (`cus_a`).
pub(crate) fn plausible_sample(
    pattern: &str,
    min_chars: usize,
    max_chars: Option<usize>,
) -> Option<String> {
    let (shortest, identifier) = sample(pattern, min_chars, max_chars)?;
    if identifier == 0 || identifier >= IDENTIFIER_CHARS {
        return Some(shortest);
    }
    let longer = shortest.chars().count() + IDENTIFIER_CHARS - identifier;
    match sample(pattern, longer, max_chars) {
        Some((text, grown)) if grown >= IDENTIFIER_CHARS => Some(text),
        _ => Some(shortest),
    }
}

/// Builds a deterministic string that `regex::Regex::new(pattern)` matches (`is_match`) and
/// whose length in chars lies within `[min_chars, max_chars]`, or `None` when it cannot find
/// one.
///
/// Alternations are tried branch by branch, repetitions grow to reach `min_chars`, and a
/// pattern that does not cover the whole string is padded; every attempt is bounded, so no
/// pattern makes this slow.
///
/// Also returns how many of the sample's characters identifier classes wrote (see [`pick`]).
fn sample(pattern: &str, min_chars: usize, max_chars: Option<usize>) -> Option<(String, usize)> {
    let max_chars = max_chars.unwrap_or(usize::MAX).min(MAX_SAMPLE_CHARS);
    if min_chars > max_chars {
        return None;
    }
    let regex = Regex::new(pattern).ok()?;
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    if min_len(&hir) > max_chars {
        return None;
    }
    let fits = |s: &str| (min_chars..=max_chars).contains(&s.chars().count());

    let mut choices = Vec::new();
    for _ in 0..MAX_BRANCH_COMBINATIONS {
        let (shortest, arities, _) = Walk::new(&choices, 0).run(&hir);
        if let Some(candidate) = &shortest {
            let needed = min_chars.saturating_sub(candidate.chars().count());
            // Past the needed length only for sub-patterns that grow in steps over one char.
            let overshoot = if needed == 0 { 0 } else { MAX_OVERSHOOT };
            for budget in needed..=needed + overshoot {
                let (Some(candidate), _, identifier) = Walk::new(&choices, budget).run(&hir) else {
                    continue;
                };
                if regex.is_match(&candidate) {
                    if fits(&candidate) {
                        return Some((candidate, identifier));
                    }
                    if let Some(padded) = pad(&regex, &candidate, min_chars, max_chars) {
                        return Some((padded, identifier));
                    }
                }
            }
        }
        // Next combination of branches: the last alternation with an untried branch moves on,
        // the ones after it start over from their first branch.
        choices.resize(arities.len(), 0);
        let next = (0..arities.len())
            .rev()
            .find(|&k| choices[k] + 1 < arities[k])?;
        choices[next] += 1;
        choices.truncate(next + 1);
    }
    None
}

/// `candidate` (which matches) lengthened to `min_chars` with padding after or before it, for a
/// pattern that leaves room around its match.
fn pad(regex: &Regex, candidate: &str, min_chars: usize, max_chars: usize) -> Option<String> {
    let missing = min_chars.checked_sub(candidate.chars().count())?;
    if min_chars > max_chars || missing == 0 {
        return None;
    }
    PADDING.iter().find_map(|&c| {
        let padding: String = std::iter::repeat_n(c, missing).collect();
        [
            format!("{candidate}{padding}"),
            format!("{padding}{candidate}"),
        ]
        .into_iter()
        .find(|padded| regex.is_match(padded))
    })
}

/// The fewest chars a match of `hir` holds.
fn min_len(hir: &Hir) -> usize {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(literal) => String::from_utf8_lossy(&literal.0).chars().count(),
        HirKind::Class(_) => 1,
        HirKind::Repetition(repetition) => usize::try_from(repetition.min)
            .unwrap_or(usize::MAX)
            .saturating_mul(min_len(&repetition.sub)),
        HirKind::Capture(capture) => min_len(&capture.sub),
        HirKind::Concat(subs) => subs.iter().map(min_len).fold(0, usize::saturating_add),
        HirKind::Alternation(subs) => subs.iter().map(min_len).min().unwrap_or(0),
    }
}

/// One walk over the syntax tree that writes one candidate.
struct Walk<'a> {
    /// The branch to take at each alternation met so far, in the order they are met; those
    /// past the end take their first branch.
    choices: &'a [usize],
    /// The number of branches of each alternation met, for moving on to the next combination.
    arities: Vec<usize>,
    /// Chars still to add beyond the shortest match, spent by repetitions as they are met.
    budget: usize,
    /// Where the current repetition is, so repeated classes spell a word rather than `aaaa`.
    position: usize,
    out: String,
    /// `out.chars().count()`, kept up to date as `out` grows.
    len: usize,
    /// How many letters end `out`, so the letters of a word are spelled in turn.
    word: usize,
    /// How many ASCII letters and digits end `out`, so an identifier alternates them in turn.
    alnum: usize,
    /// How many characters identifier classes wrote.
    identifier: usize,
}

impl<'a> Walk<'a> {
    fn new(choices: &'a [usize], budget: usize) -> Self {
        Walk {
            choices,
            arities: Vec::new(),
            budget,
            position: 0,
            out: String::new(),
            len: 0,
            word: 0,
            alnum: 0,
            identifier: 0,
        }
    }

    /// Appends `text`, or gives up once the candidate is longer than any sample may be.
    fn push(&mut self, text: &str) -> Option<()> {
        self.len += text.chars().count();
        let trailing_letters = text.chars().rev().take_while(|c| c.is_alphabetic()).count();
        self.word = if trailing_letters == text.chars().count() {
            self.word + trailing_letters
        } else {
            trailing_letters
        };
        let trailing_alnum = text
            .chars()
            .rev()
            .take_while(char::is_ascii_alphanumeric)
            .count();
        self.alnum = if trailing_alnum == text.chars().count() {
            self.alnum + trailing_alnum
        } else {
            trailing_alnum
        };
        self.out.push_str(text);
        (self.len <= MAX_SAMPLE_CHARS).then_some(())
    }

    /// The candidate, or `None` when a part of the pattern on the chosen branches can match
    /// nothing a `&str` holds (an empty class, bytes that are not UTF-8); the arities of the
    /// alternations met, so a failed walk still leads on to other branches; and how many
    /// characters identifier classes wrote.
    fn run(mut self, hir: &Hir) -> (Option<String>, Vec<usize>, usize) {
        let written = self.write(hir);
        (written.map(|()| self.out), self.arities, self.identifier)
    }

    fn write(&mut self, hir: &Hir) -> Option<()> {
        match hir.kind() {
            // Look-arounds are left to the final check with the real regex.
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(literal) => {
                let text = std::str::from_utf8(&literal.0).ok()?;
                self.push(text)?;
            }
            HirKind::Class(class) => {
                let mut buffer = [0; 4];
                let (c, identifier) = pick(class, self.word, self.position, self.alnum)?;
                self.identifier += usize::from(identifier);
                self.push(c.encode_utf8(&mut buffer))?;
            }
            HirKind::Capture(capture) => self.write(&capture.sub)?,
            HirKind::Concat(subs) => {
                for sub in subs {
                    self.write(sub)?;
                }
            }
            HirKind::Alternation(subs) => {
                let choice = self.choices.get(self.arities.len()).copied().unwrap_or(0);
                self.arities.push(subs.len());
                self.write(subs.get(choice)?)?;
            }
            HirKind::Repetition(repetition) => {
                let outer = self.position;
                let sub_min = min_len(&repetition.sub);
                let min = usize::try_from(repetition.min).ok()?;
                let max = repetition
                    .max
                    .map_or(usize::MAX, |max| usize::try_from(max).unwrap_or(usize::MAX));
                let mut count = 0;
                while count < min {
                    let before = self.len;
                    self.position = count;
                    self.write(&repetition.sub)?;
                    count += 1;
                    // Once a copy comes out empty with nothing left to spend, the remaining
                    // copies would too: `(?:){1000000}` must not loop a million times.
                    if self.len == before && self.budget == 0 {
                        break;
                    }
                }
                // Extra copies while the budget pays for them. Each is charged its shortest
                // length up front, so repetitions inside it can only spend the rest; a
                // sub-pattern that may be empty is written once at most, as more copies of it
                // could spend nothing and loop forever.
                while count < max
                    && self.budget > 0
                    && self.budget >= sub_min
                    && (sub_min > 0 || count == min)
                {
                    self.budget -= sub_min;
                    let (len_before, budget_before) = (self.len, self.budget);
                    self.position = count;
                    self.write(&repetition.sub)?;
                    count += 1;
                    let written = self.len - len_before;
                    if written == 0 {
                        break;
                    }
                    // A longer branch than the shortest one was written: charge the difference.
                    let charged = sub_min + (budget_before - self.budget);
                    self.budget = self.budget.saturating_sub(written.saturating_sub(charged));
                }
                self.position = outer;
            }
        }
        Some(())
    }
}

/// A readable member of `class`, and whether it was picked as a character of an identifier.
///
/// A class that holds letters and digits but no space (`[a-z0-9]`, `\w`, `[^@\s]`) writes an
/// identifier: letters and digits in turn along the run (`alnum` letters and digits precede
/// this one), `a1b2c3d4`. Other classes write the letters of "example" in turn along a word
/// (`word` letters precede this one), digits in turn along a repetition (`position` copies
/// precede this one), then lowercase letters, digits, uppercase letters, other printable
/// ASCII, and last whatever the class starts with.
fn pick(class: &Class, word: usize, position: usize, alnum: usize) -> Option<(char, bool)> {
    const WORD: &[u8] = b"example";
    const DIGITS: &[u8] = b"1234567890";
    const ID_LETTERS: &[u8] = b"abcdef";
    const ID_DIGITS: &[u8] = b"123456789";
    let contains = |c: char| match class {
        Class::Unicode(class) => class
            .ranges()
            .iter()
            .any(|range| (range.start()..=range.end()).contains(&c)),
        Class::Bytes(class) => u8::try_from(c).is_ok_and(|b| {
            c.is_ascii()
                && class
                    .ranges()
                    .iter()
                    .any(|range| (range.start()..=range.end()).contains(&b))
        }),
    };
    let in_turn = |alphabet: &[u8], at: usize| char::from(alphabet[at % alphabet.len()]);
    let letters = ('a'..='z').chain('A'..='Z').any(&contains);
    let digits = ('0'..='9').any(&contains);
    if letters && digits && !contains(' ') {
        let id_letter = in_turn(ID_LETTERS, alnum / 2);
        let id_digit = in_turn(ID_DIGITS, alnum / 2);
        let in_order = if alnum.is_multiple_of(2) {
            [id_letter, id_letter.to_ascii_uppercase(), id_digit]
        } else {
            [id_digit, id_letter, id_letter.to_ascii_uppercase()]
        };
        if let Some(c) = in_order.into_iter().find(|&c| contains(c)) {
            return Some((c, true));
        }
    }
    let letter = in_turn(WORD, word);
    let preferred = [
        letter,
        letter.to_ascii_uppercase(),
        in_turn(DIGITS, position),
        in_turn(b"abcdefghijklmnopqrstuvwxyz", word),
    ];
    preferred
        .into_iter()
        .chain('a'..='z')
        .chain('0'..='9')
        .chain('A'..='Z')
        .chain((' '..='~').filter(char::is_ascii_punctuation))
        .chain([' '])
        .find(|&c| contains(c))
        .map(|c| (c, false))
        .or_else(|| match class {
            Class::Unicode(class) => {
                let printable = class.ranges().iter().find_map(|range| {
                    (range.start()..=range.end())
                        .take(64)
                        .find(|c| !c.is_control() && !c.is_whitespace())
                });
                printable
                    .or_else(|| class.ranges().first().map(ClassUnicodeRange::start))
                    .map(|c| (c, false))
            }
            // A byte class is matched against UTF-8 text, where only its ASCII members can
            // stand alone; those were all tried above.
            Class::Bytes(_) => None,
        })
}

#[cfg(test)]
mod tests {
    use super::sample_matching;
    use proptest::prelude::*;
    use regex::Regex;

    /// Asserts a sample exists for `pattern` in the window and is valid.
    fn check(pattern: &str, min: usize, max: Option<usize>) -> String {
        let sample = sample_matching(pattern, min, max)
            .unwrap_or_else(|| panic!("no sample for {pattern:?} in {min}..={max:?}"));
        let length = sample.chars().count();
        assert!(
            Regex::new(pattern).unwrap().is_match(&sample),
            "{pattern:?} does not match {sample:?}"
        );
        assert!(
            length >= min && max.is_none_or(|max| length <= max),
            "{sample:?} for {pattern:?} is outside {min}..={max:?}"
        );
        sample
    }

    #[test]
    fn realistic_patterns_have_samples() {
        let patterns: &[(&str, usize, Option<usize>)] = &[
            (r"^[a-zA-Z0-9_]+$", 0, None),
            (r"^[a-zA-Z0-9_]+$", 3, Some(20)),
            (r"^[a-z][a-z0-9_]{2,15}$", 0, None),
            (r"^[a-z0-9]+(?:-[a-z0-9]+)*$", 5, Some(40)),
            (r"^[A-Z]{2}$", 0, None),
            (r"^[A-Z]{3}$", 3, Some(3)),
            (r"^\+?[0-9]{7,15}$", 0, None),
            (r"^\+?[0-9]{7,15}$", 12, None),
            (r"^#[0-9a-fA-F]{6}$", 0, None),
            (r"^#(?:[0-9a-fA-F]{3}){1,2}$", 0, None),
            (r"^\d+\.\d+\.\d+$", 0, None),
            (r"^\d+\.\d+\.\d+$", 10, Some(10)),
            (r"^(foo|bar)-\d{3}$", 0, None),
            (r"^(foo|bar)-\d{3}$", 7, Some(7)),
            (r"\p{L}+", 0, None),
            (r"^\p{Lu}\p{Ll}+$", 4, None),
            (r"^\p{Greek}+$", 2, Some(5)),
            (r"\bword\b", 0, None),
            (r"\bword\b", 10, None),
            (r"^\w+\b", 6, None),
            (r"^(?:cat|dog|bird)$", 4, None),
            (r"^(a|bb|ccc)$", 3, Some(3)),
            (r"^(?i)hello$", 0, None),
            (r"abc", 10, Some(10)),
            (r"abc$", 5, None),
            (r"^abc", 5, None),
            (r"", 0, None),
            (r"", 3, Some(3)),
            (r"^$", 0, Some(0)),
            (r"^\s*\S+\s*$", 3, None),
            (r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", 0, None),
            (r"^https?://[a-z0-9.-]+(/.*)?$", 0, None),
            (r"^\d{4}-\d{2}-\d{2}$", 0, None),
            (
                r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
                0,
                None,
            ),
            (r"^v?\d+(\.\d+){0,2}(-[a-z]+)?$", 8, Some(12)),
            (r"^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$", 0, None),
            (r"^(?:\+|00)[1-9]\d{6,14}$", 0, None),
            (r"^[^\x00-\x1f]{1,10}$", 1, Some(10)),
            (r"^(ab)+$", 5, Some(7)),
            (r"^((a|b)c)*d$", 5, Some(5)),
            (r"^(?:[a-z]+_)*[a-z]+$", 8, Some(8)),
            (r"^.{3,5}$", 0, None),
            (r"^[\w.-]+$", 2, Some(2)),
            (r"(?-u:[a-f])+", 2, None),
            (r"^(?:[^\x00-\x{10FFFF}]|ok)$", 0, None),
        ];
        for &(pattern, min, max) in patterns {
            check(pattern, min, max);
        }
    }

    #[test]
    fn samples_read_well() {
        assert_eq!(check(r"^[a-zA-Z0-9_]+$", 7, None), "a1b2c3d");
        assert_eq!(check(r"^[A-Z]{2}$", 0, None), "EX");
        assert_eq!(check(r"^[a-z][a-z0-9_]{2,15}$", 0, None), "e1b");
        assert_eq!(check(r"^cus_[a-z0-9]{8}$", 0, None), "cus_a1b2c3d4");
        assert_eq!(check(r"^[A-Z0-9]{6}$", 0, None), "A1B2C3");
        assert_eq!(check(r"^[a-z]+$", 7, None), "example");
        assert_eq!(check(r"^\p{Lu}\p{Ll}+$", 7, None), "Example");
        assert_eq!(check(r"^\d{4}-\d{2}-\d{2}$", 0, None), "1234-12-12");
        assert_eq!(check(r"^(foo|bar)-\d{3}$", 0, None), "foo-123");
        assert_eq!(check(r"^\d+\.\d+\.\d+$", 0, None), "1.1.1");
    }

    #[test]
    fn identifiers_grow_to_a_plausible_length_when_the_pattern_allows() {
        let plausible = |pattern: &str, min: usize, max: Option<usize>| {
            let sample = super::plausible_sample(pattern, min, max).unwrap();
            assert!(Regex::new(pattern).unwrap().is_match(&sample));
            sample
        };
        assert_eq!(plausible(r"^cus_[a-z0-9]+$", 0, None), "cus_a1b2c3d4");
        assert_eq!(plausible(r"^[a-zA-Z0-9_]+$", 3, Some(20)), "a1b2c3d4");
        assert_eq!(plausible(r"^[a-z][a-z0-9_]{2,15}$", 0, None), "e1b2c3d4e");
        // The window and the pattern bound the growth.
        assert_eq!(plausible(r"^cus_[a-z0-9]+$", 0, Some(7)), "cus_a");
        assert_eq!(plausible(r"^inv-[0-9a-f]{4}$", 0, None), "inv-a1b2");
        // Words and numbers are not identifiers: they stay as short as they were.
        assert_eq!(plausible(r"^\d+\.\d+\.\d+$", 0, None), "1.1.1");
        assert_eq!(plausible(r"^[A-Z]{3}-[0-9]{4}$", 0, None), "EXA-1234");
        assert_eq!(plausible(r"^[a-z]+$", 0, None), "e");
    }

    #[test]
    fn impossible_requests_give_none() {
        let cases: &[(&str, usize, Option<usize>)] = &[
            (r"^[A-Z]{2}$", 3, None),
            (r"^[A-Z]{2}$", 0, Some(1)),
            (r"^$", 1, None),
            (r"a\bb", 0, None),
            (r"^a", 5, Some(4)),
            (r"(", 0, None),
            (r"^(?:ab)+$", 3, Some(3)),
            (r"^((a|b)c)*d$", 4, Some(4)),
            (r"[^\x00-\x{10FFFF}]", 0, None),
            (r"^a{100000}$", 0, None),
        ];
        for &(pattern, min, max) in cases {
            assert_eq!(sample_matching(pattern, min, max), None, "{pattern:?}");
        }
    }

    #[test]
    fn samples_are_deterministic() {
        let pattern = r"^(?:[a-z]+|\d+)-[A-Z]{2,4}$";
        assert_eq!(
            sample_matching(pattern, 6, Some(9)),
            sample_matching(pattern, 6, Some(9))
        );
    }

    #[test]
    fn nested_repetitions_and_alternations_stay_bounded() {
        let started = std::time::Instant::now();
        for pattern in [
            r"^((a|b|c|d)(e|f|g|h)(i|j|k|l)){5}x$",
            r"^(((a*)*)*)*z$",
            r"^(a|b)+(c|d)+(e|f)+(g|h)+(i|j)+(k|l)+q$",
            r"^(?:(?:x{2,3}){2,3}){2,3}$",
        ] {
            let _ = sample_matching(pattern, 0, Some(200));
            let _ = sample_matching(pattern, 150, Some(150));
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// Patterns built from pieces that realistic field patterns use.
    fn pattern() -> impl Strategy<Value = String> {
        let atom = proptest::sample::select(vec![
            "a",
            "xyz",
            "-",
            r"\.",
            r"\d",
            r"\w",
            r"\s",
            "[a-z]",
            "[A-Z0-9]",
            "[^a-z]",
            ".",
            r"\p{L}",
            r"[\x{400}-\x{4ff}]",
            "(?:foo|ba)",
            "(a|bc|)",
            r"\b",
            "_",
        ]);
        let quantifier =
            proptest::sample::select(vec!["", "", "?", "*", "+", "{2}", "{1,3}", "{0,2}", "{3,}"]);
        let piece = (atom, quantifier).prop_map(|(a, q)| format!("(?:{a}){q}"));
        (
            proptest::bool::ANY,
            proptest::collection::vec(piece, 0..6),
            proptest::bool::ANY,
        )
            .prop_map(|(start, pieces, end)| {
                format!(
                    "{}{}{}",
                    if start { "^" } else { "" },
                    pieces.concat(),
                    if end { "$" } else { "" }
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn every_sample_matches_and_fits(
            pattern in pattern(),
            min in 0usize..20,
            extra in proptest::option::of(0usize..20),
        ) {
            let max = extra.map(|extra| min + extra);
            if let Some(sample) = sample_matching(&pattern, min, max) {
                let length = sample.chars().count();
                prop_assert!(Regex::new(&pattern).unwrap().is_match(&sample));
                prop_assert!(length >= min && max.is_none_or(|max| length <= max));
            }
        }

        #[test]
        fn unanchored_patterns_always_find_a_sample(
            pattern in pattern().prop_filter("unanchored", |p| !p.contains('^') && !p.contains('$') && !p.contains(r"\b")),
            min in 0usize..20,
        ) {
            prop_assert!(sample_matching(&pattern, min, None).is_some());
        }
    }
}
