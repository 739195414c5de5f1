//! Each dataset as a Delta Lake table (protocol: readers 1, writers 2) at `data/<dataset>/`, its log
//! at `data/<dataset>/_delta_log/`: one table version per published dataset version, written after
//! our commit in the same publish. A projection of our commit log, never its source: each table
//! version is a pure function of two of our versions (`actions.rs`), created with
//! `PutMode::Create`, so a retried or racing writer writes the same bytes and `AlreadyExists`
//! means another wrote it first (the writer then reads the log again and goes on from there).
//! Every publish brings every table up to the commit it published, so a crash between our commit
//! and a table's version is caught up by the next one.
//!
//! Time travel: a table version is one of our versions (`commitInfo.sitrepGeneration` names it),
//! so travelling to table version N reads what `as_of` that version's `publishedAt` reads. Delta
//! readers travel by timestamp on the log file's modification time (writer version 2 has no
//! in-commit timestamps): a version's file is written milliseconds after its `publishedAt`, so a
//! timestamp in those milliseconds still reads the version before; a version caught up later has
//! the later time.

mod actions;
mod checkpoint;
mod expire;
mod schema;

use bytes::Bytes;
use futures::TryStreamExt;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload};
use sitrep_schemas::DatasetId;

pub use actions::table_id;
use actions::{generation_of, table_version, TableVersion};

use crate::{history::PublishedVersion, layout, Lake, LakeError};

fn version(v: &PublishedVersion) -> TableVersion<'_> {
    TableVersion { generation: v.version, published_at: v.published_at, entry: &v.entry }
}

/// The log's folder under a table root.
const LOG: &str = "_delta_log/";

fn log_dir(dataset: DatasetId) -> String {
    format!("{}{LOG}", layout::table_root(dataset))
}

/// The key of table version `n`'s commit file.
pub fn log_key(dataset: DatasetId, n: u64) -> String {
    format!("{}{n:020}.json", log_dir(dataset))
}

fn checkpoint_key(dataset: DatasetId, n: u64) -> String {
    format!("{}{n:020}.checkpoint.parquet", log_dir(dataset))
}

fn last_checkpoint_key(dataset: DatasetId) -> String {
    format!("{}_last_checkpoint", log_dir(dataset))
}

/// Where a dataset's Delta table is, for readers (`/abs/lake/data/<dataset>/`, `s3://…`).
pub fn table_location(lake: &Lake, dataset: DatasetId) -> String {
    lake.external_path(&layout::table_root(dataset))
}

impl Lake {
    /// The newest table version of `dataset` and the generation it is (None: no table yet): the
    /// log listed from its last checkpoint on (the versions before it are not read again).
    pub async fn delta_head(&self, dataset: DatasetId) -> Result<Option<(u64, u64)>, LakeError> {
        let log = Lake::path(&log_dir(dataset));
        let listed = match self.last_checkpoint(dataset).await? {
            Some(n) => self.store.list_with_offset(Some(&log), &Lake::path(&checkpoint_key(dataset, n))),
            None => self.store.list(Some(&log)),
        };
        let objects: Vec<_> = listed.try_collect().await?;
        let newest =
            objects.iter().filter_map(|o| o.location.filename()?.strip_suffix(".json")?.parse::<u64>().ok()).max();
        let Some(n) = newest else { return Ok(None) };
        let bytes = self.get_bytes(&log_key(dataset, n)).await?;
        let generation = generation_of(&bytes)
            .ok_or_else(|| LakeError::Validation(format!("{}: not a table version of ours", log_key(dataset, n))))?;
        Ok(Some((n, generation)))
    }

    /// Writes table version `n`'s checkpoint, then points `_last_checkpoint` at it unless it names a
    /// later one: a hint (readers list the versions after it), which a slow writer racing another
    /// may still leave behind.
    async fn write_checkpoint(
        &self,
        dataset: DatasetId,
        n: u64,
        entry: &sitrep_schemas::DatasetEntry,
        schema: &arrow::datatypes::Schema,
    ) -> Result<(), LakeError> {
        let (parquet, rows) = checkpoint::checkpoint(dataset, entry, schema)?;
        let size = parquet.len();
        let create = PutOptions { mode: PutMode::Create, ..Default::default() };
        match self.store.put_opts(&Lake::path(&checkpoint_key(dataset, n)), PutPayload::from(parquet), create).await {
            Ok(_) | Err(object_store::Error::AlreadyExists { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        if self.last_checkpoint(dataset).await?.is_some_and(|last| last >= n) {
            return Ok(());
        }
        let hint =
            serde_json::json!({"version": n, "size": rows, "sizeInBytes": size, "numOfAddFiles": entry.files.len()});
        self.store
            .put(&Lake::path(&last_checkpoint_key(dataset)), PutPayload::from(hint.to_string().into_bytes()))
            .await?;
        Ok(())
    }

    /// The table version `_last_checkpoint` names, if any.
    async fn last_checkpoint(&self, dataset: DatasetId) -> Result<Option<u64>, LakeError> {
        match self.get_bytes(&last_checkpoint_key(dataset)).await {
            Ok(bytes) => {
                Ok(serde_json::from_slice::<serde_json::Value>(&bytes).ok().and_then(|v| v["version"].as_u64()))
            }
            Err(LakeError::Store(object_store::Error::NotFound { .. })) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Brings `dataset`'s table up to its version `top`, one table version per dataset version.
    pub(crate) async fn write_delta_table(&self, dataset: DatasetId, top: u64) -> Result<(), LakeError> {
        'log: loop {
            let head = self.delta_head(dataset).await?;
            if head.is_some_and(|(_, generation)| generation >= top) {
                return Ok(());
            }
            let previous = match head {
                Some((_, generation)) => Some(self.published_head(dataset, generation).await?),
                None => None,
            };
            let pending = self.versions_after(dataset, top, previous.as_ref()).await?;
            let mut n = head.map_or(0, |(n, _)| n + 1);
            let mut previous = previous;
            // The schema of the last fingerprint seen: a footer is read once per schema, not per version.
            let mut known: Option<(String, arrow::datatypes::SchemaRef)> = None;
            for next in pending {
                let schema = match known.take() {
                    Some((fingerprint, schema)) if fingerprint == next.entry.schema_fingerprint => schema,
                    _ => self.version_schema(dataset, &next.entry).await?,
                };
                known = Some((next.entry.schema_fingerprint.clone(), schema.clone()));
                let bytes = table_version(dataset, &schema, previous.as_ref().map(version).as_ref(), &version(&next))?;
                let opts = PutOptions { mode: PutMode::Create, ..Default::default() };
                let key = Lake::path(&log_key(dataset, n));
                match self.store.put_opts(&key, PutPayload::from(Bytes::from(bytes)), opts).await {
                    Ok(_) => {}
                    Err(object_store::Error::AlreadyExists { .. }) => continue 'log,
                    Err(e) => return Err(e.into()),
                }
                if n > 0 && n % checkpoint::EVERY == 0 {
                    self.write_checkpoint(dataset, n, &next.entry, &schema).await?;
                }
                n += 1;
                previous = Some(next);
            }
            return Ok(());
        }
    }
}
