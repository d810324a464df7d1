//! `#[derive(ToolArgs)]` on an enum: the static description of the variants, the reader that
//! finds the variant and checks its fields in the one pass, the schema and the example. The
//! fields of each struct variant are read by the hidden struct the struct derive expands.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;

use crate::data_enum::{DataEnum, Shape, Tagging};
use crate::expand::opt_str;

/// The expansion of an enum with data; `hidden` holds the expansions of its variants' hidden
/// structs.
#[expect(
    clippy::too_many_lines,
    reason = "the generated items read best in one template"
)]
pub(crate) fn expand(input: &DataEnum<'_>, hidden: &[TokenStream]) -> TokenStream {
    let krate = crate::krate::root();
    let ident = input.ident;
    let type_name = ident.to_string();
    let description = opt_str(input.description.as_ref());
    let count = input.variants.len();
    let tagging = match &input.tagging {
        Tagging::External => quote!(__gr::Tagging::External),
        Tagging::Internal(tag) => quote!(__gr::Tagging::Internal { tag: #tag }),
        Tagging::Adjacent(tag, content) => {
            quote!(__gr::Tagging::Adjacent { tag: #tag, content: #content })
        }
        Tagging::Untagged => quote!(__gr::Tagging::Untagged),
    };

    // serde flattens a tagged enum: its tag names the variant among the holder's keys.
    let flatten =
        matches!(input.tagging, Tagging::Internal(_) | Tagging::Adjacent(..)).then(|| {
            quote! {
                #[automatically_derived]
                impl __gr::Flatten<__gr::EnumVariants> for #ident {
                    fn flattened() -> __gr::Flattened {
                        __gr::Flattened::Variants(&__ENUM)
                    }

                    fn read(
                        object: __gr::Map<::std::string::String, __gr::Value>,
                        cx: &mut __gr::Cx,
                    ) -> ::core::option::Option<Self> {
                        __gr::read_flattened_enum::<Self>(object, cx)
                    }
                }
            }
        });

    let mut definitions = Vec::new();
    let mut infos = Vec::new();
    let mut arms = Vec::new();
    for (index, variant) in input.variants.iter().enumerate() {
        let name = &variant.wire_name;
        let vident = variant.ident;
        match &variant.shape {
            Shape::Unit => {
                infos.push(quote! {
                    __gr::VariantInfo::from_parts(#name, ::core::option::Option::None)
                });
                arms.push(quote!(#index => ::core::option::Option::Some(Self::#vident),));
            }
            Shape::Newtype(ty) => {
                // Not spanned: `__gr::NewtypeVariant` at the user's span reads as a needless
                // qualification where the user imported `ToolArgs`; the bound still points at
                // the type.
                let info = quote!(<#ty as __gr::NewtypeVariant>::info);
                infos.push(quote! {
                    __gr::VariantInfo::from_parts(#name, ::core::option::Option::Some(#info))
                });
                let read = quote!(<#ty as __gr::NewtypeVariant>::read(__object, __cx));
                arms.push(quote!(#index => #read.map(Self::#vident),));
            }
            Shape::Struct { hidden, input } => {
                let syn::Data::Struct(data) = &input.data else {
                    continue;
                };
                let fields: Vec<_> = data
                    .fields
                    .iter()
                    .filter_map(|f| f.ident.as_ref())
                    .collect();
                let types = data.fields.iter().map(|f| &f.ty);
                definitions.push(quote! {
                    struct #hidden { #(#fields: #types),* }
                });
                infos.push(quote! {
                    __gr::VariantInfo::from_parts(
                        #name,
                        ::core::option::Option::Some(<#hidden as __gr::ToolArgs>::info),
                    )
                });
                let read = quote! {
                    <#hidden as __gr::ToolArgs>::validate_fields(__object, __cx)
                        .map(|#hidden { #(#fields),* }| Self::#vident { #(#fields),* })
                };
                if variant.checks.is_empty() {
                    arms.push(quote!(#index => #read,));
                    continue;
                }
                // A check of the whole value runs once the variant's fields added no issue, at
                // the variant's place, as a struct's does.
                // Not at the user's span: `__gr::ToolArgs` there reads as a needless
                // qualification where the user imported `ToolArgs`.
                let lookup = quote!(<#hidden as __gr::ToolArgs>::info().fields());
                let runs = variant.checks.iter().map(|path| {
                    quote_spanned! {path.span()=>
                        __gr::run_struct_check(
                            __cx,
                            #lookup,
                            &__sent,
                            __value,
                            &#path,
                        );
                    }
                });
                arms.push(quote! {
                    #index => {
                        let __sent = ::core::clone::Clone::clone(&__object);
                        let __issues_before = __cx.issue_count();
                        let __out = #read;
                        if let ::core::option::Option::Some(__value) = &__out {
                            if __cx.issue_count() == __issues_before {
                                #(#runs)*
                            }
                        }
                        __out
                    }
                });
            }
        }
    }

    quote! {
        #[doc(hidden)]
        const _: () = {
            use #krate::__private as __gr;

            #(#definitions)*
            #(#hidden)*

            static __VARIANTS: [__gr::VariantInfo; #count] = [#(#infos),*];

            static __ENUM: __gr::EnumInfo =
                __gr::EnumInfo::from_parts(#type_name, #description, #tagging, &__VARIANTS);

            #[automatically_derived]
            impl __gr::ArgValue for #ident {
                fn kind() -> __gr::Kind {
                    __gr::Kind::Variants(&__ENUM)
                }

                fn schema() -> __gr::Map<::std::string::String, __gr::Value> {
                    __gr::variants_schema(&__ENUM)
                }

                fn shape_matches(_: &__gr::Value) -> ::core::primitive::bool {
                    true
                }

                fn from_arg(value: __gr::Value, cx: &mut __gr::Cx) -> ::core::option::Option<Self> {
                    __gr::read_variant(&__ENUM, value, cx, |__index, __object, __cx| match __index {
                        #(#arms)*
                        _ => ::core::option::Option::None,
                    })
                }

                fn example(_: &__gr::Constraints, nth: ::core::primitive::usize) -> __gr::Value {
                    __gr::variants_example(&__ENUM, nth)
                }
            }

            #flatten

            #[automatically_derived]
            impl __gr::schemars::JsonSchema for #ident {
                fn inline_schema() -> ::core::primitive::bool {
                    true
                }

                fn schema_name() -> ::std::borrow::Cow<'static, ::core::primitive::str> {
                    ::std::borrow::Cow::Borrowed(#type_name)
                }

                fn json_schema(_: &mut __gr::schemars::SchemaGenerator) -> __gr::schemars::Schema {
                    __gr::schemars::Schema::from(<Self as __gr::ArgValue>::schema())
                }
            }
        };
    }
}
