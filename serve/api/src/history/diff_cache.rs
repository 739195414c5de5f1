//! The changes of a version pair, computed once and paged from what was computed: the first page
//! of ListDatasetChanges materialises the pair's diff (keys and kinds, `diff.rs`) as a table of the
//! engine's in-memory catalog; every later page, from any caller, reads its slice of that table.
//!
//! Bounded: the diffs kept hold at most [`ROWS`] changes together (and at most [`DIFFS`] pairs); the
//! least recently used go first, except the one just computed (a diff larger than the budget is
//! kept alone). A diff is dropped from DuckDB when it is evicted and no page still reads it.
//!
//! Fair: a pair is computed once however many ask at once (the others wait for it, holding no
//! connection), and each owner (account or address) computes one pair at a time, so eight
//! parallel diffs from one account wait behind each other, not in front of everyone's queries.
//! A computation whose caller left is interrupted (the engine's pool) and the next caller
//! computes it again.

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use sitrep_platform::snapshot::{DbError, Engine, OwnerShares};
use sitrep_schemas::DatasetId;
use tokio::sync::OnceCell;

use super::diff::Totals;

/// Changes kept at most across the cached diffs (keys and a kind each: about 30–60 bytes a row
/// for a text key).
pub const ROWS: i64 = 1_000_000;

/// Version pairs kept at most.
pub const DIFFS: usize = 16;

/// Which diff: a dataset and its older and newer versions.
type Pair = (DatasetId, u64, u64);

/// A materialised diff: its table in the engine's in-memory catalog and its totals. Dropping it
/// drops the table (off the async threads), once no page reads it.
pub struct Diff {
    pub table: String,
    pub totals: Totals,
    engine: Arc<Engine>,
}

impl Drop for Diff {
    fn drop(&mut self) {
        let sql = format!("DROP TABLE IF EXISTS {}", self.table);
        self.engine.clone().in_background("drop a cached diff", move |e| e.admin(|c| c.execute_batch(&sql)));
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
    /// Names the tables: never two alike in one process.
    tables: AtomicU64,
    /// One computation at a time per owner.
    computing: OwnerShares,
}

impl Default for DiffCache {
    fn default() -> Self {
        DiffCache {
            slots: Mutex::default(),
            ticks: AtomicU64::default(),
            tables: AtomicU64::default(),
            computing: OwnerShares::new(1),
        }
    }
}

impl DiffCache {
    /// The diff of `older` → `newer` of `dataset`, computed now (by `compute`, given the table
    /// to create) unless it is kept or being computed.
    pub async fn get_or_compute<F, Fut>(
        &self,
        engine: &Arc<Engine>,
        pair: (DatasetId, u64, u64),
        compute: F,
    ) -> Result<Arc<Diff>, DbError>
    where
        F: FnOnce(String) -> Fut,
        Fut: std::future::Future<Output = Result<Totals, DbError>>,
    {
        let cell = self.slot(pair);
        let diff = cell
            .get_or_try_init(|| async {
                let _mine = self.computing.enter().await;
                // The guard exists before the table: however the computation ends (failed,
                // interrupted, its caller gone), dropping it drops whatever was created.
                let table = format!("memory.main.diff_{}", self.tables.fetch_add(1, Ordering::Relaxed));
                let mut diff = Diff { table: table.clone(), totals: Totals::default(), engine: engine.clone() };
                diff.totals = compute(table).await?;
                Ok::<_, DbError>(Arc::new(diff))
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
    use std::sync::atomic::AtomicUsize;

    use super::*;

    fn tables(engine: &Engine) -> i64 {
        let sql = "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'memory' AND table_name LIKE 'diff_%'";
        engine.admin(|c| c.query_row(sql, [], |r| r.get(0))).unwrap()
    }

    /// A computation creating `rows` changes in its table, counted.
    fn computing(
        engine: &Arc<Engine>,
        rows: i64,
        count: &Arc<AtomicUsize>,
    ) -> impl FnOnce(String) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Totals, DbError>> + Send>>
    {
        let (engine, count) = (engine.clone(), count.clone());
        move |table| {
            Box::pin(async move {
                count.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                engine
                    .query(move |c| {
                        c.execute_batch(&format!("CREATE TABLE {table} AS SELECT 1 AS change FROM range({rows})"))?;
                        Ok(Totals { added: rows, removed: 0, changed: 0 })
                    })
                    .await
            })
        }
    }

    /// Eight callers asking for one pair at once: one computation, one table, the same diff.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pair_is_computed_once_however_many_ask() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), "64MB", 4).unwrap());
        let (cache, count) = (DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let asks = (0..8).map(|_| cache.get_or_compute(&engine, pair, computing(&engine, 10, &count)));
        let diffs = futures::future::join_all(asks).await;
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let first = diffs[0].as_ref().unwrap();
        assert!(diffs.iter().all(|d| Arc::ptr_eq(d.as_ref().unwrap(), first)));
        assert_eq!(tables(&engine), 1);
        assert_eq!(cache.kept(), (1, 10));
    }

    /// Past the budget the least recently used diff goes, and its table with it once no page holds
    /// it; the one just computed stays even when it alone is over the budget.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_least_recently_used_diff_goes_past_the_budget_and_its_table_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), "256MB", 4).unwrap());
        let (cache, count) = (DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let ds = DatasetId::ARMED_EVENTS;
        let half = ROWS / 2;
        let a = cache.get_or_compute(&engine, (ds, 1, 2), computing(&engine, half, &count)).await.unwrap();
        drop(a);
        cache.get_or_compute(&engine, (ds, 2, 3), computing(&engine, half, &count)).await.unwrap();
        // (1, 2) used again: (2, 3) is now the least recently used.
        cache.get_or_compute(&engine, (ds, 1, 2), computing(&engine, half, &count)).await.unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 2);
        cache.get_or_compute(&engine, (ds, 3, 4), computing(&engine, 10, &count)).await.unwrap();
        assert_eq!(cache.kept(), (2, half + 10));
        let big = cache.get_or_compute(&engine, (ds, 4, 5), computing(&engine, ROWS + 1, &count)).await.unwrap();
        assert_eq!(cache.kept(), (1, ROWS + 1), "the newest diff, alone over the budget, is kept alone");
        // Tables go in the background once their last holder lets go.
        let waited = std::time::Instant::now();
        while tables(&engine) != 1 {
            assert!(waited.elapsed() < std::time::Duration::from_secs(10), "evicted tables were not dropped");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        drop(big);
    }

    /// A computation that fails, or whose caller leaves, leaves no table and no slot: the next
    /// caller computes it afresh.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_or_abandoned_computation_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), "64MB", 4).unwrap());
        let (cache, count) = (DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let failing = {
            let engine = engine.clone();
            move |table: String| async move {
                engine
                    .query(move |c| {
                        c.execute_batch(&format!("CREATE TABLE {table} AS SELECT 1 AS change"))?;
                        c.execute_batch("SELECT no_such_column FROM range(1)")?;
                        Ok(Totals::default())
                    })
                    .await
            }
        };
        assert!(cache.get_or_compute(&engine, pair, failing).await.is_err());
        let abandoned = cache.get_or_compute(&engine, pair, computing(&engine, 5, &count));
        assert!(tokio::time::timeout(std::time::Duration::from_millis(10), abandoned).await.is_err());
        let waited = std::time::Instant::now();
        while tables(&engine) != 0 {
            assert!(waited.elapsed() < std::time::Duration::from_secs(10), "a failed computation's table stayed");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(cache.kept(), (0, 0));
        let diff = cache.get_or_compute(&engine, pair, computing(&engine, 5, &count)).await.unwrap();
        assert_eq!((diff.totals.added, count.load(Ordering::SeqCst)), (5, 2));
    }
}
