//! One ingest run: fetch the chosen datasets concurrently, write each success as Parquet, then
//! publish every outcome in ONE commit. A failed dataset keeps its last good version; its freshness
//! records the failure.

use std::{collections::HashMap, sync::Arc, time::Instant};

use arrow::record_batch::RecordBatch;
use chrono::Utc;
use sitrep_pipelines::{registry, Source, Window};
use sitrep_schemas::{Commit, DatasetId, RunOutcome, RunStats};

use crate::{
    content_hash::content_hash,
    content_time::newest_content_time,
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

/// Rows fetched earlier in a run, by dataset.
type Fetches = HashMap<DatasetId, RecordBatch>;

/// One dataset's outcome, its report and the rows it fetched.
type Staged1 = (Outcome, DatasetReport, Option<RecordBatch>);

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

    /// Fetches and writes one dataset; never fails: errors become a `Failed` outcome. `fetched`
    /// holds the rows of datasets fetched earlier in this run (inputs of this one). Returns the
    /// rows fetched, for datasets that are inputs of later ones.
    async fn stage_one(&self, run_id: &str, dataset: DatasetId, fetched: &Fetches) -> Staged1 {
        let started = Instant::now();
        let mut ctx = self.env.context();
        let attempted_at = Utc::now();
        let mut rows_fetched = None;
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
            for &input in source.inputs() {
                let rows = match (fetched.get(&input), latest.dataset(input)) {
                    (Some(rows), _) => Some(rows.clone()),
                    (None, Some(entry)) => self.lake.read_rows(input, entry).await?,
                    (None, None) => None,
                };
                ctx.inputs.extend(rows.map(|r| (input, r)));
            }
            let fetched = source.fetch(&ctx, Window::Scheduled).await?;
            rows_fetched = Some(fetched.batch.clone());
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
                content_at: newest_content_time(&fetched.batch, dataset.content_clock()),
                partial_error: fetched.partial_error,
            };
            Ok((outcome, rows, bytes, n))
        }
        .await;
        let millis = started.elapsed().as_millis();
        match result {
            Ok((outcome, rows, bytes, files)) => {
                (outcome, DatasetReport { dataset, ok: true, rows, bytes, files, millis, error: None }, rows_fetched)
            }
            Err(e) => {
                let error = match &e {
                    IngestError::Source(s) => s.to_string(),
                    other => format!("ingest: {other}"),
                };
                tracing::warn!(%dataset, %error, "dataset run failed; last good version keeps serving");
                let outcome = Outcome::Failed { dataset, error: error.clone(), attempted_at };
                let report =
                    DatasetReport { dataset, ok: false, rows: 0, bytes: 0, files: 0, millis, error: Some(error) };
                (outcome, report, None)
            }
        }
    }

    /// The run's datasets in stages: a dataset comes after its inputs that are part of the run, and
    /// an input that has never been published joins the run (a first anomalies run fetches the
    /// normals it needs). Datasets of one stage are fetched concurrently.
    async fn stages(&self, datasets: &[DatasetId]) -> Result<Vec<Vec<DatasetId>>, IngestError> {
        let latest = self.lake.latest_commit().await?;
        let inputs = |d: DatasetId| self.sources.get(&d).map(|s| s.inputs()).unwrap_or(&[]);
        let mut all: Vec<DatasetId> = Vec::new();
        for &d in datasets {
            for &input in inputs(d) {
                let unpublished = latest.dataset(input).is_none_or(|e| e.version.is_none());
                if unpublished && self.sources.contains_key(&input) && !all.contains(&input) {
                    all.push(input);
                }
            }
            if !all.contains(&d) {
                all.push(d);
            }
        }
        let mut stages: Vec<Vec<DatasetId>> = Vec::new();
        let mut placed: Vec<DatasetId> = Vec::new();
        while placed.len() < all.len() {
            let ready: Vec<DatasetId> = all
                .iter()
                .copied()
                .filter(|d| !placed.contains(d))
                .filter(|d| inputs(*d).iter().all(|i| placed.contains(i) || !all.contains(i)))
                .collect();
            if ready.is_empty() {
                return Err(IngestError::Usage("datasets whose inputs form a cycle".into()));
            }
            placed.extend(&ready);
            stages.push(ready);
        }
        Ok(stages)
    }

    /// One run over `datasets`, published as one generation.
    pub async fn run(&self, datasets: &[DatasetId]) -> Result<RunReport, IngestError> {
        let run_id = ulid::Ulid::new().to_string();
        let stages = self.stages(datasets).await?;
        let datasets: Vec<DatasetId> = stages.concat();
        let (mut outcomes, mut reports, mut fetched) = (Vec::new(), Vec::new(), Fetches::new());
        for stage in stages {
            let staged = futures::future::join_all(stage.iter().map(|d| self.stage_one(&run_id, *d, &fetched))).await;
            for (outcome, report, rows) in staged {
                fetched.extend(rows.map(|r| (report.dataset, r)));
                outcomes.push(outcome);
                reports.push(report);
            }
        }
        let run_stats = outcomes
            .iter()
            .zip(&reports)
            .map(|(outcome, r)| {
                let outcome = match outcome {
                    Outcome::Fetched { .. } | Outcome::Moved { .. } => RunOutcome::Published,
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
