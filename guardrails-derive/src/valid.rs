//! Checks across the parsed model: bounds in order, patterns that compile, known formats, and
//! examples that satisfy their own field's guards. Every problem is reported at its own span.

use darling::error::Accumulator;

use crate::ast::{
    At, FORMAT_NAMES, Field, Guards, NumLit, POLICY_PROFILES, PolicySource, Struct, ValueLit,
};
use crate::diagnostic::{error, unknown, unknown_or};

pub(crate) fn check_struct(input: &Struct<'_>, acc: &mut Accumulator) {
    check_acknowledgement(input, acc);
    let mut seen: Vec<(&str, &syn::Ident)> = Vec::new();
    for field in &input.fields {
        if !field.skip {
            if let Some((_, first)) = seen.iter().find(|(name, _)| *name == field.wire_name) {
                acc.push(error(
                    field.ident.span(),
                    format!(
                        "field `{}` has the same name on the wire as `{first}`: `{}`",
                        field.ident, field.wire_name
                    ),
                ));
            }
            seen.push((&field.wire_name, field.ident));
        }
        check_field(field, acc);
    }
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

fn check_field(field: &Field<'_>, acc: &mut Accumulator) {
    let g = &field.guards;
    if field.skip && !g.is_empty() {
        acc.push(error(
            field.ident.span(),
            format!(
                "field `{}` is skipped by serde, so its guards would never run",
                field.ident
            ),
        ));
        return;
    }
    if let Some(length) = &g.length
        && let (Some(min), Some(max)) = (&length.value.min, &length.value.max)
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
    if let Some(range) = &g.range {
        check_range(range, acc);
    }
    if let Some(pattern) = &g.pattern
        && let Err(e) = regex::Regex::new(&pattern.value)
    {
        let detail = e
            .to_string()
            .lines()
            .last()
            .unwrap_or_default()
            .trim()
            .to_owned();
        acc.push(error(
            pattern.span,
            format!("pattern `{}` does not compile: {detail}", pattern.value),
        ));
    }
    if let Some(format) = &g.format
        && !FORMAT_NAMES.contains(&format.value.as_str())
    {
        acc.push(unknown("format", &format.value, FORMAT_NAMES, format.span));
    }
    if let Some(one_of) = &g.one_of {
        check_one_of(one_of, acc);
    }
    if let Some(policy) = &g.policy {
        check_policy(policy, acc);
    }
    if let Some(step) = &g.multiple_of
        && !(step.value.as_f64() > 0.0 && step.value.as_f64().is_finite())
    {
        acc.push(error(
            step.span,
            format!(
                "`multiple_of` must be a positive number, not {}",
                step.value
            ),
        ));
    }
    for num in [
        g.range.as_ref().and_then(|r| r.value.min.as_ref()),
        g.range.as_ref().and_then(|r| r.value.max.as_ref()),
    ]
    .into_iter()
    .flatten()
    {
        if !num.value.as_f64().is_finite() {
            acc.push(error(num.span, "a bound must be a finite number"));
        }
    }
    if let Some(example) = &g.example {
        for problem in example_problems(&example.value, g) {
            acc.push(error(
                example.span,
                format!(
                    "the example {} breaks its own field's guards: {problem}",
                    example.value.to_json()
                ),
            ));
        }
    }
}

fn check_policy(policy: &At<PolicySource>, acc: &mut Accumulator) {
    let PolicySource::Profile(name) = &policy.value else {
        return;
    };
    if POLICY_PROFILES.iter().any(|(known, _)| known == name) {
        return;
    }
    let names: Vec<&str> = POLICY_PROFILES.iter().map(|(known, _)| *known).collect();
    acc.push(unknown_or(
        "policy profile",
        name,
        &names,
        "; or give the path of a `fn() -> &'static Policy`",
        policy.span,
    ));
}

fn check_range(range: &At<crate::ast::RangeGuard>, acc: &mut Accumulator) {
    let r = &range.value;
    if r.min.is_none() && r.max.is_none() {
        acc.push(error(
            range.span,
            "`range` needs at least one bound: `min`, `max`, `exclusive_min` or `exclusive_max`",
        ));
    }
    if let (Some(min), Some(max)) = (&r.min, &r.max) {
        let (a, b) = (min.value.as_f64(), max.value.as_f64());
        if a > b {
            acc.push(error(
                min.span,
                format!(
                    "`min` ({}) is greater than `max` ({})",
                    min.value, max.value
                ),
            ));
        } else if a.total_cmp(&b).is_eq() && (r.exclusive_min || r.exclusive_max) {
            acc.push(error(
                min.span,
                format!(
                    "the range allows no value: both bounds are {} and one is exclusive",
                    min.value
                ),
            ));
        }
    }
}

fn check_one_of(one_of: &At<Vec<ValueLit>>, acc: &mut Accumulator) {
    if one_of.value.is_empty() {
        acc.push(error(one_of.span, "`one_of` needs at least one value"));
        return;
    }
    let kind = |v: &ValueLit| std::mem::discriminant(v);
    if one_of
        .value
        .iter()
        .any(|v| kind(v) != kind(&one_of.value[0]))
    {
        acc.push(error(
            one_of.span,
            "the values of `one_of` must all be strings, all numbers or all booleans",
        ));
    }
    if one_of.value.iter().any(|v| matches!(v, ValueLit::Array(_))) {
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
}

/// What an explicit example breaks, judged on what the guards say (the field's type is checked
/// by the test suite, which validates every example).
fn example_problems(example: &ValueLit, g: &Guards) -> Vec<String> {
    let mut out = Vec::new();
    let (min_len, max_len) = g.length_bounds();
    let check_len = |len: u64, unit: &str, out: &mut Vec<String>| {
        if let Some(min) = min_len
            && len < min
        {
            out.push(format!("it has {len} {unit}, fewer than the minimum {min}"));
        }
        if let Some(max) = max_len
            && len > max
        {
            out.push(format!("it has {len} {unit}, more than the maximum {max}"));
        }
    };
    match example {
        ValueLit::Str(s) => {
            check_len(s.chars().count() as u64, "characters", &mut out);
            if let Some(p) = &g.pattern
                && let Ok(re) = regex::Regex::new(&p.value)
                && !re.is_match(s)
            {
                out.push(format!("it does not match `{}`", p.value));
            }
        }
        ValueLit::Array(items) => {
            check_len(items.len() as u64, "items", &mut out);
            if g.unique.is_some() {
                let mut texts: Vec<String> = items.iter().map(ValueLit::to_json).collect();
                texts.sort();
                if texts.windows(2).any(|w| w[0] == w[1]) {
                    out.push("its items are not distinct".into());
                }
            }
        }
        ValueLit::Num(n) => {
            if let Some(r) = &g.range {
                let x = n.as_f64();
                if let Some(min) = &r.value.min {
                    let m = min.value.as_f64();
                    if x < m || (r.value.exclusive_min && x.total_cmp(&m).is_eq()) {
                        out.push(format!("it is below the range's lower bound {}", min.value));
                    }
                }
                if let Some(max) = &r.value.max {
                    let m = max.value.as_f64();
                    if x > m || (r.value.exclusive_max && x.total_cmp(&m).is_eq()) {
                        out.push(format!("it is above the range's upper bound {}", max.value));
                    }
                }
            }
            if let (Some(step), NumLit::Int(v)) = (&g.multiple_of, n)
                && let NumLit::Int(s) = step.value
                && s > 0
                && v % s != 0
            {
                out.push(format!("it is not a multiple of {s}"));
            }
        }
        ValueLit::Bool(_) => {}
    }
    if let Some(one_of) = &g.one_of
        && !one_of
            .value
            .iter()
            .any(|v| v.to_json() == example.to_json())
    {
        out.push("it is not one of the `one_of` values".into());
    }
    let needs_string = g.pattern.is_some() || g.format.is_some();
    if needs_string && !matches!(example, ValueLit::Str(_)) {
        out.push("`pattern` and `format` need a string".into());
    }
    out
}
