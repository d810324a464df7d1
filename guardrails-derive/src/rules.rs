//! Rules on a whole arguments struct, `#[guard(check = f, check(g, fields(a, b)), example = "{…}")]`
//! on the struct: parsed here, checked against its fields, and expanded into the validator and
//! the example. A `check = f` reads the whole struct, so it runs once every field passed its own
//! guards; a `check(g, fields(..))` reads only the fields it names, so it runs whenever those
//! passed, whatever else failed.

use darling::error::Accumulator;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Attribute, ExprPath, Ident, LitStr};

use crate::ast::{At, Field, FieldsCheck, StructRules};
use crate::diagnostic::{error, unknown};
use crate::meta::{key, skip_meta};

/// The guards a struct itself takes.
const STRUCT_GUARDS: &[&str] = &["check", "example"];

/// Reads `#[guard(..)]` on a struct.
pub(crate) fn parse(attrs: &[Attribute], acc: &mut Accumulator) -> StructRules {
    let mut rules = StructRules::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("guard")) {
        let parsed = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            match key(&meta).as_str() {
                "check" if meta.input.peek(syn::Token![=]) => {
                    rules.checks.push(meta.value()?.parse()?);
                }
                "check" => {
                    if let Some(check) = parse_fields_check(&meta, acc)? {
                        rules.field_checks.push(check);
                    }
                }
                "example" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    if rules.example.is_some() {
                        acc.push(error(span, "duplicate guard `example`"));
                    }
                    let text = lit.value();
                    if !text.trim_start().starts_with('{') {
                        acc.push(error(
                            lit.span(),
                            "the example of a struct is a JSON object of the fields it sets: `example = r#\"{\"end\": \"2026-03-02\"}\"#`",
                        ));
                    }
                    rules.example = Some(At {
                        value: text,
                        span: lit.span(),
                    });
                }
                other => {
                    acc.push(unknown_struct_guard(other, span));
                    skip_meta(&meta)?;
                }
            }
            Ok(())
        });
        if let Err(e) = parsed {
            acc.push(e.into());
        }
    }
    rules
}

/// Reads `check(path, fields(a, b))`; `None` when a part is missing (recorded in `acc`).
fn parse_fields_check(
    meta: &syn::meta::ParseNestedMeta<'_>,
    acc: &mut Accumulator,
) -> syn::Result<Option<FieldsCheck>> {
    let span = meta.path.span();
    let mut path: Option<ExprPath> = None;
    let mut fields: Option<Vec<Ident>> = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("fields") && inner.input.peek(syn::token::Paren) {
            let mut names = Vec::new();
            inner.parse_nested_meta(|name| {
                match name.path.get_ident() {
                    Some(ident) => names.push(ident.clone()),
                    None => acc.push(error(
                        name.path.span(),
                        "`fields(..)` lists the Rust names of the struct's fields",
                    )),
                }
                Ok(())
            })?;
            if fields.is_some() {
                acc.push(error(inner.path.span(), "duplicate `fields(..)`"));
            }
            fields = Some(names);
        } else if !inner.input.is_empty() && !inner.input.peek(syn::Token![,]) {
            acc.push(error(
                inner.path.span(),
                "write `check(function, fields(a, b))`: the function, then the fields it reads",
            ));
            skip_meta(&inner)?;
        } else if path.is_some() {
            acc.push(error(
                inner.path.span(),
                "a `check(..)` names one function; write one `check(..)` per rule",
            ));
        } else {
            path = Some(ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: inner.path.clone(),
            });
        }
        Ok(())
    })?;
    let (Some(path), Some(fields)) = (path, fields) else {
        acc.push(error(
            span,
            "write `check(function, fields(a, b))`: the function, then the fields it reads, or `check = function` for a function of the whole struct",
        ));
        return Ok(None);
    };
    if fields.is_empty() {
        acc.push(error(
            path.span(),
            "`fields(..)` names at least one field the check reads",
        ));
        return Ok(None);
    }
    Ok(Some(FieldsCheck { path, fields }))
}

fn unknown_struct_guard(name: &str, span: Span) -> darling::Error {
    if crate::names::lookup(crate::names::GUARDS, name).is_some() {
        return error(
            span,
            format!(
                "`{name}` guards a field, not the struct: put it on the field; a struct takes `check = f`, `check(f, fields(a, b))` and `example = \"{{..}}\"`"
            ),
        );
    }
    unknown("struct guard", name, STRUCT_GUARDS, span)
}

/// A struct-level `check` is a rule the example builder cannot see: the derive asks for an
/// example written by hand, on the struct or on a field, which the runtime then validates. A
/// `check(f, fields(..))` names fields that serde reads, each once.
pub(crate) fn check<G>(
    rules: &StructRules,
    fields: &[Field<'_, G>],
    has_example: impl Fn(&Field<'_, G>) -> bool,
    acc: &mut Accumulator,
) {
    let names: Vec<String> = fields
        .iter()
        .filter(|f| !f.skip && !f.flatten)
        .map(|f| f.ident.to_string())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for check in &rules.field_checks {
        for (n, name) in check.fields.iter().enumerate() {
            if check.fields[..n].contains(name) {
                acc.push(error(
                    name.span(),
                    format!("field `{name}` is named twice in this check"),
                ));
                continue;
            }
            match fields.iter().find(|f| f.ident == name) {
                None => acc.push(unknown("field", &name.to_string(), &names, name.span())),
                Some(field) if field.skip => acc.push(error(
                    name.span(),
                    format!("field `{name}` is skipped by serde: a check cannot read it"),
                )),
                Some(field) if field.flatten => acc.push(error(
                    name.span(),
                    format!(
                        "field `{name}` is flattened: name it in a `check = f` of the whole struct, or put the check on the flattened struct"
                    ),
                )),
                Some(_) => {}
            }
        }
    }
    let first = rules
        .checks
        .first()
        .or_else(|| rules.field_checks.first().map(|c| &c.path));
    let Some(first) = first else {
        return;
    };
    if rules.example.is_none() && !fields.iter().any(has_example) {
        acc.push(error(
            first.span(),
            "a struct-level `check` is a rule the example cannot be built to pass: write the example, `#[guard(example = r#\"{..}\"#)]` on the struct (a JSON object of the fields it sets) or `#[guard(example = ..)]` on the fields the check compares",
        ));
    }
}

/// The pieces of the validator a struct's rules add; empty for a struct without checks, whose
/// validator is then unchanged.
pub(crate) struct RuleCode {
    /// Before the object is taken apart: keeps what was sent, for the issues to echo.
    pub(crate) keep_sent: TokenStream,
    /// Before the fields are read: where the fields' issues start.
    pub(crate) mark: TokenStream,
    /// After the fields are read: whether they added no issue, and the checks of named fields.
    pub(crate) fields_clean: TokenStream,
    /// The end of `validate_fields`, given the struct literal.
    pub(crate) finish: TokenStream,
}

impl StructRules {
    /// Whether a `check(f, fields(..))` reads the field `ident`: its validator then notes
    /// whether reading it added an issue (`__clean_{index}`).
    pub(crate) fn reads(&self, ident: &Ident) -> bool {
        self.field_checks.iter().any(|c| c.fields.contains(ident))
    }
}

/// The validator's code for the rules; `fields` are the struct's fields in declaration order,
/// whose typed values are `__field_{index}` (an `Option`) and, for the fields a
/// `check(f, fields(..))` reads, `__clean_{index}`.
pub(crate) fn expand(rules: &StructRules, fields: &[&Ident], value: &TokenStream) -> RuleCode {
    let whole: &[ExprPath] = if rules.whole_checks_elsewhere {
        &[]
    } else {
        &rules.checks
    };
    if whole.is_empty() && rules.field_checks.is_empty() {
        return RuleCode {
            keep_sent: TokenStream::new(),
            mark: TokenStream::new(),
            fields_clean: TokenStream::new(),
            finish: quote!(::core::option::Option::Some(#value)),
        };
    }
    // The holder's description lists the fields of flattened structs too, so an issue can name
    // one of them.
    let lookup = quote!(<Self as __gr::ToolArgs>::info().fields());
    let field_runs = rules.field_checks.iter().map(|check| {
        let indices: Vec<usize> = check
            .fields
            .iter()
            .filter_map(|name| fields.iter().position(|f| *f == name))
            .collect();
        let clean = indices.iter().map(|i| format_ident!("__clean_{}", i));
        let values = indices.iter().map(|i| format_ident!("__field_{}", i));
        let args: Vec<_> = (0..indices.len())
            .map(|n| format_ident!("__arg_{}", n))
            .collect();
        let path = &check.path;
        // Each argument at the field's name in `fields(..)`: a parameter that does not fit, or
        // one too many, is pointed at there.
        let passed = check
            .fields
            .iter()
            .zip(&args)
            .map(|(name, arg)| quote_spanned!(name.span()=> __gr::FieldArg::field_arg(#arg)));
        let call = quote_spanned! {path.span()=>
            __gr::run_fields_check(cx, #lookup, &__sent, || #path(#(#passed),*));
        };
        quote! {
            if #(#clean)&&* {
                if let (#(::core::option::Option::Some(#args),)*) = (#(&#values,)*) {
                    #call
                }
            }
        }
    });
    let (mark, clean) = if whole.is_empty() {
        (TokenStream::new(), TokenStream::new())
    } else {
        (
            quote!(let __issues_before_fields = cx.issue_count();),
            quote!(let __fields_clean = cx.issue_count() == __issues_before_fields;),
        )
    };
    let runs = whole.iter().map(|path| {
        quote_spanned! {path.span()=>
            __gr::run_struct_check(cx, #lookup, &__sent, &__checked, &#path);
        }
    });
    let finish = if whole.is_empty() {
        quote!(::core::option::Option::Some(#value))
    } else {
        quote! {
            let __checked = #value;
            if __fields_clean {
                #(#runs)*
            }
            ::core::option::Option::Some(__checked)
        }
    };
    RuleCode {
        keep_sent: quote!(let __sent = ::core::clone::Clone::clone(&object);),
        mark,
        fields_clean: quote! {
            #clean
            #(#field_runs)*
        },
        finish,
    }
}

/// The names of the struct's check functions, as written (`checks::end_after_start`), for the
/// contract.
pub(crate) fn names(rules: &StructRules) -> Vec<String> {
    let name = |path: &ExprPath| {
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        segments.join("::")
    };
    rules
        .checks
        .iter()
        .chain(rules.field_checks.iter().map(|c| &c.path))
        .map(name)
        .collect()
}

/// The body of `example()`: the example built from the fields, under the struct's own.
pub(crate) fn example(rules: &StructRules) -> TokenStream {
    match &rules.example {
        Some(At { value, .. }) => {
            quote!(__gr::build_example_over(<Self as __gr::ToolArgs>::info(), #value))
        }
        None => quote!(__gr::build_example(<Self as __gr::ToolArgs>::info())),
    }
}

/// An override of `checked_example()` that validates the example once.
pub(crate) fn checked_example() -> TokenStream {
    quote! {
        fn checked_example() -> ::core::result::Result<&'static __gr::Value, __gr::Report> {
            static CHECKED: __gr::OnceLock<::core::option::Option<__gr::Report>> =
                __gr::OnceLock::new();
            match CHECKED.get_or_init(__gr::example_rejection::<Self>) {
                ::core::option::Option::None => {
                    ::core::result::Result::Ok(<Self as __gr::ToolArgs>::example())
                }
                ::core::option::Option::Some(__report) => {
                    ::core::result::Result::Err(::core::clone::Clone::clone(__report))
                }
            }
        }
    }
}
