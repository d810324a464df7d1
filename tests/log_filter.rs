//! The README's log filter keeps every value a caller sent out of the logs: rmcp logs each
//! request and result at DEBUG and errors naming what the caller sent at WARN, so the filter
//! keeps rmcp at ERROR, and the library's own targets at DEBUG log no value.
//!
//! In a process of its own: it installs the global subscriber, which every test beside it
//! would write to.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use guardrails::operate::RateLimit;
use guardrails_tests::client::{call, connect};
use guardrails_tests::pipeline_server;
use serde_json::json;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;

/// The filter the README gives, as `RUST_LOG` or `EnvFilter::new` read it.
const README_FILTER: &str = "info,guardrails=debug,rmcp=error";

/// What a log writer wrote.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

/// The values sent, each one a caller's and none to be logged.
const CANARIES: [&str; 4] = [
    "canary-title-5e1f",
    "canary-key-77aa",
    "canary_tool_09",
    "canary-assignee-c3",
];

#[tokio::test]
async fn the_readme_filter_keeps_every_value_out_and_the_library_logs_at_debug() {
    let everything = Buffer::default();
    let filtered = Buffer::default();
    let (all, kept) = (everything.clone(), filtered.clone());
    let subscriber = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(move || all.clone())
                .with_filter(tracing_subscriber::filter::LevelFilter::TRACE),
        )
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(move || kept.clone())
                .with_filter(
                    README_FILTER
                        .parse::<tracing_subscriber::filter::Targets>()
                        .unwrap(),
                ),
        );
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let server = pipeline_server::server(3)
        .config(guardrails::GuardConfig::new().rate_limit(RateLimit::per_hour(6)));
    let client = connect(server).await;
    // A valid call, an invalid one twice (the second is a repeat), a misspelt key, a tool
    // error, an unknown tool, and a call over the limit: every path a call takes.
    let sent = [
        call(
            "create_task",
            json!({"title": CANARIES[0], "assignee": CANARIES[3], "due": "2030-01-31"}),
        ),
        call("create_task", json!({"title": CANARIES[0], CANARIES[1]: 1})),
        call("create_task", json!({"title": CANARIES[0], CANARIES[1]: 1})),
        call("list_tasks", json!({"filter": {"assignee": CANARIES[3]}})),
        call("get_task", json!({"id": 987_654})),
        call("canary_tool_09", json!({"x": CANARIES[0]})),
        call("get_task", json!({"id": 1})),
        call("get_task", json!({"id": 1})),
    ];
    for request in sent {
        let _ = client.call_tool(request).await;
    }
    client.cancel().await.unwrap();

    let everything = everything.text();
    let filtered = filtered.text();
    // rmcp's DEBUG and WARN lines carry what the caller sent: the filter is needed.
    assert!(
        CANARIES.iter().any(|canary| everything.contains(canary)),
        "rmcp logged no value unfiltered: the test would prove nothing\n{everything}"
    );
    // The library logs at DEBUG, and none of it is a value the caller sent.
    assert!(
        filtered.contains("tools/call") && filtered.contains("guardrails::rejection"),
        "{filtered}"
    );
    for canary in CANARIES {
        assert!(
            !filtered.contains(canary),
            "{canary} in the filtered log:\n{filtered}"
        );
    }
    // The library's lines, unfiltered, hold none either.
    for line in everything
        .lines()
        .filter(|line| line.contains(" guardrails"))
    {
        for canary in CANARIES {
            assert!(!line.contains(canary), "{canary} in {line}");
        }
    }
}
