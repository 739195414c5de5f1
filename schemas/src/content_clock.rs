//! How a dataset's content tells its own time, and how long it may stand still before an upstream
//! that keeps answering is suspected of having frozen (a feed that stopped updating still answers
//! 200, so a successful fetch alone says nothing about the data's age).

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::{DatasetStatus, Freshness};

/// Declared per dataset beside its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentClock {
    /// The newest value of this column is the content's time: a timestamp, a date, or text
    /// `YYYY-MM-DD` / `YYYY-MM` (a month counts from its first day).
    Column { column: &'static str, frozen_after: Duration },
    /// The content has no time of its own: it is as old as the fetch that last changed it.
    Hash { frozen_after: Duration },
    /// Reference content that is expected never to change (normals of 1991–2020, our registry).
    Static,
}

/// Why a dataset with data is `stale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaleReason {
    /// Not fetched successfully within two cadences.
    Overdue,
    /// Fetches succeed, but the content stopped advancing for longer than its clock allows.
    FrozenUpstream,
}

impl StaleReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StaleReason::Overdue => "overdue",
            StaleReason::FrozenUpstream => "frozen_upstream",
        }
    }
}

impl ContentClock {
    pub fn frozen_after(self) -> Option<Duration> {
        match self {
            ContentClock::Column { frozen_after, .. } | ContentClock::Hash { frozen_after } => Some(frozen_after),
            ContentClock::Static => None,
        }
    }

    /// The content's time as the commit records it (`None`: unknown, or a static dataset).
    pub fn content_time(self, freshness: &Freshness) -> Option<DateTime<Utc>> {
        match self {
            ContentClock::Column { .. } => freshness.content_at,
            ContentClock::Hash { .. } => freshness.content_changed_at,
            ContentClock::Static => None,
        }
    }

    /// Frozen: the last attempt succeeded, and at that fetch the content was already older than
    /// the allowance. Judged at the fetch, not now, so a replayed recording is judged at its own
    /// time and the answer never changes between two fetches.
    pub fn frozen(self, freshness: &Freshness) -> bool {
        let (Some(allowance), Some(content), Some(fetched)) =
            (self.frozen_after(), self.content_time(freshness), freshness.fetched_at)
        else {
            return false;
        };
        freshness.status == DatasetStatus::Ok
            && fetched - content > chrono::Duration::from_std(allowance).unwrap_or(chrono::Duration::MAX)
    }
}

/// Days as a `Duration` (the allowances are stated in days).
pub const fn days(n: u64) -> Duration {
    Duration::from_secs(n * 86_400)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(day: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, day, 6, 0, 0).unwrap()
    }

    fn fetched(day: u32, content_at: Option<u32>, changed_at: Option<u32>) -> Freshness {
        Freshness {
            status: DatasetStatus::Ok,
            fetched_at: Some(at(day)),
            content_at: content_at.map(at),
            content_changed_at: changed_at.map(at),
            ..Freshness::never(None)
        }
    }

    #[test]
    fn a_column_clock_is_frozen_once_its_newest_time_is_older_than_the_allowance_at_the_fetch() {
        let clock = ContentClock::Column { column: "measured_at", frozen_after: days(7) };
        assert!(!clock.frozen(&fetched(20, Some(18), None)));
        assert!(!clock.frozen(&fetched(20, Some(13), None)), "exactly the allowance is not yet frozen");
        assert!(clock.frozen(&fetched(20, Some(12), None)));
        assert!(!clock.frozen(&fetched(20, None, Some(1))), "no content time: nothing to judge");
    }

    #[test]
    fn a_hash_clock_counts_from_the_last_change_and_a_failing_or_static_dataset_is_never_frozen() {
        let clock = ContentClock::Hash { frozen_after: days(2) };
        assert!(!clock.frozen(&fetched(20, Some(1), Some(19))));
        assert!(clock.frozen(&fetched(20, Some(19), Some(17))));
        let failing = Freshness { status: DatasetStatus::Degraded, ..fetched(20, None, Some(1)) };
        assert!(!clock.frozen(&failing), "a failing upstream is overdue, not frozen");
        assert!(!ContentClock::Static.frozen(&fetched(20, Some(1), Some(1))));
    }
}
