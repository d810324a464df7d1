//! Rate limits of tool calls, per tool and server-wide, each kept per caller: the MCP
//! specification says servers MUST rate-limit tool invocations. The limiter is `governor`'s
//! (GCRA), on the clock the loop breaker reads.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};

use super::Caller;
use crate::tool::rate::RateLimit;

/// The `governor` quota of a limit: a burst of `calls`, then one every `period / calls`.
fn quota(limit: RateLimit) -> Quota {
    let burst = NonZeroU32::new(limit.calls()).unwrap_or(NonZeroU32::MIN);
    let every = (limit.period() / limit.calls()).max(Duration::from_nanos(1));
    Quota::with_period(every)
        .unwrap_or_else(|| Quota::per_second(burst))
        .allow_burst(burst)
}

/// The clock of the limits: tokio's (which tests pause and advance) as a std `Instant`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LimitClock;

impl Clock for LimitClock {
    type Instant = std::time::Instant;

    fn now(&self) -> Self::Instant {
        #[cfg(feature = "rmcp")]
        {
            tokio::time::Instant::now().into_std()
        }
        #[cfg(not(feature = "rmcp"))]
        {
            std::time::Instant::now()
        }
    }
}

type Keyed =
    RateLimiter<Caller, HashMapStateStore<Caller>, LimitClock, NoOpMiddleware<std::time::Instant>>;

/// How many callers a limiter follows before it forgets those back to a full burst.
const MAX_CALLERS: usize = 4096;

/// A limit with its state per caller.
struct Limiter {
    limit: RateLimit,
    keyed: Keyed,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl Limiter {
    fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            keyed: RateLimiter::hashmap_with_clock(quota(limit), LimitClock),
        }
    }

    /// Lets a call of `caller` through, or says how long to wait.
    fn check(&self, caller: Caller) -> Result<(), Duration> {
        let checked = self.keyed.check_key(&caller);
        if self.keyed.len() > MAX_CALLERS {
            self.keyed.retain_recent();
        }
        checked.map_err(|not_until| not_until.wait_time_from(LimitClock.now()))
    }
}

/// The limits of a server or a router guard: one per tool that declares one, and one for all
/// tools together.
#[derive(Debug, Default)]
pub(crate) struct Limits {
    per_tool: HashMap<String, Limiter>,
    all: Option<Limiter>,
}

impl Limits {
    pub(crate) fn new<'a>(
        per_tool: impl IntoIterator<Item = (&'a str, RateLimit)>,
        all: Option<RateLimit>,
    ) -> Self {
        Self {
            per_tool: per_tool
                .into_iter()
                .map(|(tool, limit)| (tool.to_owned(), Limiter::new(limit)))
                .collect(),
            all: all.map(Limiter::new),
        }
    }

    /// Lets a call of `tool` by `caller` through, or says how long to wait. A call refused by
    /// the tool's limit does not count against the server's.
    pub(crate) fn check(&self, tool: &str, caller: Caller) -> Result<(), Duration> {
        if let Some(limiter) = self.per_tool.get(tool) {
            limiter.check(caller)?;
        }
        match &self.all {
            Some(limiter) => limiter.check(caller),
            None => Ok(()),
        }
    }

    /// The limit of `tool`, and the limit of all tools together.
    pub(crate) fn of(&self, tool: &str) -> (Option<RateLimit>, Option<RateLimit>) {
        (
            self.per_tool.get(tool).map(|limiter| limiter.limit),
            self.all.as_ref().map(|limiter| limiter.limit),
        )
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.per_tool.is_empty() && self.all.is_none()
    }
}
