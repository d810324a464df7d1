//! The path generated code names the runtime by.
//!
//! The runtime's package is `guardrails-mcp` and its library is named `guardrails`, so a
//! dependency written `guardrails-mcp = "0.1"` is `::guardrails` in the user's code. A user who
//! renames it (`rails = { package = "guardrails-mcp", .. }`) has it as `::rails`: the name is read
//! from the Cargo.toml of the crate being compiled.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// The runtime's package name on the registry.
const PACKAGE: &str = "guardrails-mcp";

/// The name a dependency on [`PACKAGE`] under its own key gets: its library's name.
const LIBRARY: &str = "guardrails";

/// `::guardrails`, or `::name` when the crate being compiled depends on the runtime as `name`.
pub(crate) fn root() -> TokenStream {
    let name = name_in(proc_macro_crate::crate_name(PACKAGE).ok());
    let ident = Ident::new(&name, Span::call_site());
    quote!(::#ident)
}

/// The crate name for what `proc-macro-crate` found: a dependency key becomes its crate name with
/// `-` read as `_`, so the unrenamed key (`guardrails-mcp`) comes back as `guardrails_mcp`, which
/// is the library `guardrails`; the runtime itself, its own tests and a manifest that names no
/// dependency on it (a `build.rs` script's output, an unreadable manifest) use the library name.
fn name_in(found: Option<proc_macro_crate::FoundCrate>) -> String {
    match found {
        Some(proc_macro_crate::FoundCrate::Name(name)) if name != PACKAGE.replace('-', "_") => name,
        _ => LIBRARY.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro_crate::FoundCrate;

    #[test]
    fn a_renamed_dependency_is_named_by_its_key() {
        assert_eq!(name_in(Some(FoundCrate::Name("rails".to_owned()))), "rails");
    }

    #[test]
    fn the_unrenamed_dependency_is_the_library() {
        assert_eq!(
            name_in(Some(FoundCrate::Name("guardrails_mcp".to_owned()))),
            "guardrails"
        );
        assert_eq!(name_in(Some(FoundCrate::Itself)), "guardrails");
        assert_eq!(name_in(None), "guardrails");
    }
}
