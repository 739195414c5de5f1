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

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use chrono::TimeZone;
    use sitrep_schemas::{DatasetStatus, Freshness};

    use super::*;

    /// Everything logged, as text.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A commit whose co2-monitoring was fetched on 26 November with content of `content_day`.
    fn co2_with_content_of(generation: u64, content_day: u32) -> Commit {
        let at = |day| Utc.with_ymd_and_hms(2026, 11, day, 6, 0, 0).unwrap();
        let mut commit = Commit { generation, ..Commit::genesis() };
        let entry = commit.datasets.get_mut(DatasetId::CO2_MONITORING.as_str()).unwrap();
        entry.freshness = Freshness {
            status: DatasetStatus::Ok,
            fetched_at: Some(at(26)),
            content_at: Some(at(content_day)),
            ..Freshness::never(None)
        };
        commit
    }

    /// The lines `log_frozen_changes` writes from `before` to `after`.
    fn logged(before: Option<&Commit>, after: &Commit) -> Vec<String> {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt().with_ansi(false).with_writer(move || sink.clone()).finish();
        tracing::subscriber::with_default(subscriber, || log_frozen_changes(before, after));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn one_warning_when_an_upstream_freezes_none_while_it_stays_so_and_one_when_it_thaws() {
        let (fresh, frozen, frozen_again) =
            (co2_with_content_of(1, 24), co2_with_content_of(2, 18), co2_with_content_of(3, 18));
        let lines = logged(Some(&fresh), &frozen);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].contains("WARN")
                && lines[0].contains("upstream frozen")
                && lines[0].contains("dataset=co2-monitoring")
        );
        assert!(lines[0].contains("generation=2"), "{lines:?}");
        assert_eq!(logged(Some(&frozen), &frozen_again), Vec::<String>::new(), "no new line while it stays frozen");
        let thawed = logged(Some(&frozen_again), &co2_with_content_of(4, 25));
        assert_eq!(thawed.len(), 1, "{thawed:?}");
        assert!(thawed[0].contains("upstream no longer frozen") && thawed[0].contains("dataset=co2-monitoring"));
        assert_eq!(logged(None, &frozen).len(), 1, "a server starting on a frozen upstream says so once");
    }
}
