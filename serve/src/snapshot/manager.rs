//! Follows the lake and holds the current generation plus recent dataset versions.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    path::PathBuf,
    sync::{Arc, Mutex, RwLock},
    time::Duration,
};

use chrono::{DateTime, Utc};
use sitrep_lake::Lake;
use sitrep_schemas::{Commit, DatasetId};

use super::{
    cache_prune::prune_files,
    dataset_db::{BuildOptions, DatasetDb, DbError},
};

/// Dataset versions kept queryable per dataset (SUPPLEMENT 1.7: at least the last 3).
const RETAINED_VERSIONS: usize = 3;

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("lake: {0}")]
    Lake(#[from] sitrep_lake::LakeError),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("cache: {0}")]
    Io(#[from] std::io::Error),
    #[error("task: {0}")]
    Task(String),
}

/// One complete, consistent view: the commit and a loaded database per published dataset.
#[derive(Debug)]
pub struct Generation {
    pub number: u64,
    pub committed_at: DateTime<Utc>,
    pub commit: Commit,
    pub datasets: BTreeMap<DatasetId, Arc<DatasetDb>>,
}

impl Generation {
    pub fn dataset(&self, id: DatasetId) -> Option<&Arc<DatasetDb>> {
        self.datasets.get(&id)
    }
}

pub struct Snapshots {
    lake: Lake,
    cache_dir: PathBuf,
    memory_limit: String,
    current: RwLock<Option<Arc<Generation>>>,
    retained: Mutex<HashMap<DatasetId, Vec<Arc<DatasetDb>>>>,
    load_lock: tokio::sync::Mutex<()>,
}

impl Snapshots {
    /// `cache_dir` belongs to this server alone: database files found there are left over from an
    /// earlier process and are deleted.
    pub fn new(lake: Lake, cache_dir: PathBuf, memory_limit: String) -> Self {
        if let Err(e) = prune_files(&cache_dir.join("db"), &HashSet::new()) {
            tracing::warn!(error = %e, "could not clear stale databases from the cache");
        }
        Snapshots {
            lake,
            cache_dir,
            memory_limit,
            current: RwLock::new(None),
            retained: Mutex::new(HashMap::new()),
            load_lock: tokio::sync::Mutex::new(()),
        }
    }

    pub fn lake(&self) -> &Lake {
        &self.lake
    }

    pub fn current(&self) -> Option<Arc<Generation>> {
        self.current.read().ok().and_then(|g| g.clone())
    }

    /// A retained version of a dataset (for cursors pinned to it).
    pub fn version(&self, dataset: DatasetId, version: u64) -> Option<Arc<DatasetDb>> {
        self.retained.lock().ok()?.get(&dataset)?.iter().find(|d| d.version == version).cloned()
    }

    /// Loads the latest generation if it is newer than the current one. Returns the generation
    /// now current; on failure the previous one stays.
    pub async fn refresh(&self) -> Result<Option<Arc<Generation>>, SnapshotError> {
        let _one_loader = self.load_lock.lock().await;
        let latest = self.lake.latest_generation().await?;
        let have = self.current().map(|g| g.number).unwrap_or(0);
        if latest == 0 || latest <= have {
            return Ok(self.current());
        }
        let commit = self
            .lake
            .read_commit(latest)
            .await?
            .ok_or_else(|| SnapshotError::Task(format!("generation {latest} vanished")))?;
        let generation = Arc::new(self.load(commit).await?);
        if let Ok(mut cur) = self.current.write() {
            *cur = Some(generation.clone());
        }
        tracing::info!(generation = generation.number, "serving generation");
        self.prune_cached_files().await;
        Ok(Some(generation))
    }

    /// Drops cached lake files that no retained dataset version was built from.
    async fn prune_cached_files(&self) {
        let keep: HashSet<PathBuf> = match self.retained.lock() {
            Ok(r) => r.values().flatten().flat_map(|db| db.sources.iter().cloned()).collect(),
            Err(_) => return,
        };
        let dir = self.cache_dir.join("files");
        match tokio::task::spawn_blocking(move || prune_files(&dir, &keep)).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!(files = n, "pruned cached lake files"),
            Ok(Err(e)) => tracing::warn!(error = %e, "could not prune the file cache"),
            Err(e) => tracing::warn!(error = %e, "file cache pruning task failed"),
        }
    }

    async fn load(&self, commit: Commit) -> Result<Generation, SnapshotError> {
        let mut datasets = BTreeMap::new();
        for (id, entry) in commit.known() {
            let Some(version) = entry.version else { continue };
            if let Some(db) = self.version(id, version) {
                datasets.insert(id, db);
                continue;
            }
            let mut local = Vec::with_capacity(entry.files.len());
            for f in &entry.files {
                local.push(self.fetch_file(&f.path, f.bytes).await?);
            }
            // The version was published by generation `version`: its commit time is the version's as-of header.
            let published_at = if version == commit.generation {
                commit.committed_at
            } else {
                self.lake.read_commit(version).await?.map(|c| c.committed_at).unwrap_or(commit.committed_at)
            };
            let (db_dir, allowed) = (self.cache_dir.join("db"), self.cache_dir.clone());
            let (dataset, freshness, memory_limit) = (id, entry.freshness.clone(), self.memory_limit.clone());
            let db = tokio::task::spawn_blocking(move || {
                let opts = BuildOptions {
                    db_dir: &db_dir,
                    allowed_dir: &allowed,
                    memory_limit: &memory_limit,
                    threads: 2,
                    pool_size: 8,
                };
                DatasetDb::build(dataset, version, published_at, freshness, &local, &opts)
            })
            .await
            .map_err(|e| SnapshotError::Task(e.to_string()))??;
            let db = Arc::new(db);
            if let Ok(mut r) = self.retained.lock() {
                let list = r.entry(id).or_default();
                list.push(db.clone());
                list.sort_by_key(|d| std::cmp::Reverse(d.version));
                list.truncate(RETAINED_VERSIONS);
            }
            datasets.insert(id, db);
        }
        Ok(Generation { number: commit.generation, committed_at: commit.committed_at, commit, datasets })
    }

    /// Data files are immutable: a cached copy of the right size is the file.
    async fn fetch_file(&self, key: &str, size: u64) -> Result<PathBuf, SnapshotError> {
        let local = self.cache_dir.join("files").join(key);
        if tokio::fs::metadata(&local).await.map(|m| m.len() == size).unwrap_or(false) {
            return Ok(local);
        }
        let bytes = self.lake.get_bytes(key).await?;
        if let Some(dir) = local.parent() {
            tokio::fs::create_dir_all(dir).await?;
        }
        let tmp = local.with_extension(format!("tmp-{}", ulid::Ulid::new()));
        tokio::fs::write(&tmp, &bytes).await?;
        tokio::fs::rename(&tmp, &local).await?;
        Ok(local)
    }

    /// Polls the lake forever; errors are logged and the current generation keeps serving.
    pub fn spawn_poller(self: Arc<Self>, every: Duration) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                if let Err(e) = self.refresh().await {
                    tracing::error!(error = %e, "generation load failed; previous generation keeps serving");
                }
                tokio::time::sleep(every).await;
            }
        })
    }
}
