//! What is emitted next to compile errors: stub impls, so that code using the type does not
//! fail with a cascade of unrelated errors.

use proc_macro2::TokenStream;
use quote::quote;

pub(crate) fn tool_args(input: &syn::DeriveInput, errors: &TokenStream) -> TokenStream {
    let krate = crate::krate::root();
    let ident = &input.ident;
    let stub = (input.generics.params.is_empty() && matches!(input.data, syn::Data::Struct(_)))
        .then(|| {
            quote! {
                #[automatically_derived]
                impl #krate::__private::ToolArgs for #ident {
                    fn info() -> &'static #krate::__private::ArgsInfo {
                        ::core::unreachable!()
                    }
                    fn validate_fields(
                        _: #krate::__private::Map<::std::string::String, #krate::__private::Value>,
                        _: &mut #krate::__private::Cx,
                    ) -> ::core::option::Option<Self> {
                        ::core::unreachable!()
                    }
                    fn schema() -> &'static #krate::__private::schemars::Schema {
                        ::core::unreachable!()
                    }
                    fn example() -> &'static #krate::__private::Value {
                        ::core::unreachable!()
                    }
                }
            }
        });
    quote!(#errors #stub)
}

/// Next to the errors of `ToolArgs` on an enum: a stub `ArgValue`, so that the structs that
/// hold the enum report no error of their own.
pub(crate) fn data_enum(input: &syn::DeriveInput, errors: &TokenStream) -> TokenStream {
    let krate = crate::krate::root();
    let ident = &input.ident;
    let stub = input.generics.params.is_empty().then(|| {
        quote! {
            #[automatically_derived]
            impl #krate::__private::ArgValue for #ident {
                fn kind() -> #krate::__private::Kind {
                    ::core::unreachable!()
                }
                fn schema() -> #krate::__private::Map<::std::string::String, #krate::__private::Value> {
                    ::core::unreachable!()
                }
                fn shape_matches(_: &#krate::__private::Value) -> ::core::primitive::bool {
                    ::core::unreachable!()
                }
                fn from_arg(
                    _: #krate::__private::Value,
                    _: &mut #krate::__private::Cx,
                ) -> ::core::option::Option<Self> {
                    ::core::unreachable!()
                }
                fn example(
                    _: &#krate::__private::Constraints,
                    _: ::core::primitive::usize,
                ) -> #krate::__private::Value {
                    ::core::unreachable!()
                }
            }
        }
    });
    quote!(#errors #stub)
}

pub(crate) fn tool_enum(input: &syn::DeriveInput, errors: &TokenStream) -> TokenStream {
    let krate = crate::krate::root();
    let ident = &input.ident;
    let stub =
        (input.generics.params.is_empty() && matches!(input.data, syn::Data::Enum(_))).then(|| {
            quote! {
                #[automatically_derived]
                impl #krate::__private::ToolEnum for #ident {
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
