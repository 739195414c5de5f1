//! When a delivery is tried again. Attempt 1 goes at once; after a failed attempt n the next waits
//! `RETRY_DELAYS[n-1]` ± 20 % (jitter, so the endpoints that failed together do not all come back
//! together): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h — ten attempts over about
//! 3 days 4 hours. A timeout, a refused or reset connection, 408, 425, 429 and any 5xx are worth
//! retrying over the whole schedule; any other answer outside 2xx (a 4xx the receiver means, a
//! redirect, which is never followed) only over the first `CLIENT_ERROR_ATTEMPTS` attempts.

use rand::Rng;

pub const RETRY_DELAYS_MS: [i64; 9] = [
    5_000,
    5 * 60_000,
    30 * 60_000,
    2 * 3_600_000,
    5 * 3_600_000,
    10 * 3_600_000,
    14 * 3_600_000,
    20 * 3_600_000,
    24 * 3_600_000,
];

/// The attempts a delivery gets at most.
pub const MAX_ATTEMPTS: i64 = RETRY_DELAYS_MS.len() as i64 + 1;

/// The attempts a delivery gets when the receiver answers a 4xx that is not about timing.
pub const CLIENT_ERROR_ATTEMPTS: i64 = 3;

/// A `Retry-After` longer than this is not waited for beyond it.
const LONGEST_RETRY_AFTER_MS: i64 = 24 * 3_600_000;

sitrep_schemas::closed_set!(
    /// How an attempt ended, as deliveries list it.
    AttemptOutcome,
    "WebhookAttemptOutcome",
    [
        Delivered = "delivered",
        RetryableStatus = "retryable_status",
        RefusedStatus = "refused_status",
        Timeout = "timeout",
        ConnectionFailed = "connection_failed",
        AddressRefused = "address_refused",
    ]
);

impl AttemptOutcome {
    pub fn parse(name: &str) -> Option<AttemptOutcome> {
        <AttemptOutcome as sitrep_schemas::closed_set::ClosedSet>::from_wire_name(name)
    }
}

/// How one attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptResult {
    /// A 2xx answer.
    Delivered { status: u16 },
    /// An answer worth waiting for (408, 425, 429, 5xx), with its `Retry-After` in ms if any.
    Transient { status: u16, retry_after_ms: Option<i64> },
    /// Any other answer (a 4xx, a 3xx: redirects are not followed).
    Refused { status: u16 },
    /// No answer within the timeout.
    Timeout,
    /// The connection failed (refused, reset, TLS).
    Connection,
    /// The URL's host resolves to no public address (or no longer resolves).
    AddressRefused,
}

impl AttemptResult {
    /// The result of an answer with `status`.
    pub fn of_status(status: u16, retry_after_ms: Option<i64>) -> AttemptResult {
        match status {
            200..=299 => AttemptResult::Delivered { status },
            408 | 425 | 429 | 500..=599 => AttemptResult::Transient { status, retry_after_ms },
            _ => AttemptResult::Refused { status },
        }
    }

    pub fn outcome(self) -> AttemptOutcome {
        match self {
            AttemptResult::Delivered { .. } => AttemptOutcome::Delivered,
            AttemptResult::Transient { .. } => AttemptOutcome::RetryableStatus,
            AttemptResult::Refused { .. } => AttemptOutcome::RefusedStatus,
            AttemptResult::Timeout => AttemptOutcome::Timeout,
            AttemptResult::Connection => AttemptOutcome::ConnectionFailed,
            AttemptResult::AddressRefused => AttemptOutcome::AddressRefused,
        }
    }

    pub fn status(self) -> Option<u16> {
        match self {
            AttemptResult::Delivered { status }
            | AttemptResult::Transient { status, .. }
            | AttemptResult::Refused { status } => Some(status),
            _ => None,
        }
    }
}

/// After attempt `attempt` (1-based) ended with `result` at `now`: when the next one is due, or
/// `None` when the delivery is over (delivered, or failed for good).
pub fn next_attempt_at(attempt: i64, result: AttemptResult, now: i64, rng: &mut impl Rng) -> Option<i64> {
    let last = match result {
        AttemptResult::Delivered { .. } => return None,
        AttemptResult::Refused { .. } => CLIENT_ERROR_ATTEMPTS,
        _ => MAX_ATTEMPTS,
    };
    if attempt >= last {
        return None;
    }
    let base = RETRY_DELAYS_MS[(attempt - 1).clamp(0, RETRY_DELAYS_MS.len() as i64 - 1) as usize];
    let jittered = base + rng.gen_range(-base / 5..=base / 5);
    let asked = match result {
        AttemptResult::Transient { retry_after_ms: Some(ms), .. } => ms.clamp(0, LONGEST_RETRY_AFTER_MS),
        _ => 0,
    };
    Some(now + jittered.max(asked))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_attempts_over_about_three_days() {
        let total: i64 = RETRY_DELAYS_MS.iter().sum();
        assert_eq!(MAX_ATTEMPTS, 10);
        assert!((72 * 3_600_000..80 * 3_600_000).contains(&total), "{total}");
    }

    #[test]
    fn each_result_is_retried_as_documented() {
        let mut rng = rand::thread_rng();
        let server_error = AttemptResult::of_status(503, None);
        let next = next_attempt_at(1, server_error, 0, &mut rng).expect("retried");
        assert!((4_000..=6_000).contains(&next), "{next}");
        assert!(next_attempt_at(9, AttemptResult::Timeout, 0, &mut rng).is_some());
        assert_eq!(next_attempt_at(10, AttemptResult::Timeout, 0, &mut rng), None);
        assert_eq!(next_attempt_at(1, AttemptResult::of_status(204, None), 0, &mut rng), None);
        // A 4xx the receiver means: the first steps only.
        let gone = AttemptResult::of_status(410, None);
        assert!(next_attempt_at(2, gone, 0, &mut rng).is_some());
        assert_eq!(next_attempt_at(3, gone, 0, &mut rng), None);
        assert_eq!(AttemptResult::of_status(302, None), AttemptResult::Refused { status: 302 });
        // 429 waits at least what the receiver asked, at most a day.
        let slow = AttemptResult::of_status(429, Some(600_000));
        assert!(next_attempt_at(1, slow, 0, &mut rng).expect("retried") >= 600_000);
        let slower = AttemptResult::of_status(429, Some(i64::MAX / 2));
        assert!(next_attempt_at(1, slower, 0, &mut rng).expect("retried") <= LONGEST_RETRY_AFTER_MS);
    }
}
