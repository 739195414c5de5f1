//! Publishing a generation: validate every staged file, merge the run's outcomes onto the latest
//! commit, and create `commits/<n+1>.json` with `PutMode::Create`. If another publisher won the
//! race (AlreadyExists), reload the new parent, re-merge and retry. Nothing is ever overwritten, so
//! a crash at any point leaves the lake at its last complete generation.

use bytes::Bytes;
use chrono::{DateTime, Utc};
use object_store::{PutMode, PutOptions, PutPayload};
use sitrep_schemas::{
    commit::COMMIT_FORMAT,
    partition::{Scope, YearMonth},
    Commit, DataMode, DatasetEntry, DatasetId, DatasetStatus, FileEntry, Freshness, RunStats,
};

use crate::{
    validate::{read_footer, validate_file},
    Lake, LakeError,
};

const MAX_RACE_RETRIES: u32 = 64;

/// What one run produced for one dataset.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// New data: `files` replace `scope` of the dataset.
    Fetched {
        dataset: DatasetId,
        files: Vec<FileEntry>,
        scope: Scope,
        fetched_at: DateTime<Utc>,
        as_of: DateTime<Utc>,
        upstream_version: Option<String>,
        /// Backfills add history without moving the dataset's as-of.
        keeps_as_of: bool,
        /// Live upstream or recorded fixtures.
        mode: DataMode,
        /// The fetch's content hash (scheduled runs); `None` for backfills.
        content_hash: Option<String>,
        /// The newest time in the fetched rows by the dataset's content clock.
        content_at: Option<DateTime<Utc>>,
        /// Parts that failed and were kept from the previous version (`Fetched::partial_error`).
        partial_error: Option<String>,
    },
    /// The fetch equals the current version (same content hash): no new version, no new files;
    /// only the fetch time moves, so cursors, caches and ETags of the version stay valid.
    Unchanged {
        dataset: DatasetId,
        content_hash: String,
        fetched_at: DateTime<Utc>,
        attempted_at: DateTime<Utc>,
        partial_error: Option<String>,
    },
    /// The attempt failed; the previous version keeps serving.
    Failed { dataset: DatasetId, error: String, attempted_at: DateTime<Utc> },
    /// The current version's files at `from` copied to `files` (the same bytes, into the dataset's
    /// folder: `lake migrate`): a new version of the same rows, its freshness untouched.
    Moved { dataset: DatasetId, from: Vec<String>, files: Vec<FileEntry> },
}

impl Outcome {
    pub fn dataset(&self) -> DatasetId {
        match self {
            Outcome::Fetched { dataset, .. }
            | Outcome::Unchanged { dataset, .. }
            | Outcome::Failed { dataset, .. }
            | Outcome::Moved { dataset, .. } => *dataset,
        }
    }
}

/// Everything one run wants to publish.
#[derive(Debug, Clone)]
pub struct Staged {
    pub run_id: String,
    pub operation: String,
    pub outcomes: Vec<Outcome>,
    /// The run's counters per dataset, recorded as each entry's `lastRun`.
    pub run_stats: Vec<(DatasetId, RunStats)>,
}

fn replaces(scope: &Scope, file: &FileEntry) -> bool {
    match scope {
        Scope::All => true,
        Scope::Months(months) => {
            file.partition.as_deref().and_then(YearMonth::parse).is_some_and(|m| months.contains(&m))
        }
    }
}

/// The pure merge step: parent + outcomes → the next commit.
pub fn merge(parent: &Commit, staged: &Staged, now: DateTime<Utc>) -> Commit {
    let generation = parent.generation + 1;
    let mut datasets = parent.datasets.clone();
    for d in DatasetId::ALL {
        datasets.entry(d.to_string()).or_insert_with(|| DatasetEntry::empty(d));
    }
    for outcome in &staged.outcomes {
        let Some(entry) = datasets.get_mut(outcome.dataset().as_str()) else { continue };
        match outcome {
            // Another worker published this very content while this run staged it (workers on
            // several machines run one dataset): the version stays, so cursors, caches and ETags
            // hold; only the fetch moves. This run's files are left to gc.
            Outcome::Fetched { content_hash: Some(hash), fetched_at, partial_error, .. }
                if entry.version.is_some() && entry.content_hash.as_deref() == Some(hash.as_str()) =>
            {
                entry.freshness.fetched_at = Some(*fetched_at);
                entry.freshness.last_attempt_at = Some(*fetched_at);
                entry.freshness.status = DatasetStatus::Ok;
                entry.freshness.last_error = partial_error.clone();
            }
            Outcome::Fetched {
                dataset,
                files,
                scope,
                fetched_at,
                as_of,
                upstream_version,
                keeps_as_of,
                mode,
                content_hash,
                content_at,
                partial_error,
            } => {
                let mut kept: Vec<FileEntry> = entry.files.iter().filter(|f| !replaces(scope, f)).cloned().collect();
                kept.extend(files.iter().cloned());
                kept.sort_by(|a, b| a.partition.cmp(&b.partition).then_with(|| a.path.cmp(&b.path)));
                let rows = kept.iter().map(|f| f.rows).sum();
                let previous = entry.freshness.clone();
                entry.files = kept;
                entry.version = Some(generation);
                entry.content_hash = content_hash.clone();
                entry.schema_fingerprint = dataset.fingerprint();
                entry.freshness = if *keeps_as_of && previous.as_of.is_some() {
                    Freshness {
                        rows,
                        status: DatasetStatus::Ok,
                        mode: *mode,
                        last_attempt_at: Some(*fetched_at),
                        last_error: partial_error.clone(),
                        ..previous
                    }
                } else {
                    Freshness {
                        status: DatasetStatus::Ok,
                        mode: *mode,
                        fetched_at: Some(*fetched_at),
                        as_of: Some(*as_of),
                        upstream_version: upstream_version.clone(),
                        rows,
                        last_attempt_at: Some(*fetched_at),
                        last_error: partial_error.clone(),
                        // A fetch of some months leaves the others' rows, and their times, in place.
                        content_at: match scope {
                            Scope::All => *content_at,
                            Scope::Months(_) => (*content_at).max(previous.content_at),
                        },
                        content_changed_at: Some(*fetched_at),
                        extra: previous.extra,
                    }
                };
            }
            Outcome::Unchanged { content_hash, fetched_at, attempted_at, dataset, partial_error } => {
                if entry.version.is_some() && entry.content_hash.as_deref() == Some(content_hash.as_str()) {
                    entry.freshness.fetched_at = Some(*fetched_at);
                    entry.freshness.status = DatasetStatus::Ok;
                    entry.freshness.last_error = partial_error.clone();
                } else {
                    // Another publisher changed the dataset since this run compared; its data was
                    // not written, so only the attempt is recorded and the next run republishes.
                    tracing::warn!(%dataset, "dataset changed while an unchanged fetch was staged");
                }
                entry.freshness.last_attempt_at = Some(*attempted_at);
            }
            Outcome::Moved { dataset, from, files } => {
                if from.iter().all(|path| entry.files.iter().any(|f| &f.path == path)) {
                    entry.files.retain(|f| !from.contains(&f.path));
                    entry.files.extend(files.iter().cloned());
                    entry.files.sort_by(|a, b| a.partition.cmp(&b.partition).then_with(|| a.path.cmp(&b.path)));
                    entry.version = Some(generation);
                } else {
                    // A run published the dataset since the move was staged: its version is the
                    // newer, and the copies are left to gc.
                    tracing::warn!(%dataset, "dataset changed while its files were being moved");
                }
            }
            Outcome::Failed { error, attempted_at, .. } => {
                entry.freshness.last_attempt_at = Some(*attempted_at);
                entry.freshness.last_error = Some(error.clone());
                entry.freshness.status =
                    if entry.version.is_some() { DatasetStatus::Degraded } else { DatasetStatus::Unavailable };
            }
        }
    }
    for (dataset, stats) in &staged.run_stats {
        if let Some(entry) = datasets.get_mut(dataset.as_str()) {
            entry.last_run = Some(stats.clone());
        }
    }
    Commit {
        format: COMMIT_FORMAT,
        generation,
        parent: (parent.generation > 0).then_some(parent.generation),
        committed_at: now,
        run_id: staged.run_id.clone(),
        operation: staged.operation.clone(),
        datasets,
    }
}

impl Lake {
    /// Validates and publishes; returns the new commit.
    pub async fn publish(&self, staged: &Staged) -> Result<Commit, LakeError> {
        for outcome in &staged.outcomes {
            match outcome {
                Outcome::Fetched { dataset, files, .. } => {
                    for f in files {
                        validate_file(self, *dataset, f).await?;
                    }
                }
                // Copies of files a version already names, whatever schema wrote them: the same
                // size and rows.
                Outcome::Moved { files, .. } => {
                    for f in files {
                        if read_footer(self, f).await?.rows != f.rows {
                            return Err(LakeError::Validation(format!("{}: not a copy of its file", f.path)));
                        }
                    }
                }
                Outcome::Unchanged { .. } | Outcome::Failed { .. } => {}
            }
        }
        let commit = self.create_next(|parent| merge(parent, staged, Utc::now())).await?;
        // The open tables follow our commit (a failure there leaves them for the next publish).
        self.write_open_tables(&commit).await;
        Ok(commit)
    }

    /// The one place commits are created: build the next commit from the latest parent and create
    /// it with `PutMode::Create`; on a lost race, rebuild on the new parent and retry.
    async fn create_next(&self, build: impl Fn(&Commit) -> Commit) -> Result<Commit, LakeError> {
        for _ in 0..MAX_RACE_RETRIES {
            let parent = self.latest_commit().await?;
            let commit = build(&parent);
            let body = serde_json::to_vec_pretty(&commit).map_err(|e| LakeError::Validation(e.to_string()))?;
            let opts = PutOptions { mode: PutMode::Create, ..Default::default() };
            let key = Lake::path(&Commit::key(commit.generation));
            match self.store.put_opts(&key, PutPayload::from(Bytes::from(body)), opts).await {
                Ok(_) => {
                    self.write_hint(commit.generation).await;
                    return Ok(commit);
                }
                Err(object_store::Error::AlreadyExists { .. }) => {
                    tracing::debug!(generation = commit.generation, "lost a publish race; re-merging");
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(LakeError::Contention(MAX_RACE_RETRIES))
    }

    /// Writes one immutable data object (never overwrites).
    pub async fn put_data(&self, key: &str, bytes: Bytes) -> Result<(), LakeError> {
        let opts = PutOptions { mode: PutMode::Create, ..Default::default() };
        self.store.put_opts(&Lake::path(key), PutPayload::from(bytes), opts).await?;
        Ok(())
    }

    /// A new commit serving what generation `to` served (rollback); the audit log keeps both.
    ///
    /// Each dataset whose files differ from the current ones gets a new version (this generation)
    /// with generation `to`'s files, rows and freshness, so the history stays what it was: `as_of`
    /// a time before the rollback still reads what was served then, and the open tables project
    /// the rollback as one more version (Delta removes the files that leave and adds back the old
    /// ones; Iceberg commits a snapshot listing them). A dataset `to` had not published keeps its
    /// current version: a rollback never unpublishes.
    pub async fn rollback(&self, to: u64) -> Result<Commit, LakeError> {
        let target =
            self.read_commit(to).await?.ok_or_else(|| LakeError::Usage(format!("generation {to} does not exist")))?;
        let commit = self
            .create_next(|parent| {
                let mut commit = parent.clone();
                commit.generation = parent.generation + 1;
                commit.parent = Some(parent.generation);
                commit.committed_at = Utc::now();
                commit.run_id = ulid::Ulid::new().to_string();
                commit.operation = format!("rollback to {to}");
                for (name, old) in &target.datasets {
                    if old.version.is_none() {
                        continue;
                    }
                    let current = commit.datasets.get(name);
                    if current.is_some_and(|c| c.files == old.files && c.schema_fingerprint == old.schema_fingerprint) {
                        continue;
                    }
                    let mut entry = old.clone();
                    entry.version = Some(commit.generation);
                    entry.last_run = current.and_then(|c| c.last_run.clone());
                    commit.datasets.insert(name.clone(), entry);
                }
                commit
            })
            .await?;
        self.write_open_tables(&commit).await;
        Ok(commit)
    }
}
