//! `string_formats!()`: the derive's table of string formats as an expression, so that a test
//! can hold it against the runtime's names. Each entry is `(name, StringFormat)`, the variant
//! reached through `::guardrails::__private`: a variant the runtime lacks does not compile.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::names::STRING_FORMATS;

pub(crate) fn expand() -> TokenStream {
    let krate = crate::krate::root();
    let entries = STRING_FORMATS.iter().map(|(name, variant)| {
        let variant = format_ident!("{}", variant);
        quote!((#name, #krate::__private::Format::#variant))
    });
    quote!([#(#entries),*])
}
