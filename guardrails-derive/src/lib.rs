//! The derive macros of [`guardrails`](https://docs.rs/guardrails): an implementation detail of
//! that crate, which re-exports them and documents them. Depend on `guardrails` instead.

mod ast;
mod case;
mod expand;
mod fallback;
mod valid;

use proc_macro::TokenStream;
use syn::parse_macro_input;

/// Derives `guardrails::ToolArgs`; documented in the `guardrails` crate.
#[proc_macro_derive(ToolArgs, attributes(guard, serde))]
pub fn derive_tool_args(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    derive::tool_args(&input).into()
}

/// Derives `guardrails::ToolEnum`; documented in the `guardrails` crate.
#[proc_macro_derive(ToolEnum, attributes(guard, serde))]
pub fn derive_tool_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    derive::tool_enum(&input).into()
}

/// The three stages of each derive: parse, check, emit (or the fallback on error).
mod derive {
    use proc_macro2::TokenStream;

    use crate::{ast, expand, fallback, valid};

    pub(crate) fn tool_args(input: &syn::DeriveInput) -> TokenStream {
        let mut acc = darling::Error::accumulator();
        let parsed = ast::Struct::from_input(input, &mut acc);
        if let Some(parsed) = &parsed {
            valid::check_struct(parsed, &mut acc);
        }
        match (acc.finish(), parsed) {
            (Ok(()), Some(parsed)) => expand::tool_args::expand(&parsed),
            (Err(errors), _) => fallback::tool_args(input, &errors.write_errors()),
            (Ok(()), None) => fallback::tool_args(input, &TokenStream::new()),
        }
    }

    pub(crate) fn tool_enum(input: &syn::DeriveInput) -> TokenStream {
        let mut acc = darling::Error::accumulator();
        let parsed = ast::Enum::from_input(input, &mut acc);
        let total = match &input.data {
            syn::Data::Enum(data) => data.variants.len(),
            _ => 0,
        };
        match (acc.finish(), parsed) {
            (Ok(()), Some(parsed)) => expand::tool_enum::expand(&parsed, total),
            (Err(errors), _) => fallback::tool_enum(input, &errors.write_errors()),
            (Ok(()), None) => fallback::tool_enum(input, &TokenStream::new()),
        }
    }
}
