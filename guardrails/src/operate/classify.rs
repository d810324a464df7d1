//! The classification of a failed call that a model can act on and an operator can correlate:
//! the shape of the draft proposal SEP-3313 (`class`, `code`, `retryable`, `retryNotBefore`,
//! `correlationId`, `agentGuidance`), in the result's `_meta`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::message::tool_error::ErrorCode;

/// The key of the `_meta` entry where an error result carries its classification:
///
/// ```json
/// {"class": "validation", "code": "INVALID_ARGUMENTS", "retryable": true,
///  "correlationId": "9f2c51e0a4b7d316", "agentGuidance": "Fix the fields …"}
/// ```
///
/// - `class`: `validation` (the guard refused the arguments; the handler never ran),
///   `rate_limited`, `not_found`, `conflict`, `permission`, `transient`, `internal` or
///   `application` (a code of the tool's own);
/// - `code`: `INVALID_ARGUMENTS` for a rejection, else the tool error's code;
/// - `retryable`: whether calling again can succeed. A tool error is retryable only when its
///   code says the failure is passing (`TIMEOUT`, `UNAVAILABLE`, `RATE_LIMITED`) *and* the tool
///   is annotated idempotent or read-only: the handler ran, and running a tool with effects
///   twice is not the model's call to make. A rejection or a rate limit never reached the
///   handler, so a corrected or later call is safe whatever the tool does; the loop breaker
///   turns it `false` when the same invalid call keeps coming back;
/// - `retryNotBefore`: when known (a rate limit, a tool error with a retry delay), the
///   earliest time to call again, RFC 3339 in UTC;
/// - `correlationId`: the id of the call, also on its `tools/call` span, to find it in the logs;
/// - `agentGuidance`: one sentence of what to do next.
///
/// The key is the project's own while SEP-3313 is a draft; should the proposal be accepted
/// under another key, this constant is the one line to change.
pub(crate) const FAILURE_META_KEY: &str = "dev.guardrails/failure";

/// The class of a tool error's code.
pub(crate) fn class_of(code: &ErrorCode) -> &'static str {
    match code {
        ErrorCode::NotFound => "not_found",
        ErrorCode::InvalidArgument => "validation",
        ErrorCode::Unauthorized | ErrorCode::Forbidden => "permission",
        ErrorCode::Conflict => "conflict",
        ErrorCode::RateLimited => "rate_limited",
        ErrorCode::Timeout | ErrorCode::Unavailable => "transient",
        ErrorCode::Internal => "internal",
        _ => "application",
    }
}

/// Whether a tool error with this code may succeed when called again with the same arguments,
/// for a tool that may be run twice (`repeatable`: annotated idempotent or read-only).
pub(crate) fn retryable(code: &ErrorCode, repeatable: bool) -> bool {
    repeatable
        && matches!(
            code,
            ErrorCode::Timeout | ErrorCode::Unavailable | ErrorCode::RateLimited
        )
}

/// The classification object.
pub(crate) fn failure_meta(
    class: &str,
    code: &str,
    retryable: bool,
    retry_after: Option<Duration>,
    correlation_id: &str,
    guidance: &str,
) -> Value {
    let mut meta = json!({
        "class": class,
        "code": code,
        "retryable": retryable,
        "correlationId": correlation_id,
        "agentGuidance": guidance,
    });
    if let Some(delay) = retry_after {
        meta["retryNotBefore"] = Value::String(rfc3339(SystemTime::now() + delay));
    }
    meta
}

/// `time` as RFC 3339 in UTC, to the second (rounded up, never earlier than meant).
fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs() + u64::from(since.subsec_nanos() > 0);
    let days = secs / 86_400;
    let rest = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The calendar date of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
        let later = UNIX_EPOCH + Duration::from_millis(1_764_154_800_500);
        assert_eq!(rfc3339(later), "2025-11-26T11:00:01Z");
    }

    #[test]
    fn a_tool_with_effects_is_never_retryable() {
        assert!(retryable(&ErrorCode::Unavailable, true));
        assert!(!retryable(&ErrorCode::Unavailable, false));
        assert!(!retryable(&ErrorCode::Internal, true));
    }
}
