//! Handlers that return `impl Trait` (`Iter<impl Iterator<Item = &Task>>`, `impl Serialize`):
//! generated code cannot name an opaque type, so it reads the returned value's type from the
//! value itself, and finds the output schema from a stand-in type with the same items.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{GenericArgument, PathArguments, Type, TypeParamBound};

/// Whether the return type has an `impl Trait` anywhere in it.
pub(crate) fn is_opaque(ty: &Type) -> bool {
    match ty {
        Type::ImplTrait(_) => true,
        Type::Path(path) => path
            .path
            .segments
            .iter()
            .any(|segment| match &segment.arguments {
                PathArguments::AngleBracketed(args) => args.args.iter().any(|arg| match arg {
                    GenericArgument::Type(ty) => is_opaque(ty),
                    _ => false,
                }),
                _ => false,
            }),
        Type::Reference(r) => is_opaque(&r.elem),
        Type::Tuple(t) => t.elems.iter().any(is_opaque),
        Type::Slice(s) => is_opaque(&s.elem),
        Type::Array(a) => is_opaque(&a.elem),
        Type::Paren(p) => is_opaque(&p.elem),
        Type::Group(g) => is_opaque(&g.elem),
        _ => false,
    }
}

/// The return type with each `impl Trait` replaced by a type that has the same output schema:
/// an iterator of the items its `Item = X` binding names (the one place a trait's associated
/// type is read by name), any other opaque type by one without a schema.
pub(crate) fn stand_in(ty: &Type) -> TokenStream {
    match ty {
        Type::ImplTrait(bounds) => {
            let item = bounds.bounds.iter().find_map(|bound| match bound {
                TypeParamBound::Trait(t) => {
                    t.path
                        .segments
                        .last()
                        .and_then(|segment| match &segment.arguments {
                            PathArguments::AngleBracketed(args) => {
                                args.args.iter().find_map(|arg| match arg {
                                    GenericArgument::AssocType(assoc) if assoc.ident == "Item" => {
                                        Some(&assoc.ty)
                                    }
                                    _ => None,
                                })
                            }
                            _ => None,
                        })
                }
                _ => None,
            });
            match item {
                Some(item) => {
                    let item = stand_in(item);
                    quote!(::core::iter::Empty<#item>)
                }
                None => quote!(__gr::Opaque),
            }
        }
        Type::Path(path) if is_opaque(ty) => {
            let qself = path.qself.as_ref().map(|q| {
                let inner = &q.ty;
                quote!(<#inner>::)
            });
            let leading = path.path.leading_colon;
            let segments = path.path.segments.iter().map(|segment| {
                let ident = &segment.ident;
                match &segment.arguments {
                    PathArguments::AngleBracketed(args) => {
                        let args = args.args.iter().map(|arg| match arg {
                            GenericArgument::Type(ty) => stand_in(ty),
                            other => quote!(#other),
                        });
                        quote!(#ident<#(#args),*>)
                    }
                    other => quote!(#ident #other),
                }
            });
            quote!(#qself #leading #(#segments)::*)
        }
        Type::Reference(r) if is_opaque(ty) => {
            let lifetime = &r.lifetime;
            let mutability = &r.mutability;
            let elem = stand_in(&r.elem);
            quote!(&#lifetime #mutability #elem)
        }
        Type::Tuple(t) if is_opaque(ty) => {
            let elems = t.elems.iter().map(stand_in);
            quote!((#(#elems,)*))
        }
        Type::Paren(p) => stand_in(&p.elem),
        Type::Group(g) => stand_in(&g.elem),
        other => quote!(#other),
    }
}
