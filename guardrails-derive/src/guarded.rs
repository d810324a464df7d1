//! `#[guarded]`: parsing the attribute and the `#[tool_router]` it stands above into a typed
//! model, then emitting the impl with `Self::<router>()` returning the guarded router.
//!
//! rmcp's `#[tool_router]` is found by the last segment of its path (`tool_router`,
//! `rmcp::tool_router`): an attribute below this one is only tokens, no trait can say what it is.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{
    Attribute, Expr, FnArg, GenericArgument, Ident, ImplItem, ItemImpl, LitStr, Meta,
    PathArguments, Token, Type, Visibility,
};

/// What `#[guarded]` rewrites.
pub(crate) struct Guarded {
    item: ItemImpl,
    /// The index of `#[tool_router]` among the impl's attributes.
    router_attr: usize,
    /// The name of the router function (`tool_router` unless `router = ..`).
    router: Ident,
    /// Its visibility (`vis = ".."`).
    vis: Option<Visibility>,
    /// Whether rmcp was asked for the `ServerHandler` impl (`server_handler`).
    server_handler: bool,
    /// The other arguments of `#[tool_router]`, passed on as they are.
    kept: Vec<Meta>,
    /// `guard = ..`: the `RouterGuard` the tools are guarded with.
    guard: Option<Expr>,
}

/// Parses `#[guarded(..)]` and the impl it stands on; every error at its span.
pub(crate) fn parse(args: TokenStream, item: &TokenStream) -> syn::Result<Guarded> {
    let mut errors: Option<syn::Error> = None;
    let mut push = |error: syn::Error| match &mut errors {
        Some(all) => all.combine(error),
        None => errors = Some(error),
    };
    let mut guard = None;
    match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
        Ok(metas) => {
            for meta in metas {
                match meta {
                    Meta::NameValue(pair) if pair.path.is_ident("guard") => {
                        guard = Some(pair.value);
                    }
                    other => push(syn::Error::new_spanned(
                        &other,
                        "unknown argument, `#[guarded]` takes `guard = <a RouterGuard>`",
                    )),
                }
            }
        }
        Err(error) => push(error),
    }
    let item: ItemImpl = syn::parse2(item.clone()).map_err(|e| {
        syn::Error::new(
            e.span(),
            "`#[guarded]` goes on an impl block with `#[tool_router]`",
        )
    })?;
    let Some(router_attr) = item.attrs.iter().position(is_tool_router) else {
        push(syn::Error::new_spanned(
            &item.self_ty,
            "`#[guarded]` found no `#[tool_router]` below it: write `#[guarded]` above \
             `#[tool_router]`, which builds the router it guards",
        ));
        return Err(errors.expect("an error was pushed"));
    };
    let mut router = format_ident!("tool_router");
    let mut vis = None;
    let mut server_handler = false;
    let mut kept = Vec::new();
    let metas = match &item.attrs[router_attr].meta {
        Meta::List(list) => list
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .map_err(&mut push)
            .unwrap_or_default(),
        _ => Punctuated::new(),
    };
    for meta in metas {
        match &meta {
            Meta::NameValue(pair) if pair.path.is_ident("router") => {
                match syn::parse2::<Ident>(pair.value.to_token_stream()) {
                    Ok(name) => router = name,
                    Err(e) => push(e),
                }
            }
            Meta::NameValue(pair) if pair.path.is_ident("vis") => match &pair.value {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) => match text.parse::<Visibility>() {
                    Ok(v) => vis = Some(v),
                    Err(e) => push(e),
                },
                other => push(syn::Error::new_spanned(other, "expected a string")),
            },
            Meta::Path(path) if path.is_ident("server_handler") => server_handler = true,
            _ => kept.push(meta),
        }
    }
    match errors {
        Some(errors) => Err(errors),
        None => Ok(Guarded {
            item,
            router_attr,
            router,
            vis,
            server_handler,
            kept,
            guard,
        }),
    }
}

fn is_tool_router(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "tool_router")
}

/// The impl with rmcp's router renamed `<router>_unguarded`, and `<router>()` returning it
/// guarded, built once per type; the `ServerHandler` rmcp would have written for
/// `server_handler`, serving the guarded router.
pub(crate) fn expand(model: Guarded) -> TokenStream {
    let krate = crate::krate::root();
    let Guarded {
        mut item,
        router_attr,
        router,
        vis,
        server_handler,
        kept,
        guard,
    } = model;
    let unguarded = format_ident!("{}_unguarded", router);
    let path = item.attrs[router_attr].path().clone();
    item.attrs[router_attr] = syn::parse_quote!(#[#path(#(#kept,)* router = #unguarded)]);
    let guard = guard.map_or_else(
        || quote!(#krate::__private::RouterGuard::new()),
        ToTokens::into_token_stream,
    );
    // Each tool's own reading of its arguments, for the calls its schema refuses.
    let readers = readers(&item)
        .into_iter()
        .map(|(name, args)| quote!((#name, #krate::__private::reads::<#args> as fn(&_) -> bool)));
    let doc = format!(
        "The tool router with every tool guarded (`#[guarded]`), built once; \
         `Self::{unguarded}()` is the router as rmcp builds it."
    );
    item.items.push(syn::parse_quote! {
        #[doc = #doc]
        #vis fn #router() -> #krate::__private::ToolRouter<Self> {
            #krate::__private::guarded_router(Self::#unguarded, || {
                #krate::__private::with_readers(#guard, &[#(#readers),*])
            })
        }
    });
    let handler = server_handler.then(|| {
        let self_ty = &item.self_ty;
        let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
        quote! {
            #[::rmcp::tool_handler(router = Self::#router())]
            impl #impl_generics ::rmcp::ServerHandler for #self_ty #ty_generics #where_clause {}
        }
    });
    quote! {
        #item
        #handler
    }
}

/// The tools of the impl whose arguments are a `Parameters<T>`: each tool's name (rmcp's
/// `#[tool(name = "..")]`, else the method's) and `T`. A method with generics of its own, or a
/// name that is not a string literal, is left out: its calls are checked by the schema alone.
fn readers(item: &ItemImpl) -> Vec<(LitStr, Type)> {
    let mut out = Vec::new();
    for member in &item.items {
        let ImplItem::Fn(method) = member else {
            continue;
        };
        let Some(tool) = method.attrs.iter().find(|attr| {
            attr.path()
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "tool")
        }) else {
            continue;
        };
        if !method.sig.generics.params.is_empty() {
            continue;
        }
        let mut name = Some(LitStr::new(
            &method.sig.ident.to_string(),
            method.sig.ident.span(),
        ));
        if let Meta::List(list) = &tool.meta
            && let Ok(metas) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        {
            for meta in metas {
                if let Meta::NameValue(pair) = meta
                    && pair.path.is_ident("name")
                {
                    name = match pair.value {
                        Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(text),
                            ..
                        }) => Some(text),
                        _ => None,
                    };
                }
            }
        }
        let args = method.sig.inputs.iter().find_map(|input| match input {
            FnArg::Typed(typed) => parameters_of(&typed.ty),
            FnArg::Receiver(_) => None,
        });
        if let (Some(name), Some(args)) = (name, args) {
            out.push((name, args));
        }
    }
    out
}

/// `T` of the type `Parameters<T>` (rmcp's wrapper, found by the last segment of its path).
fn parameters_of(ty: &Type) -> Option<Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Parameters" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(inner)] => Some(inner.clone()),
        _ => None,
    }
}

/// The impl as written, next to the errors: its tools still compile, and nothing else fails.
pub(crate) fn fallback(item: &TokenStream, errors: &syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    quote! {
        #item
        #errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(args: TokenStream, item: &TokenStream) -> String {
        expand(parse(args, item).unwrap()).to_string()
    }

    #[test]
    fn the_router_is_renamed_and_served_guarded() {
        let out = expanded(
            quote!(),
            &quote! {
                #[tool_router(vis = "pub", server_handler)]
                impl Counter {}
            },
        );
        assert!(
            out.contains("# [tool_router (router = tool_router_unguarded)]"),
            "{out}"
        );
        assert!(out.contains("pub fn tool_router ()"), "{out}");
        assert!(
            out.contains("guarded_router (Self :: tool_router_unguarded , | | { :: guardrails :: __private :: with_readers (:: guardrails :: __private :: RouterGuard :: new () , & [])"),
            "{out}"
        );
        assert!(
            out.contains("# [:: rmcp :: tool_handler (router = Self :: tool_router ())]"),
            "{out}"
        );
    }

    #[test]
    fn a_named_router_keeps_its_name_and_other_arguments() {
        let out = expanded(
            quote!(guard = RouterGuard::new().config(GuardConfig::new().audit(true))),
            &quote! {
                #[rmcp::tool_router(router = math, allow_empty)]
                impl<T: Send> Calc<T> {}
            },
        );
        assert!(
            out.contains("# [rmcp :: tool_router (allow_empty , router = math_unguarded)]"),
            "{out}"
        );
        assert!(out.contains("fn math ()"), "{out}");
        assert!(
            out.contains("RouterGuard :: new () . config (GuardConfig :: new () . audit (true))"),
            "{out}"
        );
        assert!(!out.contains("ServerHandler"), "{out}");
    }

    #[test]
    fn each_tool_registers_how_its_parameters_are_read() {
        let out = expanded(
            quote!(),
            &quote! {
                #[tool_router]
                impl Notes {
                    #[tool(description = "Adds")]
                    fn add(&self, Parameters(args): Parameters<AddArgs>) -> String { todo!() }
                    #[rmcp::tool(name = "find-notes", description = "Finds")]
                    async fn find(&self, ctx: RequestContext<RoleServer>, p: rmcp::handler::server::wrapper::Parameters<Find<'static>>) -> String { todo!() }
                    #[tool(description = "Counts")]
                    fn count(&self) -> String { todo!() }
                    fn helper(&self, Parameters(x): Parameters<Other>) {}
                }
            },
        );
        assert!(
            out.contains(
                "(\"add\" , :: guardrails :: __private :: reads :: < AddArgs > as fn (& _) -> bool)"
            ),
            "{out}"
        );
        assert!(
            out.contains("(\"find-notes\" , :: guardrails :: __private :: reads :: < Find < 'static > > as fn (& _) -> bool)"),
            "{out}"
        );
        assert!(!out.contains("reads :: < Other >"), "{out}");
        assert!(!out.contains("\"count\""), "{out}");
    }

    #[test]
    fn below_tool_router_is_an_error() {
        let error = parse(quote!(), &quote!(impl Counter {})).err().unwrap();
        assert!(
            error
                .to_string()
                .contains("write `#[guarded]` above `#[tool_router]`")
        );
    }

    #[test]
    fn an_unknown_argument_is_an_error() {
        let error = parse(
            quote!(gaurd = x),
            &quote!(
                #[tool_router]
                impl Counter {}
            ),
        )
        .err()
        .unwrap();
        assert!(error.to_string().contains("unknown argument"), "{error}");
    }
}
