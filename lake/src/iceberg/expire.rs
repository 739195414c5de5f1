//! Expiring an Iceberg table's snapshots with our versions. Before gc deletes the files of the
//! dataset versions the retention policy no longer keeps, the table drops their snapshots: a new
//! metadata version without them (a reader asking for one is told the snapshot does not exist),
//! then the manifests and manifest lists only they named, and the metadata versions before the
//! new one (the table keeps no metadata log, so nothing names them).

use futures::TryStreamExt;
use object_store::{ObjectMeta, ObjectStoreExt, PutPayload};
use sitrep_schemas::DatasetId;

use super::{created, metadata_dir, metadata_key, metadata_version};
use crate::{Lake, LakeError};

/// The snapshot a manifest or manifest list belongs to (`<id>-m0-<digest>.avro`,
/// `snap-<id>-<digest>.avro`).
fn snapshot_of(object: &ObjectMeta) -> Option<i64> {
    let name = object.location.filename()?.strip_suffix(".avro")?;
    name.strip_prefix("snap-").unwrap_or(name).split('-').next()?.parse().ok()
}

impl Lake {
    /// Expires `dataset`'s snapshots before our version `oldest` (the oldest the retention keeps).
    /// Returns how many were expired (or, `dry_run`, would be).
    pub(crate) async fn expire_iceberg(
        &self,
        dataset: DatasetId,
        oldest: u64,
        dry_run: bool,
    ) -> Result<usize, LakeError> {
        let oldest = oldest as i64;
        loop {
            let Some((mut n, metadata)) = self.iceberg_head(dataset).await? else { return Ok(0) };
            let expired = metadata.snapshots.len() - metadata.clone().expired_before(oldest).snapshots.len();
            if dry_run {
                return Ok(expired);
            }
            if expired > 0 {
                let kept = metadata.expired_before(oldest);
                let key = Lake::path(&metadata_key(dataset, n + 1));
                match self.store.put_opts(&key, PutPayload::from(kept.to_bytes()), created()).await {
                    Ok(_) => {}
                    Err(object_store::Error::AlreadyExists { .. }) => continue,
                    Err(e) => return Err(e.into()),
                }
                n += 1;
                self.write_version_hint(dataset, n).await?;
            }
            // Only what the current metadata cannot name: a writer racing this one adds
            // snapshots of newer generations, never of expired ones.
            let objects: Vec<ObjectMeta> =
                self.store.list(Some(&Lake::path(&metadata_dir(dataset)))).try_collect().await?;
            for object in objects {
                let old_metadata = metadata_version(object.location.as_ref()).is_some_and(|m| m < n);
                let expired_manifest = snapshot_of(&object).is_some_and(|id| id < oldest);
                if old_metadata || expired_manifest {
                    self.store.delete(&object.location).await?;
                }
            }
            return Ok(expired);
        }
    }
}
