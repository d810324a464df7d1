//! How a problem is reported: at its span, in the house wording, with a did-you-mean for a
//! misspelt name.

use proc_macro2::Span;

use crate::suggest::did_you_mean;

pub(crate) fn error(span: Span, message: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(message).with_span(&span)
}

/// "unknown {kind} `{wrong}`", with the name it most likely meant, or else every name it
/// could have been.
pub(crate) fn unknown(kind: &str, wrong: &str, names: &[&str], span: Span) -> darling::Error {
    unknown_or(kind, wrong, names, "", span)
}

/// [`unknown`], with `otherwise` after the list of names when none is suggested.
pub(crate) fn unknown_or(
    kind: &str,
    wrong: &str,
    names: &[&str],
    otherwise: &str,
    span: Span,
) -> darling::Error {
    let message = match did_you_mean(wrong, names.iter().copied()) {
        Some(best) => format!("unknown {kind} `{wrong}`, did you mean `{best}`?"),
        None => format!(
            "unknown {kind} `{wrong}`, expected one of: {}{otherwise}",
            names.join(", ")
        ),
    };
    error(span, message)
}
