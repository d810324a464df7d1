//! `#[derive(ToolArgs)]` on an enum: parsing and checking an enum with data into its model.
//!
//! Serde's representation (`tag`, `content`, `untagged`) and names (`rename`, `rename_all`,
//! `rename_all_fields`) are read as serde reads them. The fields of a struct variant are read by
//! the struct derive itself: each struct variant becomes a hidden struct with the same fields
//! and attributes, so its guards, defaults and names mean exactly what they mean on a struct.

use darling::error::Accumulator;
use proc_macro2::Span;
use syn::spanned::Spanned as _;
use syn::{Attribute, Ident, LitStr, Type};

use crate::attr::{doc_comment, parse_rename_rule, serde_name};
use crate::case::RenameRule;
use crate::diagnostic::error;
use crate::meta::skip_meta;

/// How serde names the variant on the wire.
pub(crate) enum Tagging {
    External,
    Internal(String),
    Adjacent(String, String),
    Untagged,
}

/// What a variant carries.
pub(crate) enum Shape<'a> {
    Unit,
    /// A struct that derives `ToolArgs`, its fields beside the tag.
    Newtype(&'a Type),
    /// Named fields, read through the hidden struct `hidden`, declared as `input`.
    Struct {
        hidden: Ident,
        input: Box<syn::DeriveInput>,
    },
}

pub(crate) struct DataVariant<'a> {
    pub(crate) ident: &'a Ident,
    /// `#[guard(check = f)]` on a struct variant: `f(&Enum)`, run once the variant is built.
    pub(crate) checks: Vec<syn::ExprPath>,
    pub(crate) wire_name: String,
    pub(crate) shape: Shape<'a>,
}

pub(crate) struct DataEnum<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) description: Option<String>,
    pub(crate) tagging: Tagging,
    pub(crate) variants: Vec<DataVariant<'a>>,
}

#[derive(Default)]
struct Container {
    tag: Option<LitStr>,
    content: Option<LitStr>,
    untagged: Option<Span>,
    rename_all: Option<RenameRule>,
    rename_all_fields: Option<LitStr>,
}

/// Container attributes serde has that change what is read in a way this derive cannot follow.
const REFUSED_CONTAINER: &[&str] = &[
    "transparent",
    "from",
    "try_from",
    "remote",
    "default",
    "variant_identifier",
    "field_identifier",
];

fn container(attrs: &[Attribute], acc: &mut Accumulator) -> Container {
    let mut out = Container::default();
    for attr in attrs {
        if attr.path().is_ident("guard") {
            acc.push(error(
                attr.path().span(),
                "`#[guard]` goes on the fields of the variants, not on the enum",
            ));
            continue;
        }
        if !attr.path().is_ident("serde") {
            continue;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            let name = crate::meta::key(&meta);
            match name.as_str() {
                "tag" => out.tag = Some(meta.value()?.parse()?),
                "content" => out.content = Some(meta.value()?.parse()?),
                "untagged" => out.untagged = Some(meta.path.span()),
                "rename_all" => {
                    if let Some(lit) = serde_name(&meta)? {
                        out.rename_all = parse_rename_rule(&lit, acc);
                    }
                }
                "rename_all_fields" => {
                    if let Some(lit) = serde_name(&meta)? {
                        let _ = parse_rename_rule(&lit, acc);
                        out.rename_all_fields = Some(lit);
                    }
                }
                refused if REFUSED_CONTAINER.contains(&refused) => {
                    acc.push(error(
                        meta.path.span(),
                        format!("`#[serde({name})]` is not supported by `ToolArgs` on an enum: its validator reads the variants directly; remove it or implement `guardrails::ArgValue` by hand"),
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

#[derive(Default)]
struct VariantAttrs {
    rename: Option<String>,
    rename_all: Option<LitStr>,
    skip: bool,
    /// `#[guard(..)]` on the variant: read by its hidden struct.
    guards: Vec<Attribute>,
    /// The `check = f` among them, which take the whole enum.
    checks: Vec<syn::ExprPath>,
}

/// Reads the `#[guard]` of a struct variant: its hidden struct reads the checks; a `check = f`
/// takes the whole enum and is also run by the enum's reader. An example of the variant is
/// refused, as its example is built from its fields.
fn variant_guard(attr: &Attribute, checks: &mut Vec<syn::ExprPath>, acc: &mut Accumulator) {
    let parsed = attr.parse_nested_meta(|meta| {
        let name = crate::meta::key(&meta);
        match name.as_str() {
            "check" if meta.input.peek(syn::Token![=]) => {
                checks.push(meta.value()?.parse()?);
                return Ok(());
            }
            "example" => acc.push(error(
                meta.path.span(),
                "the example of a variant is built from its fields: put `#[guard(example = ..)]` on the fields its check compares",
            )),
            _ => {}
        }
        skip_meta(&meta)
    });
    if let Err(e) = parsed {
        acc.push(e.into());
    }
}

fn variant_attrs(attrs: &[Attribute], acc: &mut Accumulator) -> VariantAttrs {
    let mut out = VariantAttrs::default();
    for attr in attrs {
        if attr.path().is_ident("guard") {
            variant_guard(attr, &mut out.checks, acc);
            out.guards.push(attr.clone());
            continue;
        }
        if !attr.path().is_ident("serde") {
            continue;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            let name = crate::meta::key(&meta);
            match name.as_str() {
                "rename" => out.rename = serde_name(&meta)?.map(|l| l.value()),
                "rename_all" => {
                    if let Some(lit) = serde_name(&meta)? {
                        let _ = parse_rename_rule(&lit, acc);
                        out.rename_all = Some(lit);
                    }
                }
                "skip" | "skip_deserializing" => out.skip = true,
                "alias" | "other" | "untagged" | "with" | "deserialize_with" => {
                    acc.push(error(
                        meta.path.span(),
                        format!("`#[serde({name})]` on a variant is not supported by `ToolArgs`: the validator names each variant by its one wire name; remove it, or use `rename`"),
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

fn tagging(c: &Container, span: Span, acc: &mut Accumulator) -> Tagging {
    match (&c.tag, &c.content, c.untagged) {
        (Some(tag), _, Some(untagged)) => {
            acc.push(error(
                untagged,
                format!(
                    "`untagged` and `tag = {:?}` exclude each other: choose one",
                    tag.value()
                ),
            ));
            Tagging::Untagged
        }
        (None, Some(content), _) => {
            acc.push(error(
                content.span(),
                "`content` needs `tag`: an adjacently tagged enum names both keys",
            ));
            Tagging::External
        }
        (Some(tag), Some(content), None) => {
            if tag.value() == content.value() {
                acc.push(error(
                    content.span(),
                    "`tag` and `content` must be different keys",
                ));
            }
            Tagging::Adjacent(tag.value(), content.value())
        }
        (Some(tag), None, None) => Tagging::Internal(tag.value()),
        (None, None, Some(_)) => Tagging::Untagged,
        (None, None, None) => {
            let _ = span;
            Tagging::External
        }
    }
}

/// The hidden struct that reads the named fields of a variant: the variant's fields and docs,
/// with the `rename_all` that applies to them.
fn hidden_struct(
    enum_ident: &Ident,
    variant: &syn::Variant,
    fields: &syn::FieldsNamed,
    rename_all: Option<&LitStr>,
    guards: &[Attribute],
) -> (Ident, syn::DeriveInput) {
    let hidden = Ident::new(
        &format!(
            "__{}{}",
            enum_ident,
            variant.ident.to_string().trim_start_matches("r#")
        ),
        variant.ident.span(),
    );
    let mut attrs: Vec<Attribute> = variant
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .cloned()
        .collect();
    if let Some(rule) = rename_all {
        attrs.push(syn::parse_quote_spanned!(rule.span()=> #[serde(rename_all = #rule)]));
    }
    attrs.extend(guards.iter().cloned());
    let input = syn::DeriveInput {
        attrs,
        vis: syn::Visibility::Inherited,
        ident: hidden.clone(),
        generics: syn::Generics::default(),
        data: syn::Data::Struct(syn::DataStruct {
            struct_token: syn::Token![struct](variant.ident.span()),
            fields: syn::Fields::Named(fields.clone()),
            semi_token: None,
        }),
    };
    (hidden, input)
}

impl<'a> DataEnum<'a> {
    /// The model of an enum with data, or `None` when it cannot be read (each problem
    /// recorded in `acc`).
    pub(crate) fn from_input(input: &'a syn::DeriveInput, acc: &mut Accumulator) -> Option<Self> {
        let syn::Data::Enum(data) = &input.data else {
            return None;
        };
        if !input.generics.params.is_empty() {
            acc.push(error(
                input.generics.span(),
                "`ToolArgs` does not support generic enums",
            ));
            return None;
        }
        let c = container(&input.attrs, acc);
        let tagging = tagging(&c, input.ident.span(), acc);
        let mut variants: Vec<DataVariant<'a>> = Vec::new();
        for variant in &data.variants {
            let attrs = variant_attrs(&variant.attrs, acc);
            if attrs.skip {
                continue;
            }
            let plain = variant.ident.to_string();
            let plain = plain.trim_start_matches("r#");
            let wire_name = attrs.rename.clone().unwrap_or_else(|| {
                c.rename_all
                    .map_or_else(|| plain.to_owned(), |r| r.apply_to_variant(plain))
            });
            if let (Some(attr), false) = (
                attrs.guards.first(),
                matches!(variant.fields, syn::Fields::Named(_)),
            ) {
                acc.push(error(
                    attr.path().span(),
                    "`#[guard]` on a variant checks the fields of a struct variant (`Daily { .. }`): a unit variant has none, and the guards of a newtype variant go on its struct",
                ));
            }
            let shape = match &variant.fields {
                syn::Fields::Unit => Shape::Unit,
                syn::Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                    let field = &fields.unnamed[0];
                    if let Some(attr) = field.attrs.iter().find(|a| a.path().is_ident("guard")) {
                        acc.push(error(
                            attr.path().span(),
                            "`#[guard]` does not apply to the struct a newtype variant holds: put the guards on that struct's fields",
                        ));
                    }
                    Shape::Newtype(&field.ty)
                }
                syn::Fields::Unnamed(fields) => {
                    acc.push(error(
                        fields.span(),
                        format!(
                            "variant `{}` has {} unnamed fields; `ToolArgs` reads named fields (`{} {{ .. }}`) or one struct that derives `ToolArgs`: name the fields",
                            variant.ident,
                            fields.unnamed.len(),
                            variant.ident
                        ),
                    ));
                    continue;
                }
                syn::Fields::Named(fields) => {
                    let rename_all = attrs.rename_all.as_ref().or(c.rename_all_fields.as_ref());
                    let (hidden, input) =
                        hidden_struct(&input.ident, variant, fields, rename_all, &attrs.guards);
                    Shape::Struct {
                        hidden,
                        input: Box::new(input),
                    }
                }
            };
            if let Some(first) = variants.iter().find(|v| v.wire_name == wire_name) {
                acc.push(error(
                    variant.ident.span(),
                    format!(
                        "variant `{}` has the wire name {wire_name:?} of variant `{}`; give one a `#[serde(rename = \"..\")]`",
                        variant.ident, first.ident
                    ),
                ));
            }
            variants.push(DataVariant {
                ident: &variant.ident,
                checks: attrs.checks.clone(),
                wire_name,
                shape,
            });
        }
        if variants.is_empty() {
            acc.push(error(
                input.ident.span(),
                "`ToolArgs` needs at least one variant that serde reads",
            ));
            return None;
        }
        Some(Self {
            ident: &input.ident,
            description: doc_comment(&input.attrs),
            tagging,
            variants,
        })
    }
}
