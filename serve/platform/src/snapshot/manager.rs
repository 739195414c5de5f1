//! Follows the lake and holds the current generation plus recent dataset versions.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    path::PathBuf,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex, RwLock,
    },
    time::Duration,
};

use chrono::{DateTime, Utc};
use sitrep_lake::{Lake, PublishedVersion, Retention};
use sitrep_schemas::{Commit, DatasetId};

use super::{
    cache_prune::prune_files,
    dataset_db::{Backing, BuildOptions, DatasetDb, DbError, VersionSpec},
    engine::Engine,
    fair_eviction::{evictions, Budget, Held},
    shares::OwnerShares,
    work_time::{Charged, TimeSpent, WorkTime},
};

/// Dataset versions kept loaded per dataset, and the least SUPPLEMENT 1.7 keeps readable.
const RETAINED_VERSIONS: usize = 3;

/// Connections of the engine's pool: the most queries that run at once.
const POOL_SIZE: usize = 8;

/// Older versions loaded on demand (cursors, `as_of`), kept loaded at most: evicted fairly between
/// the owners whose requests loaded them (an owner's part is two; one past it loses its own least
/// recently used first and never evicts another owner's within theirs).
const ON_DEMAND_VERSIONS: usize = 8;

const ON_DEMAND_BUDGET: Budget = Budget { entries: ON_DEMAND_VERSIONS, weight: ON_DEMAND_VERSIONS as i64, share: 4 };

/// The cache directory's subdirectory of scratch files.
const SCRATCH_DIR: &str = "scratch";

/// The default memory limit of a version pair's diff (`SITREP_DIFF_MEMORY`): a 2M-change diff of
/// armed events renders within 24 MB, so 32 leaves room for wider rows.
pub const DIFF_MEMORY: &str = "32MB";

/// Threads of a serving file's build. With two, DuckDB's sort of 5M events needs more than 128 MB
/// (it fails at that limit); with one it stays within it, taking 1.6x as long — a build never
/// delays an answer (the previous generation, or the Parquet files at start, answer meanwhile),
/// while its memory adds to the server's.
const BUILD_THREADS: usize = 1;

/// How a version missing from the cache becomes servable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Readiness {
    /// Its serving file is built first: a running server, whose current generation answers meanwhile.
    Built,
    /// A starting server, with nothing to answer from yet: read from the Parquet files at once,
    /// the serving file built after ready (`build_pending`).
    Early,
}

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
    /// The caller's time for heavy work is spent: the load was not started.
    #[error(transparent)]
    Busy(#[from] TimeSpent),
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

/// A version loaded on demand, whose request loaded it and when it was last used.
struct OnDemand {
    db: Arc<DatasetDb>,
    owner: Option<Arc<str>>,
    used: u64,
}

/// The retained versions of a dataset (newest first), computed at a generation and an instant.
#[derive(Clone)]
struct RetainedSet {
    generation: u64,
    at: std::time::Instant,
    versions: Arc<Vec<PublishedVersion>>,
}

pub struct Snapshots {
    lake: Lake,
    /// The server's one DuckDB instance; every loaded version is attached to it.
    engine: Arc<Engine>,
    cache_dir: PathBuf,
    /// DuckDB's memory limit for a serving file's build (a transient instance of its own).
    build_memory: String,
    /// DuckDB's memory limit for a version pair's diff (a transient instance of its own).
    diff_memory: String,
    current: RwLock<Option<Arc<Generation>>>,
    /// `current`'s number, for the edge's check on every repeated answer: reading it writes no
    /// shared cache line, where taking the lock would (two worker threads then trade that line).
    current_number: AtomicU64,
    retained: Mutex<HashMap<DatasetId, Vec<Arc<DatasetDb>>>>,
    /// Versions outside the newest three, loaded because a cursor or an `as_of` named them.
    on_demand: Mutex<Vec<OnDemand>>,
    /// Orders the uses of `on_demand`'s versions.
    ticks: AtomicU64,
    /// Per dataset, the versions SUPPLEMENT 1.7 retains, as last computed.
    retained_sets: Mutex<HashMap<DatasetId, RetainedSet>>,
    /// Which versions stay readable (`LAKE_RETENTION_HOURS`, `LAKE_RETENTION_DAYS`).
    retention: Retention,
    /// Per dataset, its published versions as of the current generation, newest first, back to
    /// the retention horizon: read from the lake once, then only what was published since.
    histories: Mutex<HashMap<DatasetId, Arc<Vec<PublishedVersion>>>>,
    load_lock: tokio::sync::Mutex<()>,
    /// One load of a past version at a time per owner.
    load_shares: OwnerShares,
    /// Each owner's seconds of heavy work: loads of past versions here, diffs in the History group.
    work_time: Arc<WorkTime>,
}

impl Snapshots {
    /// `cache_dir` belongs to this server alone. Serving databases found there were built by an
    /// earlier process and are re-attached rather than rebuilt; the ones no retained version
    /// uses are pruned after each load.
    pub fn new(lake: Lake, cache_dir: PathBuf, memory_limit: String) -> Result<Self, SnapshotError> {
        Self::with_retention(lake, cache_dir, memory_limit, Retention::default())
    }

    /// The memory limit of a serving file's build (default: the engine's).
    pub fn with_build_memory(mut self, limit: String) -> Self {
        self.build_memory = limit;
        self
    }

    /// The memory limit of a version pair's diff (default: [`DIFF_MEMORY`]).
    pub fn with_diff_memory(mut self, limit: String) -> Self {
        self.diff_memory = limit;
        self
    }

    pub fn with_retention(
        lake: Lake,
        cache_dir: PathBuf,
        memory_limit: String,
        retention: Retention,
    ) -> Result<Self, SnapshotError> {
        let engine = Engine::open(&cache_dir, &memory_limit, POOL_SIZE)?;
        // Scratch files live as long as the process that wrote them.
        let scratch = cache_dir.join(SCRATCH_DIR);
        if scratch.exists() {
            std::fs::remove_dir_all(&scratch)?;
        }
        std::fs::create_dir_all(&scratch)?;
        Ok(Snapshots {
            lake,
            engine: Arc::new(engine),
            cache_dir,
            build_memory: memory_limit.clone(),
            diff_memory: DIFF_MEMORY.into(),
            current: RwLock::new(None),
            current_number: AtomicU64::new(0),
            retained: Mutex::new(HashMap::new()),
            on_demand: Mutex::new(Vec::new()),
            ticks: AtomicU64::new(0),
            retained_sets: Mutex::new(HashMap::new()),
            retention,
            histories: Mutex::new(HashMap::new()),
            load_lock: tokio::sync::Mutex::new(()),
            load_shares: OwnerShares::new(1),
            work_time: Arc::new(WorkTime::default()),
        })
    }

    pub fn lake(&self) -> &Lake {
        &self.lake
    }

    /// Where files derived from loaded versions go for this process's lifetime (emptied at
    /// start): inside the cache directory, so the engine may attach them.
    pub fn scratch_dir(&self) -> PathBuf {
        self.cache_dir.join(SCRATCH_DIR)
    }

    /// The memory limit of a transient DuckDB instance's work (a build; a diff): its memory adds
    /// to the server's, beyond the engine's limit, and it spills to disk past it.
    pub fn build_memory(&self) -> &str {
        &self.build_memory
    }

    /// The memory limit of a version pair's diff (ListDatasetChanges), a transient instance too.
    pub fn diff_memory(&self) -> &str {
        &self.diff_memory
    }

    /// The DuckDB instance the loaded versions are attached to.
    /// Each owner's seconds of heavy work (past versions' loads, version pairs' diffs).
    pub fn work_time(&self) -> &Arc<WorkTime> {
        &self.work_time
    }

    /// [`Self::work_time`] with another balance (tests).
    pub fn with_work_time(mut self, time: WorkTime) -> Self {
        self.work_time = Arc::new(time);
        self
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    pub fn current(&self) -> Option<Arc<Generation>> {
        self.current.read().ok().and_then(|g| g.clone())
    }

    /// The current generation's number (0: none loaded).
    pub fn current_number(&self) -> u64 {
        self.current_number.load(Ordering::Acquire)
    }

    /// A loaded version of a dataset. A version loaded on demand is marked used: the least
    /// recently used goes first, so callers rotating through more past versions than are kept
    /// evict each other's, not the ones in steady use.
    pub fn version(&self, dataset: DatasetId, version: u64) -> Option<Arc<DatasetDb>> {
        let retained = self
            .retained
            .lock()
            .ok()
            .and_then(|r| r.get(&dataset).and_then(|list| list.iter().find(|d| d.version == version).cloned()));
        retained.or_else(|| {
            let mut on_demand = self.on_demand.lock().ok()?;
            let loaded = on_demand.iter_mut().find(|d| d.db.dataset == dataset && d.db.version == version)?;
            loaded.used = self.ticks.fetch_add(1, Ordering::Relaxed);
            Some(loaded.db.clone())
        })
    }

    /// The version a cursor names, if SUPPLEMENT 1.7 still retains it: loaded, or loaded now
    /// from the lake (so cursors survive restarts and work on every replica). Whether a version
    /// is retained is decided by the lake's history, never by what happens to be in memory, so
    /// every replica gives the same answer. `Ok(None)`: no longer retained. A failed load evicts
    /// nothing.
    pub async fn version_or_load(
        self: &Arc<Self>,
        dataset: DatasetId,
        version: u64,
    ) -> Result<Option<Arc<DatasetDb>>, SnapshotError> {
        let retained = self.retained_history(dataset).await?;
        match retained.iter().find(|v| v.version == version) {
            Some(published) => Ok(Some(self.load_published(dataset, published).await?)),
            None => Ok(None),
        }
    }

    /// A published version of `dataset` (one of its history), loaded unless it is already.
    ///
    /// Loads take turns on one lock (so a pruner never sees a half-built file), and each owner
    /// (account or address) has one load at a time: a caller rotating through past versions
    /// waits behind its own loads, and everyone else's load behind at most one of its. A load's
    /// seconds are charged to its owner's [`WorkTime`], and an owner whose time is spent is
    /// refused (`Busy`) before it waits for anything. A load runs to its end in a task of its
    /// own, holding the owner's place, even when the request that asked for it is cancelled: a
    /// cancelled load would leave a half-built file (and it is charged all the same). What an
    /// eviction frees is pruned from the cache directory at once.
    pub async fn load_published(
        self: &Arc<Self>,
        dataset: DatasetId,
        published: &PublishedVersion,
    ) -> Result<Arc<DatasetDb>, SnapshotError> {
        if let Some(db) = self.version(dataset, published.version) {
            return Ok(db);
        }
        let payer = self.work_time.admit()?;
        let share = self.load_shares.enter().await;
        let (this, published) = (self.clone(), published.clone());
        let load = tokio::spawn(async move {
            let _share = share;
            let _one_loader = this.load_lock.lock().await;
            if let Some(db) = this.version(dataset, published.version) {
                return Ok(db);
            }
            let owner = payer.owner().cloned();
            let charged = Charged::start(&this.work_time, payer);
            let db = this.load_version(dataset, &published.entry, published.published_at, Readiness::Built).await?;
            drop(charged);
            if this.keep_on_demand(db.clone(), owner) {
                this.prune_cached_files().await;
            }
            Ok(db)
        });
        load.await.map_err(|e| SnapshotError::Task(e.to_string()))?
    }

    /// Keeps `db` among the versions loaded on demand, evicting fairly past the budget; true when
    /// a version was evicted.
    fn keep_on_demand(&self, db: Arc<DatasetDb>, owner: Option<Arc<str>>) -> bool {
        let Ok(mut loaded) = self.on_demand.lock() else { return false };
        let newest = (db.dataset, db.version);
        loaded.push(OnDemand { db, owner, used: self.ticks.fetch_add(1, Ordering::Relaxed) });
        let held: Vec<Held<(DatasetId, u64)>> = loaded
            .iter()
            .map(|d| Held { key: (d.db.dataset, d.db.version), owner: d.owner.clone(), used: d.used, weight: 1 })
            .collect();
        let gone = evictions(&held, &newest, ON_DEMAND_BUDGET);
        loaded.retain(|d| !gone.contains(&(d.db.dataset, d.db.version)));
        !gone.is_empty()
    }

    /// The versions loaded on demand now, and whose request loaded each.
    pub fn loaded_on_demand(&self) -> Vec<(DatasetId, u64, Option<Arc<str>>)> {
        let loaded =
            self.on_demand.lock().map(|l| l.iter().map(|d| (d.db.dataset, d.db.version, d.owner.clone())).collect());
        loaded.unwrap_or_default()
    }

    /// The retained versions of `dataset`, newest first (the retention policy of the lake's
    /// `history.rs`, the one gc keeps the files of), decided from the lake's history so every
    /// replica agrees; recomputed when the generation changes or a minute has passed (the
    /// retention window slides with the clock).
    pub async fn retained_history(&self, dataset: DatasetId) -> Result<Arc<Vec<PublishedVersion>>, SnapshotError> {
        let generation = self.current_number();
        let cached = self.retained_sets.lock().ok().and_then(|m| m.get(&dataset).cloned());
        if let Some(c) = cached.filter(|c| c.generation == generation && c.at.elapsed() < Duration::from_secs(60)) {
            return Ok(c.versions);
        }
        let history = self.history(dataset).await?;
        let kept = self.retention.kept(&history, Utc::now());
        let versions: Arc<Vec<PublishedVersion>> =
            Arc::new(history.iter().filter(|v| kept.contains(&v.version)).cloned().collect());
        let entry = RetainedSet { generation, at: std::time::Instant::now(), versions: versions.clone() };
        if let Ok(mut m) = self.retained_sets.lock() {
            m.insert(dataset, entry);
        }
        Ok(versions)
    }

    /// The published versions of `dataset` as of the current generation, newest first, back to
    /// the retention horizon (a version never changes, so only newer ones are read again).
    pub async fn history(&self, dataset: DatasetId) -> Result<Arc<Vec<PublishedVersion>>, SnapshotError> {
        let top = self.current().and_then(|g| g.commit.dataset(dataset).and_then(|e| e.version));
        let known = self.histories.lock().ok().and_then(|h| h.get(&dataset).cloned());
        if let Some(known) = known.as_ref().filter(|k| k.first().map(|v| v.version) == top) {
            return Ok(known.clone());
        }
        let horizon = self.retention.horizon(Utc::now());
        let walked = self.lake.versions_from(dataset, top, horizon, known.as_deref().map_or(&[], |k| &k[..])).await?;
        let walked = Arc::new(walked);
        if let Ok(mut h) = self.histories.lock() {
            h.insert(dataset, walked.clone());
        }
        Ok(walked)
    }

    /// Loads the latest generation if it is newer than the current one, every version's serving
    /// file built. Returns the generation now current; on failure the previous one stays.
    pub async fn refresh(&self) -> Result<Option<Arc<Generation>>, SnapshotError> {
        self.refresh_with(Readiness::Built).await
    }

    /// A starting server's first load: as [`Self::refresh`], but a version whose serving file
    /// is not in the cache is read from its Parquet files, so the server is ready once the
    /// files are downloaded (sorting 5M events into a file takes DuckDB seconds). Answers are
    /// the same either way; [`Self::build_pending`] builds the files afterwards.
    pub async fn start(&self) -> Result<Option<Arc<Generation>>, SnapshotError> {
        self.refresh_with(Readiness::Early).await
    }

    /// Loaded versions still read from their Parquet files.
    pub fn pending_builds(&self) -> usize {
        self.retained
            .lock()
            .map(|r| r.values().flatten().filter(|d| d.backing() == Backing::Parquet).count())
            .unwrap_or(0)
    }

    /// Builds the serving file of every loaded version still read from its Parquet files, one at
    /// a time, and puts the built version in its place (in the current generation too: the same
    /// number, the same rows, so every answer and cache entry stays true). A failed build leaves
    /// the version as it was, for the next call.
    pub async fn build_pending(&self) -> Result<(), SnapshotError> {
        let _one_loader = self.load_lock.lock().await;
        let pending: Vec<Arc<DatasetDb>> = match self.retained.lock() {
            Ok(r) => r.values().flatten().filter(|d| d.backing() == Backing::Parquet).cloned().collect(),
            Err(_) => return Ok(()),
        };
        for early in pending {
            let built = self.build(early.spec()).await?;
            self.replace(&early, built);
        }
        Ok(())
    }

    /// Puts `built` wherever `early` is loaded: the retained versions and the current generation.
    fn replace(&self, early: &Arc<DatasetDb>, built: Arc<DatasetDb>) {
        if let Ok(mut r) = self.retained.lock() {
            for db in r.values_mut().flatten().filter(|d| Arc::ptr_eq(d, early)) {
                *db = built.clone();
            }
        }
        let Ok(mut cur) = self.current.write() else { return };
        let Some(g) = cur.as_ref().filter(|g| g.dataset(early.dataset).is_some_and(|d| Arc::ptr_eq(d, early))) else {
            return;
        };
        let mut datasets = g.datasets.clone();
        datasets.insert(early.dataset, built);
        let swapped = Generation { number: g.number, committed_at: g.committed_at, commit: g.commit.clone(), datasets };
        *cur = Some(Arc::new(swapped));
    }

    async fn refresh_with(&self, readiness: Readiness) -> Result<Option<Arc<Generation>>, SnapshotError> {
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
        let generation = Arc::new(self.load(commit, readiness).await?);
        let before = self.current();
        crate::dataset_health::log_frozen_changes(before.as_ref().map(|g| &g.commit), &generation.commit);
        if let Ok(mut cur) = self.current.write() {
            *cur = Some(generation.clone());
            self.current_number.store(generation.number, Ordering::Release);
        }
        tracing::info!(generation = generation.number, "serving generation");
        self.prune_cached_files().await;
        Ok(Some(generation))
    }

    /// Drops cached lake files and serving databases that no loaded version uses.
    async fn prune_cached_files(&self) {
        let loaded: Vec<Arc<DatasetDb>> = match (self.retained.lock(), self.on_demand.lock()) {
            (Ok(r), Ok(o)) => r.values().flatten().chain(o.iter().map(|d| &d.db)).cloned().collect(),
            _ => return,
        };
        let keep: HashSet<PathBuf> =
            loaded.iter().flat_map(|db| db.sources.iter().cloned().chain([db.path().to_path_buf()])).collect();
        let dir = self.cache_dir.clone();
        let prune =
            move || prune_files(&dir.join("files"), &keep).and_then(|n| Ok(n + prune_files(&dir.join("db"), &keep)?));
        match tokio::task::spawn_blocking(prune).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!(files = n, "pruned cached lake files"),
            Ok(Err(e)) => tracing::warn!(error = %e, "could not prune the file cache"),
            Err(e) => tracing::warn!(error = %e, "file cache pruning task failed"),
        }
    }

    async fn load(&self, commit: Commit, readiness: Readiness) -> Result<Generation, SnapshotError> {
        let mut datasets = BTreeMap::new();
        for (id, entry) in commit.known() {
            let Some(version) = entry.version else { continue };
            if let Some(db) = self.version(id, version) {
                datasets.insert(id, db);
                continue;
            }
            // The version was published by generation `version`: its commit time is the version's as-of header.
            let published_at = if version == commit.generation {
                commit.committed_at
            } else {
                self.lake.read_commit(version).await?.map(|c| c.committed_at).unwrap_or(commit.committed_at)
            };
            let db = self.load_version(id, entry, published_at, readiness).await?;
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

    /// Downloads a version's files (unless cached), then attaches its serving database, builds
    /// it, or (`Early`, when there is no file to attach) reads the Parquet files — on a blocking
    /// thread.
    async fn load_version(
        &self,
        dataset: DatasetId,
        entry: &sitrep_schemas::DatasetEntry,
        published_at: DateTime<Utc>,
        readiness: Readiness,
    ) -> Result<Arc<DatasetDb>, SnapshotError> {
        let version = entry.version.unwrap_or(0);
        let mut local = Vec::with_capacity(entry.files.len());
        for f in &entry.files {
            local.push(self.fetch_file(&f.path, f.bytes).await?);
        }
        let spec = VersionSpec { dataset, version, published_at, freshness: entry.freshness.clone(), files: local };
        let db_dir = self.cache_dir.join("db");
        let early = readiness == Readiness::Early
            && DatasetDb::readable_from_parquet(&spec)
            && !DatasetDb::file_of(&db_dir, dataset, version, &spec.files).exists();
        if !early {
            return self.build(spec).await;
        }
        let engine = self.engine.clone();
        let db = tokio::task::spawn_blocking(move || DatasetDb::over_parquet(&engine, spec, &db_dir))
            .await
            .map_err(|e| SnapshotError::Task(e.to_string()))??;
        Ok(Arc::new(db))
    }

    /// Attaches a version's serving database, built first unless the cache has it (blocking
    /// work, on a blocking thread).
    async fn build(&self, spec: VersionSpec) -> Result<Arc<DatasetDb>, SnapshotError> {
        let (db_dir, memory_limit, engine) =
            (self.cache_dir.join("db"), self.build_memory.clone(), self.engine.clone());
        let db = tokio::task::spawn_blocking(move || {
            let opts = BuildOptions { db_dir: &db_dir, memory_limit: &memory_limit, threads: BUILD_THREADS };
            DatasetDb::load(&engine, spec, &opts)
        })
        .await
        .map_err(|e| SnapshotError::Task(e.to_string()))??;
        Ok(Arc::new(db))
    }

    /// Data files are immutable: a cached copy of the right size is the file.
    async fn fetch_file(&self, key: &str, size: u64) -> Result<PathBuf, SnapshotError> {
        let local = self.cache_dir.join("files").join(key);
        if tokio::fs::metadata(&local).await.map(|m| m.len() == size).unwrap_or(false) {
            return Ok(local);
        }
        if let Some(dir) = local.parent() {
            tokio::fs::create_dir_all(dir).await?;
        }
        let tmp = local.with_extension(format!("tmp-{}", ulid::Ulid::new()));
        let written = match self.lake.download(key, &tmp).await {
            Ok(n) => n,
            Err(e) => {
                let _ = tokio::fs::remove_file(&tmp).await;
                return Err(e.into());
            }
        };
        if written != size {
            let _ = tokio::fs::remove_file(&tmp).await;
            let detail = format!("{key}: {written} bytes downloaded, the commit says {size}");
            return Err(SnapshotError::Io(std::io::Error::other(detail)));
        }
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
                if let Err(e) = self.build_pending().await {
                    tracing::error!(error = %e, "serving file build failed; the Parquet files keep answering");
                }
                tokio::time::sleep(every).await;
            }
        })
    }
}
