//! The derive macros of [`guardrails`](https://docs.rs/guardrails): an implementation detail of
//! that crate, which re-exports them and documents them. Depend on `guardrails` instead.

mod ast;
mod attr;
mod case;
mod diagnostic;
mod expand;
mod fallback;
// The runtime's own did-you-mean, included through a link so that both crates suggest alike.
#[expect(
    unreachable_pub,
    reason = "the file is shared with the runtime, where its items are public"
)]
mod suggest;
mod tool_ast;
mod tool_attr;
mod tool_valid;
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

/// Turns a function into a guarded tool; documented in the `guardrails` crate.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    derive::tool(args.into(), &item.into()).into()
}

/// The three stages of each derive: parse, check, emit (or the fallback on error).
mod derive {
    use proc_macro2::TokenStream;

    use crate::{ast, expand, fallback, tool_ast, tool_valid, valid};

    pub(crate) fn tool(args: TokenStream, item: &TokenStream) -> TokenStream {
        let function: syn::ItemFn = match syn::parse2(item.clone()) {
            Ok(function) => function,
            Err(e) => {
                let message = syn::Error::new(e.span(), "`#[tool]` goes on a function");
                return fallback::tool(item, &message.to_compile_error());
            }
        };
        let mut acc = darling::Error::accumulator();
        let parsed = tool_ast::ToolFn::parse(args, &function, &mut acc);
        tool_valid::check_tool(&parsed, &mut acc);
        match (acc.finish(), &parsed.params) {
            (Ok(()), Some(params)) => expand::tool::expand(&parsed, params),
            (Err(errors), _) => fallback::tool(item, &errors.write_errors()),
            (Ok(()), None) => fallback::tool(item, &TokenStream::new()),
        }
    }

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
