//! Figures of the Streamable HTTP server over loopback, in one run: throughput and latency of
//! `list_tasks`/`create_task` at 16 and 64 clients against the same tools served by rmcp
//! alone, and the memory of 5,000 `initialize` calls that never come back.
//!
//! `cargo bench --bench http_load` (10 s per measure; `-- SECONDS` for another duration).
//! Clients and servers share the machine's cores.

use std::time::Duration;

use guardrails::mcp::HttpConfig;
use guardrails_tests::load::{self, LoadReport};

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "?".into(),
        |b| format!("{}.{} MiB", b / 1_048_576, b % 1_048_576 * 10 / 1_048_576),
    )
}

fn row(server: &str, clients: usize, report: &LoadReport) {
    println!(
        "| {server:<10} | {clients:>7} | {:>7} | {:>8.0} | {:>8.2} | {:>8.2} | {:>6} |",
        report.calls,
        report.per_second(),
        report.percentile(500).as_secs_f64() * 1e3,
        report.percentile(990).as_secs_f64() * 1e3,
        report.errors,
    );
}

fn main() {
    let seconds = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse::<u64>().ok())
        .unwrap_or(10);
    let duration = Duration::from_secs(seconds);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        // Memory first, in a fresh process: 5,000 sessions opened and never used.
        println!("## Sessions: 5,000 `initialize` calls that never come back\n");
        println!("| server | accepted | refused | RSS before | RSS after | RSS 12 s later |");
        println!("|---|---|---|---|---|---|");
        // Every session comes from one address: its fair share is lifted, so that the table
        // fills as it would with many clients.
        let config = HttpConfig::default().with_max_sessions_per_client(usize::MAX);
        let (addr, _) = load::serve_guarded(5_000, config.clone()).await;
        let before = load::resident_bytes();
        let (accepted, refused) = load::open_sessions(addr, 5_000, 32).await;
        let after = load::resident_bytes();
        tokio::time::sleep(config.session_init_timeout + Duration::from_secs(2)).await;
        let later = load::resident_bytes();
        println!(
            "| guardrails | {accepted} | {refused} | {} | {} | {} |",
            mib(before),
            mib(after),
            mib(later)
        );
        let (addr, _) = load::plain::serve(5_000).await;
        let before = load::resident_bytes();
        let (accepted, refused) = load::open_sessions(addr, 5_000, 32).await;
        let after = load::resident_bytes();
        tokio::time::sleep(config.session_init_timeout + Duration::from_secs(2)).await;
        let later = load::resident_bytes();
        println!(
            "| plain rmcp | {accepted} | {refused} | {} | {} | {} |",
            mib(before),
            mib(after),
            mib(later)
        );

        println!("\n## Calls: `list_tasks` and `create_task` in turn, {seconds} s each\n");
        println!("| server     | clients |   calls |  calls/s | p50 (ms) | p99 (ms) | errors |");
        println!("|------------|---------|---------|----------|----------|----------|--------|");
        let mut ratios = Vec::new();
        for clients in [16, 64] {
            let (addr, _) = load::serve_guarded(5_000, HttpConfig::default()).await;
            let guarded = load::run(addr, clients, duration).await;
            row("guardrails", clients, &guarded);
            let (addr, _) = load::plain::serve(5_000).await;
            let plain = load::run(addr, clients, duration).await;
            row("plain rmcp", clients, &plain);
            ratios.push((clients, guarded.per_second() / plain.per_second()));
        }
        println!();
        for (clients, ratio) in ratios {
            println!("{clients} clients: guardrails serves {ratio:.2}× the calls/s of plain rmcp");
        }
    });
}
