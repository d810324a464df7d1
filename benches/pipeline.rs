//! A valid call through the guardrails pipeline vs the same tool written as a plain rmcp
//! `#[tool]` with `Parameters<T>`: both are routes of one `ToolRouter`, called in-process
//! without a transport (`ToolRouter::call` with a captured request context).

use criterion::{Criterion, criterion_group, criterion_main};
use guardrails::ToolArgs as _;
use guardrails_tests::create_user::CreateUser;

mod setup {
    pub(crate) mod pipeline;
}
use setup::pipeline::{CreateUserPlain, GUARDED, Harness, PLAIN, UNGUARDED, arguments};

/// On a shared machine, runs measured one after the other see different loads. Interleave
/// batches of the three tools and compare medians, so that all see the same load.
fn interleaved(call: &dyn Fn(&'static str)) {
    let batch = |name: &'static str| {
        let start = std::time::Instant::now();
        for _ in 0..200 {
            call(name);
        }
        start.elapsed().as_secs_f64() / 200.0
    };
    let names = [PLAIN, UNGUARDED, GUARDED];
    let mut samples: [Vec<f64>; 3] = Default::default();
    for _ in 0..300 {
        for (i, name) in names.iter().enumerate() {
            samples[i].push(batch(name));
        }
    }
    let medians: Vec<f64> = samples
        .iter_mut()
        .map(|s| {
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect();
    println!(
        "interleaved medians: plain {:.3} µs, guardrails (types only) {:.3} µs = {:.2}x, guardrails (7 guards) {:.3} µs = {:.2}x",
        medians[0] * 1e6,
        medians[1] * 1e6,
        medians[1] / medians[0],
        medians[2] * 1e6,
        medians[2] / medians[0],
    );
}

fn bench(c: &mut Criterion) {
    let harness = Harness::new();

    interleaved(&|name| {
        let _ = harness.call(name, arguments());
    });

    let mut group = c.benchmark_group("valid_call");
    group.bench_function("rmcp_plain_tool", |b| {
        b.iter(|| harness.call(PLAIN, arguments()));
    });
    group.bench_function("guardrails_tool_types_only", |b| {
        b.iter(|| harness.call(UNGUARDED, arguments()));
    });
    group.bench_function("guardrails_tool", |b| {
        b.iter(|| harness.call(GUARDED, arguments()));
    });
    group.finish();

    // Where the time goes: the arguments step of each tool.
    let mut parts = c.benchmark_group("arguments_only");
    parts.bench_function("serde_from_value", |b| {
        b.iter(|| {
            serde_json::from_value::<CreateUserPlain>(serde_json::Value::Object(arguments()))
                .unwrap()
        });
    });
    parts.bench_function("guardrails_validate", |b| {
        b.iter(|| CreateUser::validate(arguments()).unwrap());
    });
    parts.bench_function("build_arguments", |b| {
        b.iter(arguments);
    });
    parts.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
