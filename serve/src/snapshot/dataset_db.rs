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
    path: PathBuf,
    conns: Mutex<Vec<Connection>>,
    permits: Semaphore,
}

impl std::fmt::Debug for DatasetDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatasetDb({} v{})", self.dataset, self.version)
    }
}

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
    /// Builds the database (blocking): a table sorted by the dataset's filter keys, checked, then
    /// locked down (no external access beyond the cache, configuration frozen).
    pub fn build(
        dataset: DatasetId,
        version: u64,
        freshness: Freshness,
        files: &[PathBuf],
        opts: &BuildOptions,
    ) -> Result<Self, DbError> {
        std::fs::create_dir_all(opts.db_dir)?;
        let path = opts.db_dir.join(format!("{dataset}-v{version}-{}.duckdb", ulid::Ulid::new()));
        let conn = Connection::open(&path)?;
        conn.execute_batch(&format!(
            "SET memory_limit = {}; SET threads = {}; SET preserve_insertion_order = true;",
            quote(opts.memory_limit),
            opts.threads
        ))?;
        let table = dataset.table_name();
        // Paths come from our own cache layout, never from a request.
        let create = if files.is_empty() {
            format!("CREATE TABLE {table} ({})", column_defs(dataset))
        } else {
            let list: Vec<String> = files.iter().map(|p| quote(&p.to_string_lossy())).collect();
            format!(
                "CREATE TABLE {table} AS SELECT * FROM read_parquet([{}]) ORDER BY {}",
                list.join(", "),
                dataset.sort_key()
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
        conn.execute_batch(&format!(
            "CHECKPOINT; SET allowed_directories = [{}]; SET enable_external_access = false; SET lock_configuration = true;",
            quote(&opts.allowed_dir.to_string_lossy())
        ))?;
        let mut conns = Vec::with_capacity(opts.pool_size);
        for _ in 1..opts.pool_size.max(1) {
            conns.push(conn.try_clone()?);
        }
        conns.push(conn);
        Ok(DatasetDb {
            dataset,
            version,
            freshness,
            sources: files.to_vec(),
            path,
            permits: Semaphore::new(conns.len()),
            conns: Mutex::new(conns),
        })
    }

    pub fn as_of(&self) -> Option<DateTime<Utc>> {
        self.freshness.as_of
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
