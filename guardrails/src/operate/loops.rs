//! The loop breaker, and the memory of rejections that counts repairs: both bounded in entries
//! and in time.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use sha2::{Digest as _, Sha256};

use super::Instant;

/// How the same invalid call arriving again is answered (see
/// [`Server::loop_breaker`](crate::Server::loop_breaker)): on by default.
///
/// A call is the same when the tool, the arguments (compared as canonical JSON: the order of
/// keys does not matter) and the codes of the issues found are; it is remembered per caller
/// where the transport says who calls (a session of Streamable HTTP, a stdio connection), per
/// process otherwise, for [`window`](Self::window) after it was last seen, and at most
/// [`max_entries`](Self::max_entries) calls are remembered (the least recently seen go first).
///
/// - The second time, the answer is a shorter message that leads with the exact corrected
///   call (the tool's valid example).
/// - From the [`stop_after`](Self::stop_after)th time on, the classification in `_meta` says
///   `retryable: false` and the message tells the model to stop and ask the user.
///
/// ```
/// use std::time::Duration;
/// use guardrails::operate::LoopBreaker;
///
/// let breaker = LoopBreaker::new().window(Duration::from_secs(120)).stop_after(4);
/// let server = guardrails::Server::new(()).loop_breaker(breaker);
/// # let _ = server;
/// let off = guardrails::Server::new(()).loop_breaker(LoopBreaker::off());
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
    #[must_use]
    pub const fn max_entries(mut self, max: usize) -> Self {
        self.max_entries = if max == 0 { 1 } else { max };
        self
    }
}

/// Who calls, as far as the transport says: a hash of the session id or of the connection.
pub(crate) type Caller = Option<u64>;

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

    /// Takes the live entry of `key` out.
    fn take(&mut self, key: &K, now: Instant) -> Option<V> {
        let (seen, value) = self.entries.remove(key)?;
        (now.saturating_duration_since(seen) <= self.window).then_some(value)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// The memory of the loop breaker: how often each rejected call was seen.
#[derive(Debug)]
pub(crate) struct Loops {
    config: LoopBreaker,
    seen: Mutex<Bounded<[u8; 32], u32>>,
}

impl Loops {
    pub(crate) fn new(config: LoopBreaker) -> Option<Self> {
        config.enabled.then(|| Self {
            config,
            seen: Mutex::new(Bounded::new(config.window, config.max_entries)),
        })
    }

    /// Counts one more rejection of the call `digest` (its caller, tool, arguments and issue
    /// codes); how many times it was seen within the window, this one included.
    pub(crate) fn observe(&self, digest: [u8; 32], now: Instant) -> u32 {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let count = seen.touch(&digest, now, || 0);
        *count = count.saturating_add(1);
        *count
    }

    pub(crate) fn stop_after(&self) -> u32 {
        self.config.stop_after
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
    pending: Mutex<Bounded<(u64, String), u32>>,
}

/// How long a rejection waits for its repair, and how many callers' tools are followed.
const REPAIR_WINDOW: Duration = Duration::from_secs(600);
const REPAIR_ENTRIES: usize = 4096;

impl Default for Repairs {
    fn default() -> Self {
        Self {
            pending: Mutex::new(Bounded::new(REPAIR_WINDOW, REPAIR_ENTRIES)),
        }
    }
}

impl Repairs {
    /// Notes a rejection of `tool` for `caller`.
    pub(crate) fn rejected(&self, caller: u64, tool: &str, now: Instant) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let count = pending.touch(&(caller, tool.to_owned()), now, || 0);
        *count = count.saturating_add(1);
    }

    /// A successful call of `tool` by `caller`: how many rejections it repairs, if any.
    pub(crate) fn succeeded(&self, caller: u64, tool: &str, now: Instant) -> Option<u32> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if pending.len() == 0 {
            return None;
        }
        pending.take(&(caller, tool.to_owned()), now)
    }
}

/// The start of the digest of a call that may be rejected: who called, the tool and the
/// arguments as canonical JSON (keys sorted at every level). Taken before the call, as
/// validation consumes the arguments; [`call_digest`] ends it with the issue codes.
pub(crate) fn arguments_digest(
    caller: Caller,
    tool: &str,
    arguments: &serde_json::Value,
) -> Sha256 {
    let mut hasher = Sha256::new();
    match caller {
        Some(caller) => {
            hasher.update([1]);
            hasher.update(caller.to_le_bytes());
        }
        None => hasher.update([0]),
    }
    hasher.update(tool.as_bytes());
    hasher.update([0]);
    canonical(&mut hasher, arguments);
    hasher
}

/// The digest of a rejected call: [`arguments_digest`] and the issue codes in order.
pub(crate) fn call_digest<'a>(
    mut hasher: Sha256,
    codes: impl Iterator<Item = &'a str>,
) -> [u8; 32] {
    for code in codes {
        hasher.update(code.as_bytes());
        hasher.update([0]);
    }
    hasher.finalize().into()
}

fn canonical_object(hasher: &mut Sha256, map: &serde_json::Map<String, serde_json::Value>) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    hasher.update(b"{");
    for key in keys {
        hasher.update(serde_json::to_string(key).unwrap_or_default().as_bytes());
        hasher.update(b":");
        canonical(hasher, &map[key]);
        hasher.update(b",");
    }
    hasher.update(b"}");
}

/// Feeds `value` to `hasher` as canonical JSON: object keys sorted.
fn canonical(hasher: &mut Sha256, value: &serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => canonical_object(hasher, map),
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                canonical(hasher, item);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        other => hasher.update(other.to_string().as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn digest(value: &serde_json::Value) -> [u8; 32] {
        call_digest(arguments_digest(None, "t", value), ["type"].into_iter())
    }

    #[test]
    fn the_order_of_keys_does_not_matter() {
        assert_eq!(
            digest(&json!({"a": 1, "b": {"x": 1, "y": 2}})),
            digest(&json!({"b": {"y": 2, "x": 1}, "a": 1}))
        );
        assert_ne!(digest(&json!({"a": 1})), digest(&json!({"a": 2})));
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
        assert_eq!(loops.observe([1; 32], start), 1);
        assert_eq!(loops.observe([1; 32], start), 2);
        assert_eq!(loops.observe([2; 32], start + Duration::from_secs(1)), 1);
        // A third call evicts the least recently seen.
        assert_eq!(loops.observe([3; 32], start + Duration::from_secs(2)), 1);
        assert_eq!(loops.remembered(), 2);
        assert_eq!(loops.observe([1; 32], start + Duration::from_secs(3)), 1);
        // Past the window, a call is new again.
        assert_eq!(loops.observe([1; 32], start + Duration::from_secs(30)), 1);
    }
}
