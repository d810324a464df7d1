//! Figures of the Streamable HTTP server over loopback, in one run: throughput and latency of
//! `list_tasks`/`create_task` at 16 and 64 clients against the same tools served by rmcp
//! alone, the memory of 5,000 `initialize` calls that never come back, and the memory of a
//! burst of 64 clients each sending a 1 MiB body at once (each server in a fresh process, with
//! glibc's default arenas and with `MALLOC_ARENA_MAX=2`).
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

/// Clients of the burst, each sending one body of [`BURST_BYTES`] at once.
const BURST_CLIENTS: usize = 64;
const BURST_BYTES: usize = 1_048_000;

/// In a process of its own (`http_load burst guarded|plain`): serves one server, sends it the
/// burst, and prints its row.
fn burst(server: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (addr, _) = if server == "guarded" {
            load::serve_guarded(5_000, HttpConfig::default()).await
        } else {
            load::plain::serve(5_000).await
        };
        let before = load::resident_bytes();
        let start = std::sync::Arc::new(tokio::sync::Barrier::new(BURST_CLIENTS));
        let clients: Vec<_> = (0..BURST_CLIENTS)
            .map(|_| {
                let start = std::sync::Arc::clone(&start);
                tokio::spawn(async move {
                    let mut connection = load::Connection::open(addr).await?;
                    connection.initialize(true).await?;
                    start.wait().await;
                    let arguments = serde_json::json!({"assignee": "nobody"});
                    connection
                        .call_padded(1, "list_tasks", arguments, BURST_BYTES)
                        .await
                })
            })
            .collect();
        let mut statuses = std::collections::BTreeMap::<String, usize>::new();
        for client in clients {
            let status = match client.await {
                Ok(Ok(status)) => status.to_string(),
                Ok(Err(error)) => error,
                Err(error) => error.to_string(),
            };
            *statuses.entry(status).or_default() += 1;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let arenas = std::env::var("MALLOC_ARENA_MAX").unwrap_or_else(|_| "default".into());
        println!(
            "| {server:<10} | {arenas:>7} | {statuses:?} | {} | {} | {} |",
            mib(before),
            mib(load::peak_resident_bytes()),
            mib(load::resident_bytes()),
        );
    });
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|arg| arg == "burst") {
        burst(args.get(at + 1).map_or("guarded", String::as_str));
        return;
    }
    println!("## Burst: {BURST_CLIENTS} clients each sending a {BURST_BYTES}-byte body at once\n");
    println!("| server     | arenas  | HTTP statuses | RSS before | peak RSS | RSS 1 s after |");
    println!("|---|---|---|---|---|---|");
    let me = std::env::current_exe().expect("the bench's own path");
    for arenas in [None, Some("2")] {
        for server in ["guarded", "plain"] {
            let mut child = std::process::Command::new(&me);
            child.args(["burst", server]);
            match arenas {
                Some(max) => child.env("MALLOC_ARENA_MAX", max),
                None => child.env_remove("MALLOC_ARENA_MAX"),
            };
            let status = child.status().expect("the bench runs itself");
            assert!(status.success(), "the burst of {server} failed");
        }
    }
    println!();
    let seconds = args
        .iter()
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
        // The default time an unused session is kept, stated so that the wait below is known.
        let init_timeout = Duration::from_secs(10);
        let config = HttpConfig::default()
            .with_max_sessions_per_client(usize::MAX)
            .with_session_init_timeout(init_timeout);
        let (addr, _) = load::serve_guarded(5_000, config.clone()).await;
        let before = load::resident_bytes();
        let (accepted, refused) = load::open_sessions(addr, 5_000, 32).await;
        let after = load::resident_bytes();
        tokio::time::sleep(init_timeout + Duration::from_secs(2)).await;
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
        tokio::time::sleep(init_timeout + Duration::from_secs(2)).await;
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
