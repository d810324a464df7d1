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

/// The lowest similarity (from 0 to 1) at which a name is suggested: the normalized
/// Damerau-Levenshtein similarity of a typo, or the score of an abbreviation.
pub const THRESHOLD: f64 = 0.7;

/// Inputs longer than this are never close to a name; skipping them also bounds the quadratic
/// distance computation on hostile input.
const MAX_INPUT_BYTES: usize = 128;

/// The fewest letters an abbreviation has.
const MIN_ABBREVIATION_CHARS: usize = 3;

/// Lowercase, without the separators `_`, `-` and spaces.
fn normalize(name: &str) -> String {
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

/// How likely `wanted` meant `candidate`, both normalized; 0 when not at all.
fn score(wanted: &str, candidate: &str) -> f64 {
    if wanted == candidate {
        return 1.0;
    }
    let typo = strsim::normalized_damerau_levenshtein(wanted, candidate);
    let (wanted_chars, candidate_chars) = (wanted.chars().count(), candidate.chars().count());
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
    if input.len() > MAX_INPUT_BYTES {
        return None;
    }
    let wanted = normalize(input);
    let mut best: Option<(&'a str, f64)> = None;
    for candidate in candidates {
        let score = score(&wanted, &normalize(candidate));
        if score >= THRESHOLD && best.is_none_or(|(_, s)| score > s) {
            best = Some((candidate, score));
        }
    }
    best.map(|(name, _)| name)
}
