//! The History group's response shapes.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};
use sitrep_platform::kit::{paged_list::Pagination, wire_name::WireName};
use sitrep_schemas::DataMode;

/// One retained version of a dataset.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct DatasetVersion {
    /// The lake generation that published it (what `X-Snapshot-Generation` names when it answers).
    pub version: i64,
    /// When that generation was committed, epoch ms.
    pub published_at: i64,
    pub rows: i64,
    /// SHA-256 of the fetch that produced it (empty for a backfilled version).
    pub content_hash: String,
    /// DataMode (`replay` when it was read from recorded fixtures).
    pub mode: WireName<DataMode>,
    /// Whether the current generation serves it.
    pub current: bool,
}

/// ListDatasetVersions' answer, newest first.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListDatasetVersionsResponse {
    pub dataset: String,
    pub versions: Vec<DatasetVersion>,
}

/// A version named by a changes answer.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct VersionRef {
    pub version: i64,
    /// When it was published, epoch ms.
    pub published_at: i64,
}

/// How many rows changed, by kind, between the two versions.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ChangeSummary {
    pub added: i64,
    pub removed: i64,
    pub changed: i64,
}

/// A row's columns by name.
pub type Row = std::collections::BTreeMap<String, serde_json::Value>;

/// What happened to a row between two versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, poem_openapi::Enum)]
#[serde(rename_all = "lowercase")]
#[oai(rename = "RowChangeKind", rename_all = "lowercase")]
pub enum ChangeKind {
    /// Only in the newer version.
    Added,
    /// Only in the older version.
    Removed,
    /// In both, with a value that differs.
    Changed,
}

impl ChangeKind {
    /// As the diff file's lines (and the API) write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
        }
    }
}

/// One row added, removed or changed. Rows are as the lake's Parquet holds them, with instants in
/// epoch ms, dates as `YYYY-MM-DD` and lists as arrays.
// Deserialize: read from the diff file's lines (`diff.rs`, `diff_file.rs`).
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct RowChange {
    pub change: ChangeKind,
    /// The row's key: the dataset's declared key columns and their values.
    pub key: Row,
    /// The columns whose values differ (changed rows; empty otherwise).
    pub changed_columns: Vec<String>,
    /// The row in the older version (absent for an added row).
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Row>,
    /// The row in the newer version (absent for a removed row).
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Row>,
}

/// ListDatasetChanges' answer: a page of the changes, ordered by the key.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListDatasetChangesResponse {
    pub dataset: String,
    /// The dataset's row key, the columns rows are matched by.
    pub key: Vec<String>,
    /// The version current at `since`.
    pub since: VersionRef,
    /// The version current at `until` (or now).
    pub until: VersionRef,
    pub summary: ChangeSummary,
    pub changes: Vec<RowChange>,
    pub pagination: Pagination,
}
