//! Reading generations: `latest.json` is only a hint. The latest generation is the highest `n`
//! with `commits/n.json` present, found by probing upward from the hint (or by listing when the
//! hint is missing or ahead of reality).

use bytes::Bytes;
use futures::TryStreamExt;
use object_store::{ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};
use sitrep_schemas::{Commit, DatasetEntry, DatasetId};

use crate::{Lake, LakeError};

pub(crate) const LATEST: &str = "latest.json";

#[derive(Serialize, Deserialize)]
struct LatestHint {
    generation: u64,
}

/// Whether a commit's file path names a data file as writers write them: `data/` and relative
/// segments of `[A-Za-z0-9._=-]`, none `.` or `..`. Readers join it to their cache directory, so
/// a commit (which anyone with write access to the lake can write) is not trusted further.
pub fn is_data_path(path: &str) -> bool {
    let mut segments = path.split('/');
    segments.next() == Some("data")
        && path.len() <= 1024
        && segments.clone().count() >= 2
        && segments.all(|s| {
            !s.is_empty()
                && s != "."
                && s != ".."
                && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'=' | b'-'))
        })
}

impl Lake {
    /// The commit of a generation, or `None` if it does not exist (a commit naming a file outside
    /// `data/` is corrupt).
    pub async fn read_commit(&self, generation: u64) -> Result<Option<Commit>, LakeError> {
        let key = Commit::key(generation);
        match self.store.get(&Lake::path(&key)).await {
            Ok(r) => {
                let bytes = r.bytes().await?;
                let commit: Commit = serde_json::from_slice(&bytes)
                    .map_err(|e| LakeError::CorruptCommit { key: key.clone(), detail: e.to_string() })?;
                if let Some(bad) = commit.datasets.values().flat_map(|e| &e.files).find(|f| !is_data_path(&f.path)) {
                    let detail = format!("file path `{}` is not a data file of the lake", bad.path.escape_debug());
                    return Err(LakeError::CorruptCommit { key, detail });
                }
                Ok(Some(commit))
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    async fn exists(&self, generation: u64) -> Result<bool, LakeError> {
        match self.store.head(&Lake::path(&Commit::key(generation))).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    async fn hint(&self) -> Option<u64> {
        let r = self.store.get(&Lake::path(LATEST)).await.ok()?;
        let b = r.bytes().await.ok()?;
        serde_json::from_slice::<LatestHint>(&b).ok().map(|h| h.generation)
    }

    pub(crate) async fn write_hint(&self, generation: u64) {
        let body = serde_json::to_vec(&LatestHint { generation }).unwrap_or_default();
        // Best effort: a stale hint only costs readers a few probes.
        if let Err(e) = self.store.put(&Lake::path(LATEST), PutPayload::from(Bytes::from(body))).await {
            tracing::warn!(error = %e, "could not update latest.json hint");
        }
    }

    /// Every generation number present, ascending.
    pub async fn generations(&self) -> Result<Vec<u64>, LakeError> {
        let prefix = Lake::path("commits");
        let mut gens: Vec<u64> = self
            .store
            .list(Some(&prefix))
            .map_ok(|m| m.location.filename().and_then(|f| f.strip_suffix(".json")).and_then(|n| n.parse().ok()))
            .try_collect::<Vec<_>>()
            .await?
            .into_iter()
            .flatten()
            .collect();
        gens.sort_unstable();
        Ok(gens)
    }

    /// Number of the latest complete generation (0 = empty lake).
    pub async fn latest_generation(&self) -> Result<u64, LakeError> {
        let mut g = match self.hint().await {
            Some(h) if h > 0 && self.exists(h).await? => h,
            _ => self.generations().await?.last().copied().unwrap_or(0),
        };
        while self.exists(g + 1).await? {
            g += 1;
        }
        Ok(g)
    }

    /// The latest commit, or the genesis commit of an empty lake.
    pub async fn latest_commit(&self) -> Result<Commit, LakeError> {
        let g = self.latest_generation().await?;
        if g == 0 {
            return Ok(Commit::genesis());
        }
        self.read_commit(g).await?.ok_or_else(|| LakeError::Validation(format!("generation {g} vanished")))
    }

    /// Reads a whole object (data files for the server's cache, staging checkpoints).
    pub async fn get_bytes(&self, key: &str) -> Result<Bytes, LakeError> {
        Ok(self.store.get(&Lake::path(key)).await?.bytes().await?)
    }

    /// Copies an object into the local file `to` chunk by chunk as it arrives (a data file never
    /// sits whole in memory: at 5M events one is hundreds of megabytes); returns its size.
    pub async fn download(&self, key: &str, to: &std::path::Path) -> Result<u64, LakeError> {
        use tokio::io::AsyncWriteExt;
        let mut stream = self.store.get(&Lake::path(key)).await?.into_stream();
        let mut file = tokio::fs::File::create(to).await?;
        let mut written = 0;
        while let Some(chunk) = stream.try_next().await? {
            file.write_all(&chunk).await?;
            written += chunk.len() as u64;
        }
        file.flush().await?;
        Ok(written)
    }

    /// Every row of a dataset version (its files in commit order), read as the dataset's current
    /// schema; `None` when the dataset was never published. For small datasets whose next run
    /// reuses part of the last one; large ones are read by DuckDB, never through this.
    pub async fn read_rows(
        &self,
        dataset: DatasetId,
        entry: &DatasetEntry,
    ) -> Result<Option<arrow::record_batch::RecordBatch>, LakeError> {
        if entry.version.is_none() {
            return Ok(None);
        }
        let schema = dataset.schema();
        let mut batches = Vec::new();
        for file in &entry.files {
            let bytes = self.get_bytes(&file.path).await?;
            let corrupt = |e: &dyn std::fmt::Display| LakeError::Validation(format!("{}: {e}", file.path));
            let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes)
                .and_then(|b| b.build())
                .map_err(|e| corrupt(&e))?;
            for batch in reader {
                let batch = batch.map_err(|e| corrupt(&e))?;
                // Files carry field ids the dataset's schema does not: the same columns.
                batches.push(sitrep_schemas::fingerprint::conform(&batch, &schema).map_err(|e| corrupt(&e))?);
            }
        }
        arrow::compute::concat_batches(&schema, &batches)
            .map(Some)
            .map_err(|e| LakeError::Validation(format!("{dataset}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::is_data_path;

    #[test]
    fn only_relative_data_paths() {
        for good in ["data/01ABC/armed-events/part-00000.parquet", "data/r/d/month=2026-07/part-1.parquet"] {
            assert!(is_data_path(good), "{good}");
        }
        for bad in [
            "",
            "data",
            "data/",
            "/data/x.parquet",
            "data/../x.parquet",
            "data/./x.parquet",
            "data//x.parquet",
            "commits/00000000000000000001.json",
            "data/r/x y.parquet",
            "data\\..\\x.parquet",
            "data/%2e%2e/x.parquet",
        ] {
            assert!(!is_data_path(bad), "{bad}");
        }
    }
}
