//! One dataset version in its own DuckDB database file, with a pool of cloned connections.
//! `Connection` is Send but not Sync: each query checks a connection out and runs on a blocking thread.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use chrono::{DateTime, Utc};
use duckdb::Connection;
use sitrep_schemas::{
    sql::{serving_column_defs, serving_select},
    DatasetId, Freshness,
};
use tokio::sync::Semaphore;

use super::position_index::{PositionIndex, PositionRange, RunRow};

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("duckdb: {0}")]
    Duck(#[from] duckdb::Error),
    #[error("smoke test failed for {dataset} v{version}: {detail}")]
    Smoke { dataset: DatasetId, version: u64, detail: String },
    #[error("query task: {0}")]
    Task(String),
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
}

pub struct DatasetDb {
    pub dataset: DatasetId,
    pub version: u64,
    /// When the generation that published this version was committed (`X-Data-As-Of` of a pinned page).
    pub published_at: DateTime<Utc>,
    pub freshness: Freshness,
    /// The cached lake files this version was built from.
    pub sources: Vec<PathBuf>,
    /// For datasets with a position key: where each (country, time range) sits in the table.
    index: Option<PositionIndex>,
    path: PathBuf,
    /// Whether the file was re-attached from an earlier process rather than built.
    pub reopened: bool,
    conns: Arc<Mutex<Vec<Connection>>>,
    /// One permit per pooled connection, held until the query's blocking work has ended.
    permits: Arc<Semaphore>,
    pool_size: usize,
}

/// A connection taken from the pool; it goes back when this is dropped, whether the query
/// finished, failed or panicked.
struct Checkout<'a> {
    pool: &'a Mutex<Vec<Connection>>,
    conn: Option<Connection>,
}

impl<'a> Checkout<'a> {
    fn take(pool: &'a Mutex<Vec<Connection>>) -> Option<Self> {
        let conn = pool.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop()?;
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

impl std::fmt::Debug for DatasetDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatasetDb({} v{})", self.dataset, self.version)
    }
}

/// Rows per row group of a serving table.
const SERVING_ROW_GROUP: usize = 8192;

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

pub struct BuildOptions<'a> {
    pub db_dir: &'a Path,
    pub allowed_dir: &'a Path,
    pub memory_limit: &'a str,
    pub threads: usize,
    pub pool_size: usize,
}

/// Builds a version's database file: the table sorted by the dataset's filter keys and numbered
/// in that order (`_pos`), plus its position runs (`_runs`), written under a temporary name and
/// renamed into place only when complete — a crash never leaves a file that looks whole.
fn build_file(dataset: DatasetId, path: &Path, files: &[PathBuf], opts: &BuildOptions) -> Result<(), DbError> {
    let building = path.with_extension(format!("building-{}", ulid::Ulid::new()));
    // The table lives in an attached file with small row groups: a page is a few rows found
    // through zone maps, and DuckDB scans whole row groups, so their size is the floor of a
    // page's cost (122,880 rows by default). The default database is in memory, so say where
    // sorts larger than memory spill.
    let conn = Connection::open_in_memory()?;
    conn.execute_batch(&format!(
        "ATTACH {} AS ds (ROW_GROUP_SIZE {SERVING_ROW_GROUP}); USE ds; SET temp_directory = {};
         SET memory_limit = {}; SET threads = {}; SET preserve_insertion_order = true;",
        quote(&building.to_string_lossy()),
        quote(&path.with_extension("tmp").to_string_lossy()),
        quote(opts.memory_limit),
        opts.threads
    ))?;
    let table = dataset.table_name();
    // Paths come from our own cache layout, never from a request.
    // Lake instants and dates become the API's wire forms here, once (`serving_select`).
    let create = if files.is_empty() {
        format!("CREATE TABLE {table} ({}, _pos BIGINT)", serving_column_defs(dataset))
    } else {
        let list: Vec<String> = files.iter().map(|p| quote(&p.to_string_lossy())).collect();
        format!(
            "CREATE TABLE {table} AS SELECT {columns}, row_number() OVER (ORDER BY {key}) - 1 AS _pos
             FROM read_parquet([{}]) ORDER BY _pos",
            list.join(", "),
            columns = serving_select(dataset),
            key = dataset.sort_key()
        )
    };
    conn.execute_batch(&create)?;
    if let Some((group, time)) = dataset.position_key() {
        conn.execute_batch(&format!(
            "CREATE TABLE _runs AS SELECT {group}, {time}, min(_pos), max(_pos), count(*)
             FROM {table} GROUP BY ALL ORDER BY 3"
        ))?;
    }
    conn.execute_batch("CHECKPOINT; USE memory; DETACH ds;")?;
    drop(conn);
    std::fs::rename(&building, path)?;
    Ok(())
}

impl DatasetDb {
    /// The serving database of a version (blocking): re-attached from the cache directory when a
    /// complete file is there (a restart), else built once from the version's Parquet files.
    /// Either way it is smoke-tested (row count against the commit) before it serves.
    pub fn load(
        dataset: DatasetId,
        version: u64,
        published_at: DateTime<Utc>,
        freshness: Freshness,
        files: &[PathBuf],
        opts: &BuildOptions,
    ) -> Result<Self, DbError> {
        std::fs::create_dir_all(opts.db_dir)?;
        let path = Self::file_of(opts.db_dir, dataset, version, files);
        let reopened = path.exists();
        if !reopened {
            build_file(dataset, &path, files, opts)?;
        }
        match Self::open(dataset, version, published_at, freshness.clone(), files, &path, opts) {
            Ok(mut db) => {
                db.reopened = reopened;
                Ok(db)
            }
            Err(e) if reopened => {
                // A file from an earlier process that does not check out: build it again.
                tracing::warn!(%dataset, version, error = %e, "cached serving database refused; rebuilding");
                std::fs::remove_file(&path)?;
                build_file(dataset, &path, files, opts)?;
                Self::open(dataset, version, published_at, freshness, files, &path, opts)
            }
            Err(e) => Err(e),
        }
    }

    /// Where the serving database of a version lives in the cache. The name carries a digest of
    /// the version's files (their paths name the runs that wrote them), so a file built from
    /// another lake's version with the same number is never taken for this one.
    pub fn file_of(db_dir: &Path, dataset: DatasetId, version: u64, files: &[PathBuf]) -> PathBuf {
        use sha2::{Digest, Sha256};
        let mut digest = Sha256::new();
        for f in files {
            digest.update(f.to_string_lossy().as_bytes());
            digest.update(b"\n");
        }
        let short = hex::encode(&digest.finalize()[..6]);
        db_dir.join(format!("{dataset}-v{version}-{short}.duckdb"))
    }

    /// Attaches a complete database file read-only, checks it, and opens the connection pool.
    fn open(
        dataset: DatasetId,
        version: u64,
        published_at: DateTime<Utc>,
        freshness: Freshness,
        files: &[PathBuf],
        path: &Path,
        opts: &BuildOptions,
    ) -> Result<Self, DbError> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(&format!(
            "ATTACH {} AS ds (READ_ONLY); USE ds; SET memory_limit = {}; SET threads = 1;",
            quote(&path.to_string_lossy()),
            quote(opts.memory_limit),
        ))?;
        let table = dataset.table_name();
        let rows: i64 = conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
        if rows as u64 != freshness.rows {
            return Err(DbError::Smoke {
                dataset,
                version,
                detail: format!("{rows} rows, commit says {}", freshness.rows),
            });
        }
        let index = match dataset.position_key() {
            Some(_) => {
                let mut stmt = conn.prepare("SELECT * FROM _runs ORDER BY 3")?;
                let runs = stmt
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
                    .collect::<Result<Vec<RunRow>, _>>()?;
                let index = PositionIndex::from_runs(runs);
                if index.is_none() {
                    tracing::warn!(%dataset, version, "table is not laid out by its position key; pages will sort");
                }
                index
            }
            None => None,
        };
        // Serving queries touch a few row groups: run each on its caller's thread alone, without
        // handing work to (and waiting for) DuckDB's worker threads; requests give the parallelism.
        let mut conns = Vec::with_capacity(opts.pool_size);
        for _ in 1..opts.pool_size.max(1) {
            let clone = conn.try_clone()?;
            clone.execute_batch("USE ds")?;
            conns.push(clone);
        }
        conn.execute_batch(&format!(
            "SET allowed_directories = [{}]; SET enable_external_access = false; SET lock_configuration = true;",
            quote(&opts.allowed_dir.to_string_lossy())
        ))?;
        conns.push(conn);
        Ok(DatasetDb {
            dataset,
            version,
            published_at,
            freshness,
            sources: files.to_vec(),
            index,
            path: path.to_path_buf(),
            reopened: false,
            permits: Arc::new(Semaphore::new(conns.len())),
            pool_size: conns.len(),
            conns: Arc::new(Mutex::new(conns)),
        })
    }

    pub fn as_of(&self) -> Option<DateTime<Utc>> {
        self.freshness.as_of
    }

    /// The positions of `country`'s rows with a time in `from_ms ..= to_ms`, when indexed.
    pub fn positions(&self, country: &str, from_ms: i64, to_ms: i64) -> Option<PositionRange> {
        self.index.as_ref().map(|i| i.lookup(country, from_ms, to_ms))
    }

    /// Whether this version's data came from recorded fixtures.
    pub fn is_replay(&self) -> bool {
        self.freshness.mode == sitrep_schemas::DataMode::Replay
    }

    /// Runs `f` on a pooled connection on a blocking thread. Cancellation-safe: if the caller's
    /// future is dropped (client gone, timeout), the blocking work still ends by returning the
    /// connection and the permit; a panic in `f` returns them too.
    pub async fn query<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, duckdb::Error> + Send + 'static,
    {
        let permit = self.permits.clone().acquire_owned().await.map_err(|e| DbError::Task(e.to_string()))?;
        let pool = self.conns.clone();
        let result = tokio::task::spawn_blocking(move || {
            let _permit = permit; // released after the connection is back (drop order: reverse)
            let checkout = Checkout::take(&pool).ok_or_else(|| DbError::Task("pool empty".into()))?;
            let conn = checkout.conn.as_ref().ok_or_else(|| DbError::Task("pool empty".into()))?;
            f(conn).map_err(DbError::from)
        })
        .await
        .map_err(|e| DbError::Task(e.to_string()))?;
        result
    }

    /// Connections checked out by running queries.
    pub fn connections_in_use(&self) -> usize {
        self.pool_size.saturating_sub(self.idle_connections())
    }

    /// Connections idle in the pool (all of them when no query runs).
    pub fn idle_connections(&self) -> usize {
        self.conns.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).len()
    }
}

impl DatasetDb {
    /// The database file (kept in the cache after the version is dropped; pruned by `Snapshots`).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DatasetDb {
    /// Closing DuckDB connections can block: off the async worker threads when there are some.
    fn drop(&mut self) {
        let conns = std::mem::take(&mut *self.conns.lock().unwrap_or_else(|p| p.into_inner()));
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn_blocking(move || drop(conns));
            }
            Err(_) => drop(conns),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn empty_db(dir: &Path) -> DatasetDb {
        let opts =
            BuildOptions { db_dir: &dir.join("db"), allowed_dir: dir, memory_limit: "64MB", threads: 1, pool_size: 4 };
        let freshness = Freshness::never(None);
        DatasetDb::load(DatasetId::HUMANITARIAN, 1, DateTime::UNIX_EPOCH, freshness, &[], &opts).expect("build")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancelled_and_panicking_queries_give_their_connections_back() {
        let dir = tempfile::tempdir().unwrap();
        let db = Arc::new(empty_db(dir.path()));
        assert_eq!(db.idle_connections(), 4);
        // A few hundred queries whose callers give up while the query runs or waits for a connection.
        let mut dropped = 0;
        for _ in 0..300 {
            let db = db.clone();
            let slow = db.query(|c| {
                std::thread::sleep(Duration::from_millis(2));
                c.query_row("SELECT count(*) FROM humanitarian", [], |r| r.get::<_, i64>(0))
            });
            if tokio::time::timeout(Duration::from_micros(200), slow).await.is_err() {
                dropped += 1;
            }
        }
        assert!(dropped > 250, "most callers gave up mid-query ({dropped})");
        // A query that panics on its connection.
        let panicked = db.query(|_| -> Result<(), duckdb::Error> { panic!("boom") }).await;
        assert!(matches!(panicked, Err(DbError::Task(_))));
        // Once the abandoned work has ended, the whole pool is back and serves.
        for _ in 0..200 {
            if db.idle_connections() == 4 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(db.idle_connections(), 4);
        let counts = futures::future::join_all(
            (0..16).map(|_| db.query(|c| c.query_row("SELECT count(*) FROM humanitarian", [], |r| r.get::<_, i64>(0)))),
        )
        .await;
        assert!(counts.iter().all(|c| matches!(c, Ok(0))));
    }
}
