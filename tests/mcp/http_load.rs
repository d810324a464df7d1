//! A bounded load test over loopback: concurrent clients list and create tasks for a fixed
//! time (3 s, or `GUARDRAILS_LOAD_SECONDS`); no call may fail, and every task a client was
//! told it created must be stored. Figures for the docs come from `cargo bench --bench
//! http_load`.

use std::time::Duration;

use guardrails::mcp::HttpConfig;
use guardrails_tests::load;

#[tokio::test(flavor = "multi_thread")]
async fn sixteen_clients_listing_and_creating_see_no_error_and_lose_no_task() {
    let seconds = std::env::var("GUARDRAILS_LOAD_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let (addr, tracker) = load::serve_guarded(5_000, HttpConfig::default()).await;
    let report = load::run(addr, 16, Duration::from_secs(seconds)).await;
    eprintln!(
        "16 clients, {seconds} s: {} calls, {:.0} calls/s, p50 {:?}, p99 {:?}, {} errors",
        report.calls,
        report.per_second(),
        report.percentile(500),
        report.percentile(990),
        report.errors
    );
    assert_eq!(report.errors, 0, "{:?}", report.first_errors);
    assert!(
        report.calls >= 32,
        "every client made calls: {}",
        report.calls
    );
    assert!(!report.created.is_empty());
    let mut ids = report.created.clone();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), report.created.len(), "every id is new");
    for id in &report.created {
        assert!(
            tracker.get(*id).is_some(),
            "task {id} was created and is stored"
        );
    }
    assert_eq!(tracker.len(), 5_000 + report.created.len());
}
