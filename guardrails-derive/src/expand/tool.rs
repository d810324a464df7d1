//! `#[tool]`: the function becomes a unit struct of the same name (so that the name is the
//! value registered), its body becomes the struct's `handler`, and the struct implements
//! `Tool` with a `static` definition and a call that runs validate → handler → present.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;

use crate::checked::{CheckedTool, Teaching};
use crate::tool_ast::RepairOption;

/// A span that points at the user's token for diagnostics but keeps the macro's hygiene, so
/// that lints on user code (`unused_qualifications`) do not fire on generated paths.
fn at(span: proc_macro2::Span) -> proc_macro2::Span {
    proc_macro2::Span::mixed_site().located_at(span)
}

/// The return type as written; `()` when there is none.
fn return_type(item: &syn::ItemFn) -> TokenStream {
    match &item.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    }
}

/// The conversion of the handler's returned value into the pipeline's `Result`, at the return
/// type: a `Result` whose error does not convert into `ToolError` is reported there.
fn convert(item: &syn::ItemFn) -> TokenStream {
    let ret = return_type(item);
    let span = match &item.sig.output {
        syn::ReturnType::Default => item.sig.ident.span(),
        syn::ReturnType::Type(_, ty) => ty.span(),
    };
    // At the user's return type with the user's hygiene, which is where the local was bound:
    // an error type that does not fit is underlined there.
    let returned = syn::Ident::new("__returned", span);
    if let syn::ReturnType::Type(_, ty) = &item.sig.output
        && crate::expand::opaque::is_opaque(ty)
    {
        // An opaque type cannot be named: its marker is read from the value.
        return quote_spanned!(at(span)=> (&&&__gr::phantom_of(&#returned)).outcome_kind().convert(#returned));
    }
    quote_spanned!(at(span)=> (&&&__gr::PhantomData::<#ret>).outcome_kind().convert(#returned))
}

/// The `static` that describes the tool.
fn spec(tool: &CheckedTool<'_>) -> TokenStream {
    let args = tool.params.args;
    let name = &tool.name;
    let description = &tool.description;
    let title = tool.title.as_ref().map(|t| quote!(.with_title(#t)));
    let hints = tool.annotations.iter().map(|(method, flag)| {
        let method = syn::Ident::new(method, flag.span);
        let value = flag.value;
        quote!(.#method(#value))
    });
    let limit = tool.agent_limit.as_ref().map(|limit| {
        let max = usize::try_from(limit.max.value).unwrap_or(usize::MAX);
        let teaching = match &limit.teaching {
            Teaching::Hint(hint) => quote!(__gr::Teaching::Hint(#hint)),
            Teaching::Teach(teach) => {
                quote_spanned!(at(teach.span())=> __gr::Teaching::Teach(#teach))
            }
            Teaching::Filters => quote!(__gr::Teaching::Filters),
        };
        let paging = limit.paged.then(|| quote!(.with_paging(__input_schema)));
        quote!(.with_agent_limit(__gr::AgentLimit::new(#max, #teaching)) #paging)
    });
    let max_bytes = tool.max_bytes.map(|max| {
        let max = usize::try_from(max).unwrap_or(usize::MAX);
        quote!(.with_max_bytes(#max))
    });
    let max_tokens = tool.max_tokens.map(|max| {
        let max = usize::try_from(max).unwrap_or(usize::MAX);
        quote!(.with_max_tokens(#max))
    });
    let rate_limit = tool
        .rate_limit
        .map(|(calls, seconds)| quote!(.with_rate_limit_per(#calls, #seconds)));
    let policy = tool
        .policy
        .as_ref()
        .map(|p| quote_spanned!(at(p.span())=> .with_policy(&#p)));
    let repair = tool.repair.map(|repair| {
        let policy = match repair {
            RepairOption::Off => quote!(Off),
            RepairOption::On => quote!(On),
            RepairOption::Destructive => quote!(IncludingDestructive),
        };
        quote!(.with_repair(__gr::RepairPolicy::#policy))
    });
    let ignore_keys = tool
        .ignore_keys
        .as_ref()
        .map(|(prefixes, names)| quote!(.with_ignored_keys(&[#(#prefixes),*], &[#(#names),*])));
    let new = quote_spanned!(at(args.span())=> __gr::ToolSpec::new::<#args>);
    quote! {
        static __SPEC: __gr::ToolSpec = #new(#name, #description)
            #title
            .with_annotations(__gr::Annotations::new() #(#hints)*)
            #limit
            #max_bytes
            #max_tokens
            #rate_limit
            #repair
            #ignore_keys
            #policy
            .with_output_schema(__output_schema);
    }
}

/// For a `paged` tool, the function that builds its input schema once: the arguments' schema
/// with the `cursor` property.
fn paged_input_schema(tool: &CheckedTool<'_>) -> Option<TokenStream> {
    let args = tool.params.args;
    tool.agent_limit.as_ref().filter(|l| l.paged).map(|_| {
        quote! {
            fn __input_schema() -> &'static __gr::schemars::Schema {
                static __CACHE: __gr::OnceLock<__gr::schemars::Schema> = __gr::OnceLock::new();
                __CACHE.get_or_init(|| __gr::with_cursor(<#args as __gr::ToolArgs>::schema()))
            }
        }
    })
}

/// The function that finds the output schema once: the success type of the return type, in
/// the `{items, shown, total}` envelope when the tool has an agent limit.
fn output_schema(tool: &CheckedTool<'_>) -> TokenStream {
    let ret = match &tool.item.sig.output {
        syn::ReturnType::Type(_, ty) => crate::expand::opaque::stand_in(ty),
        syn::ReturnType::Default => return_type(tool.item),
    };
    // A result that is not a collection is reported by the presenter; the probe stays quiet.
    let listing = tool.agent_limit.as_ref().map(|_| {
        quote! {
            #[allow(unused_imports)]
            use __gr::{ListingOf as _, NotListing as _};
            let __out = (&__gr::Probe::new(__out)).listing();
        }
    });
    quote! {
        fn __output_schema() -> ::core::option::Option<&'static __gr::Map<::std::string::String, __gr::Value>> {
            static __CACHE: __gr::OnceLock<::core::option::Option<__gr::Map<::std::string::String, __gr::Value>>> =
                __gr::OnceLock::new();
            __CACHE
                .get_or_init(|| {
                    #[allow(unused_imports)]
                    use __gr::{FallibleKind as _, UnconvertibleKind as _, ValueKind as _, WithSchema as _, WithoutSchema as _};
                    let __ret = __gr::PhantomData::<#ret>;
                    let __out = (&&&__ret).outcome_kind().output(__ret);
                    #listing
                    (&__gr::Probe::new(__out)).output_schema()
                })
                .as_ref()
        }
    }
}

/// The pipeline function a call runs, and the presenter argument it takes (a `paged` tool's
/// pipeline presents the page itself).
fn pipeline(tool: &CheckedTool<'_>) -> (TokenStream, Option<TokenStream>) {
    let args = tool.params.args;
    // At the arguments type, so that an arguments type that is not `ToolArgs` is reported there.
    // Plain user span here (not `at`): with the macro's hygiene rustc reports a missing
    // `ToolArgs` on this call twice.
    match &tool.agent_limit {
        Some(limit) if limit.paged => (quote_spanned!(args.span()=> __gr::run_paged), None),
        Some(limit) => (
            quote_spanned!(args.span()=> __gr::run),
            Some(quote_spanned!(at(limit.max.span)=> __gr::present_collection,)),
        ),
        None => (
            quote_spanned!(args.span()=> __gr::run),
            Some(quote!(__gr::present_value,)),
        ),
    }
}

/// The body of the function that returns a tool's spec: the spec in a static, with the
/// functions that find its output and input schemas once.
fn spec_body(tool: &CheckedTool<'_>) -> TokenStream {
    let krate = crate::krate::root();
    let spec = spec(tool);
    let output_schema = output_schema(tool);
    let input_schema = paged_input_schema(tool);
    quote! {
        use #krate::__private as __gr;

        #spec
        #output_schema
        #input_schema

        &__SPEC
    }
}

/// The closure the pipeline calls with the validated arguments: the handler's call, its
/// outcome converted into the pipeline's.
fn handler(args: &syn::Type, call: &TokenStream, convert: &TokenStream) -> TokenStream {
    quote! {
        move |__args: #args| async move {
            #[allow(unused_imports)]
            use __gr::{FallibleKind as _, UnconvertibleKind as _, ValueKind as _};
            let __returned = #call;
            #convert
        }
    }
}

/// The handler as written, kept beside its pipeline under the name `sig` gives it: callable
/// directly (in tests, say), where calls from clients go through the pipeline. `method`: it
/// is a method of an rmcp `#[tool_router]` impl, whose docs are on its route.
fn written_handler(
    attrs: &[&syn::Attribute],
    vis: &syn::Visibility,
    sig: &syn::Signature,
    block: &syn::Block,
    method: bool,
) -> TokenStream {
    let (unused_self, docs_on) = if method {
        (quote!(clippy::unused_self,), "route")
    } else {
        (TokenStream::new(), "type")
    };
    let reason =
        format!("the pipeline hands the arguments over; the tool's docs are on its {docs_on}");
    quote! {
        /// The handler as written, callable directly (in tests, say). Calls from clients go
        /// through the tool's pipeline instead, which validates the arguments first.
        #[allow(
            clippy::needless_pass_by_value,
            clippy::must_use_candidate,
            clippy::missing_errors_doc,
            clippy::missing_panics_doc,
            #unused_self
            reason = #reason
        )]
        #(#attrs)*
        #vis #sig #block
    }
}

pub(crate) fn expand(tool: &CheckedTool<'_>) -> TokenStream {
    let krate = crate::krate::root();
    if tool.params.method {
        return expand_method(tool);
    }
    let params = &tool.params;
    let item = tool.item;
    let ident = &item.sig.ident;
    let vis = &item.vis;
    let (docs, attrs): (Vec<&syn::Attribute>, Vec<&syn::Attribute>) =
        item.attrs.iter().partition(|a| a.path().is_ident("doc"));
    let cfgs: Vec<&&syn::Attribute> = attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    let mut sig = item.sig.clone();
    sig.ident = syn::Ident::new("handler", ident.span());
    let block = &item.block;
    let args = params.args;

    let state_call = params
        .state
        .map(|_| quote!(__gr::StateRef::state(__state),));
    let bound = match params.state {
        Some(state) => quote_spanned!(at(state.span())=> __gr::StateRef<#state> +),
        None => TokenStream::new(),
    };
    // A synchronous handler runs through `blocking`, so that it cannot stall other calls.
    let handler_call = quote!(#ident::handler(#state_call __args));
    let call = match item.sig.asyncness {
        Some(_) => quote!(#handler_call.await),
        None => quote!(__gr::blocking(move || #handler_call).await),
    };
    let (run, present_arg) = pipeline(tool);
    let handler = handler(args, &call, &convert(item));
    let spec_body = spec_body(tool);
    let written = written_handler(&attrs, vis, &sig, block, false);
    let unused_state = params.state.is_none().then(|| quote!(let _ = __state;));

    quote! {
        #(#docs)*
        #(#cfgs)*
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #ident;

        #(#cfgs)*
        impl #ident {
            /// The tool's definition and guardrails.
            #[must_use]
            #vis fn spec(&self) -> &'static #krate::ToolSpec {
                #spec_body
            }

            #written
        }

        #(#cfgs)*
        #[doc(hidden)]
        const _: () = {
            use #krate::__private as __gr;

            #[automatically_derived]
            impl<__S> __gr::Tool<__S> for #ident
            where
                __S: #bound ::core::marker::Send + ::core::marker::Sync + 'static,
            {
                fn spec(&self) -> &'static __gr::ToolSpec {
                    #ident::spec(self)
                }

                fn call<'__a>(
                    &'__a self,
                    __state: &'__a __S,
                    __arguments: __gr::Value,
                    __served: &'__a __gr::Served<'__a>,
                ) -> __gr::BoxFuture<'__a, __gr::CallOutput> {
                    #unused_state
                    __gr::Box::pin(#run(
                        #ident::spec(self),
                        __served,
                        __arguments,
                        #handler,
                        #present_arg
                    ))
                }
            }
        };
    }
}

/// A `#[tool]` method of an rmcp `#[tool_router]` impl. rmcp's macro registers every method of
/// the impl that carries an attribute named `tool` as `(Self::{name}_tool_attr(),
/// Self::{name})`; so the method `name` becomes that route's handler (the pipeline on `&self`,
/// from the raw arguments to an MCP result), `{name}_tool_attr` its MCP definition, and the
/// body as written moves to `{name}_handler`. The router rmcp builds then holds the guarded
/// tool, whichever way the handler reaches it.
fn expand_method(tool: &CheckedTool<'_>) -> TokenStream {
    let krate = crate::krate::root();
    let item = tool.item;
    let ident = &item.sig.ident;
    let vis = &item.vis;
    let attr_fn = quote::format_ident!("{}_tool_attr", ident);
    let spec_fn = quote::format_ident!("{}_tool_spec", ident);
    let handler_fn = quote::format_ident!("{}_handler", ident, span = ident.span());
    let (docs, attrs): (Vec<&syn::Attribute>, Vec<&syn::Attribute>) =
        item.attrs.iter().partition(|a| a.path().is_ident("doc"));
    let cfgs: Vec<&&syn::Attribute> = attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    let mut sig = item.sig.clone();
    sig.ident = handler_fn.clone();
    let block = &item.block;
    let args = tool.params.args;
    let name = &tool.name;
    let attr_doc =
        format!("The MCP definition of the tool `{name}`, as rmcp's `#[tool_router]` reads it.");
    let spec_doc = format!("The definition and guardrails of the tool `{name}`.");

    let handler_call = quote!(Self::#handler_fn(self, __args));
    let call = match item.sig.asyncness {
        Some(_) => quote!(#handler_call.await),
        None => quote!(__gr::blocking(move || #handler_call).await),
    };
    let (run, present_arg) = pipeline(tool);
    let handler = handler(args, &call, &convert(item));
    let spec_body = spec_body(tool);
    let written = written_handler(&attrs, vis, &sig, block, true);

    quote! {
        #[doc = #attr_doc]
        #[doc(hidden)]
        #(#cfgs)*
        #[must_use]
        #vis fn #attr_fn() -> #krate::__private::McpTool {
            #krate::__private::mcp_definition(Self::#spec_fn())
        }

        #[doc = #spec_doc]
        #(#cfgs)*
        #[must_use]
        #vis fn #spec_fn() -> &'static #krate::ToolSpec {
            #spec_body
        }

        #written

        #(#docs)*
        #(#cfgs)*
        #vis fn #ident(
            &self,
            __arguments: #krate::__private::Map<::std::string::String, #krate::__private::Value>,
        ) -> #krate::__private::BoxFuture<'_, #krate::__private::McpCallToolResult> {
            use #krate::__private as __gr;

            __gr::Box::pin(async move {
                let __settings = __gr::CallSettings::default();
                let __output = #run(
                    Self::#spec_fn(),
                    &__gr::Served::detached(&__settings),
                    __gr::Value::Object(__arguments),
                    #handler,
                    #present_arg
                )
                .await;
                __gr::mcp_call_result(__output)
            })
        }
    }
}
