//! Throughput of the output policy: the one-pass engine against running each rule separately,
//! on a few megabytes of realistic prose with some violations.
//!
//! `cargo bench --bench policy -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guardrails::policy::{Policy, Profile, RuleSeverity};

mod setup {
    pub(crate) mod policy;
}
use setup::policy::{COMPLIANT, VIOLATING, corpus, non_ascii_corpus};

fn bench_policy(c: &mut Criterion) {
    let text = corpus(4 << 20);
    let policy: Policy = Profile::Decision.policy().clone();
    let one_pass = policy.check(&text);
    assert_eq!(
        one_pass,
        policy.check_each_rule_separately(&text),
        "the two scans must agree before they are compared"
    );
    eprintln!(
        "corpus: {} bytes, {} rules, {} violations ({} critical, {} warnings, {} advisories)",
        text.len(),
        policy.rules().len(),
        one_pass.violations.len(),
        one_pass.count(RuleSeverity::Critical),
        one_pass.count(RuleSeverity::Warning),
        one_pass.count(RuleSeverity::Advisory),
    );

    let mut group = c.benchmark_group("policy");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function("one_pass", |bencher| {
        bencher.iter(|| policy.check(black_box(&text)));
    });
    group.bench_function("per_rule", |bencher| {
        bencher.iter(|| policy.check_each_rule_separately(black_box(&text)));
    });
    group.finish();

    // Text that is not ASCII with the same violations: its time per byte should stay close.
    let mut throughput = c.benchmark_group("policy_1mb");
    throughput.sample_size(10);
    for (name, text) in [
        ("ascii", corpus(1 << 20)),
        ("non_ascii", non_ascii_corpus(1 << 20)),
    ] {
        throughput.throughput(Throughput::Bytes(text.len() as u64));
        throughput.bench_function(name, |bencher| {
            bencher.iter(|| policy.check(black_box(&text)));
        });
    }
    throughput.finish();

    // The size of a tool argument: here fixed costs per check dominate, not throughput.
    let mut short = c.benchmark_group("policy_short");
    for (name, text) in [("clean", COMPLIANT[0]), ("violating", VIOLATING[0])] {
        short.throughput(Throughput::Bytes(text.len() as u64));
        short.bench_function(format!("one_pass/{name}"), |bencher| {
            bencher.iter(|| policy.check(black_box(text)));
        });
        short.bench_function(format!("per_rule/{name}"), |bencher| {
            bencher.iter(|| policy.check_each_rule_separately(black_box(text)));
        });
    }
    short.finish();
}

criterion_group!(benches, bench_policy);
criterion_main!(benches);
