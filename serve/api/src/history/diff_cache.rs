//! The changes of a version pair, computed once and paged from what was computed: the first page
//! of ListDatasetChanges computes the pair's diff (`diff.rs`) in a transient DuckDB instance of its
//! own (its memory bounded, spilling to disk past it, never the serving instance's) and writes it
//! rendered as a diff file in the scratch directory (`diff_file.rs`); every later page, from any
//! caller, reads its lines of that file.
//!
//! Bounded: the diffs kept hold at most [`ROWS`] changes together (and at most [`DIFFS`] pairs); the
//! least recently used go first, except the one just computed (a diff larger than the budget is
//! kept alone). A diff's file is deleted when it is evicted and no page still reads it.
//!
//! Fair: a pair is computed once however many ask at once (the others wait for it, holding
//! nothing), each owner (account or address) computes one pair at a time and the server
//! [`AT_ONCE`], so eight parallel diffs from one account wait behind each other, not in front of
//! everyone's queries. A computation runs to its end even when its caller leaves (its share held
//! until then) and is kept, so cancelling and asking again gains nothing and costs nothing.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use sitrep_platform::snapshot::{DbError, OwnerShares};
use sitrep_schemas::DatasetId;
use tokio::sync::{OnceCell, Semaphore};

use super::{diff::Totals, diff_file::read_page};

/// Changes kept at most across the cached diffs. They are on disk, rendered (a few hundred bytes a
/// change: about 0.8 GB of the cache directory at most for armed events); in memory, only the page
/// being read.
pub const ROWS: i64 = 2_000_000;

/// Version pairs kept at most.
pub const DIFFS: usize = 16;

/// Computations at once in the whole server: each takes up to the build memory limit
/// (`SITREP_BUILD_MEMORY`) beside the engine's, so one at a time bounds what they add.
pub const AT_ONCE: usize = 1;

/// Which diff: a dataset and its older and newer versions.
type Pair = (DatasetId, u64, u64);

/// A computed diff: its totals and its file. Dropping it deletes the file (off the async threads);
/// a page being read holds it.
pub struct Diff {
    pub totals: Totals,
    file: PathBuf,
}

impl Diff {
    /// The JSON lines of the changes numbered [`first`, `first + limit`) (blocking).
    pub fn page(&self, first: u64, limit: u64) -> std::io::Result<Vec<String>> {
        read_page(&self.file, self.totals.all() as u64, first, limit)
    }
}

impl Drop for Diff {
    fn drop(&mut self) {
        let file = std::mem::take(&mut self.file);
        let remove = move || {
            if let Err(e) = std::fs::remove_file(&file) {
                tracing::warn!(file = %file.display(), error = %e, "a cached diff's file was not removed");
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(remove)),
            Err(_) => remove(),
        }
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
    /// computed: `compute` (blocking) writes it as a diff file at the path it is given, in
    /// `scratch`.
    pub async fn get_or_compute<F>(&self, scratch: &Path, pair: Pair, compute: F) -> Result<Arc<Diff>, DbError>
    where
        F: FnOnce(&Path) -> Result<Totals, DbError> + Send + 'static,
    {
        let cell = self.slot(pair);
        let abandoned = cell.clone();
        let diff = cell
            .get_or_try_init(|| async {
                let mine = self.computing.enter().await;
                let one_of = self.at_once.clone().acquire_owned().await.map_err(|e| DbError::Task(e.to_string()))?;
                let n = self.names.fetch_add(1, Ordering::Relaxed);
                let file = scratch.join(format!("diff_{n}.changes"));
                let computed = tokio::task::spawn_blocking(move || {
                    let _held = (mine, one_of);
                    let diff = Arc::new(Diff { totals: compute(&file)?, file });
                    // Kept even when its caller left (it fails while the caller still waits, whose
                    // init then sets it): asking again is then answered from it, not computed anew.
                    let _ = abandoned.set(diff.clone());
                    Ok(diff)
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
    use crate::history::diff_file::DiffWriter;

    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    /// Files in the scratch directory.
    fn files_in(scratch: &Path) -> usize {
        std::fs::read_dir(scratch).unwrap().count()
    }

    /// Waits for the files of dropped diffs to go (they are removed off the async threads).
    async fn until_files(scratch: &Path, expected: usize) {
        let waited = std::time::Instant::now();
        while files_in(scratch) != expected {
            assert!(waited.elapsed() < Duration::from_secs(10), "{} files, not {expected}", files_in(scratch));
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
            let mut writer = DiffWriter::create(file)?;
            for n in 0..rows {
                writer.push(&n.to_string())?;
            }
            writer.finish()?;
            Ok(Totals { added: rows, removed: 0, changed: 0 })
        }
    }

    /// Eight callers asking for one pair at once: one computation, one file, the same diff, whose
    /// pages read its lines.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pair_is_computed_once_however_many_ask() {
        let (dir, cache, count) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let asks = (0..8).map(|_| cache.get_or_compute(dir.path(), pair, computing(10, &count)));
        let diffs = futures::future::join_all(asks).await;
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let first = diffs[0].as_ref().unwrap();
        assert!(diffs.iter().all(|d| Arc::ptr_eq(d.as_ref().unwrap(), first)));
        assert_eq!((files_in(dir.path()), cache.kept()), (1, (1, 10)));
        assert_eq!(first.page(8, 5).unwrap(), ["8", "9"]);
    }

    /// Past the budget the least recently used diff goes, and its file with it once no page holds
    /// it; the one just computed stays even when it alone is over the budget.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_least_recently_used_diff_goes_past_the_budget_and_its_file_with_it() {
        let (dir, cache, count) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let ds = DatasetId::ARMED_EVENTS;
        let half = ROWS / 2;
        let get = |pair, rows| cache.get_or_compute(dir.path(), pair, computing(rows, &count));
        drop(get((ds, 1, 2), half).await.unwrap());
        let read_meanwhile = get((ds, 2, 3), half).await.unwrap();
        // (1, 2) used again: (2, 3) is now the least recently used.
        get((ds, 1, 2), half).await.unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 2);
        get((ds, 3, 4), 10).await.unwrap();
        assert_eq!(cache.kept(), (2, half + 10));
        assert_eq!(files_in(dir.path()), 3, "an evicted diff's file stays while a page reads it");
        assert_eq!(read_meanwhile.page(half as u64 - 1, 5).unwrap(), [(half - 1).to_string()]);
        drop(read_meanwhile);
        until_files(dir.path(), 2).await;
        let held = get((ds, 4, 5), ROWS + 1).await.unwrap();
        assert_eq!(cache.kept(), (1, ROWS + 1), "the newest diff, alone over the budget, is kept alone");
        until_files(dir.path(), 1).await;
        drop(held);
    }

    /// A computation that fails leaves no file and no slot; one whose caller left runs to its end
    /// and is kept: the next caller reads it, not computing it again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_computation_leaves_nothing_and_an_abandoned_one_is_kept() {
        let (dir, cache, count) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let failing = |file: &Path| {
            DiffWriter::create(file)?.push("half")?;
            DiffWriter::discard(file);
            Err(DbError::Task("no such column".into()))
        };
        assert!(cache.get_or_compute(dir.path(), pair, failing).await.is_err());
        assert_eq!((files_in(dir.path()), cache.kept()), (0, (0, 0)));
        let abandoned = cache.get_or_compute(dir.path(), pair, computing(5, &count));
        assert!(tokio::time::timeout(Duration::from_millis(10), abandoned).await.is_err());
        let waited = std::time::Instant::now();
        while cache.kept() != (1, 5) {
            assert!(waited.elapsed() < Duration::from_secs(10), "the abandoned diff was not kept");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let diff = cache.get_or_compute(dir.path(), pair, computing(5, &count)).await.unwrap();
        assert_eq!((diff.totals.added, count.load(Ordering::SeqCst)), (5, 1));
        assert_eq!(files_in(dir.path()), 1);
    }
}
