//! The rate limit a tool declares: how many calls per period, for each caller. The limiter
//! that keeps it is the operations layer's.

use std::time::Duration;

/// A rate limit: at most `calls` calls per `period` for each caller, all of them at once if
/// they come together (a burst of `calls`), then one every `period / calls`.
///
/// Declared on a tool (`#[tool(rate_limit = "10/min")]` on a derived tool,
/// `RouterGuard::tool_rate_limit` on a native one), or for all the tools of a server or a
/// router guard together ([`GuardConfig::rate_limit`](crate::GuardConfig::rate_limit)). A call
/// over a limit never reaches the
/// handler: it is answered with a `RATE_LIMITED` tool error (`isError: true`) that says when
/// to call again in words ("retry in 12 s") and, in `_meta`, as `retryNotBefore`.
///
/// ```
/// use guardrails::operate::RateLimit;
///
/// let limit = RateLimit::per_minute(10);
/// assert_eq!(limit, RateLimit::new(10, std::time::Duration::from_secs(60)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RateLimit {
    calls: u32,
    period: Duration,
}

impl RateLimit {
    /// At most `calls` calls per `period` (at least 1 call, and a period of at least 1 ms).
    #[must_use]
    pub const fn new(calls: u32, period: Duration) -> Self {
        let calls = if calls == 0 { 1 } else { calls };
        let period = if period.as_millis() == 0 {
            Duration::from_millis(1)
        } else {
            period
        };
        Self { calls, period }
    }

    /// At most `calls` calls per second.
    #[must_use]
    pub const fn per_second(calls: u32) -> Self {
        Self::new(calls, Duration::from_secs(1))
    }

    /// At most `calls` calls per minute.
    #[must_use]
    pub const fn per_minute(calls: u32) -> Self {
        Self::new(calls, Duration::from_secs(60))
    }

    /// At most `calls` calls per hour.
    #[must_use]
    pub const fn per_hour(calls: u32) -> Self {
        Self::new(calls, Duration::from_secs(3600))
    }

    /// How many calls per period.
    #[must_use]
    pub const fn calls(&self) -> u32 {
        self.calls
    }

    /// The period.
    #[must_use]
    pub const fn period(&self) -> Duration {
        self.period
    }
}
