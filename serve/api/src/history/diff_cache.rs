//! The changes of a version pair, computed once and paged from what was computed: the first page
//! of ListDatasetChanges materialises the pair's diff (keys and kinds, `diff.rs`) as a DuckDB file
//! in the scratch directory, computed in a transient instance of its own (its memory bounded,
//! spilling to disk past it, never the serving instance's) and attached read-only to the engine;
//! every later page, from any caller, reads its slice of that file.
//!
//! Bounded: the diffs kept hold at most [`ROWS`] changes together (and at most [`DIFFS`] pairs); the
//! least recently used go first, except the one just computed (a diff larger than the budget is
//! kept alone). A diff is detached and its file deleted when it is evicted and no page still
//! reads it.
//!
//! Fair: a pair is computed once however many ask at once (the others wait for it, holding
//! nothing), each owner (account or address) computes one pair at a time and the server
//! [`AT_ONCE`], so eight parallel diffs from one account wait behind each other, not in front of
//! everyone's queries. A computation runs to its end even when its caller leaves (its share held
//! until then, so cancelling and asking again gains nothing); a result no one waits for any more
//! is dropped and the next caller computes it again.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use sitrep_platform::snapshot::{DbError, Engine, OwnerShares};
use sitrep_schemas::DatasetId;
use tokio::sync::{OnceCell, Semaphore};

use super::diff::Totals;

/// Changes kept at most across the cached diffs. They are on disk, rendered (a few hundred bytes a
/// change: about 0.8 GB of the cache directory at most for armed events); what memory they take
/// is the engine's cached pages of them, within its limit.
pub const ROWS: i64 = 2_000_000;

/// Version pairs kept at most.
pub const DIFFS: usize = 16;

/// Computations at once in the whole server: each takes up to the build memory limit
/// (`SITREP_BUILD_MEMORY`) beside the engine's, so one at a time bounds what they add.
pub const AT_ONCE: usize = 1;

/// Which diff: a dataset and its older and newer versions.
type Pair = (DatasetId, u64, u64);

/// A materialised diff: its table as the engine reads it (`<schema>.changes`), its totals and its
/// file. Dropping it detaches the file and deletes it (off the async threads), once no page reads
/// it.
pub struct Diff {
    pub table: String,
    pub totals: Totals,
    alias: String,
    file: PathBuf,
    engine: Arc<Engine>,
}

impl Drop for Diff {
    fn drop(&mut self) {
        let (alias, file) = (std::mem::take(&mut self.alias), std::mem::take(&mut self.file));
        self.engine.clone().in_background("drop a cached diff", move |e| {
            let detached = e.detach(&alias);
            std::fs::remove_file(&file)?;
            detached
        });
    }
}

/// A pair's diff, computed or being computed.
struct Slot {
    cell: Arc<OnceCell<Arc<Diff>>>,
    /// When it was last asked for (a counter, not a clock).
    used: u64,
}

pub struct DiffCache {
    slots: Mutex<HashMap<Pair, Slot>>,
    ticks: AtomicU64,
    /// Names the files and schemas: never two alike in one process.
    names: AtomicU64,
    /// One computation at a time per owner.
    computing: OwnerShares,
    at_once: Arc<Semaphore>,
}

impl Default for DiffCache {
    fn default() -> Self {
        DiffCache {
            slots: Mutex::default(),
            ticks: AtomicU64::default(),
            names: AtomicU64::default(),
            computing: OwnerShares::new(1),
            at_once: Arc::new(Semaphore::new(AT_ONCE)),
        }
    }
}

impl DiffCache {
    /// The diff of `pair` (dataset, older, newer), computed now unless it is kept or being
    /// computed: `compute` (blocking) writes it as table `changes` of a new DuckDB file at the
    /// path it is given, in `scratch` (a directory the engine may attach from).
    pub async fn get_or_compute<F>(
        &self,
        engine: &Arc<Engine>,
        scratch: &Path,
        pair: Pair,
        compute: F,
    ) -> Result<Arc<Diff>, DbError>
    where
        F: FnOnce(&Path) -> Result<Totals, DbError> + Send + 'static,
    {
        let cell = self.slot(pair);
        let diff = cell
            .get_or_try_init(|| async {
                let mine = self.computing.enter().await;
                let one_of = self.at_once.clone().acquire_owned().await.map_err(|e| DbError::Task(e.to_string()))?;
                let n = self.names.fetch_add(1, Ordering::Relaxed);
                let (alias, file) = (format!("diff_{n}"), scratch.join(format!("diff_{n}.duckdb")));
                let engine = engine.clone();
                let computed = tokio::task::spawn_blocking(move || {
                    let _held = (mine, one_of);
                    let totals = compute(&file)?;
                    if let Err(e) = engine.attach(&file, &alias) {
                        let _ = std::fs::remove_file(&file);
                        return Err(e);
                    }
                    Ok(Arc::new(Diff { table: format!("{alias}.changes"), totals, alias, file, engine }))
                });
                computed.await.map_err(|e| DbError::Task(e.to_string()))?
            })
            .await;
        match diff {
            Ok(diff) => {
                self.evict_beyond_budget(pair);
                Ok(diff.clone())
            }
            Err(e) => {
                self.forget_unfinished(pair);
                Err(e)
            }
        }
    }

    fn slot(&self, pair: Pair) -> Arc<OnceCell<Arc<Diff>>> {
        let used = self.ticks.fetch_add(1, Ordering::Relaxed);
        let mut slots = self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let slot = slots.entry(pair).or_insert_with(|| Slot { cell: Arc::default(), used });
        slot.used = used;
        slot.cell.clone()
    }

    /// A failed computation leaves no slot behind (the next caller starts afresh).
    fn forget_unfinished(&self, pair: Pair) {
        let mut slots = self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if slots.get(&pair).is_some_and(|s| !s.cell.initialized()) {
            slots.remove(&pair);
        }
    }

    /// Evicts the least recently used computed diffs, never `keep`, until the rest fit.
    fn evict_beyond_budget(&self, keep: Pair) {
        let mut slots = self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        loop {
            let computed = slots.iter().filter_map(|(p, s)| s.cell.get().map(|d| (p, s.used, d.totals.all())));
            let (count, rows) = computed.clone().fold((0, 0), |(n, r), (_, _, rows)| (n + 1, r + rows));
            if count <= DIFFS && rows <= ROWS {
                return;
            }
            let Some(oldest) =
                computed.filter(|(p, ..)| **p != keep).min_by_key(|(_, used, _)| *used).map(|(p, ..)| *p)
            else {
                return;
            };
            slots.remove(&oldest);
        }
    }

    /// The diffs kept now and the changes they hold together.
    pub fn kept(&self) -> (usize, i64) {
        let slots = self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        slots.values().filter_map(|s| s.cell.get()).fold((0, 0), |(n, r), d| (n + 1, r + d.totals.all()))
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::atomic::AtomicUsize, time::Duration};

    use super::*;

    /// An engine over a temporary directory and its scratch directory.
    fn engine() -> (tempfile::TempDir, Arc<Engine>, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), "64MB", 4).unwrap());
        let scratch = dir.path().join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        (dir, engine, scratch)
    }

    /// Diffs attached to the engine and files in the scratch directory.
    fn kept_by(engine: &Engine, scratch: &Path) -> (i64, usize) {
        let sql = "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'diff_%'";
        let attached = engine.admin(|c| c.query_row(sql, [], |r| r.get(0))).unwrap();
        (attached, std::fs::read_dir(scratch).unwrap().count())
    }

    async fn until_kept(engine: &Engine, scratch: &Path, expected: (i64, usize)) {
        let waited = std::time::Instant::now();
        while kept_by(engine, scratch) != expected {
            assert!(waited.elapsed() < Duration::from_secs(10), "{:?}, not {expected:?}", kept_by(engine, scratch));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// A computation writing `rows` changes, counted; it takes 50 ms at least.
    fn computing(
        rows: i64,
        count: &Arc<AtomicUsize>,
    ) -> impl FnOnce(&Path) -> Result<Totals, DbError> + Send + 'static {
        let count = count.clone();
        move |file| {
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(50));
            let conn = duckdb::Connection::open(file)?;
            conn.execute_batch(&format!("CREATE TABLE changes AS SELECT 1 AS change FROM range({rows})"))?;
            Ok(Totals { added: rows, removed: 0, changed: 0 })
        }
    }

    /// Eight callers asking for one pair at once: one computation, one file, the same diff, whose
    /// table the engine reads.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pair_is_computed_once_however_many_ask() {
        let (_dir, engine, scratch) = engine();
        let (cache, count) = (DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let asks = (0..8).map(|_| cache.get_or_compute(&engine, &scratch, pair, computing(10, &count)));
        let diffs = futures::future::join_all(asks).await;
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let first = diffs[0].as_ref().unwrap();
        assert!(diffs.iter().all(|d| Arc::ptr_eq(d.as_ref().unwrap(), first)));
        assert_eq!(kept_by(&engine, &scratch), (1, 1));
        assert_eq!(cache.kept(), (1, 10));
        let sql = format!("SELECT count(*) FROM {}", first.table);
        assert_eq!(engine.query(move |c| c.query_row(&sql, [], |r| r.get::<_, i64>(0))).await.unwrap(), 10);
    }

    /// Past the budget the least recently used diff goes, and its file with it once no page holds
    /// it; the one just computed stays even when it alone is over the budget.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_least_recently_used_diff_goes_past_the_budget_and_its_file_with_it() {
        let (_dir, engine, scratch) = engine();
        let (cache, count) = (DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let ds = DatasetId::ARMED_EVENTS;
        let half = ROWS / 2;
        let get = |pair, rows| cache.get_or_compute(&engine, &scratch, pair, computing(rows, &count));
        drop(get((ds, 1, 2), half).await.unwrap());
        get((ds, 2, 3), half).await.unwrap();
        // (1, 2) used again: (2, 3) is now the least recently used.
        get((ds, 1, 2), half).await.unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 2);
        get((ds, 3, 4), 10).await.unwrap();
        assert_eq!(cache.kept(), (2, half + 10));
        until_kept(&engine, &scratch, (2, 2)).await;
        let held = get((ds, 4, 5), ROWS + 1).await.unwrap();
        assert_eq!(cache.kept(), (1, ROWS + 1), "the newest diff, alone over the budget, is kept alone");
        until_kept(&engine, &scratch, (1, 1)).await;
        drop(held);
    }

    /// A computation that fails leaves no file and no slot; one whose caller left runs to its end
    /// and is then dropped (no one waits for it): either way the next caller computes afresh.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_or_abandoned_computation_leaves_nothing_behind() {
        let (_dir, engine, scratch) = engine();
        let (cache, count) = (DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let failing = |_: &Path| Err(DbError::Task("no such column".into()));
        assert!(cache.get_or_compute(&engine, &scratch, pair, failing).await.is_err());
        let written = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let compute = {
            let (inner, written) = (computing(5, &count), written.clone());
            move |file: &Path| {
                let totals = inner(file);
                written.store(true, Ordering::SeqCst);
                totals
            }
        };
        let abandoned = cache.get_or_compute(&engine, &scratch, pair, compute);
        assert!(tokio::time::timeout(Duration::from_millis(10), abandoned).await.is_err());
        // It finishes in the background (its file written, then attached), then goes.
        while !written.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        until_kept(&engine, &scratch, (0, 0)).await;
        assert_eq!(cache.kept(), (0, 0));
        let diff = cache.get_or_compute(&engine, &scratch, pair, computing(5, &count)).await.unwrap();
        assert_eq!((diff.totals.added, count.load(Ordering::SeqCst)), (5, 2));
    }
}
