//! Parsing: the derive input into the typed model of [`crate::ast`]. Serde's attributes are read
//! for names, defaults and skips; `#[guard(...)]` for constraints. Every problem is collected,
//! none stops the parse.

use darling::error::Accumulator;
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::Parse as _;
use syn::spanned::Spanned as _;
use syn::{Attribute, Expr, ExprLit, ExprPath, ExprUnary, Lit, LitStr, UnOp};

use crate::ast::{
    At, Enum, Field, FieldDefault, Finite, Guards, LengthGuard, NumLit, PolicySource, RangeGuard,
    Scalar, Struct, ValueLit, Variant,
};
use crate::case::{RULES, RenameRule};
use crate::diagnostic::{error, unknown};
use crate::meta::{key, skip_meta};
use crate::names::{GUARDS, Guard, LENGTH_BOUNDS, LengthBound, RANGE_BOUNDS, lookup, names};

/// The doc comment of an item, lines joined, or `None`.
pub(crate) fn doc_comment(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            let line = s.value();
            lines.push(
                line.strip_prefix(' ')
                    .unwrap_or(&line)
                    .trim_end()
                    .to_owned(),
            );
        }
    }
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// The serde attributes this derive reads on a container.
#[derive(Default)]
struct SerdeContainer {
    rename_all: Option<RenameRule>,
    default: bool,
}

pub(crate) fn parse_rename_rule(lit: &LitStr, acc: &mut Accumulator) -> Option<RenameRule> {
    let value = lit.value();
    let rule = lookup(RULES, &value);
    if rule.is_none() {
        acc.push(unknown(
            "`rename_all` rule",
            &value,
            &names(RULES),
            lit.span(),
        ));
    }
    rule
}

/// Reads `name = "x"` or `name(deserialize = "x")` (the deserialize side is what counts).
pub(crate) fn serde_name(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(meta.value()?.parse()?));
    }
    let mut found = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("deserialize") {
            found = Some(inner.value()?.parse()?);
        } else {
            skip_meta(&inner)?;
        }
        Ok(())
    })?;
    Ok(found)
}

fn serde_container(attrs: &[Attribute], acc: &mut Accumulator) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                if let Some(lit) = serde_name(&meta)? {
                    out.rename_all = parse_rename_rule(&lit, acc);
                }
            } else if meta.path.is_ident("default") {
                if meta.input.peek(syn::Token![=]) {
                    acc.push(error(
                        meta.path.span(),
                        "`#[serde(default = \"..\")]` on a struct is not supported by `ToolArgs`; put `default` on the fields",
                    ));
                    skip_meta(&meta)?;
                }
                out.default = true;
            } else if meta.path.is_ident("transparent") || meta.path.is_ident("tag") || meta.path.is_ident("untagged") || meta.path.is_ident("from") || meta.path.is_ident("try_from") {
                let name = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                acc.push(error(
                    meta.path.span(),
                    format!("`#[serde({name})]` is not supported by `ToolArgs`: its validator reads the fields directly"),
                ));
                skip_meta(&meta)?;
            } else {
                skip_meta(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = parsed {
            acc.push(e.into());
        }
    }
    out
}

struct SerdeField {
    rename: Option<String>,
    aliases: Vec<String>,
    default: FieldDefault,
    skip: bool,
    flatten: Option<Span>,
}

fn serde_field(attrs: &[Attribute], acc: &mut Accumulator) -> SerdeField {
    let mut out = SerdeField {
        rename: None,
        aliases: Vec::new(),
        default: FieldDefault::None,
        skip: false,
        flatten: None,
    };
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let parsed = attr.parse_nested_meta(|meta| {
            let name = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match name.as_str() {
                "rename" => out.rename = serde_name(&meta)?.map(|l| l.value()),
                "alias" => out.aliases.push(string(&meta)?.value),
                "default" => {
                    if meta.input.peek(syn::Token![=]) {
                        let lit: LitStr = meta.value()?.parse()?;
                        out.default = FieldDefault::Path(lit.parse()?);
                    } else {
                        out.default = FieldDefault::Trait;
                    }
                }
                "skip" | "skip_deserializing" => out.skip = true,
                "other" => {
                    acc.push(error(
                        meta.path.span(),
                        "`#[serde(other)]` is not supported by `ToolEnum`: it would take any name, and the schema lists the names accepted; name each variant",
                    ));
                }
                "flatten" => out.flatten = Some(meta.path.span()),
                "deserialize_with" | "with" | "borrow" => {
                    acc.push(error(
                        meta.path.span(),
                        format!("`#[serde({name})]` is not supported by `ToolArgs`: fields are read by their `ArgValue` implementation"),
                    ));
                    skip_meta(&meta)?;
                }
                _ => skip_meta(&meta)?,
            }
            Ok(())
        });
        if let Err(e) = parsed {
            acc.push(e.into());
        }
    }
    out
}

/// A flattened field is read by the struct it holds: guards and defaults go on that struct's
/// fields.
fn check_flatten(guards: &Guards, default: &FieldDefault, span: Span, acc: &mut Accumulator) {
    if !guards.is_empty() {
        acc.push(error(
            span,
            "a flattened field takes no guards: put them on the fields of the struct it holds",
        ));
    } else if !matches!(default, FieldDefault::None) {
        acc.push(error(
            span,
            "a flattened field takes no `default`: give the fields of the struct it holds their defaults",
        ));
    }
}

fn parse_num(expr: &Expr) -> syn::Result<NumLit> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => Ok(NumLit::Int(i.base10_parse()?)),
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => Finite::new(f.base10_parse()?)
            .map(NumLit::Float)
            .ok_or_else(|| syn::Error::new(f.span(), "the number is too large for an `f64`")),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match parse_num(expr)? {
            NumLit::Int(i) => Ok(NumLit::Int(-i)),
            NumLit::Float(f) => Ok(NumLit::Float(-f)),
        },
        Expr::Group(g) => parse_num(&g.expr),
        other => Err(syn::Error::new(other.span(), "expected a number literal")),
    }
}

fn parse_value(expr: &Expr) -> syn::Result<ValueLit> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(ValueLit::Scalar(Scalar::Str(s.value()))),
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(ValueLit::Scalar(Scalar::Bool(b.value))),
        Expr::Array(array) => array
            .elems
            .iter()
            .map(parse_value)
            .collect::<syn::Result<_>>()
            .map(ValueLit::Array),
        Expr::Group(g) => parse_value(&g.expr),
        // A number literal keeps its own error (too large); anything else is not a literal.
        other => parse_num(other)
            .map(|num| ValueLit::Scalar(Scalar::Num(num)))
            .map_err(|e| {
                if is_number_literal(other) {
                    e
                } else {
                    syn::Error::new(
                        other.span(),
                        "expected a literal: a string, a number, a boolean or an array of them",
                    )
                }
            }),
    }
}

fn is_number_literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(_) | Lit::Float(_),
            ..
        }) => true,
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => is_number_literal(expr),
        Expr::Group(g) => is_number_literal(&g.expr),
        _ => false,
    }
}

fn parse_u64(meta: &ParseNestedMeta<'_>) -> syn::Result<At<u64>> {
    let expr: Expr = meta.value()?.parse()?;
    let span = expr.span();
    match parse_num(&expr)? {
        NumLit::Int(i) if i >= 0 => u64::try_from(i)
            .map(|value| At { value, span })
            .map_err(|_| syn::Error::new(span, "length is too large")),
        _ => Err(syn::Error::new(
            span,
            "a length must be a non-negative integer",
        )),
    }
}

fn set_once<T>(slot: &mut Option<T>, value: T, name: &str, span: Span, acc: &mut Accumulator) {
    if slot.is_some() {
        acc.push(error(span, format!("duplicate guard `{name}`")));
    } else {
        *slot = Some(value);
    }
}

fn parse_length(meta: &ParseNestedMeta<'_>, acc: &mut Accumulator) -> syn::Result<LengthGuard> {
    let mut out = LengthGuard::default();
    meta.parse_nested_meta(|inner| {
        let span = inner.path.span();
        let key = key(&inner);
        let Some(bound) = lookup(LENGTH_BOUNDS, &key) else {
            acc.push(unknown("`length` bound", &key, &names(LENGTH_BOUNDS), span));
            return skip_meta(&inner);
        };
        let value = parse_u64(&inner)?;
        if matches!(bound, LengthBound::Min | LengthBound::Equal) {
            set_once(&mut out.min, value.clone(), "length(min)", span, acc);
        }
        if matches!(bound, LengthBound::Max | LengthBound::Equal) {
            set_once(&mut out.max, value, "length(max)", span, acc);
        }
        Ok(())
    })?;
    Ok(out)
}

fn parse_range(meta: &ParseNestedMeta<'_>, acc: &mut Accumulator) -> syn::Result<RangeGuard> {
    let mut out = RangeGuard::default();
    meta.parse_nested_meta(|inner| {
        let span = inner.path.span();
        let key = key(&inner);
        let Some(bound) = lookup(RANGE_BOUNDS, &key) else {
            acc.push(unknown("`range` bound", &key, &names(RANGE_BOUNDS), span));
            return skip_meta(&inner);
        };
        let expr: Expr = inner.value()?.parse()?;
        let value = At {
            value: parse_num(&expr)?,
            span: expr.span(),
        };
        let (slot, exclusive) = if bound.is_upper() {
            (&mut out.max, &mut out.exclusive_max)
        } else {
            (&mut out.min, &mut out.exclusive_min)
        };
        if slot.is_some() {
            acc.push(error(
                span,
                format!("`range` has two lower or two upper bounds (`{key}`)"),
            ));
        } else {
            *slot = Some(value);
            *exclusive = bound.is_exclusive();
        }
        Ok(())
    })?;
    Ok(out)
}

/// A string literal, at its own span.
pub(crate) fn string(meta: &ParseNestedMeta<'_>) -> syn::Result<At<String>> {
    let lit: LitStr = meta.value()?.parse()?;
    Ok(At {
        value: lit.value(),
        span: lit.span(),
    })
}

/// `one_of("a", "b")` or `one_of = ["a", "b"]`.
fn parse_one_of(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<ValueLit>> {
    if meta.input.peek(syn::Token![=]) {
        return match parse_value(&meta.value()?.parse()?)? {
            ValueLit::Array(values) => Ok(values),
            ValueLit::Scalar(_) => Err(meta.error("`one_of` takes a list: `one_of(\"a\", \"b\")`")),
        };
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let exprs = content.parse_terminated(Expr::parse, syn::Token![,])?;
    exprs.iter().map(parse_value).collect()
}

/// `policy = "profile"` or `policy = path::to::policy`.
fn parse_policy(meta: &ParseNestedMeta<'_>) -> syn::Result<At<PolicySource>> {
    let expr: Expr = meta.value()?.parse()?;
    let value = match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(name),
            ..
        }) => PolicySource::Profile(name.value()),
        Expr::Path(path) => PolicySource::Path(path.clone()),
        other => {
            return Err(syn::Error::new(
                other.span(),
                "`policy` takes a built-in profile name (`policy = \"decision\"`) or the path of a `fn() -> &'static Policy`",
            ));
        }
    };
    Ok(At {
        value,
        span: expr.span(),
    })
}

fn parse_guard(
    meta: &ParseNestedMeta<'_>,
    guards: &mut Guards,
    acc: &mut Accumulator,
) -> syn::Result<()> {
    let span = meta.path.span();
    let key = key(meta);
    let Some(guard) = lookup(GUARDS, &key) else {
        acc.push(unknown("guard", &key, &names(GUARDS), span));
        return skip_meta(meta);
    };
    match guard {
        Guard::Length => {
            let value = At {
                value: parse_length(meta, acc)?,
                span,
            };
            set_once(&mut guards.length, value, &key, span, acc);
        }
        Guard::Range => {
            let value = At {
                value: parse_range(meta, acc)?,
                span,
            };
            set_once(&mut guards.range, value, &key, span, acc);
        }
        Guard::Pattern => set_once(&mut guards.pattern, string(meta)?, &key, span, acc),
        Guard::Format => set_once(&mut guards.format, string(meta)?, &key, span, acc),
        Guard::OneOf => {
            let value = At {
                value: parse_one_of(meta)?,
                span,
            };
            set_once(&mut guards.one_of, value, &key, span, acc);
        }
        Guard::Unique => set_once(&mut guards.unique, span, &key, span, acc),
        Guard::NonEmpty => set_once(&mut guards.non_empty, span, &key, span, acc),
        Guard::MultipleOf => {
            let expr: Expr = meta.value()?.parse()?;
            let value = At {
                value: parse_num(&expr)?,
                span: expr.span(),
            };
            set_once(&mut guards.multiple_of, value, &key, span, acc);
        }
        Guard::Custom => {
            let path: ExprPath = meta.value()?.parse()?;
            set_once(&mut guards.custom, path, &key, span, acc);
        }
        Guard::Policy => set_once(&mut guards.policy, parse_policy(meta)?, &key, span, acc),
        Guard::AcknowledgesPolicy => {
            set_once(&mut guards.acknowledges_policy, span, &key, span, acc);
        }
        Guard::Sensitive => set_once(&mut guards.sensitive, span, &key, span, acc),
        Guard::NoRepair => set_once(&mut guards.no_repair, span, &key, span, acc),
        Guard::Example => {
            let expr: Expr = meta.value()?.parse()?;
            let value = At {
                value: parse_value(&expr)?,
                span: expr.span(),
            };
            set_once(&mut guards.example, value, &key, span, acc);
        }
        Guard::Description => {
            let value = string(meta)?.value;
            set_once(&mut guards.description, value, &key, span, acc);
        }
    }
    Ok(())
}

fn parse_guards(attrs: &[Attribute], acc: &mut Accumulator) -> Guards {
    let mut guards = Guards::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("guard")) {
        if let Err(e) = attr.parse_nested_meta(|meta| parse_guard(&meta, &mut guards, acc)) {
            acc.push(e.into());
        }
    }
    guards
}

fn no_guards_on(attrs: &[Attribute], what: &str, acc: &mut Accumulator) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("guard")) {
        acc.push(error(
            attr.span(),
            format!("`#[guard]` is not allowed on {what}"),
        ));
    }
}

impl<'a> Struct<'a> {
    pub(crate) fn from_input(input: &'a syn::DeriveInput, acc: &mut Accumulator) -> Option<Self> {
        let syn::Data::Struct(data) = &input.data else {
            let what = if matches!(input.data, syn::Data::Enum(_)) {
                "an enum"
            } else {
                "a union"
            };
            let hint = if matches!(input.data, syn::Data::Enum(_)) {
                "; for an enum of allowed values, derive `ToolEnum`"
            } else {
                ""
            };
            acc.push(error(
                input.ident.span(),
                format!("`ToolArgs` can only be derived for a struct with named fields, not {what}{hint}"),
            ));
            return None;
        };
        let syn::Fields::Named(named) = &data.fields else {
            acc.push(error(
                input.ident.span(),
                "`ToolArgs` can only be derived for a struct with named fields; tool arguments are a JSON object",
            ));
            return None;
        };
        if !input.generics.params.is_empty() {
            acc.push(error(
                input.generics.span(),
                "`ToolArgs` does not support generic structs",
            ));
        }
        let rules = crate::rules::parse(&input.attrs, acc);
        let serde = serde_container(&input.attrs, acc);
        let mut fields = Vec::new();
        for field in &named.named {
            let Some(ident) = field.ident.as_ref() else {
                continue;
            };
            let serde_f = serde_field(&field.attrs, acc);
            let guards = parse_guards(&field.attrs, acc);
            let plain = ident.to_string();
            let plain = plain.strip_prefix("r#").unwrap_or(&plain).to_owned();
            let wire_name = serde_f.rename.unwrap_or_else(|| {
                serde
                    .rename_all
                    .map_or(plain.clone(), |r| r.apply_to_field(&plain))
            });
            let description = guards
                .description
                .clone()
                .or_else(|| doc_comment(&field.attrs));
            if let Some(span) = serde_f.flatten {
                check_flatten(&guards, &serde_f.default, span, acc);
            }
            fields.push(Field {
                ident,
                ty: &field.ty,
                wire_name,
                aliases: serde_f.aliases,
                description,
                default: serde_f.default,
                skip: serde_f.skip,
                flatten: serde_f.flatten.is_some(),
                guards,
            });
        }
        Some(Self {
            ident: &input.ident,
            description: doc_comment(&input.attrs),
            container_default: serde.default,
            fields,
            rules,
        })
    }
}

impl<'a> Enum<'a> {
    pub(crate) fn from_input(input: &'a syn::DeriveInput, acc: &mut Accumulator) -> Option<Self> {
        let syn::Data::Enum(data) = &input.data else {
            acc.push(error(
                input.ident.span(),
                "`ToolEnum` can only be derived for an enum of unit variants; for a struct, derive `ToolArgs`",
            ));
            return None;
        };
        if !input.generics.params.is_empty() {
            acc.push(error(
                input.generics.span(),
                "`ToolEnum` does not support generic enums",
            ));
        }
        no_guards_on(&input.attrs, "an enum", acc);
        let serde = serde_container(&input.attrs, acc);
        let mut variants = Vec::new();
        for variant in &data.variants {
            no_guards_on(&variant.attrs, "a variant", acc);
            if !matches!(variant.fields, syn::Fields::Unit) {
                acc.push(error(
                    variant.ident.span(),
                    format!("variant `{}` carries data; `ToolEnum` reads unit variants, each a string on the wire: for an enum with data, derive `ToolArgs` instead", variant.ident),
                ));
                continue;
            }
            let serde_v = serde_field(&variant.attrs, acc);
            if !serde_v.aliases.is_empty() {
                acc.push(error(
                    variant.ident.span(),
                    "`#[serde(alias)]` on a variant is not supported by `ToolEnum`: its schema lists one name per variant; rename the variant or accept the old name in a variant of its own",
                ));
            }
            if serde_v.skip {
                continue;
            }
            let plain = variant.ident.to_string();
            let wire_name = serde_v.rename.unwrap_or_else(|| {
                serde
                    .rename_all
                    .map_or(plain.clone(), |r| r.apply_to_variant(&plain))
            });
            variants.push(Variant {
                ident: &variant.ident,
                wire_name,
            });
        }
        if data.variants.is_empty() {
            acc.push(error(
                input.ident.span(),
                "`ToolEnum` needs at least one variant",
            ));
        }
        Some(Self {
            ident: &input.ident,
            description: doc_comment(&input.attrs),
            skips_variants: variants.len() < data.variants.len(),
            variants,
        })
    }
}
