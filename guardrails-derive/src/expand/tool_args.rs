//! `#[derive(ToolArgs)]`: the static description of the fields, the one-pass validator, the
//! cached schema and example, and the impls that let the struct nest in other arguments.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;

use crate::ast::{FieldDefault, NumLit, Scalar};
use crate::checked::{
    Bound, CheckedField, CheckedGuards, CheckedStruct, Constraints, Policy, TypeNeed,
};
use crate::expand::opt_str;

fn num(n: NumLit) -> TokenStream {
    match n {
        NumLit::Int(i) => {
            let lit = Literal::i128_suffixed(i);
            quote!(__gr::Num::Int(#lit))
        }
        NumLit::Float(f) => {
            let lit = Literal::f64_suffixed(f.get());
            quote!(__gr::Num::Float(#lit))
        }
    }
}

fn opt_u64(v: Option<u64>) -> TokenStream {
    match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

fn bound(b: Option<Bound>) -> TokenStream {
    match b {
        Some(Bound { value, exclusive }) => {
            let n = num(value);
            quote!(::core::option::Option::Some(__gr::Bound { value: #n, exclusive: #exclusive }))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn opt_format(format: Option<&str>) -> TokenStream {
    match format {
        Some(variant) => {
            let variant = format_ident!("{}", variant);
            quote!(::core::option::Option::Some(__gr::Format::#variant))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn opt_num(n: Option<NumLit>) -> TokenStream {
    match n {
        Some(n) => {
            let n = num(n);
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn literal(v: &Scalar) -> TokenStream {
    match v {
        Scalar::Str(s) => quote!(__gr::Literal::Str(#s)),
        Scalar::Bool(b) => quote!(__gr::Literal::Bool(#b)),
        Scalar::Num(NumLit::Int(i)) => {
            let lit = Literal::i128_suffixed(*i);
            quote!(__gr::Literal::Int(#lit))
        }
        Scalar::Num(NumLit::Float(f)) => {
            let lit = Literal::f64_suffixed(f.get());
            quote!(__gr::Literal::Float(#lit))
        }
    }
}

fn constraints(g: &CheckedGuards) -> TokenStream {
    let parts = guard_parts(g, false);
    quote!(__gr::Constraints::from_parts(#parts))
}

/// The field's guards as the constant its generated check reads (the runtime's `QuickCheck`),
/// from the same declarations as its `Constraints`.
fn quick_check(g: &CheckedGuards) -> TokenStream {
    let parts = guard_parts(g, true);
    quote!(__gr::QuickCheck::from_parts(#parts))
}

/// The arguments of the runtime's `Constraints::from_parts`, in its order; for `quick`, of
/// `QuickCheck::from_parts`: the same, with the pattern as a flag and no `custom`.
fn guard_parts(g: &CheckedGuards, quick: bool) -> TokenStream {
    // Every guard named, none left to a default: a guard added to `Constraints` that is not
    // emitted here does not compile.
    let Constraints {
        min_length,
        max_length,
        minimum,
        maximum,
        pattern,
        format,
        one_of,
        unique,
        multiple_of,
    } = &g.constraints;
    let (min_len, max_len) = (opt_u64(*min_length), opt_u64(*max_length));
    let minimum = bound(*minimum);
    let maximum = bound(*maximum);
    let pattern = match pattern {
        _ if quick => {
            let declared = pattern.is_some();
            quote!(#declared)
        }
        Some(p) => {
            let source = &p.source;
            quote!(::core::option::Option::Some(__gr::Pattern::new(#source)))
        }
        None => quote!(::core::option::Option::None),
    };
    let format = opt_format(*format);
    let one_of = one_of.iter().map(literal);
    let multiple_of = opt_num(*multiple_of);
    let custom = (!quick).then(|| {
        let custom = g.custom.is_some();
        quote!(, #custom)
    });
    quote! {
        #min_len,
        #max_len,
        #minimum,
        #maximum,
        #pattern,
        #format,
        &[#(#one_of),*],
        #unique,
        #multiple_of
        #custom
    }
}

fn field_info(field: &CheckedField<'_>) -> TokenStream {
    let ty = field.ty;
    let name = &field.wire_name;
    let rust_name = field.ident.to_string();
    let rust_name = rust_name.strip_prefix("r#").unwrap_or(&rust_name);
    let description = opt_str(field.description.as_ref());
    let has_default = !matches!(field.default, FieldDefault::None);
    // A flattened field has no key of its own: its struct's fields are listed in its place.
    let skipped = field.skip || field.flatten;
    let checked = field.guards.constrained;
    let constraints = constraints(&field.guards);
    let example = opt_str(field.guards.example.as_ref());
    let sensitive = field.guards.sensitive;
    let no_repair = field.guards.no_repair;
    let aliases = (!field.aliases.is_empty()).then(|| {
        let aliases = &field.aliases;
        quote!(.with_aliases(&[#(#aliases),*]))
    });
    quote! {
        // In the order of the runtime's `FieldInfo::from_parts`.
        __gr::FieldInfo::from_parts(
            #name,
            #rust_name,
            #description,
            !#skipped && !#has_default && !<#ty as __gr::ArgValue>::OPTIONAL,
            <#ty as __gr::ArgValue>::OPTIONAL,
            #skipped,
            #constraints,
            #checked,
            #sensitive,
            #no_repair,
            #example,
            <#ty as __gr::ArgValue>::kind,
            <#ty as __gr::ArgValue>::schema,
            <#ty as __gr::ArgValue>::example,
        )
        #aliases
    }
}

/// Compile-time assertions that each guard fits its field's type, pointing at the guard.
/// `policy` and `acknowledges_policy` need none: the runtime calls that read the typed value
/// carry the trait bound, spanned at the field's type (see `policy_checks`).
fn guard_asserts(field: &CheckedField<'_>) -> TokenStream {
    let ty = field.ty;
    let asserts = field.guards.type_needs.iter().map(|(span, need)| {
        let check = match need {
            TypeNeed::Length => "assert_length",
            TypeNeed::Numeric => "assert_numeric",
            TypeNeed::Text => "assert_text",
            TypeNeed::Items => "assert_items",
            TypeNeed::Boolean => "assert_boolean",
            TypeNeed::Leaf => "assert_leaf",
        };
        let check = format_ident!("{}", check);
        quote_spanned!(*span=> const _: () = __gr::guards::#check::<#ty>();)
    });
    quote!(#(#asserts)*)
}

/// The `&'static Policy` a `policy` guard names.
fn policy_expr(policy: &Policy) -> TokenStream {
    match policy {
        Policy::Profile(variant) => {
            let variant = format_ident!("{}", variant);
            quote!(__gr::Profile::policy(__gr::Profile::#variant))
        }
        Policy::Path(path) => {
            quote_spanned!(path.span()=> __gr::policy_from(#path))
        }
    }
}

/// The policy checks of a struct, run once every field is read: the acknowledgement field may
/// come after the fields whose warnings it acknowledges.
fn policy_checks(input: &CheckedStruct<'_>) -> TokenStream {
    let checks: Vec<TokenStream> = input
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.skip)
        .filter_map(|(i, field)| {
            let policy = policy_expr(field.guards.policy.as_ref()?);
            let ty = field.ty;
            let value = format_ident!("__field_{}", i);
            let clean = format_ident!("__clean_{}", i);
            let run = quote_spanned! {ty.span()=>
                __gr::run_policy::<#ty>(cx, &__FIELDS[#i], checked, #policy, __policy_gate);
            };
            Some(quote! {
                if #clean {
                    if let ::core::option::Option::Some(checked) = &#value {
                        #run
                    }
                }
            })
        })
        .collect();
    if checks.is_empty() {
        return TokenStream::new();
    }
    let gate = input
        .fields
        .iter()
        .enumerate()
        .find(|(_, f)| !f.skip && f.guards.acknowledges_policy)
        .map_or_else(
            || quote!(__gr::WarningGate::Open),
            |(i, field)| {
                let value = format_ident!("__field_{}", i);
                let name = &field.wire_name;
                let ty = field.ty;
                quote_spanned! {ty.span()=>
                    __gr::warning_gate::<#ty>(#name, ::core::option::Option::as_ref(&#value))
                }
            },
        );
    quote! {
        let __policy_gate = #gate;
        #(#checks)*
    }
}

/// What `ToolArgs::info` returns: the static description, or, with flattened fields, the one
/// that lists their fields in their place (built once).
fn info_expr(input: &CheckedStruct<'_>) -> TokenStream {
    let flattened: Vec<TokenStream> = input
        .fields
        .iter()
        .filter(|f| f.flatten)
        .map(|f| {
            let ty = f.ty;
            quote_spanned!(ty.span()=> <#ty as __gr::Flatten<_>>::flattened)
        })
        .collect();
    if flattened.is_empty() {
        return quote!(&__INFO);
    }
    quote! {
        static FIELDS: __gr::FlatCells = __gr::FlatCells::new();
        __gr::flattened_info(&__INFO, &[#(#flattened),*], &FIELDS)
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "the generated items read best in one template"
)]
pub(crate) fn expand(input: &CheckedStruct<'_>) -> TokenStream {
    let krate = crate::krate::root();
    let ident = input.ident;
    let type_name = ident.to_string();
    let description = opt_str(input.description.as_ref());
    let count = input.fields.len();
    let infos = input.fields.iter().map(field_info);
    let quick_checks = input.fields.iter().map(|f| quick_check(&f.guards));
    let asserts = input.fields.iter().map(guard_asserts);

    let wire: Vec<(usize, &CheckedField<'_>)> = input
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.skip && !f.flatten)
        .collect();
    let slots: Vec<_> = wire
        .iter()
        .map(|(i, _)| format_ident!("__slot_{}", i))
        .collect();
    let arms = wire.iter().map(|(i, f)| crate::expand::aliases::arm(*i, f));

    let container_defaults = input.container_default.then(|| {
        let idents = input.fields.iter().map(|f| f.ident);
        let locals = (0..count).map(|i| format_ident!("__default_{}", i));
        quote! {
            let Self { #(#idents: #locals),* } = <Self as ::core::default::Default>::default();
        }
    });

    let mut reads = Vec::new();
    let mut takes = Vec::new();
    let mut inits = Vec::new();
    for (i, field) in input.fields.iter().enumerate() {
        let ty = field.ty;
        let fid = field.ident;
        let value = format_ident!("__field_{}", i);
        let bound = format_ident!("__value_{}", i);
        let default_local = format_ident!("__default_{}", i);
        let default = match (&field.default, input.container_default) {
            (FieldDefault::Path(path), _) => Some(quote!(#path())),
            (FieldDefault::Trait, _) => Some(quote!(<#ty as ::core::default::Default>::default())),
            (FieldDefault::None, true) => Some(quote!(#default_local)),
            (FieldDefault::None, false) => None,
        };
        if field.skip {
            let default =
                default.unwrap_or_else(|| quote!(<#ty as ::core::default::Default>::default()));
            inits.push(quote!(#fid: #default));
            continue;
        }
        if field.flatten {
            // Not at the user's span: `__gr::ToolArgs` there reads as a needless qualification
            // where the user imported `ToolArgs`.
            let holder = quote!(<Self as __gr::ToolArgs>::info());
            reads.push(quote_spanned! {ty.span()=>
                let #value = <#ty as __gr::Flatten<_>>::take(cx, &mut unknown, #holder);
            });
            takes.push(quote!(let #bound = #value?;));
            inits.push(quote!(#fid: #bound));
            continue;
        }
        let slot = format_ident!("__slot_{}", i);
        // A policy checks text that passed the field's other guards: the field is clean when
        // reading it (and its custom check) added no issue.
        // So does a check that reads the field (`check(f, fields(..))` on the struct).
        let issues_before = format_ident!("__issues_before_{}", i);
        let track_clean = field.guards.policy.is_some() || input.rules.reads(fid);
        if track_clean {
            reads.push(quote!(let #issues_before = cx.issue_count();));
        }
        reads.push(match default {
            Some(default) => quote! {
                let #value = __gr::take_field_or::<#ty>(cx, #slot, &__FIELDS[#i], &__QUICK[#i], || #default);
            },
            None => quote! {
                let #value = __gr::take_field::<#ty>(cx, #slot, &__FIELDS[#i], &__QUICK[#i]);
            },
        });
        if let Some(path) = &field.guards.custom {
            reads.push(quote! {
                if let ::core::option::Option::Some(checked) = &#value {
                    __gr::run_custom::<#ty, _, _>(cx, &__FIELDS[#i], checked, &#path);
                }
            });
        }
        if track_clean {
            let clean = format_ident!("__clean_{}", i);
            reads.push(quote!(let #clean = cx.issue_count() == #issues_before;));
        }
        takes.push(quote!(let #bound = #value?;));
        inits.push(quote!(#fid: #bound));
    }
    let policies = policy_checks(input);
    let idents: Vec<&syn::Ident> = input.fields.iter().map(|f| f.ident).collect();
    let rules = crate::rules::expand(&input.rules, &idents, &quote!(Self { #(#inits),* }));
    let (keep_sent, mark, fields_clean, finish) = (
        &rules.keep_sent,
        &rules.mark,
        &rules.fields_clean,
        &rules.finish,
    );
    let example = crate::rules::example(&input.rules);
    let checked_example = crate::rules::checked_example();
    let acknowledgement = crate::expand::acknowledgement::read(input);
    let root_schema = crate::expand::aliases::root_schema(&input.fields);
    let nested_schema = crate::expand::aliases::nested_schema(&input.fields);
    let info = info_expr(input);
    let check_names = crate::rules::names(&input.rules);
    // The hidden struct of an enum's variant is no tool's arguments: a compile error about a
    // type that is not names none of them as one that is.
    let do_not_recommend = input
        .rules
        .whole_checks_elsewhere
        .then(|| quote!(#[diagnostic::do_not_recommend]));

    quote! {
        #[doc(hidden)]
        const _: () = {
            use #krate::__private as __gr;

            #(#asserts)*

            #acknowledgement

            static __FIELDS: [__gr::FieldInfo; #count] = [#(#infos),*];

            // A constant, not a static: inlined, each field's check keeps only its own guards.
            const __QUICK: [__gr::QuickCheck; #count] = [#(#quick_checks),*];

            static __INFO: __gr::ArgsInfo = __gr::ArgsInfo::from_parts(
                #type_name,
                #description,
                &__FIELDS,
                &[],
                &[#(#check_names),*],
            );

            #[automatically_derived]
            #do_not_recommend
            impl __gr::ToolArgs for #ident {
                fn info() -> &'static __gr::ArgsInfo {
                    #info
                }

                fn validate_fields(
                    object: __gr::Map<::std::string::String, __gr::Value>,
                    cx: &mut __gr::Cx,
                ) -> ::core::option::Option<Self> {
                    #(let mut #slots: ::core::option::Option<__gr::Value> = ::core::option::Option::None;)*
                    let mut unknown = ::std::vec::Vec::new();
                    #keep_sent
                    for (key, value) in object {
                        match key.as_str() {
                            #(#arms)*
                            _ => unknown.push((key, value)),
                        }
                    }
                    #container_defaults
                    #mark
                    #(#reads)*
                    #policies
                    #fields_clean
                    if unknown.capacity() == 0 {
                        // No key was unknown: nothing to report, nothing to free.
                        ::core::mem::forget(unknown);
                    } else if !unknown.is_empty() {
                        cx.unknown_fields(unknown, <Self as __gr::ToolArgs>::info().fields());
                    }
                    #(#takes)*
                    #finish
                }

                fn schema() -> &'static __gr::schemars::Schema {
                    static SCHEMA: __gr::OnceLock<__gr::schemars::Schema> = __gr::OnceLock::new();
                    SCHEMA.get_or_init(#root_schema)
                }

                fn example() -> &'static __gr::Value {
                    static EXAMPLE: __gr::OnceLock<__gr::Value> = __gr::OnceLock::new();
                    __gr::lasting_example(&EXAMPLE, || #example)
                }

                fn from_value_unchecked(arguments: __gr::Value) -> ::core::option::Option<Self> {
                    use __gr::{WithDeserialize as _, WithoutDeserialize as _};
                    (&__gr::Probe::<Self>::new(__gr::PhantomData)).read_unchecked(arguments)
                }

                #checked_example
            }

            #[automatically_derived]
            impl __gr::ArgValue for #ident {
                fn kind() -> __gr::Kind {
                    __gr::Kind::Object(<Self as __gr::ToolArgs>::info())
                }

                fn schema() -> __gr::Map<::std::string::String, __gr::Value> {
                    #nested_schema
                }

                fn shape_matches(value: &__gr::Value) -> ::core::primitive::bool {
                    value.is_object()
                }

                fn from_arg(value: __gr::Value, cx: &mut __gr::Cx) -> ::core::option::Option<Self> {
                    match value {
                        __gr::Value::Object(object) => {
                            __gr::nested(cx, |cx| <Self as __gr::ToolArgs>::validate_fields(object, cx))
                        }
                        other => {
                            cx.type_mismatch(&<Self as __gr::ArgValue>::kind(), &other);
                            ::core::option::Option::None
                        }
                    }
                }

                fn example(_: &__gr::Constraints, _: ::core::primitive::usize) -> __gr::Value {
                    __gr::nested_example::<Self>()
                }
            }

            #[automatically_derived]
            impl __gr::schemars::JsonSchema for #ident {
                fn inline_schema() -> ::core::primitive::bool {
                    true
                }

                fn schema_name() -> ::std::borrow::Cow<'static, ::core::primitive::str> {
                    ::std::borrow::Cow::Borrowed(#type_name)
                }

                // The schema of the object inside another schema: without the root's `$schema`
                // and input `examples`, which an output schema must not carry.
                fn json_schema(_: &mut __gr::schemars::SchemaGenerator) -> __gr::schemars::Schema {
                    __gr::schemars::Schema::from(<Self as __gr::ArgValue>::schema())
                }
            }
        };
    }
}
