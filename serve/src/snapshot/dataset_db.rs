//! One dataset version in its own DuckDB database file, with a pool of cloned connections.
//! `Connection` is Send but not Sync: each query checks a connection out and runs on a blocking thread.

use std::{
    path::{Path, PathBuf},
    sync::Mutex,
};

use chrono::{DateTime, Utc};
use duckdb::Connection;
use sitrep_schemas::{sql::column_defs, DatasetId, Freshness};
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
    pub freshness: Freshness,
    /// The cached lake files this version was built from.
    pub sources: Vec<PathBuf>,
    /// For datasets with a position key: where each (country, time range) sits in the table.
    index: Option<PositionIndex>,
    path: PathBuf,
    conns: Mutex<Vec<Connection>>,
    permits: Semaphore,
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

impl DatasetDb {
    /// Builds the database (blocking): a table sorted by the dataset's filter keys and numbered in
    /// that order (`_pos`), checked, indexed, then locked down (no external access beyond the
    /// cache, configuration frozen).
    pub fn build(
        dataset: DatasetId,
        version: u64,
        freshness: Freshness,
        files: &[PathBuf],
        opts: &BuildOptions,
    ) -> Result<Self, DbError> {
        std::fs::create_dir_all(opts.db_dir)?;
        let path = opts.db_dir.join(format!("{dataset}-v{version}-{}.duckdb", ulid::Ulid::new()));
        // The table lives in an attached file with small row groups: a page is a few rows found
        // through zone maps, and DuckDB scans whole row groups, so their size is the floor of a
        // page's cost (122,880 rows by default). The default database is in memory, so say where
        // sorts larger than memory spill.
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(&format!(
            "ATTACH {} AS ds (ROW_GROUP_SIZE {SERVING_ROW_GROUP}); USE ds; SET temp_directory = {};
             SET memory_limit = {}; SET threads = {}; SET preserve_insertion_order = true;",
            quote(&path.to_string_lossy()),
            quote(&path.with_extension("tmp").to_string_lossy()),
            quote(opts.memory_limit),
            opts.threads
        ))?;
        let table = dataset.table_name();
        // Paths come from our own cache layout, never from a request.
        let create = if files.is_empty() {
            format!("CREATE TABLE {table} ({}, _pos BIGINT)", column_defs(dataset))
        } else {
            let list: Vec<String> = files.iter().map(|p| quote(&p.to_string_lossy())).collect();
            format!(
                "CREATE TABLE {table} AS SELECT *, row_number() OVER (ORDER BY {key}) - 1 AS _pos
                 FROM read_parquet([{}]) ORDER BY _pos",
                list.join(", "),
                key = dataset.sort_key()
            )
        };
        conn.execute_batch(&create)?;
        let rows: i64 = conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
        if rows as u64 != freshness.rows {
            return Err(DbError::Smoke {
                dataset,
                version,
                detail: format!("{rows} rows, commit says {}", freshness.rows),
            });
        }
        let index = match dataset.position_key() {
            Some((group, time)) => {
                let mut stmt = conn.prepare(&format!(
                    "SELECT {group}, {time}, min(_pos), max(_pos), count(*) FROM {table} GROUP BY ALL ORDER BY 3"
                ))?;
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
        conn.execute_batch("CHECKPOINT")?;
        // Serving queries touch a few row groups: run each on its caller's thread alone, without
        // handing work to (and waiting for) DuckDB's worker threads; requests give the parallelism.
        let mut conns = Vec::with_capacity(opts.pool_size);
        for _ in 1..opts.pool_size.max(1) {
            let clone = conn.try_clone()?;
            clone.execute_batch("USE ds")?;
            conns.push(clone);
        }
        conn.execute_batch(&format!(
            "SET threads = 1; SET allowed_directories = [{}]; SET enable_external_access = false;
             SET lock_configuration = true;",
            quote(&opts.allowed_dir.to_string_lossy())
        ))?;
        conns.push(conn);
        Ok(DatasetDb {
            dataset,
            version,
            freshness,
            sources: files.to_vec(),
            index,
            path,
            permits: Semaphore::new(conns.len()),
            conns: Mutex::new(conns),
        })
    }

    pub fn as_of(&self) -> Option<DateTime<Utc>> {
        self.freshness.as_of
    }

    /// The positions of `country`'s rows with a time in `from_ms ..= to_ms`, when indexed.
    pub fn positions(&self, country: &str, from_ms: i64, to_ms: i64) -> Option<PositionRange> {
        self.index.as_ref().map(|i| i.lookup(country, from_ms, to_ms))
    }

    /// Runs `f` on a pooled connection on a blocking thread.
    pub async fn query<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, duckdb::Error> + Send + 'static,
    {
        let _permit = self.permits.acquire().await.map_err(|e| DbError::Task(e.to_string()))?;
        let conn = self
            .conns
            .lock()
            .map_err(|e| DbError::Task(e.to_string()))?
            .pop()
            .ok_or_else(|| DbError::Task("pool empty".into()))?;
        let (conn, result) = tokio::task::spawn_blocking(move || {
            let r = f(&conn);
            (conn, r)
        })
        .await
        .map_err(|e| DbError::Task(e.to_string()))?;
        if let Ok(mut pool) = self.conns.lock() {
            pool.push(conn);
        }
        Ok(result?)
    }
}

impl Drop for DatasetDb {
    fn drop(&mut self) {
        if let Ok(mut c) = self.conns.lock() {
            c.clear();
        }
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_file(self.path.with_extension("duckdb.wal"));
    }
}
