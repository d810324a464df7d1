//! Validation cost against the baselines a user would otherwise reach for, in one run:
//! (a) validate + construct vs plain `serde_json::from_value` without checks;
//! (b) vs `jsonschema` validation plus `from_value`, and the floor: `from_value`, then the same
//!     guards checked by hand;
//! (c) the invalid path: a 5-issue report rendered to XML vs `jsonschema`'s `iter_errors`;
//! (d) the same with a hallucinated key: a create-user call with an unknown key and four other
//!     problems, rendered, vs `jsonschema`'s `iter_errors` collecting instance paths.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use guardrails::RenderOptions;
use guardrails::ToolArgs;
use guardrails_tests::fixtures::{NewTask, Status};
use serde::Deserialize;
use std::hint::black_box;

mod setup {
    pub(crate) mod validation;
}
use setup::validation::{
    create_user_validator, invalid, jsonschema_instance_paths, jsonschema_messages,
    jsonschema_validator, rendered_create_user_report, rendered_report, serde_then_guards,
    unknown_key, valid,
};

/// The same six fields without guards: strict keys and types only. Against serde it measures
/// the framework's own overhead, apart from the work of the checks themselves.
#[derive(Debug, Deserialize, guardrails::ToolArgs)]
#[allow(dead_code, reason = "built and dropped: only construction is measured")]
struct NewTaskUnguarded {
    title: String,
    assignee: String,
    status: Status,
    due: String,
    priority: u8,
    labels: Vec<String>,
}

fn valid_path(c: &mut Criterion) {
    let validator = jsonschema_validator();
    let input = valid();

    let mut group = c.benchmark_group("valid_call");
    group.bench_function("serde_from_value_unchecked", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(serde_json::from_value::<NewTask>(v).unwrap()),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("guardrails_validate", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(NewTask::validate_value(v).unwrap()),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("serde_then_guards_by_hand", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(serde_then_guards(v)),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("serde_from_value_unchecked_unguarded", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(serde_json::from_value::<NewTaskUnguarded>(v).unwrap()),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("guardrails_validate_unguarded", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(NewTaskUnguarded::validate_value(v).unwrap()),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("jsonschema_then_from_value", |b| {
        b.iter_batched(
            || input.clone(),
            |v| {
                assert!(validator.is_valid(&v));
                black_box(serde_json::from_value::<NewTask>(v).unwrap())
            },
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

fn invalid_path(c: &mut Criterion) {
    let validator = jsonschema_validator();
    let input = invalid();
    let options = RenderOptions::default();

    let mut group = c.benchmark_group("invalid_call");
    group.bench_function("guardrails_report_rendered_xml", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(rendered_report(v, &options)),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("jsonschema_iter_errors", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(jsonschema_messages(&validator, &v)),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

fn unknown_key_path(c: &mut Criterion) {
    let validator = create_user_validator();
    let input = unknown_key();
    let options = RenderOptions::default();

    let mut group = c.benchmark_group("invalid_call_unknown_key");
    group.bench_function("guardrails_report_rendered_xml", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(rendered_create_user_report(v, &options)),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("jsonschema_iter_errors_instance_paths", |b| {
        b.iter_batched(
            || input.clone(),
            |v| black_box(jsonschema_instance_paths(&validator, &v)),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(benches, valid_path, invalid_path, unknown_key_path);
criterion_main!(benches);
