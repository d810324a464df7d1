//! A `tracing` subscriber and a `metrics` recorder that do real work without writing anything
//! out, for measuring what telemetry costs guardrails: the subscriber takes every span and event
//! at `INFO` and above and visits their fields; the recorder keeps each metric in an atomic found
//! by its key in the registry exporters use (`metrics_util`'s).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use metrics::{Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};

/// A subscriber that visits every field of every span and event at `INFO` and above.
#[derive(Default)]
pub(crate) struct Visiting {
    next: AtomicU64,
    fields: AtomicU64,
}

struct Count<'a>(&'a AtomicU64);

impl Visit for Count<'_> {
    fn record_debug(&mut self, _: &Field, value: &dyn std::fmt::Debug) {
        std::hint::black_box(value);
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

impl Subscriber for Visiting {
    // At `INFO` and above, as a production subscriber's filter is by default: the spans and
    // events of guardrails are `INFO`.
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= tracing::Level::INFO
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::INFO)
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        span.record(&mut Count(&self.fields));
        Id::from_u64(self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, values: &Record<'_>) {
        values.record(&mut Count(&self.fields));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        event.record(&mut Count(&self.fields));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// A recorder that keeps each counter and histogram in an atomic, found by its key in the
/// registry metrics exporters keep their metrics in (`metrics_util`'s, sharded and keyed by each
/// key's own hash).
pub(crate) struct Registry {
    metrics: metrics_util::registry::Registry<Key, Atomics>,
}

impl Default for Registry {
    fn default() -> Self {
        Self {
            metrics: metrics_util::registry::Registry::new(Atomics),
        }
    }
}

impl Recorder for Registry {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        self.metrics
            .get_or_create_counter(key, |slot| Counter::from_arc(Arc::clone(slot)))
    }
    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }
    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        self.metrics
            .get_or_create_histogram(key, |slot| Histogram::from_arc(Arc::clone(slot)))
    }
}

/// The storage of [`Registry`]: a counter in an atomic, a histogram as the sum of its values'
/// bits (enough to make recording real work).
struct Atomics;

impl metrics_util::registry::Storage<Key> for Atomics {
    type Counter = Arc<AtomicU64>;
    type Gauge = Arc<AtomicU64>;
    type Histogram = Arc<Bits>;

    fn counter(&self, _: &Key) -> Self::Counter {
        Arc::default()
    }
    fn gauge(&self, _: &Key) -> Self::Gauge {
        Arc::default()
    }
    fn histogram(&self, _: &Key) -> Self::Histogram {
        Arc::default()
    }
}

/// A histogram kept as the sum of its values' bits.
#[derive(Default)]
struct Bits(AtomicU64);

impl metrics::HistogramFn for Bits {
    fn record(&self, value: f64) {
        self.0.fetch_add(value.to_bits() >> 32, Ordering::Relaxed);
    }
}

/// The tool the telemetry ratio calls: the create-user example's, which succeeds.
pub(crate) const TOOL: &str = "create-user";

/// A server of the create-user example's tool.
pub(crate) fn server() -> guardrails::Server<()> {
    guardrails::Server::new(()).tool(guardrails_tests::create_user::create_user)
}

/// A valid call of [`TOOL`]: the handler runs and its result is presented.
pub(crate) fn valid_call() -> serde_json::Map<String, serde_json::Value> {
    guardrails_tests::testing::object(serde_json::json!({
        "username": "john_doe", "email": "john@example.com", "age": 42, "role": "admin",
        "tags": ["a", "b"]
    }))
}

/// Panics unless a valid call succeeds: the ratio is about the successful path.
pub(crate) fn assert_succeeds(runtime: &tokio::runtime::Runtime, server: &guardrails::Server<()>) {
    let output = runtime
        .block_on(server.call(TOOL, valid_call()))
        .expect("the tool exists");
    assert!(!output.is_error, "{output:?}");
}

/// The instruments of one successful call as guardrails sets them (the span `tools/call` with the
/// conventions' attributes, entered once while the tool runs, the clock read at its start and
/// again for the duration histogram, recorded under the same key) with no call inside: what
/// the subscriber and the recorder charge for the conventions alone.
pub(crate) struct Instruments {
    otel_name: String,
    tool: SharedString,
    key: Key,
}

impl Instruments {
    pub(crate) fn new() -> Self {
        let tool = SharedString::from(Arc::<str>::from(TOOL));
        let key = Key::from_parts(
            "mcp.server.operation.duration",
            vec![
                metrics::Label::from_static_parts("mcp.method.name", "tools/call"),
                metrics::Label::new("gen_ai.tool.name", tool.clone()),
            ],
        );
        Self {
            otel_name: format!("tools/call {TOOL}"),
            tool,
            key,
        }
    }

    /// One call's worth of instruments.
    pub(crate) fn observe(&self) {
        static METADATA: Metadata<'static> =
            Metadata::new(module_path!(), metrics::Level::INFO, Some(module_path!()));
        let span = tracing::info_span!(
            target: "guardrails::call",
            "tools/call",
            otel.name = &*self.otel_name,
            otel.kind = "server",
            mcp.method.name = "tools/call",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = &*self.tool,
            error.type = tracing::field::Empty,
            guardrails.correlation_id = tracing::field::Empty,
        );
        let start = std::time::Instant::now();
        drop(std::hint::black_box(span.enter()));
        metrics::with_recorder(|recorder| {
            recorder
                .register_histogram(&self.key, &METADATA)
                .record(start.elapsed().as_secs_f64());
        });
    }
}
