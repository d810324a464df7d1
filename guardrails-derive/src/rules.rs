//! Rules on a whole arguments struct, `#[guard(check = f, example = "{…}")]` on the struct:
//! parsed here, checked against its fields, and expanded into the validator (the checks run in
//! the same pass, once the fields passed their own guards) and the example.

use darling::error::Accumulator;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Attribute, ExprPath, LitStr};

use crate::ast::{At, Field};
use crate::attr::{key, skip_meta};
use crate::diagnostic::{error, unknown};

/// The guards a struct itself takes.
const STRUCT_GUARDS: &[&str] = &["check", "example"];

/// The rules written on a struct.
#[derive(Default)]
pub(crate) struct StructRules {
    /// `check = path`, in the order written: each a `Fn(&Self) -> Result<(), E>`.
    pub(crate) checks: Vec<ExprPath>,
    /// `example = "{…}"`: a JSON object whose fields override the built example's.
    pub(crate) example: Option<At<String>>,
}

/// Reads `#[guard(..)]` on a struct.
pub(crate) fn parse(attrs: &[Attribute], acc: &mut Accumulator) -> StructRules {
    let mut rules = StructRules::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("guard")) {
        let parsed = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            match key(&meta).as_str() {
                "check" => rules.checks.push(meta.value()?.parse()?),
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

fn unknown_struct_guard(name: &str, span: Span) -> darling::Error {
    if crate::names::lookup(crate::names::GUARDS, name).is_some() {
        return error(
            span,
            format!(
                "`{name}` guards a field, not the struct: put it on the field; a struct takes `check = f` and `example = \"{{..}}\"`"
            ),
        );
    }
    unknown("struct guard", name, STRUCT_GUARDS, span)
}

/// A struct-level `check` is a rule the example builder cannot see: the derive asks for an
/// example written by hand, on the struct or on a field, which the runtime then validates.
pub(crate) fn check<G>(
    rules: &StructRules,
    fields: &[Field<'_, G>],
    has_example: impl Fn(&Field<'_, G>) -> bool,
    acc: &mut Accumulator,
) {
    let Some(first) = rules.checks.first() else {
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
    /// After the fields are read: whether they added no issue.
    pub(crate) fields_clean: TokenStream,
    /// The end of `validate_fields`, given the struct literal.
    pub(crate) finish: TokenStream,
}

pub(crate) fn expand(rules: &StructRules, value: &TokenStream) -> RuleCode {
    if rules.checks.is_empty() {
        return RuleCode {
            keep_sent: TokenStream::new(),
            mark: TokenStream::new(),
            fields_clean: TokenStream::new(),
            finish: quote!(::core::option::Option::Some(#value)),
        };
    }
    let runs = rules.checks.iter().map(|path| {
        quote_spanned! {path.span()=>
            __gr::run_struct_check(cx, &__FIELDS, &__sent, &__checked, &#path);
        }
    });
    RuleCode {
        keep_sent: quote!(let __sent = ::core::clone::Clone::clone(&object);),
        mark: quote!(let __issues_before_fields = cx.issue_count();),
        fields_clean: quote!(let __fields_clean = cx.issue_count() == __issues_before_fields;),
        finish: quote! {
            let __checked = #value;
            if __fields_clean {
                #(#runs)*
            }
            ::core::option::Option::Some(__checked)
        },
    }
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
