//! What the two open tables of a dataset (Delta Lake: `delta/`, Apache Iceberg: `iceberg/`) share:
//! which of our versions they project and the schema each version's files have. Both are
//! projections of our commit log, never its source, brought up to date after every publish.

use arrow::datatypes::SchemaRef;
use chrono::{DateTime, Utc};
use object_store::{ObjectStoreExt, PutPayload};
use sha2::{Digest, Sha256};
use sitrep_schemas::{Commit, DatasetEntry, DatasetId};

use crate::{history::PublishedVersion, layout, validate::read_footer, Lake, LakeError, Retention};

/// A UUID every writer derives alike from `seed` (a table's identity): its digest's first 16
/// bytes as a version 8 (custom) UUID of the RFC 9562 variant.
pub(crate) fn stable_uuid(seed: &str) -> String {
    let digest = Sha256::digest(seed.as_bytes());
    let mut b: [u8; 16] = digest[..16].try_into().unwrap_or_default();
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// A hint: the generation through which every dataset's open tables are up to date.
const TABLES_WRITTEN: &str = "tables.json";

impl Lake {
    /// Brings both tables of every dataset `commit` has published up to it. A table that cannot
    /// be written is logged and left for the next publish: our commit stands either way.
    ///
    /// `tables.json` names the generation through which every table was brought up to date: when
    /// it is this commit's parent, only the datasets this commit changed have tables to write; else
    /// (the last publish died before its tables, or raced this one) every dataset is checked, so
    /// a lost table version is caught up by the next publish of any dataset.
    pub async fn write_open_tables(&self, commit: &Commit) {
        if !self.open_tables {
            return;
        }
        let all = self.tables_written().await.is_none_or(|through| through + 1 < commit.generation);
        let mut complete = true;
        for (dataset, entry) in commit.known() {
            let Some(top) = entry.version else { continue };
            if !all && top != commit.generation {
                continue;
            }
            if let Err(e) = self.write_delta_table(dataset, top).await {
                tracing::warn!(%dataset, error = %e, "the dataset's Delta table was not brought up to date");
                complete = false;
            }
            if let Err(e) = self.write_iceberg_table(dataset, top).await {
                tracing::warn!(%dataset, error = %e, "the dataset's Iceberg table was not brought up to date");
                complete = false;
            }
        }
        if complete && self.tables_written().await.is_none_or(|through| through < commit.generation) {
            let marker = serde_json::json!({"generation": commit.generation}).to_string();
            if let Err(e) = self.store.put(&Lake::path(TABLES_WRITTEN), PutPayload::from(marker.into_bytes())).await {
                tracing::warn!(error = %e, "tables.json was not written: the next publish checks every table");
            }
        }
    }

    /// The generation `tables.json` names (None: none, or unreadable).
    async fn tables_written(&self) -> Option<u64> {
        let bytes = self.get_bytes(TABLES_WRITTEN).await.ok()?;
        serde_json::from_slice::<serde_json::Value>(&bytes).ok()?["generation"].as_u64()
    }

    /// The version of `dataset` generation `version` published, as history names it.
    pub(crate) async fn published(
        &self,
        dataset: DatasetId,
        version: u64,
    ) -> Result<Option<PublishedVersion>, LakeError> {
        let Some(commit) = self.read_commit(version).await? else { return Ok(None) };
        Ok(commit.dataset(dataset).filter(|e| e.version == Some(version)).map(|e| PublishedVersion {
            version,
            published_at: commit.committed_at,
            entry: e.clone(),
        }))
    }

    /// The version a table's head names, which must be one of `dataset`'s versions.
    pub(crate) async fn published_head(
        &self,
        dataset: DatasetId,
        generation: u64,
    ) -> Result<PublishedVersion, LakeError> {
        self.published(dataset, generation).await?.ok_or_else(|| {
            LakeError::Validation(format!("{dataset}'s table names generation {generation}, which is not its version"))
        })
    }

    /// The versions of `dataset` after `after` up to generation `top`, oldest first. A new table
    /// (`after` None) begins at the versions the default retention keeps whose files all lie in
    /// the table's folder (the newest run of them: older files lie where runs wrote them before,
    /// which a Delta reader refuses and an Iceberg reader resolving paths against the table's
    /// location, as ClickHouse does, cannot find; both tables hold the same versions).
    pub(crate) async fn versions_after(
        &self,
        dataset: DatasetId,
        top: u64,
        after: Option<&PublishedVersion>,
    ) -> Result<Vec<PublishedVersion>, LakeError> {
        let now = Utc::now();
        let since: DateTime<Utc> = after.map_or_else(|| Retention::default().horizon(now), |a| a.published_at);
        let history = self.versions_from(dataset, Some(top), since, &[]).await?;
        let mut pending: Vec<PublishedVersion> = match after {
            Some(a) => history.into_iter().filter(|v| v.version > a.version).collect(),
            None => {
                let kept = Retention::default().kept(&history, now);
                let in_table =
                    |v: &PublishedVersion| v.entry.files.iter().all(|f| layout::in_table(dataset, &f.path).is_some());
                history.into_iter().filter(|v| kept.contains(&v.version)).take_while(in_table).collect()
            }
        };
        pending.reverse();
        Ok(pending)
    }

    /// The Arrow schema of a version's files: the dataset's own when the version was written with
    /// it (every version this code published), else its first file's footer (a version an older
    /// schema wrote, caught up after an upgrade).
    pub(crate) async fn version_schema(
        &self,
        dataset: DatasetId,
        entry: &DatasetEntry,
    ) -> Result<SchemaRef, LakeError> {
        match entry.files.first() {
            Some(file) if entry.schema_fingerprint != dataset.fingerprint() => {
                Ok(read_footer(self, file).await?.schema.into())
            }
            _ => Ok(dataset.schema()),
        }
    }
}
