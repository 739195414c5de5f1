//! What one scheduled dataset is, declared once beside its group's Arrow schema (`conflict.rs`,
//! `climate.rs`, …). A leaf: the group files import it, and `dataset.rs` lists their descriptors
//! (imported the other way, the list and the groups would import each other).

use std::time::Duration;

use arrow::datatypes::SchemaRef;

use crate::ContentClock;

/// How a dataset's files are split. Event datasets are split by event month so a run or a backfill
/// can replace the months it fetched and carry the others forward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioning {
    None,
    /// Partition value `YYYY-MM` of the UTC event date in this timestamp column.
    Month {
        column: &'static str,
    },
}

/// Everything the lake, ingest and serve know about one scheduled dataset, declared once beside
/// its group's Arrow schema (`conflict.rs`) and listed once in [`crate::DatasetId::ALL`].
#[derive(Debug)]
pub struct DatasetDescriptor {
    /// The id string commits key the dataset by (`armed-events`).
    pub id: &'static str,
    /// SQL-safe table name (fixed by us, never derived from input).
    pub table: &'static str,
    /// The topic it belongs to (`conflict`, `consumer-prices`): how `get_sources` groups it.
    pub group: &'static str,
    /// Upstream provider and the license `get_sources` reports (SUPPLEMENT 1.16).
    pub provider: &'static str,
    pub license: &'static str,
    /// Default refresh cadence; also defines `fresh` vs `stale` (2 × cadence).
    pub cadence: Duration,
    /// Six-field cron expression (seconds first) for the scheduler, UTC.
    pub cron: &'static str,
    pub partitioning: Partitioning,
    /// For event datasets served by position ranges: (group column, time column). Their sort key
    /// is `group, time DESC, id`, so one group's rows in a time range are consecutive in API order.
    pub position_key: Option<(&'static str, &'static str)>,
    /// Column order the serving tables are sorted by, so range filters prune row groups.
    pub sort_key: &'static str,
    /// The columns that identify a row within a version and across versions (the same entity
    /// keeps its key): what `list-dataset-changes` matches rows by. Nulls in a key are equal, so
    /// row kinds that leave a key column empty stay distinct by the others.
    pub row_key: &'static [&'static str],
    /// How the content's own time is read, and how long it may stand still (frozen upstreams).
    pub content_clock: ContentClock,
    pub schema: fn() -> SchemaRef,
}
