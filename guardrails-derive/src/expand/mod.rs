//! Code generation, one file per macro. Everything generated reaches the runtime through
//! `::guardrails::__private` (or the name the user's Cargo.toml gives the runtime, see `krate`),
//! so users need no dependency besides the runtime.

pub(crate) mod acknowledgement;
pub(crate) mod aliases;
pub(crate) mod data_enum;
pub(crate) mod opaque;
pub(crate) mod string_formats;
pub(crate) mod tool;
pub(crate) mod tool_args;
pub(crate) mod tool_enum;

use proc_macro2::TokenStream;
use quote::quote;

pub(crate) fn opt_str(text: Option<&String>) -> TokenStream {
    match text {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    }
}
