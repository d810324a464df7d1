//! Did-you-mean: the name a misspelt one most likely meant.
//!
//! One algorithm and one threshold for every suggestion the library makes: unknown argument
//! keys at run time, unknown profiles, severities and rules in policy files, and unknown guards,
//! formats and options at compile time. A proc-macro crate cannot link the runtime, so the
//! derive crate includes this very file (`guardrails-derive/src/suggest.rs` is a link to it, the
//! way serde shares its derive internals); it may use only `core`, `std` and `strsim`.

/// The lowest similarity (normalized Damerau-Levenshtein of the normalized names, from 0 to 1)
/// at which a name is suggested.
pub const THRESHOLD: f64 = 0.7;

/// Inputs longer than this are never close to a name; skipping them also bounds the quadratic
/// distance computation on hostile input.
const MAX_INPUT_BYTES: usize = 128;

/// Lowercase, without the separators `_`, `-` and spaces: `dueDate`, `due_date` and `due-date`
/// are the same name to a caller.
fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
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
        let normalized = normalize(candidate);
        let score = if normalized == wanted {
            1.0
        } else {
            strsim::normalized_damerau_levenshtein(&wanted, &normalized)
        };
        if score >= THRESHOLD && best.is_none_or(|(_, s)| score > s) {
            best = Some((candidate, score));
        }
    }
    best.map(|(name, _)| name)
}
