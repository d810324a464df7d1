//! Helpers for reading the nested meta of an attribute, shared by the parsers of fields and
//! of whole structs.

use syn::Expr;
use syn::meta::ParseNestedMeta;

/// The name of a nested meta item: `min` in `length(min = 1)`; empty when it is a path.
pub(crate) fn key(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// Consumes whatever follows a meta item we do not care about.
pub(crate) fn skip_meta(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_meta(&inner))?;
    }
    Ok(())
}
