//! Which fields do models get wrong: a `metrics` recorder that adds up the issues of rejected
//! calls by tool, declared field and issue code (the counter
//! `guardrails.tool.issues`), and prints them most frequent first. In production the
//! same counter goes to Prometheus or OpenTelemetry (see the README); this is the smallest
//! recorder that answers the question from one run.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use metrics::{
    Counter, CounterFn, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit,
};

/// Issues counted by (tool, field, code).
type Tally = Arc<Mutex<BTreeMap<(String, String, String), u64>>>;

/// The recorder: it keeps the issue counter and ignores every other metric.
#[derive(Debug, Clone, Default)]
pub(crate) struct FieldReport {
    tally: Tally,
}

/// One (tool, field, code) of the issue counter.
struct Slot {
    key: (String, String, String),
    tally: Tally,
}

impl CounterFn for Slot {
    fn increment(&self, value: u64) {
        let mut tally = self.tally.lock().unwrap_or_else(PoisonError::into_inner);
        *tally.entry(self.key.clone()).or_default() += value;
    }
    fn absolute(&self, value: u64) {
        let mut tally = self.tally.lock().unwrap_or_else(PoisonError::into_inner);
        tally.insert(self.key.clone(), value);
    }
}

impl Recorder for FieldReport {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        if key.name() != "guardrails.tool.issues" {
            return Counter::noop();
        }
        let label = |name: &str| {
            key.labels()
                .find(|l| l.key() == name)
                .map_or_else(String::new, |l| l.value().to_owned())
        };
        Counter::from_arc(Arc::new(Slot {
            key: (label("gen_ai.tool.name"), label("field"), label("code")),
            tally: Arc::clone(&self.tally),
        }))
    }
    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }
    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
    }
}

impl FieldReport {
    /// The report: one line per tool, field and code, most frequent first.
    #[must_use]
    pub(crate) fn render(&self) -> String {
        let tally = self.tally.lock().unwrap_or_else(PoisonError::into_inner);
        let mut rows: Vec<(&(String, String, String), &u64)> = tally.iter().collect();
        rows.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let mut out =
            String::from("Which fields do models get wrong (issues of rejected calls):\n");
        let _ = writeln!(out, "{:>5}  {:<14} {:<28} code", "count", "tool", "field");
        for ((tool, field, code), count) in rows {
            let _ = writeln!(out, "{count:>5}  {tool:<14} {field:<28} {code}");
        }
        out
    }
}
