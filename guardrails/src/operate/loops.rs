//! The loop breaker, and the memory of rejections that counts repairs: both bounded in entries
//! and in time.

use std::collections::HashMap;
use std::hash::{BuildHasher as _, Hasher as _};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::Instant;
use super::caller::{Caller, CallerKey};

/// How the same invalid call arriving again is answered (see
/// [`GuardConfig::loop_breaker`](crate::GuardConfig::loop_breaker)): on by default.
///
/// A call is the same when the tool, the arguments (compared as canonical JSON: the order of
/// keys does not matter) and the codes of the issues found are; it is remembered per caller
/// (over Streamable HTTP, as [`HttpConfig::with_caller`](crate::mcp::HttpConfig::with_caller)
/// tells them apart; a stdio connection; the process for calls made in process), for
/// [`window`](Self::window) after it was last seen, and at most 4096 calls are remembered (the
/// least recently seen go first).
///
/// - The second time, the answer is a shorter message that leads with the caller's own call,
///   corrected: what the server is sure of fixed, a marked hole for each value only the caller
///   knows, never an invented one (see the README's "Operating" section).
/// - From the [`stop_after`](Self::stop_after)th time on, the classification in `_meta` says
///   `retryable: false` and the message tells the model to stop and ask the user.
///
/// ```
/// use std::time::Duration;
/// use guardrails::operate::LoopBreaker;
/// use guardrails::{GuardConfig, Server};
///
/// let breaker = LoopBreaker::new().window(Duration::from_secs(120)).stop_after(4);
/// let server = Server::new(()).config(GuardConfig::new().loop_breaker(breaker));
/// # let _ = server;
/// let off = Server::new(()).config(GuardConfig::new().loop_breaker(LoopBreaker::off()));
/// # let _ = off;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopBreaker {
    pub(crate) enabled: bool,
    pub(crate) window: Duration,
    pub(crate) stop_after: u32,
    pub(crate) max_entries: usize,
}

impl Default for LoopBreaker {
    fn default() -> Self {
        Self::new()
    }
}

impl LoopBreaker {
    /// On, with a window of 5 minutes, a stop from the 3rd same call on, and 4096 calls
    /// remembered.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            enabled: true,
            window: Duration::from_secs(300),
            stop_after: 3,
            max_entries: 4096,
        }
    }

    /// Off: every rejection is answered in full, however often it comes.
    #[must_use]
    pub const fn off() -> Self {
        let mut breaker = Self::new();
        breaker.enabled = false;
        breaker
    }

    /// How long a rejected call is remembered after it was last seen.
    #[must_use]
    pub const fn window(mut self, window: Duration) -> Self {
        self.window = window;
        self
    }

    /// From which time the same call is answered with a directive to stop (at least 2).
    #[must_use]
    pub const fn stop_after(mut self, times: u32) -> Self {
        self.stop_after = if times < 2 { 2 } else { times };
        self
    }

    /// How many rejected calls are remembered at most (at least 1).
    #[cfg(test)]
    #[must_use]
    pub(crate) const fn max_entries(mut self, max: usize) -> Self {
        self.max_entries = if max == 0 { 1 } else { max };
        self
    }
}

/// A time-and-size bounded map, the least recently seen entry evicted first.
#[derive(Debug)]
struct Bounded<K, V> {
    entries: HashMap<K, (Instant, V)>,
    window: Duration,
    max: usize,
}

impl<K: std::hash::Hash + Eq + Clone, V> Bounded<K, V> {
    fn new(window: Duration, max: usize) -> Self {
        Self {
            entries: HashMap::new(),
            window,
            max,
        }
    }

    /// The live entry of `key`, seen now; a new one from `init` when there is none.
    fn touch(&mut self, key: &K, now: Instant, init: impl FnOnce() -> V) -> &mut V {
        let expired = self
            .entries
            .get(key)
            .is_some_and(|(seen, _)| now.saturating_duration_since(*seen) > self.window);
        if expired {
            self.entries.remove(key);
        }
        if !self.entries.contains_key(key) && self.entries.len() >= self.max {
            let window = self.window;
            self.entries
                .retain(|_, (seen, _)| now.saturating_duration_since(*seen) <= window);
            if self.entries.len() >= self.max
                && let Some(oldest) = self
                    .entries
                    .iter()
                    .min_by_key(|(_, (seen, _))| *seen)
                    .map(|(k, _)| k.clone())
            {
                self.entries.remove(&oldest);
            }
        }
        let entry = self
            .entries
            .entry(key.clone())
            .or_insert_with(|| (now, init()));
        entry.0 = now;
        &mut entry.1
    }

    /// Whether `key` has a live entry.
    fn contains(&self, key: &K, now: Instant) -> bool {
        self.entries
            .get(key)
            .is_some_and(|(seen, _)| now.saturating_duration_since(*seen) <= self.window)
    }

    /// Takes the live entry of `key` out.
    fn take(&mut self, key: &K, now: Instant) -> Option<V> {
        let (seen, value) = self.entries.remove(key)?;
        (now.saturating_duration_since(seen) <= self.window).then_some(value)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// The memory of the loop breaker: how often each rejected call was seen, and which
/// arguments were rejected (whatever the issues), so that a call that may be a repeat keeps
/// its arguments for the corrected call.
#[derive(Debug)]
pub(crate) struct Loops {
    config: LoopBreaker,
    seen: Mutex<Bounded<u64, u32>>,
    rejected: Mutex<Bounded<u64, ()>>,
    /// Whether any arguments are remembered: a call reads this rather than taking the lock
    /// when none are. Written under the lock.
    any_rejected: AtomicBool,
}

impl Loops {
    pub(crate) fn new(config: LoopBreaker) -> Option<Self> {
        config.enabled.then(|| Self {
            config,
            seen: Mutex::new(Bounded::new(config.window, config.max_entries)),
            rejected: Mutex::new(Bounded::new(config.window, config.max_entries)),
            any_rejected: AtomicBool::new(false),
        })
    }

    /// Notes that the arguments `key` (the caller, the tool and the arguments, digested) were
    /// rejected.
    pub(crate) fn note_rejected(&self, key: u64, now: Instant) {
        let mut rejected = self.rejected.lock().unwrap_or_else(PoisonError::into_inner);
        rejected.touch(&key, now, || ());
        self.any_rejected.store(true, Ordering::Release);
    }

    /// Whether the arguments `key` were rejected within the window.
    pub(crate) fn was_rejected(&self, key: u64, now: Instant) -> bool {
        if !self.any_rejected.load(Ordering::Acquire) {
            return false;
        }
        let rejected = self.rejected.lock().unwrap_or_else(PoisonError::into_inner);
        rejected.contains(&key, now)
    }

    /// Counts one more rejection of the call `digest` (its caller, tool, arguments and issue
    /// codes); how many times it was seen within the window, this one included.
    pub(crate) fn observe(&self, digest: u64, now: Instant) -> u32 {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let count = seen.touch(&digest, now, || 0);
        *count = count.saturating_add(1);
        *count
    }

    pub(crate) fn stop_after(&self) -> u32 {
        self.config.stop_after
    }

    /// How long a rejected call is remembered.
    pub(crate) fn window(&self) -> Duration {
        self.config.window
    }

    #[cfg(test)]
    fn remembered(&self) -> usize {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// The rejections of each caller's tool since its last successful call, to count repairs.
#[derive(Debug)]
pub(crate) struct Repairs {
    pending: Mutex<Bounded<(CallerKey, String), u32>>,
    /// Whether any rejection waits for its repair: a successful call reads this rather than
    /// taking the lock when none does. Written under the lock.
    any: AtomicBool,
}

/// How long a rejection waits for its repair, and how many callers' tools are followed.
const REPAIR_WINDOW: Duration = Duration::from_secs(600);
const REPAIR_ENTRIES: usize = 4096;

impl Default for Repairs {
    fn default() -> Self {
        Self {
            pending: Mutex::new(Bounded::new(REPAIR_WINDOW, REPAIR_ENTRIES)),
            any: AtomicBool::new(false),
        }
    }
}

impl Repairs {
    /// Notes a rejection of `tool` for `caller`.
    pub(crate) fn rejected(&self, caller: CallerKey, tool: &str, now: Instant) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let count = pending.touch(&(caller, tool.to_owned()), now, || 0);
        *count = count.saturating_add(1);
        self.any.store(true, Ordering::Release);
    }

    /// Whether any rejection waits for its repair.
    pub(crate) fn any_pending(&self) -> bool {
        self.any.load(Ordering::Acquire)
    }

    /// A successful call of `tool` by `caller`: how many rejections it repairs, if any.
    pub(crate) fn succeeded(&self, caller: CallerKey, tool: &str, now: Instant) -> Option<u32> {
        if !self.any_pending() {
            return None;
        }
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let repaired = pending.take(&(caller, tool.to_owned()), now);
        if pending.len() == 0 {
            self.any.store(false, Ordering::Release);
        }
        repaired
    }
}

/// The digest of a call being observed: 64 bits of foldhash's quality hasher, seeded at
/// random once per process.
///
/// A loop is recognised by comparing digests, so no allocation, no sorting of keys that are
/// already sorted (a `serde_json::Map` is a `BTreeMap` unless a dependency asks for
/// `preserve_order`) and no serialization: digesting is a walk of the value. Two different
/// calls of one caller share a digest by chance once in 2^64 pairs, against at most
/// 4096 remembered calls; the seed is secret to the process, so a
/// caller cannot choose calls that collide, and a collision would only make the loop breaker
/// treat one of the caller's own calls as a repeat of another.
#[derive(Clone)]
pub(crate) struct Digest(foldhash::quality::FoldHasher<'static>);

impl Digest {
    /// A digest seeded at random once per process, or, for a state store that nodes share
    /// (`shared`), with a seed fixed in the library, so that every node digests a call alike.
    /// A fixed seed lets a caller choose calls that collide; the digest starts with who calls,
    /// so such calls only confuse the loop breaker about the caller's own calls.
    fn new(shared: bool) -> Self {
        static SEED: std::sync::LazyLock<foldhash::quality::RandomState> =
            std::sync::LazyLock::new(Default::default);
        static FIXED: std::sync::LazyLock<foldhash::quality::FixedState> =
            std::sync::LazyLock::new(|| {
                foldhash::quality::FixedState::with_seed(0x6775_6172_6472_6169)
            });
        if shared {
            Self(FIXED.build_hasher())
        } else {
            Self(SEED.build_hasher())
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }

    fn write_u64(&mut self, n: u64) {
        self.0.write_u64(n);
    }

    /// A string, length first, so that no two sequences of strings feed the same bytes.
    fn write_str(&mut self, text: &str) {
        self.0.write_usize(text.len());
        self.0.write(text.as_bytes());
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// The start of the digest of a call that may be rejected: who called, the tool and the
/// arguments in canonical form (the order of an object's keys does not count). Taken before
/// the call where validation consumes the arguments; [`call_digest`] ends it with the issue
/// codes.
pub(crate) fn arguments_digest(
    shared: bool,
    caller: Caller,
    tool: &str,
    arguments: &serde_json::Value,
) -> Digest {
    let mut digest = Digest::new(shared);
    match caller {
        Some(caller) => {
            digest.write(&[1]);
            digest.write(caller.bytes());
        }
        None => digest.write(&[0]),
    }
    digest.write_str(tool);
    canonical(&mut digest, arguments);
    digest
}

/// The digest of a rejected call: [`arguments_digest`] and the issue codes in order.
pub(crate) fn call_digest<'a>(mut digest: Digest, codes: impl Iterator<Item = &'a str>) -> u64 {
    for code in codes {
        digest.write_str(code);
    }
    digest.finish()
}

fn canonical_object(digest: &mut Digest, map: &serde_json::Map<String, serde_json::Value>) {
    digest.write(b"{");
    digest.write_u64(map.len() as u64);
    // The keys are digested in one pass as they come, which is sorted already unless a
    // dependency turned on `preserve_order`; a key out of order starts again from the state
    // before the first, with the entries sorted.
    let before = digest.clone();
    let mut previous: Option<&String> = None;
    for (key, value) in map {
        if previous.is_some_and(|previous| previous >= key) {
            *digest = before;
            let mut entries: Vec<(&String, &serde_json::Value)> = map.iter().collect();
            entries.sort_unstable_by_key(|(key, _)| *key);
            for (key, value) in entries {
                digest.write_str(key);
                canonical(digest, value);
            }
            return;
        }
        previous = Some(key);
        digest.write_str(key);
        canonical(digest, value);
    }
}

/// Feeds `value` to `digest` in canonical form: object keys sorted, each value tagged with its
/// type, so that `1`, `1.0`, `"1"` and `[1]` differ.
fn canonical(digest: &mut Digest, value: &serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Null => digest.write(b"n"),
        Value::Bool(b) => digest.write(if *b { b"t" } else { b"f" }),
        Value::Number(n) => {
            if let Some(n) = n.as_u64() {
                digest.write(b"u");
                digest.write_u64(n);
            } else if let Some(n) = n.as_i64() {
                digest.write(b"i");
                digest.write_u64(n.cast_unsigned());
            } else {
                digest.write(b"d");
                digest.write_str(&n.to_string());
            }
        }
        Value::String(text) => {
            digest.write(b"s");
            digest.write_str(text);
        }
        Value::Array(items) => {
            digest.write(b"[");
            digest.write_u64(items.len() as u64);
            for item in items {
                canonical(digest, item);
            }
        }
        Value::Object(map) => canonical_object(digest, map),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn digest(value: &serde_json::Value) -> u64 {
        call_digest(
            arguments_digest(false, None, "t", value),
            ["type"].into_iter(),
        )
    }

    #[test]
    fn the_order_of_keys_does_not_matter() {
        assert_eq!(
            digest(&json!({"a": 1, "b": {"x": 1, "y": 2}})),
            digest(&json!({"b": {"y": 2, "x": 1}, "a": 1}))
        );
        assert_ne!(digest(&json!({"a": 1})), digest(&json!({"a": 2})));
        // Each value is tagged with its type, and strings are length-prefixed.
        let distinct = [
            json!({"a": 1}),
            json!({"a": 1.0}),
            json!({"a": "1"}),
            json!({"a": [1]}),
            json!({"a": -1}),
            json!({"a": null}),
            json!({"a": true}),
            json!({"a": "b", "c": ""}),
            json!({"a": "bc", "": ""}),
            json!({"ab": ""}),
        ];
        for (i, x) in distinct.iter().enumerate() {
            for y in &distinct[i + 1..] {
                assert_ne!(digest(x), digest(y), "{x} and {y}");
            }
        }
    }

    #[test]
    fn memory_is_bounded_in_entries_and_time() {
        let loops = Loops::new(
            LoopBreaker::new()
                .max_entries(2)
                .window(Duration::from_secs(10)),
        )
        .unwrap();
        let start = Instant::now();
        assert_eq!(loops.observe(1, start), 1);
        assert_eq!(loops.observe(1, start), 2);
        assert_eq!(loops.observe(2, start + Duration::from_secs(1)), 1);
        // A third call evicts the least recently seen.
        assert_eq!(loops.observe(3, start + Duration::from_secs(2)), 1);
        assert_eq!(loops.remembered(), 2);
        assert_eq!(loops.observe(1, start + Duration::from_secs(3)), 1);
        // Past the window, a call is new again.
        assert_eq!(loops.observe(1, start + Duration::from_secs(30)), 1);
    }
}
