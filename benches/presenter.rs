//! The presenter's cost with an agent limit of 50 must not grow with the collection: 1 k vs
//! 1 M items. The collections are built once, outside the timed loop; the tool lends them as
//! a slice, as a handler returning rows of its state does.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use guardrails::present::{Iter, present_collection};
use guardrails::{RenderOptions, ToolArgs, tool};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize)]
struct Row {
    id: u64,
    title: String,
    assignee: String,
}

/// Arguments of `list_rows`.
#[derive(Debug, Deserialize, ToolArgs)]
struct ListRows {
    /// Only rows of this person.
    assignee: Option<String>,
}

/// Lists rows.
#[tool(agent_limit = 50)]
fn list_rows(args: ListRows) -> Vec<Row> {
    let _ = args.assignee;
    Vec::new()
}

fn rows(n: u64) -> Vec<Row> {
    (0..n)
        .map(|id| Row {
            id,
            title: format!("Row number {id}"),
            assignee: format!("person{}", id % 7),
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let spec = list_rows.spec();
    let options = RenderOptions::default();
    let mut group = c.benchmark_group("presenter_limit_50");
    for n in [1_000u64, 1_000_000] {
        let data = rows(n);
        group.bench_with_input(BenchmarkId::new("slice", n), &data, |b, data| {
            b.iter(|| present_collection(spec, data.as_slice(), &options));
        });
        group.bench_with_input(BenchmarkId::new("exact_iter", n), &data, |b, data| {
            b.iter(|| present_collection(spec, Iter(data.iter()), &options));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
