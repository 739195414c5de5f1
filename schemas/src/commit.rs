//! The commit document: one immutable JSON file per lake generation listing, for EVERY dataset, the
//! files of its current version and its freshness. Readers need nothing else to see a complete view.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::DatasetId;

pub const COMMIT_FORMAT: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Commit {
    pub format: u32,
    pub generation: u64,
    /// Generation this commit was merged onto; `None` for the first.
    pub parent: Option<u64>,
    pub committed_at: DateTime<Utc>,
    /// The ingest run that produced the commit (ULID); also the data folder of its new files.
    pub run_id: String,
    /// Operator-facing description of what the run did (`ingest`, `backfill armed-events 2026-05..2026-07`, `rollback to 3`).
    pub operation: String,
    /// Every dataset by id string. A dataset this build does not know stays here untouched: ingest
    /// carries it forward, serve ignores it (`Commit::known`).
    pub datasets: BTreeMap<String, DatasetEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DatasetEntry {
    /// Generation in which this dataset's data last changed; `None` = never published.
    pub version: Option<u64>,
    pub schema_fingerprint: String,
    pub files: Vec<FileEntry>,
    pub freshness: Freshness,
    /// SHA-256 of the scheduled fetch that produced this version (its scope and normalised rows):
    /// a later fetch with the same hash publishes no new version. Cleared by backfills.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    /// What the last ingest run that attempted this dataset did (the run's counters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<RunStats>,
    /// Fields written by a newer build, carried forward as they are.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    /// Key relative to the lake root: `data/<dataset>/<run>/part-<n>.parquet` (before the open
    /// tables, `data/<run>/<dataset>/part-<n>.parquet`; readers take either).
    pub path: String,
    pub rows: u64,
    pub bytes: u64,
    pub sha256: String,
    pub schema_fingerprint: String,
    pub run_id: String,
    pub fetched_at: DateTime<Utc>,
    /// Partition value (`YYYY-MM` for month-partitioned datasets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// The range of each time column (instant or date) in the file, which the open tables give
    /// readers to skip files by (Delta `stats`, Iceberg bounds). Only time columns: files are cut
    /// by month, so their time ranges are narrow, while any other column spans every file. Empty
    /// for files written before it was recorded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bounds: BTreeMap<String, ColumnRange>,
    /// Fields written by a newer build, carried forward as they are.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// One column's values in one file, in the column's unit (epoch milliseconds for an instant,
/// days since the epoch for a date): `min` and `max` absent when every value is null.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ColumnRange {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    pub nulls: u64,
}

/// The range of each time column (instant or date) of `batch`.
pub fn time_ranges(batch: &arrow::array::RecordBatch) -> BTreeMap<String, ColumnRange> {
    use arrow::{
        array::{Array, AsArray},
        compute::{max, min},
        datatypes::{DataType, Date32Type, TimeUnit, TimestampMillisecondType},
    };
    let schema = batch.schema();
    let mut out = BTreeMap::new();
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        let range = match field.data_type() {
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                let a = column.as_primitive::<TimestampMillisecondType>();
                ColumnRange { min: min(a), max: max(a), nulls: a.null_count() as u64 }
            }
            DataType::Date32 => {
                let a = column.as_primitive::<Date32Type>();
                ColumnRange { min: min(a).map(i64::from), max: max(a).map(i64::from), nulls: a.null_count() as u64 }
            }
            _ => continue,
        };
        out.insert(field.name().clone(), range);
    }
    out
}

impl ColumnRange {
    /// This range widened to `other`'s values too.
    pub fn union(self, other: ColumnRange) -> ColumnRange {
        let pick = |a: Option<i64>, b: Option<i64>, f: fn(i64, i64) -> i64| match (a, b) {
            (Some(a), Some(b)) => Some(f(a, b)),
            (a, b) => a.or(b),
        };
        ColumnRange {
            min: pick(self.min, other.min, i64::min),
            max: pick(self.max, other.max, i64::max),
            nulls: self.nulls + other.nulls,
        }
    }
}

/// The counters of one ingest run for one dataset, kept in the commit it published.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RunStats {
    pub run_id: String,
    pub outcome: RunOutcome,
    /// Rows fetched (after normalisation).
    pub rows: u64,
    /// Parquet bytes and files written (none for an unchanged or failed fetch).
    pub bytes: u64,
    pub files: u64,
    /// Fetch, normalise and write time.
    pub millis: u64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// New data: a new version.
    Published,
    /// The same content as the current version: no new version.
    Unchanged,
    /// The fetch failed; the previous version keeps serving.
    Failed,
}

impl RunOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Published => "published",
            RunOutcome::Unchanged => "unchanged",
            RunOutcome::Failed => "failed",
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DatasetStatus {
    /// The last attempt succeeded.
    Ok,
    /// The last attempt failed; the previous version (if any) keeps serving.
    Degraded,
    /// Never published (not configured, or every attempt failed).
    Unavailable,
}

/// Where a dataset version's data came from. Fixture data never passes as live (DESIGN §7).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DataMode {
    /// Fetched from the real upstream.
    #[default]
    Live,
    /// Read from recorded fixtures (`data/fixtures`).
    Replay,
}

impl DataMode {
    pub fn as_str(self) -> &'static str {
        match self {
            DataMode::Live => "live",
            DataMode::Replay => "replay",
        }
    }
}

impl crate::closed_set::ClosedSet for DataMode {
    const NAME: &'static str = "DataMode";
    const VALUES: &'static [Self] = &[DataMode::Live, DataMode::Replay];
    fn wire_name(self) -> std::borrow::Cow<'static, str> {
        self.as_str().into()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Freshness {
    pub status: DatasetStatus,
    /// Live or replayed data (of the current version).
    #[serde(default)]
    pub mode: DataMode,
    /// When the data of the current version was fetched (replay: the recording time).
    pub fetched_at: Option<DateTime<Utc>>,
    /// The as-of instant responses are computed from (SUPPLEMENT 1.3).
    pub as_of: Option<DateTime<Utc>>,
    /// Upstream release or version label, when the upstream has one (UCDP `26.1`).
    pub upstream_version: Option<String>,
    /// Rows in the current version, over all files.
    pub rows: u64,
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// Error of the last failed attempt (kind: detail), cleared on success.
    pub last_error: Option<String>,
    /// The newest content time of the current version, read from the column its
    /// `ContentClock` names (`None`: no such clock, no rows, or written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_at: Option<DateTime<Utc>>,
    /// The fetch time of the run that last changed the content (a new version); unchanged
    /// fetches keep it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_changed_at: Option<DateTime<Utc>>,
    /// Fields written by a newer build, carried forward as they are.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Freshness {
    pub fn never(reason: Option<String>) -> Self {
        Freshness {
            status: DatasetStatus::Unavailable,
            mode: DataMode::Live,
            fetched_at: None,
            as_of: None,
            upstream_version: None,
            rows: 0,
            last_attempt_at: None,
            last_error: reason,
            content_at: None,
            content_changed_at: None,
            extra: BTreeMap::new(),
        }
    }
}

impl DatasetEntry {
    pub fn empty(dataset: DatasetId) -> Self {
        DatasetEntry {
            version: None,
            schema_fingerprint: dataset.fingerprint(),
            files: Vec::new(),
            freshness: Freshness::never(None),
            content_hash: None,
            last_run: None,
            extra: BTreeMap::new(),
        }
    }
}

impl Commit {
    /// The commit before the first one: every dataset present and unavailable.
    pub fn genesis() -> Self {
        Commit {
            format: COMMIT_FORMAT,
            generation: 0,
            parent: None,
            committed_at: DateTime::<Utc>::UNIX_EPOCH,
            run_id: String::new(),
            operation: "genesis".into(),
            datasets: DatasetId::ALL.into_iter().map(|d| (d.to_string(), DatasetEntry::empty(d))).collect(),
        }
    }

    pub fn dataset(&self, id: DatasetId) -> Option<&DatasetEntry> {
        self.datasets.get(id.as_str())
    }

    /// The datasets this build knows, with their ids; the others are ignored when serving.
    pub fn known(&self) -> impl Iterator<Item = (DatasetId, &DatasetEntry)> {
        self.datasets.iter().filter_map(|(k, e)| k.parse::<DatasetId>().ok().map(|id| (id, e)))
    }

    /// Zero-padded key of a generation's commit file.
    pub fn key(generation: u64) -> String {
        format!("commits/{generation:020}.json")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::{
        array::{Date32Array, RecordBatch, StringArray, TimestampMillisecondArray},
        datatypes::{DataType, Field, Schema, TimeUnit},
    };

    use super::*;

    #[test]
    fn time_ranges_cover_the_time_columns_and_widen_by_union() {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("at", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), true),
            Field::new("day", DataType::Date32, true),
        ]);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(StringArray::from(vec!["a", "b", "c"])),
                Arc::new(TimestampMillisecondArray::from(vec![Some(30), None, Some(10)]).with_timezone("UTC")),
                Arc::new(Date32Array::from(vec![None::<i32>, None, None])),
            ],
        )
        .unwrap();
        let ranges = time_ranges(&batch);
        assert_eq!(ranges.keys().collect::<Vec<_>>(), ["at", "day"]);
        assert_eq!(ranges["at"], ColumnRange { min: Some(10), max: Some(30), nulls: 1 });
        assert_eq!(ranges["day"], ColumnRange { min: None, max: None, nulls: 3 });
        let wider = ranges["at"].union(ColumnRange { min: Some(5), max: Some(20), nulls: 2 });
        assert_eq!(wider, ColumnRange { min: Some(5), max: Some(30), nulls: 3 });
        assert_eq!(ranges["day"].union(ranges["at"]), ColumnRange { min: Some(10), max: Some(30), nulls: 4 });
    }
}
