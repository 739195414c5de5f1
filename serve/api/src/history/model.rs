//! The History group's response shapes.

use poem_openapi::Object;
use serde::Serialize;

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
    /// `live` or `replay` (recorded fixtures).
    pub mode: String,
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
