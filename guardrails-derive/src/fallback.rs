//! What is emitted next to compile errors: stub impls, so that code using the type does not
//! fail with a cascade of unrelated errors.

use proc_macro2::TokenStream;
use quote::quote;

pub(crate) fn tool_args(input: &syn::DeriveInput, errors: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let stub = (input.generics.params.is_empty() && matches!(input.data, syn::Data::Struct(_))).then(|| {
        quote! {
            #[automatically_derived]
            impl ::guardrails::__private::ToolArgs for #ident {
                fn info() -> &'static ::guardrails::__private::ArgsInfo {
                    ::core::unreachable!()
                }
                fn validate_fields(
                    _: ::guardrails::__private::Map<::std::string::String, ::guardrails::__private::Value>,
                    _: &mut ::guardrails::__private::Cx,
                ) -> ::core::option::Option<Self> {
                    ::core::unreachable!()
                }
                fn schema() -> &'static ::guardrails::__private::schemars::Schema {
                    ::core::unreachable!()
                }
                fn example() -> &'static ::guardrails::__private::Value {
                    ::core::unreachable!()
                }
            }
        }
    });
    quote!(#errors #stub)
}

pub(crate) fn tool_enum(input: &syn::DeriveInput, errors: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let stub =
        (input.generics.params.is_empty() && matches!(input.data, syn::Data::Enum(_))).then(|| {
            quote! {
                #[automatically_derived]
                impl ::guardrails::__private::ToolEnum for #ident {
                    const VARIANTS: &'static [&'static ::core::primitive::str] = &[];
                    fn as_str(&self) -> &'static ::core::primitive::str {
                        ::core::unreachable!()
                    }
                }
            }
        });
    quote!(#errors #stub)
}

/// The user's function unchanged, next to the errors of its `#[tool]` attribute: code that
/// calls it keeps compiling, so the errors shown are the attribute's own.
pub(crate) fn tool(item: &TokenStream, errors: &TokenStream) -> TokenStream {
    quote!(#errors #item)
}
