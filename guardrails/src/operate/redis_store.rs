//! The state of rate limits and the loop breaker in Redis (or Valkey), shared by the nodes of a
//! deployment: the `redis` crate's connection manager, which reconnects on its own, and one
//! round trip per operation, each atomic on the server.

use std::time::Duration;

use futures_util::future::BoxFuture;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::state::{StateError, StateStore};
use crate::tool::rate::RateLimit;

/// The generic cell rate algorithm in one step on the server, on the server's clock (`TIME`),
/// so that every node reads the same time. `KEYS[1]` holds the theoretical arrival time of the
/// next call in microseconds; `ARGV[1]` is the interval between calls and `ARGV[2]` the
/// tolerance of a burst (`interval * (burst - 1)`), both in microseconds. Answers 0 when the
/// call is admitted, else the microseconds to wait.
const GCRA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat or tat < now then tat = now end
local allow_at = tat - tolerance
if now < allow_at then return allow_at - now end
local next_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%d', next_tat), 'PX', math.ceil((next_tat - now) / 1000) + 1)
return 0
";

/// A [`StateStore`] in Redis or Valkey (feature `redis`), through the `redis` crate's
/// connection manager: connected on first use, reconnected on its own after a failure.
///
/// A rate limit is one Lua script (the generic cell rate algorithm, on the server's clock); a
/// rejected call's loop memory is one or two counters, each incremented and given its expiry
/// in one transaction. Every key starts with a prefix (`guardrails:` unless set), followed by
/// `rate:`, `loop:` or `args:` and digests: no value a caller sent.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use guardrails::operate::RedisStore;
///
/// let store = RedisStore::open("redis://127.0.0.1:6379/")?.prefix("tracker:");
/// let config = guardrails::GuardConfig::new().state_store(store);
/// let server = guardrails::Server::new(()).config(config);
/// # let _ = server;
/// # Ok(()) }
/// ```
pub struct RedisStore {
    client: redis::Client,
    manager: tokio::sync::OnceCell<ConnectionManager>,
    prefix: String,
    gcra: redis::Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// How long a connection attempt or a command may take: the server answers from its own state
/// past it.
const REDIS_TIMEOUT: Duration = Duration::from_millis(200);

impl RedisStore {
    /// A store at `url` (`redis://host:port/db`, `rediss://` with the `redis` crate's TLS
    /// features, `unix:///path`). Nothing is connected until the first call that needs it.
    ///
    /// # Errors
    /// When `url` is not a Redis URL.
    pub fn open(url: &str) -> Result<Self, redis::RedisError> {
        Ok(Self {
            client: redis::Client::open(url)?,
            manager: tokio::sync::OnceCell::new(),
            prefix: "guardrails:".to_owned(),
            gcra: redis::Script::new(GCRA),
        })
    }

    /// Starts every key with `prefix` instead of `guardrails:`: for servers of different tools
    /// that share one Redis and must not share budgets.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    async fn connection(&self) -> Result<ConnectionManager, StateError> {
        let manager = self
            .manager
            .get_or_try_init(|| async {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(REDIS_TIMEOUT))
                    .set_response_timeout(Some(REDIS_TIMEOUT))
                    .set_number_of_retries(2)
                    .set_max_delay(Duration::from_secs(1));
                ConnectionManager::new_lazy_with_config(self.client.clone(), config)
            })
            .await?;
        Ok(manager.clone())
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }
}

/// Microseconds, as the script reads them: at least 1.
fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros())
        .unwrap_or(u64::MAX)
        .max(1)
}

impl StateStore for RedisStore {
    fn admit<'a>(
        &'a self,
        key: &'a str,
        limit: RateLimit,
    ) -> BoxFuture<'a, Result<Option<Duration>, StateError>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            let interval = micros(limit.period() / limit.calls());
            let tolerance = interval.saturating_mul(u64::from(limit.calls() - 1));
            let wait: i64 = self
                .gcra
                .key(self.key(key))
                .arg(interval)
                .arg(tolerance)
                .invoke_async(&mut connection)
                .await?;
            Ok((wait > 0).then(|| Duration::from_micros(wait.unsigned_abs())))
        })
    }

    fn count<'a>(
        &'a self,
        key: &'a str,
        window: Duration,
    ) -> BoxFuture<'a, Result<u32, StateError>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            let key = self.key(key);
            let millis = u64::try_from(window.as_millis()).unwrap_or(u64::MAX).max(1);
            let (count,): (u32,) = redis::pipe()
                .atomic()
                .incr(&key, 1)
                .pexpire(&key, i64::try_from(millis).unwrap_or(i64::MAX))
                .ignore()
                .query_async(&mut connection)
                .await?;
            Ok(count)
        })
    }

    fn peek<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<u32, StateError>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            let count: Option<u32> = redis::cmd("GET")
                .arg(self.key(key))
                .query_async(&mut connection)
                .await?;
            Ok(count.unwrap_or(0))
        })
    }
}
