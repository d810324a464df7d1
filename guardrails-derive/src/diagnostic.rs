//! How a problem is reported: at its span, in the house wording, with a did-you-mean for a
//! misspelt name.

use proc_macro2::Span;

pub(crate) fn error(span: Span, message: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(message).with_span(&span)
}

/// The closest of `names` to `wrong`, when one is close.
pub(crate) fn closest<'n>(wrong: &str, names: &[&'n str]) -> Option<&'n str> {
    names
        .iter()
        .map(|n| (*n, strsim::jaro_winkler(wrong, n)))
        .filter(|(_, score)| *score > 0.8)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(n, _)| n)
}

pub(crate) fn unknown(kind: &str, wrong: &str, names: &[&str], span: Span) -> darling::Error {
    match closest(wrong, names) {
        Some(best) => error(
            span,
            format!("unknown {kind} `{wrong}`, did you mean `{best}`?"),
        ),
        None => error(
            span,
            format!(
                "unknown {kind} `{wrong}`, expected one of: {}",
                names.join(", ")
            ),
        ),
    }
}
