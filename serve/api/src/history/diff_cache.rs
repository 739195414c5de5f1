//! The changes of a version pair, computed once and paged from what was computed: the first page
//! of ListDatasetChanges computes the pair's diff (`diff.rs`) in a transient DuckDB instance of its
//! own (its memory bounded, spilling to disk past it, never the serving instance's) and writes it
//! rendered as a diff file in the scratch directory (`diff_file.rs`); every later page, from any
//! caller, reads its lines of that file.
//!
//! Bounded: the diffs kept hold at most [`ROWS`] changes together (and at most [`DIFFS`] pairs),
//! evicted fairly between the owners who asked for them (`snapshot::evictions`: an owner past its
//! quarter loses its own first, and never evicts the diffs of an owner within theirs). A diff's file
//! is deleted when it is evicted and no page still reads it.
//!
//! Fair: a pair is computed once however many ask at once (the others wait for it, holding
//! nothing), each owner (account or address) computes one pair at a time and the server
//! [`AT_ONCE`]; a computation's seconds are charged to the owner who started it
//! (`snapshot::WorkTime`), and an owner whose time is spent is refused before anything starts.
//! When every caller asking for a pair has left, its computation goes on only as long as what is
//! left of its owner's time would pay for it (a diff longer than the request deadline is still
//! computed for the client that asks again), then stops — the statement running is interrupted —
//! and the server's one place goes to the next; one not started yet is dropped at once.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU64, AtomicUsize, Ordering},
        Arc, Mutex, OnceLock,
    },
    time::{Duration, Instant},
};

use futures::future::{BoxFuture, FutureExt, Shared};
use sitrep_platform::edge::load_shedding::parked;
use sitrep_platform::snapshot::{evictions, Budget, Charged, DbError, Held, OwnerShares, Running, WorkTime};
use sitrep_schemas::DatasetId;
use tokio::sync::Semaphore;

use super::{
    diff::{DiffError, Totals},
    diff_file::read_page,
};

/// Changes kept at most across the cached diffs. They are on disk, rendered (a few hundred bytes a
/// change: about 0.8 GB of the cache directory at most for armed events); in memory, only the page
/// being read.
pub const ROWS: i64 = 2_000_000;

/// Version pairs kept at most.
pub const DIFFS: usize = 16;

/// The budget of the diffs kept: an owner's part is a quarter of it.
const BUDGET: Budget = Budget { entries: DIFFS, weight: ROWS, share: 4 };

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

/// What asking for a diff ends with, shared by everyone asking.
pub type Outcome = Result<Arc<Diff>, Arc<DiffError>>;

type Computation = Shared<BoxFuture<'static, Outcome>>;

/// A pair's diff, computed or being computed.
struct Slot {
    /// Names this computation (and its file): a slot removed and made again is another.
    id: u64,
    outcome: Computation,
    /// Stops the computation once no one asks for it and its owner's time is up.
    running: Arc<Running>,
    /// Callers waiting for it now (changed under the slots' lock; read by a keeper).
    askers: Arc<AtomicUsize>,
    /// When its blocking work began (unset while it waits for its places).
    started: Arc<OnceLock<Instant>>,
    /// Who started it (and whose part of the cache it is).
    owner: Option<Arc<str>>,
    /// When it was last asked for (a counter, not a clock).
    used: u64,
}

impl Slot {
    fn computed(&self) -> Option<&Arc<Diff>> {
        self.outcome.peek().and_then(|o| o.as_ref().ok())
    }

    /// Stopped, or failed: the next caller starts afresh.
    fn spent(&self) -> bool {
        self.running.is_abandoned() || self.outcome.peek().is_some_and(|o| o.is_err())
    }
}

pub struct DiffCache {
    slots: Mutex<HashMap<Pair, Slot>>,
    ticks: AtomicU64,
    /// Names the computations and their files: never two alike in one process.
    names: AtomicU64,
    /// One computation at a time per owner.
    computing: Arc<OwnerShares>,
    at_once: Arc<Semaphore>,
    /// How long a caller waits for a computation before it is answered that the diff is still
    /// being computed (`DiffError::InProgress`), under the request deadline.
    pub patience: Duration,
}

/// [`DiffCache::patience`] by default: two thirds of the 30 s request deadline, so the answer
/// that the diff is still being computed is sent before the deadline cuts the request.
pub const PATIENCE: Duration = Duration::from_secs(20);

impl Default for DiffCache {
    fn default() -> Self {
        DiffCache {
            slots: Mutex::default(),
            ticks: AtomicU64::default(),
            names: AtomicU64::default(),
            computing: Arc::new(OwnerShares::new(1)),
            at_once: Arc::new(Semaphore::new(AT_ONCE)),
            patience: PATIENCE,
        }
    }
}

/// A caller waiting for a slot's outcome. When the last one goes before the outcome is there, a
/// computation still waiting for its places is dropped; one running is left to a keeper for as
/// long as its owner's remaining time pays for it.
struct Asking<'a> {
    cache: &'a DiffCache,
    time: &'a WorkTime,
    pair: Pair,
    id: u64,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let mut slots = self.cache.lock();
        let Some(slot) = slots.get_mut(&self.pair).filter(|s| s.id == self.id) else { return };
        if slot.askers.fetch_sub(1, Ordering::SeqCst) > 1 || slot.outcome.peek().is_some() {
            return;
        }
        let grace = slot
            .started
            .get()
            .map_or(Duration::ZERO, |at| self.time.remaining(slot.owner.as_ref()).saturating_sub(at.elapsed()));
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if !grace.is_zero() => {
                let (outcome, running, askers) = (slot.outcome.clone(), slot.running.clone(), slot.askers.clone());
                drop(runtime.spawn(keep(outcome, running, askers, grace)));
            }
            _ => {
                slot.running.abandon();
                slots.remove(&self.pair);
            }
        }
    }
}

/// A slot's computation as a caller joins it: its outcome, its name, how far it has come and
/// since when it runs.
struct Joined {
    outcome: Computation,
    id: u64,
    running: Arc<Running>,
    started: Arc<OnceLock<Instant>>,
}

/// About how long a computation has left, from how far it has come in the time it has run:
/// between 1 s and a minute (5 s while it waits for its places or has shown no progress).
fn remaining(running: &Running, started: &OnceLock<Instant>) -> Duration {
    let (Some(at), done) = (started.get(), running.progress()) else { return Duration::from_secs(5) };
    if done <= 0.0 {
        return Duration::from_secs(5);
    }
    let left = at.elapsed().as_secs_f64() * (1.0 - done) / done;
    Duration::from_secs_f64(left.clamp(1.0, 60.0).ceil())
}

/// Drives a computation no one waits for, for `grace`: finished by then, it is kept like any
/// other; not, and still no one waits, it is stopped (and driven to its end, which is soon).
async fn keep(outcome: Computation, running: Arc<Running>, askers: Arc<AtomicUsize>, grace: Duration) {
    if tokio::time::timeout(grace, outcome.clone()).await.is_ok() || askers.load(Ordering::SeqCst) > 0 {
        return;
    }
    running.abandon();
    let _ = outcome.await;
}

impl DiffCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Pair, Slot>> {
        self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The diff of `pair` (dataset, older, newer), computed now unless it is kept or being
    /// computed: `compute` (blocking) writes it as a diff file at the path it is given, in
    /// `scratch`, and stops when the [`Running`] it is given is abandoned. Starting one asks
    /// `time` first (`Busy` when the caller's is spent) and charges it what the computation took.
    pub async fn get_or_compute<F>(&self, scratch: &Path, pair: Pair, time: &Arc<WorkTime>, compute: F) -> Outcome
    where
        F: FnOnce(&Path, &Running) -> Result<Totals, DiffError> + Send + 'static,
    {
        let mut compute = Some(compute);
        loop {
            let Joined { outcome, id, running, started } = self.ask(scratch, pair, time, &mut compute)?;
            let asking = Asking { cache: self, time, pair, id };
            // The computation runs on the blocking pool, bounded by its own places: waiting for
            // it is not work that load shedding counts. Past the caller's patience it goes on
            // (its keeper drives it while its owner's time pays) and the caller is told when to
            // come back for it.
            let Ok(outcome) = tokio::time::timeout(self.patience, parked(outcome)).await else {
                drop(asking);
                return Err(Arc::new(DiffError::InProgress { retry_after: remaining(&running, &started) }));
            };
            drop(asking);
            match &outcome {
                Ok(_) => self.evict_beyond_budget(pair),
                Err(_) => self.forget(pair, id),
            }
            // Joined just as its keeper stopped it: this caller is here, so it is asked again.
            let joined_a_stopped_one =
                compute.is_some() && matches!(&outcome, Err(e) if matches!(**e, DiffError::Cancelled));
            if !joined_a_stopped_one {
                return outcome;
            }
        }
    }

    /// The slot of `pair` joined, or made with its computation (taken from `compute`; not started
    /// until awaited).
    fn ask<F>(
        &self,
        scratch: &Path,
        pair: Pair,
        time: &Arc<WorkTime>,
        compute: &mut Option<F>,
    ) -> Result<Joined, Arc<DiffError>>
    where
        F: FnOnce(&Path, &Running) -> Result<Totals, DiffError> + Send + 'static,
    {
        let used = self.ticks.fetch_add(1, Ordering::Relaxed);
        let mut slots = self.lock();
        if let Some(slot) = slots.get_mut(&pair).filter(|s| !s.spent()) {
            slot.used = used;
            slot.askers.fetch_add(1, Ordering::SeqCst);
            return Ok(Joined {
                outcome: slot.outcome.clone(),
                id: slot.id,
                running: slot.running.clone(),
                started: slot.started.clone(),
            });
        }
        let payer = time.admit().map_err(|spent| Arc::new(spent.into()))?;
        // Taken once: a caller asks again only when it joined another's computation.
        let Some(compute) = compute.take() else { return Err(Arc::new(DiffError::Cancelled)) };
        let owner = payer.owner().cloned();
        let id = self.names.fetch_add(1, Ordering::Relaxed);
        let file = scratch.join(format!("diff_{id}.changes"));
        let (running, started) = (Arc::new(Running::default()), Arc::new(OnceLock::new()));
        let (computing, at_once, time, stops, starts) =
            (self.computing.clone(), self.at_once.clone(), time.clone(), running.clone(), started.clone());
        let failed = |e: String| Arc::new(DiffError::Db(DbError::Task(e)));
        let outcome = async move {
            let mine = computing.enter_as(payer.owner()).await;
            let one_of = at_once.acquire_owned().await.map_err(|e| failed(e.to_string()))?;
            let _ = starts.set(Instant::now());
            // Run to its end (or its stop) once started, holding the places until then.
            let computed = tokio::task::spawn_blocking(move || {
                let _held = (mine, one_of);
                let _charged = Charged::start(&time, payer);
                Ok(Arc::new(Diff { totals: compute(&file, &stops)?, file }))
            });
            computed.await.map_err(|e| failed(e.to_string()))?.map_err(Arc::new)
        }
        .boxed()
        .shared();
        // Stopped or failed computations no one asks for any more go with this one's arrival.
        slots.retain(|_, s| !s.spent() || s.askers.load(Ordering::SeqCst) > 0);
        let askers = Arc::new(AtomicUsize::new(1));
        let joined = Joined { outcome: outcome.clone(), id, running: running.clone(), started: started.clone() };
        slots.insert(pair, Slot { id, outcome, running, askers, started, owner, used });
        Ok(joined)
    }

    /// A failed computation leaves no slot behind (the next caller starts afresh).
    fn forget(&self, pair: Pair, id: u64) {
        let mut slots = self.lock();
        if slots.get(&pair).is_some_and(|s| s.id == id && s.computed().is_none()) {
            slots.remove(&pair);
        }
    }

    /// Evicts computed diffs, never `keep`, fairly between their owners, until the rest fit.
    fn evict_beyond_budget(&self, keep: Pair) {
        let mut slots = self.lock();
        let held: Vec<Held<Pair>> = slots
            .iter()
            .filter_map(|(pair, s)| {
                let diff = s.computed()?;
                Some(Held { key: *pair, owner: s.owner.clone(), used: s.used, weight: diff.totals.all() })
            })
            .collect();
        for pair in evictions(&held, &keep, BUDGET) {
            slots.remove(&pair);
        }
    }

    /// The diffs kept now and the changes they hold together.
    pub fn kept(&self) -> (usize, i64) {
        let slots = self.lock();
        slots.values().filter_map(|s| s.computed()).fold((0, 0), |(n, r), d| (n + 1, r + d.totals.all()))
    }
}

#[cfg(test)]
mod tests {
    use std::{
        sync::atomic::{AtomicBool, AtomicUsize},
        time::Duration,
    };

    use sitrep_platform::snapshot::QUERY_OWNER;

    use super::*;
    use crate::history::diff_file::DiffWriter;

    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    /// Time enough for every test's work.
    fn plenty() -> Arc<WorkTime> {
        Arc::new(WorkTime::default())
    }

    /// Files in the scratch directory.
    fn files_in(scratch: &Path) -> usize {
        std::fs::read_dir(scratch).unwrap().count()
    }

    /// Waits until `done` holds (what happens off the async threads: files removed, a stop seen).
    async fn until(what: &str, done: impl Fn() -> bool) {
        let waited = std::time::Instant::now();
        while !done() {
            assert!(waited.elapsed() < Duration::from_secs(10), "{what}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    type Compute = Box<dyn FnOnce(&Path, &Running) -> Result<Totals, DiffError> + Send + 'static>;

    /// A computation writing `rows` changes, counted; it takes 50 ms at least.
    fn computing(rows: i64, count: &Arc<AtomicUsize>) -> Compute {
        let count = count.clone();
        Box::new(move |file, _| {
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(50));
            let mut writer = DiffWriter::create(file)?;
            for n in 0..rows {
                writer.push(&n.to_string())?;
            }
            writer.finish()?;
            Ok(Totals { added: rows, removed: 0, changed: 0 })
        })
    }

    /// A computation that runs until it is abandoned, then says so in `stopped` and ends cancelled.
    fn until_abandoned(stopped: &Arc<AtomicBool>) -> Compute {
        let stopped = stopped.clone();
        Box::new(move |_, running| {
            while !running.is_abandoned() {
                std::thread::sleep(Duration::from_millis(1));
            }
            stopped.store(true, Ordering::SeqCst);
            Err(DiffError::Cancelled)
        })
    }

    /// A caller whose patience runs out is told how long the computation has left, from its
    /// progress; the computation goes on, and the caller asking again gets its diff (issue 58).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn past_its_patience_a_caller_is_told_when_to_come_back_and_the_work_goes_on() {
        let (dir, count, time) = (scratch(), Arc::new(AtomicUsize::new(0)), plenty());
        let cache = DiffCache { patience: Duration::from_millis(300), ..DiffCache::default() };
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let slow = |count: &Arc<AtomicUsize>| -> Compute {
            let count = count.clone();
            Box::new(move |file, running| {
                count.fetch_add(1, Ordering::SeqCst);
                // A quarter done in 200 ms: about 600 ms left when the caller gives up.
                std::thread::sleep(Duration::from_millis(200));
                running.progress_to(0.25);
                std::thread::sleep(Duration::from_millis(1_000));
                let mut writer = DiffWriter::create(file)?;
                writer.push("0")?;
                writer.finish()?;
                Ok(Totals { added: 1, removed: 0, changed: 0 })
            })
        };
        // An account's request: its time pays for the computation once it has left.
        let owned = |ask| QUERY_OWNER.scope(Arc::from("acct:1"), ask);
        let first = owned(cache.get_or_compute(dir.path(), pair, &time, slow(&count))).await;
        let Err(e) = first else { panic!("the diff took longer than the caller's patience") };
        let DiffError::InProgress { retry_after } = &*e else { panic!("{e}") };
        assert!((Duration::from_secs(1)..=Duration::from_secs(5)).contains(retry_after), "{retry_after:?}");
        tokio::time::sleep(Duration::from_millis(1_200)).await;
        let again =
            owned(cache.get_or_compute(dir.path(), pair, &time, slow(&count))).await.expect("the diff, computed");
        assert_eq!(again.totals.added, 1);
        assert_eq!(count.load(Ordering::SeqCst), 1, "computed once: the first caller leaving did not stop it");
    }

    /// Eight callers asking for one pair at once: one computation, one file, the same diff, whose
    /// pages read its lines.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pair_is_computed_once_however_many_ask() {
        let (dir, cache, count, time) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)), plenty());
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let asks = (0..8).map(|_| cache.get_or_compute(dir.path(), pair, &time, computing(10, &count)));
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
        let (dir, cache, count, time) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)), plenty());
        let ds = DatasetId::ARMED_EVENTS;
        let half = ROWS / 2;
        let get = |pair, rows| cache.get_or_compute(dir.path(), pair, &time, computing(rows, &count));
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
        until("the evicted file removed", || files_in(dir.path()) == 2).await;
        let held = get((ds, 4, 5), ROWS + 1).await.unwrap();
        assert_eq!(cache.kept(), (1, ROWS + 1), "the newest diff, alone over the budget, is kept alone");
        until("the others' files removed", || files_in(dir.path()) == 1).await;
        drop(held);
    }

    /// One owner's diff as large as the whole budget evicts no other owner's diffs: they are kept
    /// (and read without computing again), and the next diff anyone computes evicts the large one.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_owners_large_diff_evicts_no_other_owners_diffs() {
        let (dir, cache, count, time) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)), plenty());
        let ds = DatasetId::ARMED_EVENTS;
        let get = |owner: &str, pair, rows| {
            QUERY_OWNER.scope(Arc::from(owner), cache.get_or_compute(dir.path(), pair, &time, computing(rows, &count)))
        };
        get("acct:1", (ds, 1, 2), 1_000).await.unwrap();
        get("acct:2", (ds, 2, 3), 1_000).await.unwrap();
        get("acct:big", (ds, 1, 3), ROWS).await.unwrap();
        assert_eq!(cache.kept(), (3, ROWS + 2_000), "over the budget by the large diff, until the next");
        get("acct:1", (ds, 1, 2), 1_000).await.unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 3, "acct:1's diff was kept");
        get("acct:3", (ds, 3, 4), 1_000).await.unwrap();
        assert_eq!(cache.kept(), (3, 3_000), "the large diff went first");
    }

    /// A computation that fails leaves no file and no slot; one whose every caller left stops (its
    /// place freed for the next), leaves nothing, and the next caller computes it afresh.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_computation_leaves_nothing_and_an_abandoned_one_stops() {
        let (dir, cache, count, time) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)), plenty());
        let pair = (DatasetId::ARMED_EVENTS, 1, 2);
        let failing: Compute = Box::new(|file, _| {
            DiffWriter::create(file)?.push("half")?;
            DiffWriter::discard(file);
            Err(DiffError::Db(DbError::Task("no such column".into())))
        });
        assert!(cache.get_or_compute(dir.path(), pair, &time, failing).await.is_err());
        assert_eq!((files_in(dir.path()), cache.kept()), (0, (0, 0)));
        let stopped = Arc::new(AtomicBool::new(false));
        let until_stopped = until_abandoned(&stopped);
        let abandoned = cache.get_or_compute(dir.path(), pair, &time, until_stopped);
        assert!(tokio::time::timeout(Duration::from_millis(50), abandoned).await.is_err());
        until("the abandoned computation stopped", || stopped.load(Ordering::SeqCst)).await;
        // The server's one place is free again: the next pair is computed at once.
        let next = (DatasetId::ARMED_EVENTS, 2, 3);
        let quick = tokio::time::timeout(
            Duration::from_secs(5),
            cache.get_or_compute(dir.path(), next, &time, computing(3, &count)),
        );
        assert_eq!(quick.await.expect("the place was freed").unwrap().totals.added, 3);
        let diff = cache.get_or_compute(dir.path(), pair, &time, computing(5, &count)).await.unwrap();
        assert_eq!((diff.totals.added, count.load(Ordering::SeqCst)), (5, 2));
        assert_eq!(cache.kept(), (2, 8));
    }

    /// A computation whose callers left goes on while its owner's remaining time pays for it: it
    /// is kept when it ends in time (the caller asking again reads it), and stopped when that time
    /// is up (its place freed).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_abandoned_computation_goes_on_while_its_owner_can_pay_for_it() {
        let (dir, cache, count) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let ds = DatasetId::ARMED_EVENTS;
        let ample = plenty();
        let left = QUERY_OWNER.scope(Arc::from("acct:patient"), async {
            let asked = cache.get_or_compute(dir.path(), (ds, 1, 2), &ample, computing(4, &count));
            tokio::time::timeout(Duration::from_millis(10), asked).await
        });
        assert!(left.await.is_err(), "the caller left before the 50 ms computation ended");
        until("the abandoned computation kept", || cache.kept() == (1, 4)).await;
        let again = QUERY_OWNER.scope(
            Arc::from("acct:patient"),
            cache.get_or_compute(dir.path(), (ds, 1, 2), &ample, computing(4, &count)),
        );
        assert_eq!((again.await.unwrap().totals.added, count.load(Ordering::SeqCst)), (4, 1));

        let short = Arc::new(WorkTime::new(Duration::from_millis(200), 0.000_1));
        let stopped = Arc::new(AtomicBool::new(false));
        let until_stopped = until_abandoned(&stopped);
        let left_at = std::time::Instant::now();
        let left = QUERY_OWNER.scope(Arc::from("acct:short"), async {
            let asked = cache.get_or_compute(dir.path(), (ds, 2, 3), &short, until_stopped);
            tokio::time::timeout(Duration::from_millis(10), asked).await
        });
        assert!(left.await.is_err());
        until("stopped when the owner's time was up", || stopped.load(Ordering::SeqCst)).await;
        let after = left_at.elapsed();
        assert!(after >= Duration::from_millis(150) && after < Duration::from_secs(5), "{after:?}");
        assert_eq!(cache.kept(), (1, 4));
    }

    /// An owner that spent its time for heavy work is refused before anything starts (and told
    /// when to come back), whoever else computes meanwhile; a pair already kept is still read.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_owner_whose_time_is_spent_is_refused_and_no_one_else_is() {
        let (dir, cache, count) = (scratch(), DiffCache::default(), Arc::new(AtomicUsize::new(0)));
        let time = Arc::new(WorkTime::new(Duration::from_millis(20), 0.001));
        let ds = DatasetId::ARMED_EVENTS;
        let get = |owner: &str, pair| {
            QUERY_OWNER.scope(Arc::from(owner), cache.get_or_compute(dir.path(), pair, &time, computing(1, &count)))
        };
        get("acct:heavy", (ds, 1, 2)).await.unwrap();
        let refused = get("acct:heavy", (ds, 2, 3)).await.err().expect("its 50 ms spent 20");
        assert!(
            matches!(*refused, DiffError::Busy(spent) if spent.retry_after >= Duration::from_secs(30)),
            "{refused:?}"
        );
        assert_eq!(count.load(Ordering::SeqCst), 1, "nothing was started");
        get("acct:other", (ds, 2, 3)).await.unwrap();
        get("acct:heavy", (ds, 2, 3)).await.expect("a kept pair costs no time");
        assert_eq!(count.load(Ordering::SeqCst), 2);
    }
}
