//! One ingest run: fetch the chosen datasets concurrently, write each success as Parquet, then
//! publish every outcome in ONE commit. A failed dataset keeps its last good version; its freshness
//! records the failure.

use std::{collections::HashMap, sync::Arc, time::Instant};

use chrono::Utc;
use sitrep_pipelines::{registry, Source, Window};
use sitrep_schemas::{Commit, DatasetId, RunOutcome, RunStats};

use crate::{
    content_hash::content_hash,
    lake::{Outcome, Staged},
    replay::SourceEnv,
    writer::write_dataset,
    IngestError, Lake,
};

#[derive(Debug, Clone)]
pub struct DatasetReport {
    pub dataset: DatasetId,
    pub ok: bool,
    pub rows: u64,
    pub bytes: u64,
    pub files: usize,
    pub millis: u128,
    pub error: Option<String>,
}

#[derive(Debug, Clone)]
pub struct RunReport {
    pub commit: Commit,
    pub datasets: Vec<DatasetReport>,
}

pub struct Runner {
    pub lake: Lake,
    pub env: SourceEnv,
    sources: HashMap<DatasetId, Arc<dyn Source>>,
}

impl Runner {
    pub fn new(lake: Lake, env: SourceEnv) -> Self {
        let sources = registry::all_sources().into_iter().map(|s| (s.dataset(), s)).collect();
        Runner { lake, env, sources }
    }

    /// Replaces the connector of a dataset (tests use smaller page sizes this way).
    pub fn with_source(mut self, source: Arc<dyn Source>) -> Self {
        self.sources.insert(source.dataset(), source);
        self
    }

    pub fn source(&self, dataset: DatasetId) -> Option<&Arc<dyn Source>> {
        self.sources.get(&dataset)
    }

    /// Fetches and writes one dataset; never fails: errors become a `Failed` outcome.
    async fn stage_one(&self, run_id: &str, dataset: DatasetId) -> (Outcome, DatasetReport) {
        let started = Instant::now();
        let mut ctx = self.env.context();
        let attempted_at = Utc::now();
        let result: Result<(Outcome, u64, u64, usize), IngestError> = async {
            let source =
                self.sources.get(&dataset).ok_or_else(|| IngestError::Usage(format!("no source for {dataset}")))?;
            let latest = self.lake.latest_commit().await?;
            let current = latest.dataset(dataset);
            if source.reads_previous() {
                if let Some(entry) = current {
                    ctx.previous = self.lake.read_rows(dataset, entry).await?;
                }
            }
            let fetched = source.fetch(&ctx, Window::Scheduled).await?;
            let fetched_at = if self.env.is_replay() { fetched.as_of } else { attempted_at };
            let hash = content_hash(&fetched.batch, &fetched.scope)?;
            if current.is_some_and(|e| e.version.is_some() && e.content_hash.as_deref() == Some(hash.as_str())) {
                let rows = fetched.batch.num_rows() as u64;
                let outcome = Outcome::Unchanged {
                    dataset,
                    content_hash: hash,
                    fetched_at,
                    attempted_at,
                    partial_error: fetched.partial_error,
                };
                return Ok((outcome, rows, 0, 0));
            }
            let mut next_part = 0;
            let files =
                write_dataset(&self.lake, run_id, dataset, &fetched.batch, attempted_at, &mut next_part).await?;
            let (rows, bytes, n) =
                (files.iter().map(|f| f.rows).sum(), files.iter().map(|f| f.bytes).sum(), files.len());
            let outcome = Outcome::Fetched {
                dataset,
                files,
                scope: fetched.scope,
                fetched_at,
                as_of: fetched.as_of,
                upstream_version: fetched.upstream_version,
                keeps_as_of: false,
                mode: self.env.mode(),
                content_hash: Some(hash),
                partial_error: fetched.partial_error,
            };
            Ok((outcome, rows, bytes, n))
        }
        .await;
        let millis = started.elapsed().as_millis();
        match result {
            Ok((outcome, rows, bytes, files)) => {
                (outcome, DatasetReport { dataset, ok: true, rows, bytes, files, millis, error: None })
            }
            Err(e) => {
                let error = match &e {
                    IngestError::Source(s) => s.to_string(),
                    other => format!("ingest: {other}"),
                };
                tracing::warn!(%dataset, %error, "dataset run failed; last good version keeps serving");
                let outcome = Outcome::Failed { dataset, error: error.clone(), attempted_at };
                (outcome, DatasetReport { dataset, ok: false, rows: 0, bytes: 0, files: 0, millis, error: Some(error) })
            }
        }
    }

    /// One run over `datasets`, published as one generation.
    pub async fn run(&self, datasets: &[DatasetId]) -> Result<RunReport, IngestError> {
        let run_id = ulid::Ulid::new().to_string();
        let staged = futures::future::join_all(datasets.iter().map(|d| self.stage_one(&run_id, *d))).await;
        let (outcomes, reports): (Vec<_>, Vec<_>) = staged.into_iter().unzip();
        let run_stats = outcomes
            .iter()
            .zip(&reports)
            .map(|(outcome, r)| {
                let outcome = match outcome {
                    Outcome::Fetched { .. } => RunOutcome::Published,
                    Outcome::Unchanged { .. } => RunOutcome::Unchanged,
                    Outcome::Failed { .. } => RunOutcome::Failed,
                };
                let stats = RunStats {
                    run_id: run_id.clone(),
                    outcome,
                    rows: r.rows,
                    bytes: r.bytes,
                    files: r.files as u64,
                    millis: r.millis as u64,
                };
                (r.dataset, stats)
            })
            .collect();
        let names: Vec<&str> = datasets.iter().map(|d| d.as_str()).collect();
        let staged = Staged { run_id, operation: format!("ingest {}", names.join(",")), outcomes, run_stats };
        let commit = self.lake.publish(&staged).await?;
        for r in &reports {
            tracing::info!(
                dataset = %r.dataset, ok = r.ok, rows = r.rows, bytes = r.bytes, millis = r.millis as u64,
                generation = commit.generation, error = r.error.as_deref().unwrap_or(""), "ingest run"
            );
        }
        Ok(RunReport { commit, datasets: reports })
    }
}
