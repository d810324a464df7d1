//! Checks across the parsed model: bounds in order, patterns that compile, known formats and
//! profiles, one policy acknowledgement at most, distinct wire names, and examples that satisfy
//! their own field's constraints. Every problem is reported at its own span; what passes
//! becomes the model of [`crate::checked`].

use darling::error::Accumulator;
use proc_macro2::Span;
use syn::Ident;
use syn::spanned::Spanned as _;

use crate::ast::{At, Field, Guards, NumLit, PolicySource, RangeGuard, Scalar, Struct, ValueLit};
use crate::checked::{
    Bound, CheckedField, CheckedGuards, CheckedStruct, Constraints, Pattern, Policy, TypeNeed,
};
use crate::diagnostic::{error, unknown, unknown_or};
use crate::names::{POLICY_PROFILES, STRING_FORMATS, lookup, names};

/// The checked struct, or `None` when a check failed (each failure recorded in `acc`).
/// A field's `custom` check is a rule the example builder cannot see, as a struct-level
/// `check` is: the derive asks for the example written by hand, on the field or on the
/// struct, which the runtime then validates, rather than a server that fails at start.
fn check_custom_examples(input: &Struct<'_>, acc: &mut Accumulator) {
    if input.rules.example.is_some() {
        return;
    }
    for field in input.fields.iter().filter(|f| !f.skip) {
        if let (Some(custom), None) = (&field.guards.custom, &field.guards.example) {
            acc.push(error(
                custom.span(),
                format!(
                    "a `custom` check is a rule the example cannot be built to pass: write the example of `{}`, `#[guard(example = ..)]` on the field, or the struct's, `#[guard(example = r#\"{{..}}\"#)]`",
                    field.ident
                ),
            ));
        }
    }
}

pub(crate) fn check_struct<'a>(
    input: Struct<'a>,
    acc: &mut Accumulator,
) -> Option<CheckedStruct<'a>> {
    let mut found = darling::Error::accumulator();
    check_acknowledgement(&input, &mut found);
    crate::rules::check(
        &input.rules,
        &input.fields,
        |field| field.guards.example.is_some(),
        &mut found,
    );
    check_custom_examples(&input, &mut found);
    let mut seen: Vec<(String, &Ident)> = Vec::new();
    let mut fields = Vec::new();
    for field in input.fields {
        if !field.skip && !field.flatten {
            for name in std::iter::once(&field.wire_name).chain(&field.aliases) {
                if let Some((_, first)) = seen.iter().find(|(seen, _)| seen == name) {
                    found.push(error(
                        field.ident.span(),
                        format!(
                            "field `{}` has the same name on the wire as `{first}`: `{name}`",
                            field.ident
                        ),
                    ));
                }
                seen.push((name.clone(), field.ident));
            }
        }
        fields.extend(found.handle(check_field(field)));
    }
    let checked = CheckedStruct {
        ident: input.ident,
        description: input.description,
        container_default: input.container_default,
        fields,
        rules: input.rules,
    };
    acc.handle(found.finish_with(checked))
}

/// One acknowledgement field at most, and only where a policy can raise warnings to acknowledge.
fn check_acknowledgement(input: &Struct<'_>, acc: &mut Accumulator) {
    let mut acknowledging = input
        .fields
        .iter()
        .filter_map(|field| field.guards.acknowledges_policy.map(|span| (field, span)));
    let Some((first, first_span)) = acknowledging.next() else {
        return;
    };
    for (_, span) in acknowledging {
        acc.push(error(
            span,
            format!(
                "only one field can acknowledge policy warnings, and `{}` already does",
                first.ident
            ),
        ));
    }
    if input
        .fields
        .iter()
        .all(|field| field.guards.policy.is_none())
    {
        acc.push(error(
            first_span,
            format!(
                "`acknowledges_policy` has nothing to acknowledge: no field of `{}` has a `policy` guard",
                input.ident
            ),
        ));
    }
}

fn check_field(field: Field<'_>) -> darling::Result<CheckedField<'_>> {
    if field.skip && !field.guards.is_empty() {
        return Err(error(
            field.ident.span(),
            format!(
                "field `{}` is skipped by serde, so its guards would never run",
                field.ident
            ),
        ));
    }
    let guards = check_guards(field.guards)?;
    Ok(CheckedField {
        ident: field.ident,
        ty: field.ty,
        wire_name: field.wire_name,
        aliases: field.aliases,
        description: field.description,
        default: field.default,
        skip: field.skip,
        flatten: field.flatten,
        guards,
    })
}

/// The guards of one field, resolved; every problem found, in the order the guards are listed.
fn check_guards(g: Guards) -> darling::Result<CheckedGuards> {
    let constrained = g.length.is_some()
        || g.non_empty.is_some()
        || g.range.is_some()
        || g.pattern.is_some()
        || g.format.is_some()
        || g.one_of.is_some()
        || g.unique.is_some()
        || g.multiple_of.is_some();
    let type_needs = type_needs(&g);
    let needs_string = g.pattern.is_some() || g.format.is_some();
    let mut acc = darling::Error::accumulator();
    let (min_length, max_length) = check_length(&g, &mut acc);
    let (minimum, maximum) = g
        .range
        .as_ref()
        .map(|range| check_range(range, &mut acc))
        .unwrap_or_default();
    let pattern = g
        .pattern
        .as_ref()
        .and_then(|pattern| acc.handle(check_pattern(pattern)));
    let format = g.format.as_ref().and_then(|format| {
        let variant = lookup(STRING_FORMATS, &format.value);
        if variant.is_none() {
            acc.push(unknown(
                "format",
                &format.value,
                &names(STRING_FORMATS),
                format.span,
            ));
        }
        variant
    });
    let one_of = g
        .one_of
        .as_ref()
        .map(|one_of| check_one_of(one_of, &mut acc))
        .unwrap_or_default();
    if let (Some(span), Some(_)) = (g.sensitive, &g.policy) {
        acc.push(error(
            span,
            "`sensitive` cannot be combined with `policy`: a policy's findings quote the text they flag",
        ));
    }
    let policy = g.policy.and_then(|policy| acc.handle(check_policy(policy)));
    let multiple_of = g.multiple_of.as_ref().and_then(|step| {
        if step.value.is_positive() {
            Some(step.value)
        } else {
            acc.push(error(
                step.span,
                format!(
                    "`multiple_of` must be a positive number, not {}",
                    step.value
                ),
            ));
            None
        }
    });
    let constraints = Constraints {
        min_length,
        max_length,
        minimum,
        maximum,
        pattern,
        format,
        one_of,
        unique: g.unique.is_some(),
        multiple_of,
    };
    let example = g.example.map(|example| {
        for problem in example_problems(&example.value, &constraints, needs_string) {
            acc.push(error(
                example.span,
                format!(
                    "the example {} breaks its own field's guards: {problem}",
                    example.value.to_json()
                ),
            ));
        }
        example.value.to_json()
    });
    acc.finish_with(CheckedGuards {
        constraints,
        constrained,
        type_needs,
        custom: g.custom,
        policy,
        acknowledges_policy: g.acknowledges_policy.is_some(),
        sensitive: g.sensitive.is_some(),
        no_repair: g.no_repair.is_some(),
        example,
    })
}

/// The guard traits the field's type needs, each at the guard that needs it.
fn type_needs(g: &Guards) -> Vec<(Span, TypeNeed)> {
    [
        (g.length.as_ref().map(|l| l.span), TypeNeed::Length),
        (g.non_empty, TypeNeed::Length),
        (g.range.as_ref().map(|r| r.span), TypeNeed::Numeric),
        (g.multiple_of.as_ref().map(|m| m.span), TypeNeed::Numeric),
        (g.pattern.as_ref().map(|p| p.span), TypeNeed::Text),
        (g.format.as_ref().map(|f| f.span), TypeNeed::Text),
        (g.unique, TypeNeed::Items),
        (g.sensitive, TypeNeed::Leaf),
        one_of_need(g),
    ]
    .into_iter()
    .filter_map(|(span, need)| Some((span?, need)))
    .collect()
}

/// `one_of` needs a type that holds values of the kind of its first value: a string list on a
/// number field rejects every call.
fn one_of_need(g: &Guards) -> (Option<Span>, TypeNeed) {
    let Some(one_of) = &g.one_of else {
        return (None, TypeNeed::Text);
    };
    let need = match one_of.value.first() {
        Some(ValueLit::Scalar(Scalar::Num(_))) => TypeNeed::Numeric,
        Some(ValueLit::Scalar(Scalar::Bool(_))) => TypeNeed::Boolean,
        _ => TypeNeed::Text,
    };
    (Some(one_of.span), need)
}

/// The effective length bounds: `length` with `non_empty` raising the minimum to one.
fn check_length(g: &Guards, acc: &mut Accumulator) -> (Option<u64>, Option<u64>) {
    let declared = g.length.as_ref().map(|l| &l.value);
    let min = declared.and_then(|l| l.min.as_ref());
    let max = declared.and_then(|l| l.max.as_ref());
    if let (Some(min), Some(max)) = (min, max)
        && min.value > max.value
    {
        acc.push(error(
            min.span,
            format!(
                "`min` ({}) is greater than `max` ({})",
                min.value, max.value
            ),
        ));
    }
    let min = min.map(|m| m.value);
    let min = if g.non_empty.is_some() {
        Some(min.unwrap_or(0).max(1))
    } else {
        min
    };
    (min, max.map(|m| m.value))
}

fn check_range(range: &At<RangeGuard>, acc: &mut Accumulator) -> (Option<Bound>, Option<Bound>) {
    let r = &range.value;
    if r.min.is_none() && r.max.is_none() {
        acc.push(error(
            range.span,
            "`range` needs at least one bound: `min`, `max`, `exclusive_min` or `exclusive_max`",
        ));
    }
    if let (Some(min), Some(max)) = (&r.min, &r.max) {
        let order = min.value.cmp(max.value);
        if order.is_gt() {
            acc.push(error(
                min.span,
                format!(
                    "`min` ({}) is greater than `max` ({})",
                    min.value, max.value
                ),
            ));
        } else if order.is_eq() && (r.exclusive_min || r.exclusive_max) {
            acc.push(error(
                min.span,
                format!(
                    "the range allows no value: both bounds are {} and one is exclusive",
                    min.value
                ),
            ));
        }
    }
    let bound = |value: &Option<At<NumLit>>, exclusive| {
        value.as_ref().map(|v| Bound {
            value: v.value,
            exclusive,
        })
    };
    (
        bound(&r.min, r.exclusive_min),
        bound(&r.max, r.exclusive_max),
    )
}

fn check_pattern(pattern: &At<String>) -> darling::Result<Pattern> {
    match regex::Regex::new(&pattern.value) {
        Ok(regex) => Ok(Pattern {
            source: pattern.value.clone(),
            regex,
        }),
        Err(e) => {
            let detail = e
                .to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .to_owned();
            Err(error(
                pattern.span,
                format!("pattern `{}` does not compile: {detail}", pattern.value),
            ))
        }
    }
}

fn check_policy(policy: At<PolicySource>) -> darling::Result<Policy> {
    match policy.value {
        PolicySource::Path(path) => Ok(Policy::Path(path)),
        PolicySource::Profile(name) => lookup(POLICY_PROFILES, &name)
            .map(Policy::Profile)
            .ok_or_else(|| {
                unknown_or(
                    "policy profile",
                    &name,
                    &names(POLICY_PROFILES),
                    "; or give the path of a `fn() -> &'static Policy`",
                    policy.span,
                )
            }),
    }
}

/// The values of `one_of`: scalars of one kind, each once.
fn check_one_of(one_of: &At<Vec<ValueLit>>, acc: &mut Accumulator) -> Vec<Scalar> {
    let Some(first) = one_of.value.first() else {
        acc.push(error(one_of.span, "`one_of` needs at least one value"));
        return Vec::new();
    };
    let kind = |v: &ValueLit| match v {
        ValueLit::Scalar(Scalar::Str(_)) => 0,
        ValueLit::Scalar(Scalar::Num(_)) => 1,
        ValueLit::Scalar(Scalar::Bool(_)) => 2,
        ValueLit::Array(_) => 3,
    };
    if one_of.value.iter().any(|v| kind(v) != kind(first)) {
        acc.push(error(
            one_of.span,
            "the values of `one_of` must all be strings, all numbers or all booleans",
        ));
    }
    let scalars: Vec<Scalar> = one_of
        .value
        .iter()
        .filter_map(|v| match v {
            ValueLit::Scalar(scalar) => Some(scalar.clone()),
            ValueLit::Array(_) => None,
        })
        .collect();
    if scalars.len() < one_of.value.len() {
        acc.push(error(
            one_of.span,
            "the values of `one_of` must be strings, numbers or booleans",
        ));
    }
    let mut texts: Vec<String> = one_of.value.iter().map(ValueLit::to_json).collect();
    texts.sort();
    if let Some([first, _]) = texts.windows(2).find(|w| w[0] == w[1]) {
        acc.push(error(
            one_of.span,
            format!("duplicate value {first} in `one_of`"),
        ));
    }
    scalars
}

/// What an explicit example breaks of its field's constraints (the field's type is checked by
/// the test suite, which validates every example). `needs_string`: the field has a `pattern`
/// or a `format`, which only a string satisfies.
fn example_problems(example: &ValueLit, c: &Constraints, needs_string: bool) -> Vec<String> {
    // Every guard named, none left out: a new guard an example is not checked against does
    // not compile.
    let Constraints {
        min_length,
        max_length,
        minimum,
        maximum,
        pattern,
        format: _, // no format validator here: `checked_example` validates it at run time
        one_of,
        unique,
        multiple_of,
    } = c;
    let mut out = Vec::new();
    let check_len = |len: usize, unit: &str, out: &mut Vec<String>| {
        let len = u64::try_from(len).unwrap_or(u64::MAX);
        if let Some(min) = *min_length
            && len < min
        {
            out.push(format!("it has {len} {unit}, fewer than the minimum {min}"));
        }
        if let Some(max) = *max_length
            && len > max
        {
            out.push(format!("it has {len} {unit}, more than the maximum {max}"));
        }
    };
    match example {
        ValueLit::Scalar(Scalar::Str(s)) => {
            check_len(s.chars().count(), "characters", &mut out);
            if let Some(p) = pattern
                && !p.regex.is_match(s)
            {
                out.push(format!("it does not match `{}`", p.source));
            }
        }
        ValueLit::Array(items) => {
            check_len(items.len(), "items", &mut out);
            if *unique {
                let mut texts: Vec<String> = items.iter().map(ValueLit::to_json).collect();
                texts.sort();
                if texts.windows(2).any(|w| w[0] == w[1]) {
                    out.push("its items are not distinct".into());
                }
            }
        }
        ValueLit::Scalar(Scalar::Num(n)) => {
            if let Some(min) = *minimum
                && !min.admits(*n, false)
            {
                out.push(format!("it is below the range's lower bound {}", min.value));
            }
            if let Some(max) = *maximum
                && !max.admits(*n, true)
            {
                out.push(format!("it is above the range's upper bound {}", max.value));
            }
            if let (Some(NumLit::Int(step)), NumLit::Int(v)) = (*multiple_of, n)
                && v % step != 0
            {
                out.push(format!("it is not a multiple of {step}"));
            }
        }
        ValueLit::Scalar(Scalar::Bool(_)) => {}
    }
    if !one_of.is_empty() && !one_of.iter().any(|v| v.to_json() == example.to_json()) {
        out.push("it is not one of the `one_of` values".into());
    }
    if needs_string && !matches!(example, ValueLit::Scalar(Scalar::Str(_))) {
        out.push("`pattern` and `format` need a string".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use super::check_struct;
    use crate::ast::Struct;
    use crate::checked::{CheckedStruct, Policy};

    /// The checked model of `input`, or the messages of every error found.
    fn check(input: TokenStream, inspect: impl FnOnce(&CheckedStruct<'_>)) -> Vec<String> {
        let input: syn::DeriveInput = syn::parse2(input).unwrap();
        let mut acc = darling::Error::accumulator();
        let checked =
            Struct::from_input(&input, &mut acc).and_then(|parsed| check_struct(parsed, &mut acc));
        match acc.finish() {
            Ok(()) => {
                inspect(&checked.expect("no error, so a checked model"));
                Vec::new()
            }
            Err(errors) => errors.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn names_resolve_to_runtime_variants() {
        let errors = check(
            quote! {
                struct Args {
                    #[guard(format = "uri")]
                    link: String,
                    #[guard(policy = "decision")]
                    answer: String,
                }
            },
            |checked| {
                let [link, answer] = checked.fields.as_slice() else {
                    panic!("two fields");
                };
                assert_eq!(link.guards.constraints.format, Some("Url"));
                assert!(matches!(
                    answer.guards.policy,
                    Some(Policy::Profile("Decision"))
                ));
            },
        );
        assert_eq!(errors, Vec::<String>::new());
    }

    #[test]
    fn bounds_are_compared_beyond_f64_precision() {
        let errors = check(
            quote! {
                struct Args {
                    #[guard(range(min = 9007199254740993, max = 9007199254740992.0))]
                    a: i64,
                    #[guard(range(max = 9007199254740992), example = 9007199254740993)]
                    b: i64,
                }
            },
            |_| {},
        );
        assert_eq!(
            errors,
            [
                "`min` (9007199254740993) is greater than `max` (9007199254740992)",
                "the example 9007199254740993 breaks its own field's guards: it is above the range's upper bound 9007199254740992",
            ]
        );
    }

    #[test]
    fn a_float_too_large_for_f64_is_an_error() {
        let errors = check(
            quote! {
                struct Args {
                    #[guard(one_of(1e400, 2.0))]
                    a: f64,
                    #[guard(range(max = -1e400))]
                    b: f64,
                }
            },
            |_| {},
        );
        assert_eq!(
            errors,
            [
                "the number is too large for an `f64`",
                "the number is too large for an `f64`"
            ]
        );
    }

    #[test]
    fn skipped_fields_keep_no_guards() {
        let errors = check(
            quote! {
                struct Args {
                    #[serde(skip)]
                    #[guard(non_empty)]
                    cache: String,
                }
            },
            |_| {},
        );
        assert_eq!(
            errors,
            ["field `cache` is skipped by serde, so its guards would never run"]
        );
    }
}
