//! Throughput of the output policy: the one-pass engine against running each rule separately,
//! on a few megabytes of realistic prose with some violations.
//!
//! `cargo bench --bench policy -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guardrails::policy::{Policy, Profile};

/// Sentences an agent might write; most comply, some break a rule of the decision profile.
const COMPLIANT: &[&str] = &[
    "The onboarding flow was reviewed with the support team and the main friction points were listed.",
    "Customers reported that exporting reports takes several steps and is hard to find in the menu.",
    "A phased rollout keeps the risk low and lets the team learn from the first group of accounts.",
    "The proposal focuses on the scheduling module, where most of the manual work happens today.",
    "Moderate investment [AI estimation based on team size and integration scope] is expected.",
    "Strong ROI potential [AI estimation based on efficiency gains] follows from fewer manual steps.",
    "Interviews with six account managers confirmed the pattern [Source: interviews_q3.md].",
    "The integration reuses the existing identity provider, so no new credentials are needed.",
    "Training material can be adapted from the current help centre articles with light edits.",
    "Each stage ends with a review where the team decides whether to continue or adjust the plan.",
    "Latency during peak hours remains the most visible problem for the largest customers.",
    "The data team can provide weekly extracts, which is enough for the first evaluation period.",
];

const VIOLATING: &[&str] = &[
    "This will save $50,000 annually once the new workflow is in place.",
    "We expect a 30% reduction in handling time across all regions.",
    "The vendor claims \"zero downtime during migration\" for the new platform.",
    "Results are guaranteed within the first quarter of operation.",
    "Roughly 40 engineers would be involved in the migration.",
    "The change brings a 3x improvement in report generation speed.",
    "The new cache is 50% faster than the current one.",
    "It costs $120,000 to license the platform for a year.",
    "The rollout takes 6 weeks from kickoff to the last region.",
];

/// A deterministic corpus of about `bytes` bytes: paragraphs of compliant sentences with a
/// violating one in about one sentence out of fifteen.
fn corpus(bytes: usize) -> String {
    // A small linear congruential generator: the same corpus on every run and machine.
    let mut state: u64 = 0x5eed_1234_abcd_0042;
    let mut next = |bound: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(state >> 33).unwrap_or_default() % bound
    };
    let mut text = String::with_capacity(bytes + 256);
    while text.len() < bytes {
        for _ in 0..4 + next(4) {
            let sentence = if next(15) == 0 {
                VIOLATING[next(VIOLATING.len())]
            } else {
                COMPLIANT[next(COMPLIANT.len())]
            };
            text.push_str(sentence);
            text.push(' ');
        }
        text.push_str("\n\n");
    }
    text
}

fn bench_policy(c: &mut Criterion) {
    let text = corpus(4 << 20);
    let policy: Policy = Profile::Decision.policy();
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
        one_pass.critical,
        one_pass.warnings,
        one_pass.advisories,
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
