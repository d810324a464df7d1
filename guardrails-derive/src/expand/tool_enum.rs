//! `#[derive(ToolEnum)]`: an enum of unit variants read from its serde names.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Enum;
use crate::expand::opt_str;

pub(crate) fn expand(input: &Enum<'_>) -> TokenStream {
    let krate = crate::krate::root();
    let ident = input.ident;
    let names: Vec<&String> = input.variants.iter().map(|v| &v.wire_name).collect();
    let idents: Vec<&syn::Ident> = input.variants.iter().map(|v| v.ident).collect();
    let description = opt_str(input.description.as_ref());
    // Variants skipped by serde are never read, but `as_str` must still name them.
    let rest = input
        .skips_variants
        .then(|| quote!(_ => ::core::stringify!(#ident),));
    quote! {
        #[doc(hidden)]
        const _: () = {
            use #krate::__private as __gr;

            #[automatically_derived]
            impl __gr::ToolEnum for #ident {
                const VARIANTS: &'static [&'static ::core::primitive::str] = &[#(#names),*];

                fn as_str(&self) -> &'static ::core::primitive::str {
                    match self {
                        #(Self::#idents => #names,)*
                        #rest
                    }
                }
            }

            #[automatically_derived]
            impl __gr::guards::Leaf for #ident {}

            #[automatically_derived]
            impl __gr::ArgValue for #ident {
                fn kind() -> __gr::Kind {
                    __gr::Kind::Enum(<Self as __gr::ToolEnum>::VARIANTS)
                }

                fn schema() -> __gr::Map<::std::string::String, __gr::Value> {
                    __gr::enum_schema(<Self as __gr::ToolEnum>::VARIANTS, #description)
                }

                fn shape_matches(value: &__gr::Value) -> ::core::primitive::bool {
                    value.is_string()
                }

                fn from_arg(value: __gr::Value, cx: &mut __gr::Cx) -> ::core::option::Option<Self> {
                    match value.as_str() {
                        #(::core::option::Option::Some(#names) => ::core::option::Option::Some(Self::#idents),)*
                        _ => {
                            __gr::enum_mismatch(cx, <Self as __gr::ToolEnum>::VARIANTS, &value);
                            ::core::option::Option::None
                        }
                    }
                }

                fn example(constraints: &__gr::Constraints, nth: ::core::primitive::usize) -> __gr::Value {
                    __gr::enum_example(<Self as __gr::ToolEnum>::VARIANTS, constraints, nth)
                }
            }
        };
    }
}
