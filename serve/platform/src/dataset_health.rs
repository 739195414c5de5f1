//! One dataset's health as every surface reports it (`/status`, `/api/health`, `get_sources`,
//! `/metrics`): its state and why it is stale, its version, and two ages — of the data's as-of and
//! of its content (the newest time its content clock reads), which tells a frozen upstream apart.

use chrono::{DateTime, Utc};
use sitrep_schemas::{Commit, DatasetEntry, DatasetId, StaleReason};

use crate::kit::answer::DataState;

pub struct DatasetHealth {
    pub state: DataState,
    pub stale_reason: Option<StaleReason>,
    pub version: Option<u64>,
    pub as_of: Option<DateTime<Utc>>,
    pub age_seconds: Option<i64>,
    pub content_at: Option<DateTime<Utc>>,
    pub content_age_seconds: Option<i64>,
}

fn seconds_since(t: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<i64> {
    t.map(|t| (now - t).num_seconds().max(0))
}

impl DatasetHealth {
    pub fn of(dataset: DatasetId, entry: Option<&DatasetEntry>, now: DateTime<Utc>) -> Self {
        let freshness = entry.map(|e| &e.freshness);
        let (state, stale_reason) = DataState::judged(dataset, freshness, now);
        let as_of = freshness.and_then(|f| f.as_of);
        let content_at = freshness.and_then(|f| dataset.content_clock().content_time(f));
        DatasetHealth {
            state,
            stale_reason,
            version: entry.and_then(|e| e.version),
            as_of,
            age_seconds: seconds_since(as_of, now),
            content_at,
            content_age_seconds: seconds_since(content_at, now),
        }
    }
}

/// Whether each dataset's upstream is frozen in `commit`.
fn frozen(commit: Option<&Commit>, dataset: DatasetId) -> bool {
    commit.and_then(|c| c.dataset(dataset)).is_some_and(|e| dataset.content_clock().frozen(&e.freshness))
}

/// One warning line per dataset whose upstream froze, or thawed, between two generations (a
/// server that starts on a frozen one says so once).
pub fn log_frozen_changes(before: Option<&Commit>, after: &Commit) {
    for dataset in DatasetId::ALL {
        let (was, is) = (frozen(before, dataset), frozen(Some(after), dataset));
        if is && !was {
            let entry = after.dataset(dataset);
            let content_at = entry.and_then(|e| dataset.content_clock().content_time(&e.freshness));
            let fetched_at = entry.and_then(|e| e.freshness.fetched_at);
            tracing::warn!(
                %dataset, generation = after.generation, content_at = ?content_at, fetched_at = ?fetched_at,
                "upstream frozen: fetches succeed but the content stopped advancing; served as stale"
            );
        } else if was && !is {
            tracing::warn!(%dataset, generation = after.generation, "upstream no longer frozen: its content advances again");
        }
    }
}
