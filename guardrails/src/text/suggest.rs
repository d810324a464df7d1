//! Did-you-mean: the name a misspelt one most likely meant.
//!
//! One algorithm and one threshold for every suggestion the library makes: unknown argument
//! keys at run time, unknown profiles, severities and rules in policy files, and unknown guards,
//! formats and options at compile time. A proc-macro crate cannot link the runtime, so the
//! derive crate includes this very file (`guardrails-derive/src/suggest.rs` is a link to it, the
//! way serde shares its derive internals); it may use only `core`, `std` and `strsim`.
//!
//! Names are compared lowercase and without separators (`dueDate`, `due_date` and `due-date`
//! are one name). A candidate is suggested when it is close by edit distance (a typo: `usrname`,
//! `lenght`), or when the input abbreviates it: a prefix (`desc` for `description`) or the
//! candidate's letters in order from its first one (`qty` for `quantity`, `amt` for `amount`).
//! Abbreviations need three letters at least, so that two letters never suggest a name.

use std::borrow::Cow;

/// The lowest similarity (from 0 to 1) at which a name is suggested: the normalized
/// Damerau-Levenshtein similarity of a typo, or the score of an abbreviation.
pub const THRESHOLD: f64 = 0.7;

/// Inputs longer than this are never close to a name; skipping them also bounds the quadratic
/// distance computation on hostile input.
const MAX_INPUT_BYTES: usize = 128;

/// The fewest letters an abbreviation has.
const MIN_ABBREVIATION_CHARS: usize = 3;

/// Lowercase, without the separators `_`, `-` and spaces: the form names are compared in.
/// Candidates compared often are normalized once and passed to [`closest`].
#[must_use]
pub fn normalize(name: &str) -> String {
    if name.is_ascii() {
        let mut out = String::with_capacity(name.len());
        for byte in name.bytes() {
            if !matches!(byte, b'_' | b'-' | b' ') {
                out.push(char::from(byte.to_ascii_lowercase()));
            }
        }
        return out;
    }
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `short` abbreviates `long`: same first letter, and every letter of `short` found in
/// `long` in order (a prefix is the simplest case).
fn abbreviates(short: &str, long: &str) -> bool {
    let mut rest = long.chars();
    let same_start = short.chars().next().is_some() && short.chars().next() == long.chars().next();
    same_start && short.chars().all(|c| rest.any(|l| l == c))
}

/// A lower bound of the edit distance between `a` and `b`, cheap to compute: the characters of
/// one that the other lacks, counted with repeats (an insertion, a deletion or a substitution
/// removes at most one from each side, a transposition none). ASCII names only: `None` for
/// others.
fn edits_at_least(a: &str, b: &str) -> Option<usize> {
    if !a.is_ascii() || !b.is_ascii() {
        return None;
    }
    // A count stops at 255: `a`, the input, is never longer than `MAX_INPUT_BYTES` (128), so it
    // matches no more of a character than that.
    let mut unmatched = [0_u8; 128];
    for byte in b.bytes() {
        let count = &mut unmatched[usize::from(byte)];
        *count = count.saturating_add(1);
    }
    let mut common = 0;
    for byte in a.bytes() {
        let count = &mut unmatched[usize::from(byte)];
        if *count > 0 {
            *count -= 1;
            common += 1;
        }
    }
    Some((a.len() - common).max(b.len() - common))
}

/// How likely `wanted` meant `candidate`, both normalized; 0 when not at all.
fn score(wanted: &str, candidate: &str) -> f64 {
    if wanted == candidate {
        return 1.0;
    }
    let chars = |name: &str| {
        if name.is_ascii() {
            name.len()
        } else {
            name.chars().count()
        }
    };
    let (wanted_chars, candidate_chars) = (chars(wanted), chars(candidate));
    // The similarity is at most `1 - fewest edits / longer`. Below the threshold a typo cannot
    // be what was meant (an abbreviation still can), and the distance, the costly part, is not
    // computed. The fewest edits are at least the difference in length and, counted only for
    // names close in length, the characters one lacks.
    #[allow(clippy::cast_precision_loss, reason = "names are short")]
    let similarity_at_most =
        |edits: usize| 1.0 - edits as f64 / wanted_chars.max(candidate_chars) as f64;
    let typo = if similarity_at_most(wanted_chars.abs_diff(candidate_chars)) < THRESHOLD
        || edits_at_least(wanted, candidate)
            .is_some_and(|edits| similarity_at_most(edits) < THRESHOLD)
    {
        0.0
    } else {
        strsim::normalized_damerau_levenshtein(wanted, candidate)
    };
    let abbreviation = if wanted_chars >= MIN_ABBREVIATION_CHARS
        && wanted_chars < candidate_chars
        && abbreviates(wanted, candidate)
    {
        // Above the threshold, higher the more of the candidate the input covers.
        #[allow(clippy::cast_precision_loss, reason = "names are short")]
        let coverage = wanted_chars as f64 / candidate_chars as f64;
        THRESHOLD + 0.25 * coverage
    } else {
        0.0
    };
    typo.max(abbreviation)
}

/// The candidate closest to `input`, when one is close enough to be what was meant. Ties go to
/// the candidate listed first, so suggestions are deterministic.
#[must_use]
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    closest(
        input,
        candidates
            .into_iter()
            .map(|candidate| (candidate, Cow::Owned(normalize(candidate)))),
    )
}

/// [`did_you_mean`] over candidates given with their [`normalize`]d forms, so that candidates
/// compared often (the fields of an arguments type) are normalized once, not at every call.
#[must_use]
pub fn closest<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = (&'a str, Cow<'a, str>)>,
) -> Option<&'a str> {
    let mut candidates = candidates.into_iter().peekable();
    if input.len() > MAX_INPUT_BYTES || candidates.peek().is_none() {
        return None;
    }
    // An ASCII input, the usual one, is normalized on the stack.
    let mut buffer = [0_u8; MAX_INPUT_BYTES];
    let owned;
    let wanted = if input.is_ascii() {
        let mut len = 0;
        for byte in input.bytes() {
            if !matches!(byte, b'_' | b'-' | b' ') {
                buffer[len] = byte.to_ascii_lowercase();
                len += 1;
            }
        }
        std::str::from_utf8(&buffer[..len]).unwrap_or_default()
    } else {
        owned = normalize(input);
        owned.as_str()
    };
    let mut best: Option<(&'a str, f64)> = None;
    for (candidate, normalized) in candidates {
        let score = score(wanted, &normalized);
        if score >= THRESHOLD && best.is_none_or(|(_, s)| score > s) {
            best = Some((candidate, score));
        }
    }
    best.map(|(name, _)| name)
}
