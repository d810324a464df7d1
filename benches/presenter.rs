//! The presenter's cost with an agent limit of 50 must not grow with the collection: 1 k vs
//! 1 M items. The collections are built once, outside the timed loop; the tool lends them as
//! a slice, as a handler returning rows of its state does.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
// The presenter alone is what this measures: it is reached the way generated code reaches it.
use guardrails::__private::present_collection;
use guardrails::RenderOptions;
use guardrails::present::Iter;

mod setup {
    pub(crate) mod presenter;
}
use setup::presenter::{Row, list_rows, rows};

fn bench(c: &mut Criterion) {
    let spec = list_rows.spec();
    let options = RenderOptions::default();
    // Interleaved batches over both sizes, so that both see the same machine load.
    let small = rows(1_000);
    let large = rows(1_000_000);
    let batch = |data: &[Row]| {
        let start = std::time::Instant::now();
        for _ in 0..20 {
            let _ = std::hint::black_box(present_collection(spec, data, &options));
        }
        start.elapsed().as_secs_f64() / 20.0
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        a.push(batch(&small));
        b.push(batch(&large));
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (a, b) = (a[a.len() / 2], b[b.len() / 2]);
    println!(
        "interleaved medians at limit 50: 1k items {:.1} µs, 1M items {:.1} µs, ratio 1M/1k = {:.2}",
        a * 1e6,
        b * 1e6,
        b / a
    );
    drop((small, large));

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
