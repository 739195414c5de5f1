//! `sitrep-ingest lake migrate`: an existing lake's current versions moved into the open tables'
//! layout, once. For each dataset whose current version names files outside its folder (runs
//! before the open tables wrote `data/<run>/<dataset>/…`), the files are copied to
//! `data/<dataset>/<run>/…` (this migration's run) and one commit publishes, for each, a version
//! of the same rows naming the copies — where its Delta and Iceberg tables begin.
//!
//! Nothing is deleted: the older versions keep naming their files, which gc deletes when the
//! retention drops them, as ever. Resumable: `staging/migrate.json` names the migration's run
//! (gc keeps a run a checkpoint names), so a crash leaves copies a rerun writes again into the
//! same folder, and the lake serving its last commit throughout.

use object_store::{ObjectStoreExt, PutPayload};
use sitrep_schemas::{DatasetId, FileEntry};

use crate::{layout, Lake, LakeError, Outcome, Staged};

const CHECKPOINT: &str = "staging/migrate.json";

/// What a migration moved.
#[derive(Debug, Default)]
pub struct MigrateReport {
    /// Each dataset moved and how many of its files were copied.
    pub moved: Vec<(DatasetId, usize)>,
    /// The generation that published the moved versions (None: nothing to move).
    pub generation: Option<u64>,
}

impl Lake {
    /// The migration's run: the one a crashed migration began, else a new one (recorded first).
    async fn migration_run(&self) -> Result<String, LakeError> {
        if let Ok(bytes) = self.get_bytes(CHECKPOINT).await {
            let begun: serde_json::Value =
                serde_json::from_slice(&bytes).map_err(|e| LakeError::Validation(format!("{CHECKPOINT}: {e}")))?;
            if let Some(run) = begun["run_id"].as_str() {
                return Ok(run.to_string());
            }
        }
        let run = ulid::Ulid::new().to_string();
        let checkpoint = serde_json::json!({"run_id": run, "operation": "migrate"});
        self.store.put(&Lake::path(CHECKPOINT), PutPayload::from(checkpoint.to_string().into_bytes())).await?;
        Ok(run)
    }

    /// Moves every dataset's current version into its folder (see the module's comment).
    pub async fn migrate(&self) -> Result<MigrateReport, LakeError> {
        let run = self.migration_run().await?;
        let latest = self.latest_commit().await?;
        let mut report = MigrateReport::default();
        let mut outcomes = Vec::new();
        for (dataset, entry) in latest.known() {
            if entry.version.is_none() {
                continue;
            }
            let outside: Vec<&FileEntry> =
                entry.files.iter().filter(|f| layout::in_table(dataset, &f.path).is_none()).collect();
            if outside.is_empty() {
                continue;
            }
            let mut copies = Vec::new();
            for (n, file) in outside.iter().enumerate() {
                let to = layout::part_key(dataset, &run, n);
                self.store.copy(&Lake::path(&file.path), &Lake::path(&to)).await?;
                copies.push(FileEntry { path: to, run_id: run.clone(), ..(*file).clone() });
            }
            report.moved.push((dataset, copies.len()));
            let from = outside.iter().map(|f| f.path.clone()).collect();
            outcomes.push(Outcome::Moved { dataset, from, files: copies });
        }
        if !outcomes.is_empty() {
            let staged = Staged { run_id: run, operation: "migrate".into(), outcomes, run_stats: Vec::new() };
            report.generation = Some(self.publish(&staged).await?.generation);
        }
        self.store.delete(&Lake::path(CHECKPOINT)).await?;
        Ok(report)
    }
}
