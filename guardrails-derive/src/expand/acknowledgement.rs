//! The field that acknowledges policy warnings (`#[guard(acknowledges_policy)]`) is read by
//! the validator on the wire, never by the handler, which has no use for it: without a read
//! of its own, every tool that has one would warn `dead_code`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::checked::CheckedStruct;

/// A read of the acknowledgement field, in a function the compiler counts as used; empty for a
/// struct without one.
pub(crate) fn read(input: &CheckedStruct<'_>) -> TokenStream {
    let Some(field) = input
        .fields
        .iter()
        .find(|f| !f.skip && f.guards.acknowledges_policy)
    else {
        return TokenStream::new();
    };
    let ident = input.ident;
    let fid = field.ident;
    // Not `automatically_derived`: reads in derived impls do not count as reads. The function
    // is allowed to be unused, which makes it a root of the dead-code analysis, so its read
    // counts.
    quote! {
        impl #ident {
            #[allow(dead_code)]
            #[doc(hidden)]
            fn __guardrails_acknowledgement(&self) -> &dyn ::core::any::Any {
                &self.#fid
            }
        }
    }
}
