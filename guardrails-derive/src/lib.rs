//! The derive macros of [`guardrails-mcp`](https://docs.rs/guardrails-mcp): an implementation
//! detail of that crate, which re-exports them and documents them. Depend on `guardrails-mcp`
//! instead.

mod ast;
mod attr;
mod case;
mod checked;
mod data_enum;
mod diagnostic;
mod expand;
mod fallback;
mod guarded;
mod krate;
mod meta;
mod names;
mod rules;
// The runtime's own did-you-mean, included through a link so that both crates suggest alike.
#[expect(
    unreachable_pub,
    reason = "the file is shared with the runtime, where its items are public"
)]
mod suggest;
mod tool_ast;
mod tool_attr;
// The runtime's rule for tool names, included the same way: a name `#[tool]` accepts is one
// `ToolSpec::new` accepts.
mod tool_name;
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

/// Makes `Self::tool_router()` of an rmcp `#[tool_router]` impl return its router guarded;
/// documented in the `guardrails` crate.
#[proc_macro_attribute]
pub fn guarded(args: TokenStream, item: TokenStream) -> TokenStream {
    derive::guarded(args.into(), &item.into()).into()
}

/// The string formats `format = ".."` accepts, as `[(name, StringFormat)]`: lets the runtime's
/// tests hold the derive's names against its own. Not part of the API.
#[doc(hidden)]
#[proc_macro]
pub fn string_formats(input: TokenStream) -> TokenStream {
    let _ = parse_macro_input!(input as syn::parse::Nothing);
    expand::string_formats::expand().into()
}

/// The three stages of each macro: parse, check, then expand the checked model, or emit the
/// fallback next to every error collected.
mod derive {
    use darling::error::Accumulator;
    use proc_macro2::TokenStream;

    use crate::{ast, data_enum, expand, fallback, tool_attr, tool_valid, valid};

    pub(crate) fn guarded(args: TokenStream, item: &TokenStream) -> TokenStream {
        match crate::guarded::parse(args, item) {
            Ok(model) => crate::guarded::expand(model),
            Err(errors) => crate::guarded::fallback(item, &errors),
        }
    }

    pub(crate) fn tool(args: TokenStream, item: &TokenStream) -> TokenStream {
        let function: syn::ItemFn = match syn::parse2(item.clone()) {
            Ok(function) => function,
            Err(e) => {
                let message = syn::Error::new(e.span(), "`#[tool]` goes on a function");
                return fallback::tool(item, &message.to_compile_error());
            }
        };
        let mut acc = darling::Error::accumulator();
        let parsed = tool_attr::parse(args, &function, &mut acc);
        let checked = tool_valid::check_tool(parsed, &mut acc);
        finish(acc, checked, expand::tool::expand, |errors| {
            fallback::tool(item, errors)
        })
    }

    pub(crate) fn tool_args(input: &syn::DeriveInput) -> TokenStream {
        if matches!(input.data, syn::Data::Enum(_)) {
            return data_enum(input);
        }
        let mut acc = darling::Error::accumulator();
        let checked = ast::Struct::from_input(input, &mut acc)
            .and_then(|parsed| valid::check_struct(parsed, &mut acc));
        finish(acc, checked, expand::tool_args::expand, |errors| {
            fallback::tool_args(input, errors)
        })
    }

    /// `ToolArgs` on an enum: the enum's model, and the struct derive on the hidden struct of
    /// each struct variant, every error of both collected.
    fn data_enum(input: &syn::DeriveInput) -> TokenStream {
        let mut acc = darling::Error::accumulator();
        let parsed = data_enum::DataEnum::from_input(input, &mut acc);
        let mut hidden = Vec::new();
        for variant in parsed.iter().flat_map(|model| &model.variants) {
            if let data_enum::Shape::Struct { input, .. } = &variant.shape {
                let checked = ast::Struct::from_input(input, &mut acc)
                    .map(|mut parsed| {
                        parsed.rules.whole_checks_elsewhere = true;
                        parsed
                    })
                    .and_then(|parsed| valid::check_struct(parsed, &mut acc));
                hidden.extend(checked.as_ref().map(expand::tool_args::expand));
            }
        }
        finish(
            acc,
            parsed,
            |model| expand::data_enum::expand(model, &hidden),
            |errors| fallback::data_enum(input, errors),
        )
    }

    pub(crate) fn tool_enum(input: &syn::DeriveInput) -> TokenStream {
        let mut acc = darling::Error::accumulator();
        let parsed = ast::Enum::from_input(input, &mut acc);
        finish(acc, parsed, expand::tool_enum::expand, |errors| {
            fallback::tool_enum(input, errors)
        })
    }

    /// The expansion of the model when no stage recorded an error; else the fallback, next to
    /// every error recorded. A stage yields no model only where it recorded why.
    fn finish<T>(
        acc: Accumulator,
        model: Option<T>,
        expand: impl FnOnce(&T) -> TokenStream,
        fallback: impl FnOnce(&TokenStream) -> TokenStream,
    ) -> TokenStream {
        match (acc.finish(), model) {
            (Ok(()), Some(model)) => expand(&model),
            (result, _) => fallback(
                &result
                    .err()
                    .map(darling::Error::write_errors)
                    .unwrap_or_default(),
            ),
        }
    }
}
