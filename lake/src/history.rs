//! A dataset's published versions, read from the commit log, and the retention policy: which of
//! them stay readable (answers `as_of` a past time, cursors, `list-dataset-versions`) and which
//! files the garbage collector must therefore keep. Serve and gc compute it from the same history,
//! so what one answers the other has not deleted.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};
use sitrep_schemas::{Commit, DatasetEntry, DatasetId};

use crate::{Lake, LakeError};

/// One version of a dataset: generation `version` published it at `published_at`.
#[derive(Debug, Clone)]
pub struct PublishedVersion {
    pub version: u64,
    pub published_at: DateTime<Utc>,
    /// The dataset's entry in the commit that published it (files, rows, content hash, mode).
    pub entry: DatasetEntry,
}

impl PublishedVersion {
    /// Whether it was published by `t`, to the millisecond: times are given and shown in epoch
    /// milliseconds, so a version's own `publishedAt` finds it.
    pub fn published_by(&self, t: DateTime<Utc>) -> bool {
        published_by(self.published_at, t)
    }
}

/// Whether something published at `published_at` was published by `t`, to the millisecond.
pub fn published_by(published_at: DateTime<Utc>, t: DateTime<Utc>) -> bool {
    published_at.timestamp_millis() <= t.timestamp_millis()
}

/// The newest versions of each dataset that stay readable whatever their age (SUPPLEMENT 1.7).
pub const NEWEST_VERSIONS_KEPT: usize = 3;

/// Which versions stay readable: every version current at some time of the last
/// `every_version_for`, then the version current at the end of each UTC day for `daily_for`, and
/// always the newest three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub every_version_for: Duration,
    pub daily_for: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        Retention { every_version_for: Duration::hours(48), daily_for: Duration::days(90) }
    }
}

impl Retention {
    /// The settings `LAKE_RETENTION_HOURS` and `LAKE_RETENTION_DAYS`.
    pub fn of(hours: i64, days: i64) -> Self {
        Retention { every_version_for: Duration::hours(hours.max(0)), daily_for: Duration::days(days.max(0)) }
    }

    /// The oldest publish time that can matter at `now`: a walk of the history stops at the
    /// first version published before it (that one is still current at its start).
    pub fn horizon(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        now - self.every_version_for.max(self.daily_for + Duration::days(1))
    }

    /// The versions kept at `now`, of a history newest first.
    pub fn kept(&self, history: &[PublishedVersion], now: DateTime<Utc>) -> BTreeSet<u64> {
        let current_at = |t: DateTime<Utc>| history.iter().find(|v| v.published_at <= t).map(|v| v.version);
        let mut kept: BTreeSet<u64> = history.iter().take(NEWEST_VERSIONS_KEPT).map(|v| v.version).collect();
        let recent = now - self.every_version_for;
        kept.extend(history.iter().take_while(|v| v.published_at > recent).map(|v| v.version));
        kept.extend(current_at(recent));
        let today = now.date_naive();
        for back in 0..=self.daily_for.num_days().max(0) as u64 {
            let Some(day) = today.checked_sub_days(chrono::Days::new(back)) else { break };
            let end = day.and_hms_milli_opt(23, 59, 59, 999).map(|t| t.and_utc()).unwrap_or(now);
            kept.extend(current_at(end.min(now)));
        }
        kept
    }
}

impl Lake {
    /// The versions of `dataset` from `top` down, newest first, to the first one published
    /// before `since`. `known` is a history read earlier (newest first): the walk stops where it
    /// meets it and continues with it, since a published version never changes.
    pub async fn versions_from(
        &self,
        dataset: DatasetId,
        top: Option<u64>,
        since: DateTime<Utc>,
        known: &[PublishedVersion],
    ) -> Result<Vec<PublishedVersion>, LakeError> {
        let mut out: Vec<PublishedVersion> = Vec::new();
        let mut next = top;
        // The commit read for the step below, which is usually the next version's own.
        let mut below: Option<Commit> = None;
        while let Some(v) = next {
            if let Some(at) = known.iter().position(|k| k.version == v) {
                // Up to and including the first version published before `since`.
                for k in &known[at..] {
                    out.push(k.clone());
                    if k.published_at < since {
                        break;
                    }
                }
                break;
            }
            let commit = match below.take() {
                Some(c) if c.generation == v => c,
                _ => match self.read_commit(v).await? {
                    Some(c) => c,
                    None => break,
                },
            };
            let Some(entry) = commit.dataset(dataset).filter(|e| e.version == Some(v)) else { break };
            out.push(PublishedVersion { version: v, published_at: commit.committed_at, entry: entry.clone() });
            if commit.committed_at < since || v <= 1 {
                break;
            }
            // Generations of one version all name it: the one before `v` names the previous version.
            below = self.read_commit(v - 1).await?;
            next = below.as_ref().and_then(|c| c.dataset(dataset).and_then(|e| e.version));
        }
        Ok(out)
    }

    /// Every retained version of `dataset` at `now`, newest first, in the history of `latest`
    /// (the latest commit, read once by a caller that asks for every dataset).
    pub async fn retained_versions(
        &self,
        latest: &Commit,
        dataset: DatasetId,
        retention: &Retention,
        now: DateTime<Utc>,
    ) -> Result<Vec<PublishedVersion>, LakeError> {
        let top = latest.dataset(dataset).and_then(|e| e.version);
        let history = self.versions_from(dataset, top, retention.horizon(now), &[]).await?;
        let kept = retention.kept(&history, now);
        Ok(history.into_iter().filter(|v| kept.contains(&v.version)).collect())
    }
}

/// The documented form of an `as_of` instant ([`parse_as_of`] accepts nothing outside it).
pub const AS_OF_PATTERN: &str =
    "^([0-9]+|[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2}))$";

/// An `as_of` instant as the API and the CLI take it: RFC 3339, or epoch milliseconds.
pub fn parse_as_of(s: &str) -> Option<DateTime<Utc>> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().ok().and_then(DateTime::from_timestamp_millis);
    }
    rfc3339_shape(s).then(|| DateTime::parse_from_rfc3339(s).ok()).flatten().map(|t| t.with_timezone(&Utc))
}

/// Whether `s` has [`AS_OF_PATTERN`]'s RFC 3339 form, so the documented pattern and the parser
/// agree on every string (chrono alone takes a few more spellings).
fn rfc3339_shape(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let fixed = |i: usize, allowed: &[u8]| b.get(i).is_some_and(|c| allowed.contains(c));
    let stamp = digits(0..4)
        && fixed(4, b"-")
        && digits(5..7)
        && fixed(7, b"-")
        && digits(8..10)
        && fixed(10, b"Tt ")
        && digits(11..13)
        && fixed(13, b":")
        && digits(14..16)
        && fixed(16, b":")
        && digits(17..19);
    if !stamp {
        return false;
    }
    let mut rest = &b[19..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let n = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()),
        _ => false,
    }
}

impl Lake {
    /// The view of the lake `as_of` a past time: the latest commit with each dataset at its
    /// newest retained version published at or before `at` (none: the dataset is left empty), its
    /// generation the newest of those versions. Before every retained version of every dataset
    /// there is nothing to show: `LakeError::Usage` names the oldest available time.
    pub async fn commit_as_of(
        &self,
        at: DateTime<Utc>,
        retention: &Retention,
        now: DateTime<Utc>,
    ) -> Result<Commit, LakeError> {
        let latest = self.latest_commit().await?;
        let mut commit = latest.clone();
        // The newest version chosen (with its publish time), and the oldest retained anywhere.
        let mut newest: Option<(u64, DateTime<Utc>)> = None;
        let mut oldest: Option<DateTime<Utc>> = None;
        for dataset in DatasetId::ALL {
            let retained = self.retained_versions(&latest, dataset, retention, now).await?;
            oldest = oldest.into_iter().chain(retained.last().map(|v| v.published_at)).min();
            let entry = match retained.into_iter().find(|v| v.published_by(at)) {
                Some(v) => {
                    newest = newest.max(Some((v.version, v.published_at)));
                    v.entry
                }
                None => DatasetEntry::empty(dataset),
            };
            commit.datasets.insert(dataset.to_string(), entry);
        }
        let Some((generation, published_at)) = newest else {
            let oldest = oldest.map_or("none: nothing is published".into(), |t| t.to_rfc3339());
            return Err(LakeError::Usage(format!("as_of is before the oldest retained version ({oldest})")));
        };
        (commit.generation, commit.committed_at) = (generation, published_at);
        Ok(commit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn history(times: &[DateTime<Utc>]) -> Vec<PublishedVersion> {
        let mut h: Vec<PublishedVersion> = times
            .iter()
            .enumerate()
            .map(|(i, t)| PublishedVersion {
                version: i as u64 + 1,
                published_at: *t,
                entry: DatasetEntry::empty(DatasetId::ARMED_EVENTS),
            })
            .collect();
        h.reverse();
        h
    }

    #[test]
    fn as_of_is_rfc3339_or_epoch_milliseconds() {
        let t = Utc.with_ymd_and_hms(2026, 11, 20, 6, 0, 0).unwrap();
        assert_eq!(parse_as_of("2026-11-20T06:00:00Z"), Some(t));
        assert_eq!(parse_as_of("2026-11-20T08:00:00+02:00"), Some(t));
        assert_eq!(parse_as_of(&t.timestamp_millis().to_string()), Some(t));
        assert_eq!(parse_as_of("2026-11-20t06:00:00.000z"), Some(t));
        for bad in ["", "yesterday", "2026-11-20", "-5", "1e12", "2026-11-20T06:00:00", "2026-11-20T06:00:00+0200"] {
            assert_eq!(parse_as_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_version_of_the_last_two_days_then_the_last_of_each_day_and_always_the_newest_three() {
        let now = Utc.with_ymd_and_hms(2026, 11, 26, 12, 0, 0).unwrap();
        let h = |d: i64, hour: i64| now - Duration::days(d) + Duration::hours(hour);
        // Versions 1..=9, oldest first.
        let times = [
            h(200, 0), // 1: older than 90 days, superseded within them: gone
            h(100, 0), // 2: current at the start of the 90 days' first day: kept
            h(10, -3), // 3: superseded the same day by 4: gone
            h(10, -1), // 4: the last of its day: kept
            h(3, 0),   // 5: the last of its day, and current when the 48 h began: kept
            h(1, -6),  // 6..9: within 48 h: kept
            h(1, 0),
            h(0, -2),
            h(0, -1),
        ];
        let kept = Retention::default().kept(&history(&times), now);
        assert_eq!(kept.into_iter().collect::<Vec<_>>(), vec![2, 4, 5, 6, 7, 8, 9]);
        let old = [h(300, 0), h(250, 0), h(200, 0)];
        let kept = Retention::default().kept(&history(&old), now);
        assert_eq!(kept.into_iter().collect::<Vec<_>>(), vec![1, 2, 3], "the newest three, however old");
    }
}
