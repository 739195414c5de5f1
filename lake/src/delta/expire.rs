//! Expiring a table's versions with ours. gc deletes the files of the dataset versions the
//! retention policy no longer keeps, so before that the table forgets the versions that name
//! them: a checkpoint at the table version of our oldest retained version (readers start there),
//! then the log's versions and checkpoints before it deleted — as Delta's own log cleanup does. A
//! reader asking for an expired version is told it does not exist, instead of finding its files gone.

use futures::TryStreamExt;
use object_store::{path::Path, ObjectMeta, ObjectStoreExt};
use sitrep_schemas::DatasetId;

use super::{actions::generation_of, log_dir, log_key};
use crate::{Lake, LakeError};

/// The table version a log object belongs to (`<N>.json`, `<N>.checkpoint.parquet`).
fn table_version_of(object: &ObjectMeta) -> Option<u64> {
    object.location.filename()?.split('.').next()?.parse().ok()
}

impl Lake {
    /// Expires `dataset`'s table versions before the one that is our version `oldest` (the oldest
    /// the retention keeps). Returns how many were expired (or, `dry_run`, would be).
    pub(crate) async fn expire_delta(
        &self,
        dataset: DatasetId,
        oldest: u64,
        dry_run: bool,
    ) -> Result<usize, LakeError> {
        let objects: Vec<ObjectMeta> = self.store.list(Some(&Path::from(log_dir(dataset)))).try_collect().await?;
        let mut versions: Vec<u64> =
            objects.iter().filter(|o| o.location.as_ref().ends_with(".json")).filter_map(table_version_of).collect();
        versions.sort_unstable();
        let mut first_kept = None;
        for &n in &versions {
            let generation = generation_of(&self.get_bytes(&log_key(dataset, n)).await?);
            if let Some(g) = generation.filter(|g| *g >= oldest) {
                first_kept = Some((n, g));
                break;
            }
        }
        let Some((first_kept, generation)) = first_kept else { return Ok(0) };
        let expired = versions.iter().filter(|n| **n < first_kept).count();
        if expired == 0 || dry_run {
            return Ok(expired);
        }
        let state = self.published_head(dataset, generation).await?;
        let schema = self.version_schema(dataset, &state.entry).await?;
        self.write_checkpoint(dataset, first_kept, &state.entry, &schema).await?;
        for object in objects.iter().filter(|o| table_version_of(o).is_some_and(|n| n < first_kept)) {
            self.store.delete(&object.location).await?;
        }
        Ok(expired)
    }
}
