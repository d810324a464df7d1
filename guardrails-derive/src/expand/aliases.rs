//! serde's `alias`es in `#[derive(ToolArgs)]`: the match arm that reads a field under each of
//! its names, and the schema that lists them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::checked::CheckedField;

/// The match arm of the field at `index` in the loop over the sent object.
pub(crate) fn arm(index: usize, field: &CheckedField<'_>) -> TokenStream {
    let slot = format_ident!("__slot_{}", index);
    let name = &field.wire_name;
    if field.aliases.is_empty() {
        return quote!(#name => #slot = ::core::option::Option::Some(value),);
    }
    let aliases = &field.aliases;
    quote! {
        #name #(| #aliases)* => __gr::take_alias(cx, &mut #slot, &key, value, &__FIELDS[#index]),
    }
}

/// The `[(name, &[alias, ..]), ..]` of the fields with aliases, or `None` when none has one.
fn table(fields: &[CheckedField<'_>]) -> Option<TokenStream> {
    let rows: Vec<TokenStream> = fields
        .iter()
        .filter(|f| !f.skip && !f.aliases.is_empty())
        .map(|f| {
            let name = &f.wire_name;
            let aliases = &f.aliases;
            quote!((#name, &[#(#aliases),*]))
        })
        .collect();
    (!rows.is_empty()).then(|| quote!(&[#(#rows),*]))
}

/// What builds the root schema, once.
pub(crate) fn root_schema(fields: &[CheckedField<'_>]) -> TokenStream {
    match table(fields) {
        Some(table) => quote!(|| __gr::alias_root_schema(__gr::root_schema::<Self>(), #table)),
        None => quote!(__gr::root_schema::<Self>),
    }
}

/// The schema of the struct nested in another.
pub(crate) fn nested_schema(fields: &[CheckedField<'_>]) -> TokenStream {
    match table(fields) {
        Some(table) => quote! {{
            let mut __schema = __gr::nested_schema::<Self>();
            __gr::alias_schema(&mut __schema, #table);
            __schema
        }},
        None => quote!(__gr::nested_schema::<Self>()),
    }
}
