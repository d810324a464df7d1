//! Where a server keeps the state of its callers' rate limits and loop-breaker memory: in the
//! process (the default), or in a store that several nodes share ([`StateStore`]), so that
//! behind N nodes a caller has one budget and one loop memory, not N.
//!
//! A store that fails or is slow never fails a call: the call is answered from the process's
//! own state, with a warning (target `guardrails::state`) and a count
//! (`guardrails.state.fallbacks`, labelled `operation`), and the store is left alone for a
//! second before it is asked again.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::BoxFuture;

use super::Instant;
use crate::tool::rate::RateLimit;

/// The error a [`StateStore`] fails with: any error, reported in the fallback's warning.
pub type StateError = Box<dyn std::error::Error + Send + Sync>;

/// A store of the state that must be shared by the nodes of a deployment: rate limits and the
/// loop breaker's memory, each under a key of its own ([`GuardConfig::state_store`](crate::GuardConfig::state_store)).
///
/// Each operation is one atomic step of the store, so that two nodes asking at once never both
/// spend the last call of a budget. The keys are made of the tool's name, fixed words and
/// digests of who calls and what they sent: never a value a caller sent.
///
/// `RedisStore` (feature `redis`) keeps them in Redis or Valkey; any other
/// store with atomic counters and expiring keys can implement the four operations.
pub trait StateStore: Send + Sync + 'static {
    /// Admits one call under `limit` for `key`, by the generic cell rate algorithm (a burst of
    /// `limit.calls()`, then one every `limit.period() / limit.calls()`): `None` when the call
    /// is admitted (and counted), else how long to wait before the next one is.
    fn admit<'a>(
        &'a self,
        key: &'a str,
        limit: RateLimit,
    ) -> BoxFuture<'a, Result<Option<Duration>, StateError>>;

    /// Adds one to the counter `key`, which expires `window` after this call: its new value.
    fn count<'a>(
        &'a self,
        key: &'a str,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StateError>>;

    /// The counter `key`, 0 when it does not exist or expired.
    fn peek<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<u32, StateError>>;
}

/// The target of the warning logged when a state store fails and the process's own state
/// answers instead.
pub(crate) const STATE_TARGET: &str = "guardrails::state";

/// Counter of the operations a state store failed (or did not answer in time) and the
/// process's own state answered instead, by `operation` (`admit`, `count`, `peek`).
pub(crate) const STATE_FALLBACKS: &str = "guardrails.state.fallbacks";

/// How long a store has to answer before the process answers instead.
const STORE_TIMEOUT: Duration = Duration::from_millis(250);

/// How long a store that failed is left alone.
const STORE_REST: Duration = Duration::from_secs(1);

/// A state store, with its failures answered from the process.
pub(crate) struct Shared {
    store: std::sync::Arc<dyn StateStore>,
    /// Until when the store is left alone after it failed.
    resting_until: Mutex<Option<Instant>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl Shared {
    pub(crate) fn new(store: std::sync::Arc<dyn StateStore>) -> Self {
        Self {
            store,
            resting_until: Mutex::new(None),
        }
    }

    /// The store's answer to `operation`, or `None` when it failed, was too slow or rests: the
    /// caller answers from the process then.
    async fn ask<T>(
        &self,
        operation: &'static str,
        asked: BoxFuture<'_, Result<T, StateError>>,
    ) -> Option<T> {
        let now = Instant::now();
        {
            let resting = self
                .resting_until
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if resting.is_some_and(|until| now < until) {
                metrics::counter!(STATE_FALLBACKS, "operation" => operation).increment(1);
                return None;
            }
        }
        let error = match tokio_timeout(asked).await {
            Some(Ok(answer)) => return Some(answer),
            Some(Err(error)) => error.to_string(),
            None => format!("no answer within {} ms", STORE_TIMEOUT.as_millis()),
        };
        metrics::counter!(STATE_FALLBACKS, "operation" => operation).increment(1);
        let mut resting = self
            .resting_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // One warning per failure seen while the store was not resting already.
        if resting.is_none_or(|until| now >= until) {
            tracing::warn!(
                target: STATE_TARGET,
                operation,
                error = %crate::text::cut(&error, 200),
                rest_s = STORE_REST.as_secs(),
                "the state store failed: this process's own state answers until it is back",
            );
        }
        *resting = Some(Instant::now() + STORE_REST);
        None
    }

    pub(crate) async fn admit(&self, key: &str, limit: RateLimit) -> Option<Option<Duration>> {
        self.ask("admit", self.store.admit(key, limit)).await
    }

    pub(crate) async fn count(&self, key: &str, window: Duration) -> Option<u32> {
        self.ask("count", self.store.count(key, window)).await
    }

    pub(crate) async fn peek(&self, key: &str) -> Option<u32> {
        self.ask("peek", self.store.peek(key)).await
    }
}

/// `future` within [`STORE_TIMEOUT`]; `None` past it.
#[cfg(feature = "rmcp")]
async fn tokio_timeout<T>(future: BoxFuture<'_, T>) -> Option<T> {
    tokio::time::timeout(STORE_TIMEOUT, future).await.ok()
}

/// Without a runtime of its own (no `rmcp` feature), the store's future is awaited as it is:
/// a store used without rmcp bounds its own time.
#[cfg(not(feature = "rmcp"))]
async fn tokio_timeout<T>(future: BoxFuture<'_, T>) -> Option<T> {
    Some(future.await)
}
