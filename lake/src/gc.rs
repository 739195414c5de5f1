//! Garbage collection: delete run folders (`data/<run>/`, and `data/<dataset>/<run>/` in the
//! open tables' layout: `layout.rs`) that no retained dataset version (the
//! retention policy of `history.rs`, the one serve answers `as_of` and cursors by) and none of the
//! last `keep` generations references, once they are older than the grace period. Commit files are
//! never deleted: they are the audit log. Folders named by a checkpoint under `staging/` (a
//! `run_id` field: a resumable backfill) are in use and kept.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Duration, Utc};
use futures::TryStreamExt;
use object_store::ObjectStoreExt;
use sitrep_schemas::{DatasetEntry, DatasetId};

use crate::{layout::run_of, Lake, LakeError, Retention};

#[derive(Debug, Clone)]
pub struct GcOptions {
    pub keep: usize,
    pub grace: Duration,
    pub retention: Retention,
    pub dry_run: bool,
}

#[derive(Debug, Default)]
pub struct GcReport {
    pub runs_deleted: Vec<String>,
    pub objects_deleted: usize,
    pub bytes_freed: u64,
    pub runs_kept: usize,
    /// Dataset versions whose files were kept by the retention policy.
    pub versions_retained: usize,
    /// Delta table versions expired with the dataset versions the policy no longer keeps.
    pub table_versions_expired: usize,
    /// Iceberg snapshots expired with them.
    pub snapshots_expired: usize,
}

fn runs_of(entry: &DatasetEntry) -> impl Iterator<Item = String> + '_ {
    entry.files.iter().filter_map(|f| run_of(&f.path).map(str::to_string))
}

impl Lake {
    pub async fn gc(&self, opts: &GcOptions, mut progress: impl FnMut(usize, usize)) -> Result<GcReport, LakeError> {
        let now = Utc::now();
        let gens = self.generations().await?;
        let mut live: HashSet<String> = HashSet::new();
        for g in gens.iter().rev().take(opts.keep.max(1)) {
            let Some(c) = self.read_commit(*g).await? else { continue };
            live.insert(c.run_id.clone());
            live.extend(c.datasets.values().flat_map(runs_of));
        }
        let mut report = GcReport::default();
        let latest = self.latest_commit().await?;
        for dataset in DatasetId::ALL {
            let retained = self.retained_versions(&latest, dataset, &opts.retention, now).await?;
            // The table forgets the versions whose files go, before they go.
            if let Some(oldest) = retained.last() {
                report.table_versions_expired += self.expire_delta(dataset, oldest.version, opts.dry_run).await?;
                report.snapshots_expired += self.expire_iceberg(dataset, oldest.version, opts.dry_run).await?;
            }
            for v in retained {
                live.extend(runs_of(&v.entry));
                report.versions_retained += 1;
            }
        }
        let staging = self.store.list(Some(&Lake::path("staging"))).try_collect::<Vec<_>>().await?;
        for m in staging {
            if let Ok(bytes) = self.get_bytes(m.location.as_ref()).await {
                // A resumable job's checkpoint names the run folder it is still filling.
                if let Some(run) = serde_json::from_slice::<serde_json::Value>(&bytes)
                    .ok()
                    .and_then(|v| v.get("run_id").and_then(|r| r.as_str()).map(str::to_string))
                {
                    live.insert(run);
                }
            }
        }
        let objects = self.store.list(Some(&Lake::path("data"))).try_collect::<Vec<_>>().await?;
        let mut by_run: BTreeMap<String, Vec<(object_store::path::Path, u64, DateTime<Utc>)>> = BTreeMap::new();
        for m in objects {
            if let Some(run) = run_of(m.location.as_ref()) {
                by_run.entry(run.to_string()).or_default().push((m.location.clone(), m.size, m.last_modified));
            }
        }
        let total = by_run.len();
        for (i, (run, objs)) in by_run.into_iter().enumerate() {
            progress(i + 1, total);
            let newest = objs.iter().map(|o| o.2).max().unwrap_or(now);
            if live.contains(&run) || newest > now - opts.grace {
                report.runs_kept += 1;
                continue;
            }
            for (path, size, _) in &objs {
                if !opts.dry_run {
                    self.store.delete(path).await?;
                }
                report.objects_deleted += 1;
                report.bytes_freed += size;
            }
            report.runs_deleted.push(run);
        }
        Ok(report)
    }
}
