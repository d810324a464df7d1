//! Telemetry captured in process: a `tracing` subscriber that keeps every span and event as a
//! line of text, and a `metrics` recorder that keeps every counter and histogram. Install both
//! for the current thread ([`Captured::install`]), so that tests running side by side do not
//! see each other's calls.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};

/// What was captured.
#[derive(Debug, Default)]
struct Store {
    /// Each span (`span {name} {fields}`), field recorded later (`record {id} {fields}`) and
    /// event (`event {target} {level} {fields}`), in order.
    lines: Vec<String>,
    /// Counters by key (`name{label=value,…}`).
    counters: BTreeMap<String, u64>,
    /// Histograms by key, every value recorded.
    histograms: BTreeMap<String, Vec<f64>>,
}

/// A capturing subscriber and recorder; clones share what they capture.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    store: Arc<Mutex<Store>>,
    next_span: Arc<AtomicU64>,
}

/// The guards of an installed [`Captured`]: capture lasts until they are dropped.
pub struct Installed {
    _subscriber: tracing::subscriber::DefaultGuard,
    _recorder: metrics::LocalRecorderGuard<'static>,
}

impl Captured {
    /// Installs the subscriber and the recorder for the current thread.
    #[must_use]
    pub fn install(&self) -> Installed {
        // `tracing` keeps each callsite's interest once computed; while a single dispatcher
        // is registered, a callsite first reached on another thread (a test running beside
        // this one, with no subscriber) takes that thread's default alone, is found of no
        // interest, and stays so: this subscriber would never see it. A second dispatcher
        // registered for the whole run makes every callsite ask all the registered ones.
        static SECOND: LazyLock<tracing::Dispatch> =
            LazyLock::new(|| tracing::Dispatch::new(Captured::default()));
        LazyLock::force(&SECOND);
        // The recorder must outlive the guard; a test leaks one small value.
        let recorder: &'static Captured = Box::leak(Box::new(self.clone()));
        Installed {
            _subscriber: tracing::subscriber::set_default(self.clone()),
            _recorder: metrics::set_default_local_recorder(recorder),
        }
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every span, recorded field and event so far, one per line.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        self.store().lines.clone()
    }

    /// The events of `target`, their fields written `name=value`.
    #[must_use]
    pub fn events(&self, target: &str) -> Vec<String> {
        let prefix = format!("event {target} ");
        self.store()
            .lines
            .iter()
            .filter_map(|line| line.strip_prefix(&prefix).map(str::to_owned))
            .collect()
    }

    /// Every counter, by key.
    #[must_use]
    pub fn counters(&self) -> BTreeMap<String, u64> {
        self.store().counters.clone()
    }

    /// Every histogram, by key.
    #[must_use]
    pub fn histograms(&self) -> BTreeMap<String, Vec<f64>> {
        self.store().histograms.clone()
    }

    /// The value of the counter `name` with exactly these labels (in any order), 0 if none.
    #[must_use]
    pub fn counter(&self, name: &str, labels: &[(&str, &str)]) -> u64 {
        let key = render_key(name, labels.iter().map(|&(k, v)| (k, v)));
        self.store().counters.get(&key).copied().unwrap_or(0)
    }

    /// Everything captured as one text, to search for what must not be there.
    #[must_use]
    pub fn all_text(&self) -> String {
        let store = self.store();
        let mut out = store.lines.join("\n");
        for key in store.counters.keys().chain(store.histograms.keys()) {
            out.push('\n');
            out.push_str(key);
        }
        out
    }
}

/// `name{a=1,b=2}`, labels sorted.
fn render_key<'a>(name: &str, labels: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut labels: Vec<(&str, &str)> = labels.collect();
    labels.sort_unstable();
    let mut out = format!("{name}{{");
    for (i, (k, v)) in labels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{k}={v}");
    }
    out.push('}');
    out
}

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={value}", field.name());
    }
}

impl Subscriber for Captured {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let id = self.next_span.fetch_add(1, Ordering::Relaxed) + 1;
        let mut fields = Fields(format!("span {} {id}", span.metadata().name()));
        span.record(&mut fields);
        self.store().lines.push(fields.0);
        Id::from_u64(id)
    }
    fn record(&self, id: &Id, values: &Record<'_>) {
        let mut fields = Fields(format!("record {}", id.into_u64()));
        values.record(&mut fields);
        self.store().lines.push(fields.0);
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        let mut fields = Fields(format!("event {} {}", metadata.target(), metadata.level()));
        event.record(&mut fields);
        self.store().lines.push(fields.0);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// One registered metric, writing into the store.
struct Handle {
    key: String,
    store: Arc<Mutex<Store>>,
}

impl Handle {
    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl CounterFn for Handle {
    fn increment(&self, value: u64) {
        *self.store().counters.entry(self.key.clone()).or_default() += value;
    }
    fn absolute(&self, value: u64) {
        self.store().counters.insert(self.key.clone(), value);
    }
}

impl HistogramFn for Handle {
    fn record(&self, value: f64) {
        self.store()
            .histograms
            .entry(self.key.clone())
            .or_default()
            .push(value);
    }
}

impl GaugeFn for Handle {
    fn increment(&self, _: f64) {}
    fn decrement(&self, _: f64) {}
    fn set(&self, _: f64) {}
}

impl Captured {
    fn handle(&self, key: &Key) -> Arc<Handle> {
        Arc::new(Handle {
            key: render_key(
                key.name(),
                key.labels().map(|label| (label.key(), label.value())),
            ),
            store: Arc::clone(&self.store),
        })
    }
}

impl Recorder for Captured {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        Counter::from_arc(self.handle(key))
    }
    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::from_arc(self.handle(key))
    }
    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::from_arc(self.handle(key))
    }
}

/// The names of the library's spans' and events' targets and of its metrics, as the README
/// and the `operate` module's documentation give them: the tests check what operators read.
pub mod names {
    /// The event of each issue of a rejected call.
    pub const REJECTION_TARGET: &str = "guardrails::rejection";
    /// The event of each tool error.
    pub const TOOL_ERROR_TARGET: &str = "guardrails::tool_error";
    /// The event of a request that failed before any tool ran.
    pub const PROTOCOL_TARGET: &str = "guardrails::protocol";
    /// The warning of a shared state store that failed.
    pub const STATE_TARGET: &str = "guardrails::state";
    /// The duration of each guarded call.
    pub const DURATION: &str = "mcp.server.operation.duration";
    /// Issues of rejected calls.
    pub const ISSUES: &str = "guardrails.tool.issues";
    /// Tool errors.
    pub const TOOL_ERRORS: &str = "guardrails.tool.errors";
    /// Calls refused by a rate limit.
    pub const RATE_LIMITED: &str = "guardrails.tool.rate_limited";
    /// Loop escalations.
    pub const LOOPS: &str = "guardrails.tool.loops";
    /// Repaired calls.
    pub const REPAIRS: &str = "guardrails.tool.repairs";
    /// Rejected calls before each repair.
    pub const REPAIR_RETRIES: &str = "guardrails.tool.repair.retries";
    /// Values repaired in arguments.
    pub const ARGUMENT_REPAIRS: &str = "guardrails.tool.argument_repairs";
    /// Keys dropped from arguments.
    pub const IGNORED_KEYS: &str = "guardrails.tool.ignored_keys";
    /// Requests that failed before any tool ran.
    pub const PROTOCOL_ERRORS: &str = "guardrails.protocol.errors";
    /// Calls a failing shared store answered from the process's state.
    pub const STATE_FALLBACKS: &str = "guardrails.state.fallbacks";
    /// The field of an issue at a key the tool does not declare.
    pub const UNKNOWN_FIELD: &str = "<unknown>";
}
