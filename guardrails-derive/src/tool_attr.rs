//! Parsing of `#[tool(...)]` and the function it sits on into the model of
//! [`crate::tool_ast`]. Every problem is collected; none stops the parse.

use darling::error::Accumulator;
use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser as _;
use syn::spanned::Spanned as _;
use syn::{FnArg, ItemFn, LitBool, LitInt, Pat, Type};

use crate::ast::At;
use crate::attr::{doc_comment, string};
use crate::diagnostic::{error, unknown};
use crate::meta::{key, skip_meta};
use crate::names::{TOOL_OPTIONS, ToolOption, lookup, names};
use crate::tool_ast::{IgnoreKeysOption, Params, RepairOption, ToolFn, ToolOptions};

fn set_once<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta<'_>, acc: &mut Accumulator) {
    if slot.is_some() {
        acc.push(error(
            meta.path.span(),
            format!("duplicate option `{}`", key(meta)),
        ));
    } else {
        *slot = Some(value);
    }
}

fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<At<bool>> {
    if meta.input.peek(syn::Token![=]) {
        let lit: LitBool = meta.value()?.parse()?;
        Ok(At {
            value: lit.value,
            span: lit.span(),
        })
    } else {
        Ok(At {
            value: true,
            span: meta.path.span(),
        })
    }
}

fn count(meta: &ParseNestedMeta<'_>) -> syn::Result<At<u64>> {
    let lit: LitInt = meta.value()?.parse()?;
    Ok(At {
        value: lit.base10_parse()?,
        span: lit.span(),
    })
}

fn path(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::Path> {
    meta.value()?.parse()
}

/// `repair`, `repair = true|false` or `repair(destructive)`.
fn repair(meta: &ParseNestedMeta<'_>) -> syn::Result<At<RepairOption>> {
    let span = meta.path.span();
    if meta.input.peek(syn::token::Paren) {
        let mut destructive = false;
        meta.parse_nested_meta(|inner| {
            if inner.path.is_ident("destructive") {
                destructive = true;
                Ok(())
            } else {
                Err(inner.error(format!(
                    "unknown `repair` option `{}`: `repair(destructive)` repairs the calls of a destructive tool",
                    key(&inner)
                )))
            }
        })?;
        let value = if destructive {
            RepairOption::Destructive
        } else {
            RepairOption::On
        };
        return Ok(At { value, span });
    }
    let on = flag(meta)?;
    Ok(At {
        value: if on.value {
            RepairOption::On
        } else {
            RepairOption::Off
        },
        span: on.span,
    })
}

/// `ignore_keys(prefix = "_", names("a", "b"))`: `prefix` may be given more than once.
fn ignore_keys(meta: &ParseNestedMeta<'_>) -> syn::Result<At<IgnoreKeysOption>> {
    let span = meta.path.span();
    let mut out = IgnoreKeysOption::default();
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("prefix") {
            out.prefixes.push(string(&inner)?);
            Ok(())
        } else if inner.path.is_ident("names") {
            let content;
            syn::parenthesized!(content in inner.input);
            let names = content.parse_terminated(<syn::LitStr as syn::parse::Parse>::parse, syn::Token![,])?;
            out.names.extend(names.iter().map(|name| At {
                value: name.value(),
                span: name.span(),
            }));
            Ok(())
        } else {
            Err(inner.error(format!(
                "unknown `ignore_keys` option `{}`: write `ignore_keys(prefix = \"_\", names(\"a\", \"b\"))`",
                key(&inner)
            )))
        }
    })?;
    Ok(At { value: out, span })
}

fn parse_options(args: TokenStream, acc: &mut Accumulator) -> ToolOptions {
    let mut out = ToolOptions::default();
    let parser = syn::meta::parser(|meta| {
        let name = key(&meta);
        let Some(option) = lookup(TOOL_OPTIONS, &name) else {
            let shown = if name.is_empty() {
                let path = &meta.path;
                quote::quote!(#path).to_string().replace(' ', "")
            } else {
                name
            };
            acc.push(unknown(
                "option",
                &shown,
                &names(TOOL_OPTIONS),
                meta.path.span(),
            ));
            return skip_meta(&meta);
        };
        match option {
            ToolOption::Name => set_once(&mut out.name, string(&meta)?, &meta, acc),
            ToolOption::Title => set_once(&mut out.title, string(&meta)?, &meta, acc),
            ToolOption::Description => {
                set_once(&mut out.description, string(&meta)?, &meta, acc);
            }
            ToolOption::Hint => set_once(&mut out.hint, string(&meta)?, &meta, acc),
            ToolOption::ReadOnly => set_once(&mut out.read_only, flag(&meta)?, &meta, acc),
            ToolOption::Destructive => set_once(&mut out.destructive, flag(&meta)?, &meta, acc),
            ToolOption::Idempotent => set_once(&mut out.idempotent, flag(&meta)?, &meta, acc),
            ToolOption::OpenWorld => set_once(&mut out.open_world, flag(&meta)?, &meta, acc),
            ToolOption::AgentLimit => set_once(&mut out.agent_limit, count(&meta)?, &meta, acc),
            ToolOption::Paged => set_once(&mut out.paged, flag(&meta)?, &meta, acc),
            ToolOption::MaxBytes => set_once(&mut out.max_bytes, count(&meta)?, &meta, acc),
            ToolOption::MaxTokens => set_once(&mut out.max_tokens, count(&meta)?, &meta, acc),
            ToolOption::Teach => set_once(&mut out.teach, path(&meta)?, &meta, acc),
            ToolOption::Policy => set_once(&mut out.policy, path(&meta)?, &meta, acc),
            ToolOption::RateLimit => set_once(&mut out.rate_limit, string(&meta)?, &meta, acc),
            ToolOption::Repair => set_once(&mut out.repair, repair(&meta)?, &meta, acc),
            ToolOption::IgnoreKeys => {
                set_once(&mut out.ignore_keys, ignore_keys(&meta)?, &meta, acc);
            }
        }
        Ok(())
    });
    if let Err(e) = parser.parse2(args) {
        acc.push(e.into());
    }
    out
}

/// The state and arguments types, or an error at the parameter that does not fit.
fn parse_params<'a>(item: &'a ItemFn, acc: &mut Accumulator) -> Option<Params<'a>> {
    let mut typed = Vec::new();
    let mut method = false;
    for input in &item.sig.inputs {
        match input {
            FnArg::Receiver(receiver) => match &receiver.kind {
                syn::ReceiverKind::Reference(_, _, None) => method = true,
                syn::ReceiverKind::Reference(..) => {
                    acc.push(error(
                    receiver.span(),
                    "the server is shared by concurrent calls: take `&self`, not `&mut self`, and use interior mutability",
                    ));
                    return None;
                }
                _ => {
                    acc.push(error(
                        receiver.span(),
                        "a `#[tool]` method takes `&self`: the server is shared by concurrent calls",
                    ));
                    return None;
                }
            },
            FnArg::Typed(pat) => typed.push(pat),
        }
    }
    let (state, args) = match typed.as_slice() {
        [args] => (None, *args),
        [state, args] if !method => (Some(*state), *args),
        _ if method => {
            acc.push(error(
                item.sig.paren_token.span.join(),
                format!(
                    "a `#[tool]` method takes its arguments after `&self`: `fn {}(&self, args: Args)`",
                    item.sig.ident
                ),
            ));
            return None;
        }
        _ => {
            acc.push(error(
                item.sig.paren_token.span.join(),
                format!(
                    "a `#[tool]` function takes its arguments, optionally after the state: `fn {}(state: &AppState, args: Args)` or `fn {}(args: Args)`",
                    item.sig.ident, item.sig.ident
                ),
            ));
            return None;
        }
    };
    let state = match state.map(|s| (&*s.ty, &s.pat)) {
        None => None,
        Some((Type::Reference(r), _)) if r.mutability.is_none() => Some(&*r.elem),
        Some((Type::Reference(r), _)) => {
            acc.push(error(
                r.span(),
                "the state is shared by concurrent calls: take `&State`, not `&mut State`, and use interior mutability",
            ));
            return None;
        }
        Some((ty, _)) => {
            acc.push(error(
                ty.span(),
                "the state parameter must be a shared reference, e.g. `state: &AppState`",
            ));
            return None;
        }
    };
    if let Type::Reference(r) = &*args.ty {
        acc.push(error(
            r.span(),
            "the arguments are passed by value: take the `ToolArgs` type itself, e.g. `args: CreateTask`",
        ));
        return None;
    }
    if let Pat::Ident(ident) = &*args.pat
        && ident.by_ref.is_some()
    {
        acc.push(error(
            ident.span(),
            "the arguments cannot be bound by reference",
        ));
        return None;
    }
    Some(Params {
        state,
        args: &args.ty,
        method,
    })
}

/// The model of a `#[tool]` function: its options, then its parameters.
pub(crate) fn parse<'a>(args: TokenStream, item: &'a ItemFn, acc: &mut Accumulator) -> ToolFn<'a> {
    let options = parse_options(args, acc);
    let params = parse_params(item, acc);
    ToolFn {
        item,
        options,
        doc: doc_comment(&item.attrs),
        params,
    }
}
