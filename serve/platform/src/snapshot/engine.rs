//! The server's ONE DuckDB instance (DESIGN §4): one memory limit and one thread budget, however
//! many datasets and versions are loaded. Every dataset version's database file is attached
//! read-only under its own schema name, so a handler can join the datasets of one generation.
//! Locked down at start: file access only inside the cache directory, configuration frozen.
//!
//! `Connection` is Send but not Sync: queries check a connection out of the pool through a guard
//! that always gives it back (finished, failed, panicked or abandoned by a cancelled request) and
//! run on a blocking thread. A query whose caller went away (the client left, or the request ran
//! past its deadline) is interrupted in DuckDB (`duckdb_interrupt`), and one that had not started
//! never starts: an abandoned request holds no connection longer than DuckDB takes to notice.

use std::{
    path::Path,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use duckdb::{Connection, InterruptHandle};
use tokio::sync::Semaphore;

use super::{dataset_db::DbError, instance::open_duckdb, running::Running, shares::OwnerShares};

/// Prepared statements kept per connection: a handful per dataset version (their SQL names the
/// version's schema), for every retained version. A connection drops its cache when a version
/// has gone since it last ran (see `Engine::removals`).
const STATEMENT_CACHE: usize = 256;

/// A pooled connection and the count of removed versions its statement cache has seen.
struct Pooled {
    conn: Connection,
    seen_removals: u64,
    interrupt: Arc<InterruptHandle>,
}

/// The query's end, however it ends: no interrupt may reach the connection after this.
struct EndsOnDrop<'a>(&'a Running);

impl Drop for EndsOnDrop<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// Held by the caller's future while its query is on a blocking thread: dropped before the
/// answer came (a cancelled request), it abandons the query.
struct AbandonOnDrop<'a> {
    running: Arc<Running>,
    interrupted: &'a AtomicU64,
    answered: bool,
}

impl Drop for AbandonOnDrop<'_> {
    fn drop(&mut self) {
        if !self.answered && self.running.abandon() {
            self.interrupted.fetch_add(1, Ordering::Relaxed);
        }
    }
}

pub struct Engine {
    /// Outside the pool: attaches, detaches and load-time checks, so a load never waits behind
    /// (or starves) serving queries.
    admin: Mutex<Connection>,
    conns: Arc<Mutex<Vec<Pooled>>>,
    /// Versions detached so far. Statements prepared against a version that is gone are never
    /// asked for again (each attach has a schema name of its own) but would stay in every
    /// connection's cache, with their plans, until 256 others pushed them out: the soak saw
    /// resident memory climb with every generation. A connection whose count is behind flushes
    /// its cache before its next query.
    removals: Arc<AtomicU64>,
    /// One permit per pooled connection, held until the query's blocking work has ended.
    permits: Arc<Semaphore>,
    pool_size: usize,
    /// Queries interrupted because their caller went away.
    interrupted: AtomicU64,
    /// Half the pool per owner: one owner never holds all of it.
    shares: OwnerShares,
}

/// A connection taken from the pool; it goes back when this is dropped.
struct Checkout<'a> {
    pool: &'a Mutex<Vec<Pooled>>,
    conn: Option<Pooled>,
}

impl<'a> Checkout<'a> {
    /// A connection whose statement cache holds no statement of a removed version.
    fn take(pool: &'a Mutex<Vec<Pooled>>, removals: &AtomicU64) -> Option<Self> {
        let mut conn = pool.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop()?;
        let now = removals.load(Ordering::Acquire);
        if conn.seen_removals != now {
            conn.conn.flush_prepared_statement_cache();
            conn.seen_removals = now;
        }
        Some(Checkout { pool, conn: Some(conn) })
    }
}

impl Drop for Checkout<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            self.pool.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(conn);
        }
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

impl Engine {
    /// An in-memory instance whose only file access is `allowed_dir`, with `pool_size` connections.
    /// Serving queries touch a few row groups: each runs on its caller's thread alone
    /// (`threads = 1`); concurrent requests give the parallelism.
    pub fn open(allowed_dir: &Path, memory_limit: &str, pool_size: usize) -> Result<Self, DbError> {
        std::fs::create_dir_all(allowed_dir)?;
        let root = open_duckdb()?;
        root.execute_batch(&format!(
            "SET memory_limit = {}; SET max_temp_directory_size = {}; SET threads = 1; SET allowed_directories = [{}];
             SET enable_external_access = false; SET lock_configuration = true;",
            quote(memory_limit),
            quote(super::SPILL_LIMIT),
            quote(&allowed_dir.to_string_lossy()),
        ))?;
        let mut conns = Vec::with_capacity(pool_size.max(1));
        for _ in 0..pool_size.max(1) {
            let c = root.try_clone()?;
            c.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
            let interrupt = c.interrupt_handle();
            conns.push(Pooled { conn: c, seen_removals: 0, interrupt });
        }
        Ok(Engine {
            admin: Mutex::new(root),
            pool_size: conns.len(),
            permits: Arc::new(Semaphore::new(conns.len())),
            conns: Arc::new(Mutex::new(conns)),
            removals: Arc::new(AtomicU64::new(0)),
            interrupted: AtomicU64::new(0),
            shares: OwnerShares::new(pool_size.max(1) / 2),
        })
    }

    /// Runs `f` on a pooled connection on a blocking thread. Cancellation-safe: if the caller's
    /// future is dropped, the query is interrupted (or never starts) and the blocking work ends by
    /// returning the connection and the permit; a panic in `f` returns them too.
    pub async fn query<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, duckdb::Error> + Send + 'static,
    {
        // The owner's share first, then a connection: an owner past its share waits without
        // holding one.
        let share = self.shares.enter().await;
        let permit = self.permits.clone().acquire_owned().await.map_err(|e| DbError::Task(e.to_string()))?;
        let (pool, removals) = (self.conns.clone(), self.removals.clone());
        let running = Arc::new(Running::default());
        let mut watch = AbandonOnDrop { running: running.clone(), interrupted: &self.interrupted, answered: false };
        let outcome = tokio::task::spawn_blocking(move || {
            // Released after the connection is back (drop order: reverse).
            let (_share, _permit) = (share, permit);
            let checkout = Checkout::take(&pool, &removals).ok_or_else(|| DbError::Task("pool empty".into()))?;
            let conn = checkout.conn.as_ref().ok_or_else(|| DbError::Task("pool empty".into()))?;
            if !running.begin(&conn.interrupt) {
                return Err(DbError::Task("abandoned by its caller".into()));
            }
            // Ends before the checkout gives the connection back, even when `f` panics.
            let _ends = EndsOnDrop(&running);
            f(&conn.conn).map_err(DbError::from)
        })
        .await;
        watch.answered = true;
        outcome.map_err(|e| DbError::Task(e.to_string()))?
    }

    /// Queries interrupted so far because their callers went away.
    pub fn interrupted_queries(&self) -> u64 {
        self.interrupted.load(Ordering::Relaxed)
    }

    /// Runs `f` on the admin connection, on the calling thread (loads run on blocking threads).
    pub fn admin<T>(&self, f: impl FnOnce(&Connection) -> Result<T, duckdb::Error>) -> Result<T, DbError> {
        let conn = self.admin.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&conn).map_err(DbError::from)
    }

    /// Runs `f` off the async worker threads when there are some (else here), logging a failure
    /// as `what`: the upkeep a drop starts (detaching a version, dropping a cached table), which
    /// takes the admin connection and must not block a request's thread.
    pub fn in_background(
        self: Arc<Self>,
        what: &'static str,
        f: impl FnOnce(&Engine) -> Result<(), DbError> + Send + 'static,
    ) {
        let run = move || {
            if let Err(e) = f(&self) {
                tracing::warn!(error = %e, "could not {what}");
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn_blocking(run);
            }
            Err(_) => run(),
        }
    }

    /// Attaches a database file read-only as schema `alias` (blocking).
    pub fn attach(&self, path: &Path, alias: &str) -> Result<(), DbError> {
        self.admin(|c| c.execute_batch(&format!("ATTACH {} AS {alias} (READ_ONLY)", quote(&path.to_string_lossy()))))
    }

    /// Creates schema `alias` holding the views `sql` creates in it (blocking): a version read
    /// straight from its Parquet files, which must lie in the allowed directory.
    pub fn create_views(&self, alias: &str, sql: &str) -> Result<(), DbError> {
        self.admin(|c| c.execute_batch(&format!("CREATE SCHEMA {alias}; {sql}")))
    }

    /// Detaches schema `alias` (blocking); in-flight queries hold their version, so none uses it.
    pub fn detach(&self, alias: &str) -> Result<(), DbError> {
        self.removed(self.admin(|c| c.execute_batch(&format!("DETACH {alias}"))))
    }

    /// Drops the schema of views `alias` (blocking).
    pub fn drop_views(&self, alias: &str) -> Result<(), DbError> {
        self.removed(self.admin(|c| c.execute_batch(&format!("DROP SCHEMA {alias} CASCADE"))))
    }

    fn removed(&self, outcome: Result<(), DbError>) -> Result<(), DbError> {
        self.removals.fetch_add(1, Ordering::Release);
        outcome
    }

    /// Bytes DuckDB's buffer manager holds now; `None` while a load holds the admin connection
    /// (a scrape does not wait for it).
    pub fn memory_bytes(&self) -> Option<i64> {
        let conn = self.admin.try_lock().ok()?;
        conn.query_row("SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT FROM duckdb_memory()", [], |r| r.get(0))
            .ok()
    }

    /// Connections idle in the pool (all of them when no query runs).
    pub fn idle_connections(&self) -> usize {
        self.conns.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).len()
    }

    /// Idle connections whose statement cache may still hold a removed version's statements.
    #[cfg(test)]
    pub fn connections_to_flush(&self) -> usize {
        let now = self.removals.load(Ordering::Acquire);
        let pool = self.conns.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        pool.iter().filter(|p| p.seen_removals != now).count()
    }

    /// Connections checked out by running queries.
    pub fn connections_in_use(&self) -> usize {
        self.pool_size.saturating_sub(self.idle_connections())
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::snapshot::QUERY_OWNER;

    /// A query that would run for hours, abandoned by its caller: DuckDB stops it, the connection
    /// comes back and serves the next query; a query abandoned before it started never runs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_query_whose_caller_left_is_interrupted() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), "64MB", 1).unwrap();
        let endless = "SELECT count(*) FROM range(1000000000000) t(i) WHERE i % 7 = 3";
        let slow = engine.query(move |c| c.query_row(endless, [], |r| r.get::<_, i64>(0)));
        assert!(tokio::time::timeout(Duration::from_millis(200), slow).await.is_err());
        let left = Instant::now();
        while engine.idle_connections() == 0 {
            assert!(left.elapsed() < Duration::from_secs(20), "the abandoned query still holds its connection");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(engine.interrupted_queries(), 1);
        let answer = engine.query(|c| c.query_row("SELECT 42", [], |r| r.get::<_, i64>(0))).await;
        assert_eq!(answer.unwrap(), 42, "the interrupt did not reach the connection's next query");

        // Abandoned while waiting for the one connection: it never runs, nothing is interrupted.
        let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let busy = engine.query(move |c| c.query_row(endless, [], |r| r.get::<_, i64>(0)));
        let flag = ran.clone();
        let queued = engine.query(move |c| {
            flag.store(true, Ordering::SeqCst);
            c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))
        });
        let both = async { tokio::join!(busy, queued) };
        assert!(tokio::time::timeout(Duration::from_millis(200), both).await.is_err());
        while engine.idle_connections() == 0 {
            assert!(left.elapsed() < Duration::from_secs(40), "the abandoned query still holds its connection");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(engine.interrupted_queries(), 2);
        assert!(!ran.load(Ordering::SeqCst), "a query abandoned before it started ran");
    }

    /// One owner's slow queries hold at most half the pool: another owner's query runs while
    /// they wait behind each other (without shares it would queue behind all eight, and see at
    /// least four of them done).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_owner_waits_behind_itself_not_the_others() {
        use std::sync::atomic::AtomicUsize;
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), "64MB", 4).unwrap());
        let (running, most, done) =
            (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let greedy: Arc<str> = "greedy".into();
        let slow = (0..8).map(|_| {
            let (engine, running, most, done) = (engine.clone(), running.clone(), most.clone(), done.clone());
            QUERY_OWNER.scope(greedy.clone(), async move {
                engine
                    .query(move |c| {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(400));
                        running.fetch_sub(1, Ordering::SeqCst);
                        done.fetch_add(1, Ordering::SeqCst);
                        c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))
                    })
                    .await
            })
        });
        let greedy_done = tokio::spawn(futures::future::join_all(slow));
        while running.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let seen = done.clone();
        let other = engine.query(move |c| {
            let greedy_done_then = seen.load(Ordering::SeqCst);
            c.query_row("SELECT 2", [], |r| r.get::<_, i64>(0)).map(|v| (v, greedy_done_then))
        });
        let (answer, greedy_done_then) = QUERY_OWNER.scope("other".into(), other).await.unwrap();
        assert_eq!(answer, 2);
        assert!(greedy_done_then < 4, "another owner waited behind {greedy_done_then} of the greedy one's queries");
        assert!(greedy_done.await.unwrap().iter().all(Result::is_ok));
        assert_eq!(most.load(Ordering::SeqCst), 2, "one owner held more than half the pool");
    }
}
