//! One dataset version: its database file in the cache directory (built once, re-attached by a
//! restarted server) attached read-only to the server's one DuckDB instance (`Engine`) under a
//! schema of its own.

use std::{
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
};

use chrono::{DateTime, Utc};
use duckdb::Connection;
use sitrep_schemas::{
    sql::{serving_column_defs, serving_select},
    DatasetId, Freshness,
};

use super::{
    engine::Engine,
    instance::open_duckdb,
    position_index::{PositionIndex, PositionRange, RunRow},
};

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
    /// The schema the file is attached as; unique per attach, so a late detach of an evicted
    /// version can never hit a later attach of the same version.
    alias: String,
    /// `<alias>.<table>`: what this version's SQL reads.
    table: String,
    /// Whether the file was re-attached from an earlier process rather than built.
    pub reopened: bool,
    backing: Backing,
    engine: Arc<Engine>,
}

/// Where a loaded version's rows are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backing {
    /// Its serving file (sorted, numbered, with its position runs), attached read-only.
    File,
    /// Views over its Parquet files in the cache: a starting server's answers until the file is
    /// built. The same rows, so the same answers; pages sort instead of reading positions.
    Parquet,
}

impl Backing {
    /// Takes schema `alias` off the engine (blocking).
    fn remove(self, engine: &Engine, alias: &str) -> Result<(), DbError> {
        match self {
            Backing::File => engine.detach(alias),
            Backing::Parquet => engine.drop_views(alias),
        }
    }
}

impl std::fmt::Debug for DatasetDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatasetDb({} v{})", self.dataset, self.version)
    }
}

/// `_row_hash`: one 64-bit hash of a serving row's columns, stored when the file is built, so
/// comparing two versions (`list-dataset-changes`) reads two narrow columns instead of hashing
/// every column of both (a fifth of a second per million rows).
fn row_hash(dataset: DatasetId) -> String {
    let names: Vec<String> = dataset.schema().fields().iter().map(|f| f.name().clone()).collect();
    format!("hash({})", names.join(", "))
}

/// The linked DuckDB's version: part of a serving file's layout, since another version's `hash`
/// may differ, and two versions' row hashes are only comparable from one function.
fn duckdb_version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        open_duckdb()
            .and_then(|c| c.query_row("SELECT library_version FROM pragma_version()", [], |r| r.get(0)))
            .unwrap_or_else(|e| format!("unknown ({e})"))
    })
}

/// The view of a version read straight from its Parquet files, in schema `alias`. `_pos` is there
/// so a page's SQL has the columns it has on a built table; without a position index it is never
/// read. `_row_hash` is computed as the build stores it.
fn parquet_view(alias: &str, dataset: DatasetId, files: &[PathBuf]) -> String {
    format!(
        "CREATE VIEW {alias}.{table} AS SELECT *, NULL::BIGINT AS _pos, {row_hash} AS _row_hash
         FROM (SELECT {columns} FROM {files});",
        table = dataset.table_name(),
        columns = serving_select(dataset),
        files = read_parquet(files),
        row_hash = row_hash(dataset),
    )
}

/// Rows per row group of a serving table.
const SERVING_ROW_GROUP: usize = 8192;

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `read_parquet([...])` of a version's files (paths from our own cache layout, never from a request).
fn read_parquet(files: &[PathBuf]) -> String {
    let list: Vec<String> = files.iter().map(|p| quote(&p.to_string_lossy())).collect();
    format!("read_parquet([{}])", list.join(", "))
}

/// How a version's database file is built (in a transient instance of its own: building reads
/// Parquet and writes a file, which the locked-down serving instance may not).
pub struct BuildOptions<'a> {
    pub db_dir: &'a Path,
    pub memory_limit: &'a str,
    pub threads: usize,
}

static ATTACHES: AtomicU64 = AtomicU64::new(0);

/// A dataset version to load: what the commit says of it, and its files in the local cache.
pub struct VersionSpec {
    pub dataset: DatasetId,
    pub version: u64,
    /// When the generation that published the version was committed.
    pub published_at: DateTime<Utc>,
    pub freshness: Freshness,
    pub files: Vec<PathBuf>,
}

/// How a serving file is written. Strings are stored uncompressed. DuckDB reads only a page's rows
/// from an uncompressed string column, but a dictionary-compressed segment decodes its whole
/// dictionary each time a scan starts on it (an uncached page at 10k events: 542 → 456 µs in
/// DuckDB alone without dictionaries). FSST costs at build time: compressing unique strings (ids)
/// was a fifth of a 5M-row build (start to ready 10.8–11.9 s with it, 8.6–9.5 s without). The
/// file is larger, which only the cache disk sees. Part of the file's cache name, so a change
/// rebuilds.
const BUILD_SETTINGS: &str =
    "SET preserve_insertion_order = true; SET disabled_compression_methods = 'fsst,dictionary';";

/// Builds a version's database file: the table sorted by the dataset's filter keys and numbered
/// in that order (`_pos`: the row ids of the sorted rows in a temporary table, copied into a stored
/// column so position ranges prune row groups through zone maps, which `rowid` does not — one sort,
/// no window function, and the sorted copy never reaches the file), plus its position runs
/// (`_runs`), written under a temporary name and
/// renamed into place only when complete — a crash never leaves a file that looks whole.
fn build_file(dataset: DatasetId, path: &Path, files: &[PathBuf], opts: &BuildOptions) -> Result<(), DbError> {
    let building = path.with_extension(format!("building-{}", ulid::Ulid::new()));
    // The table lives in an attached file with small row groups: a page is a few rows found
    // through zone maps, and DuckDB scans whole row groups, so their size is the floor of a
    // page's cost (122,880 rows by default). The default database is in memory, so say where
    // sorts larger than memory spill.
    let conn = open_duckdb()?;
    conn.execute_batch(&format!(
        "ATTACH {} AS ds (ROW_GROUP_SIZE {SERVING_ROW_GROUP}); USE ds; SET temp_directory = {};
         SET max_temp_directory_size = {}; SET memory_limit = {}; SET threads = {}; {BUILD_SETTINGS}",
        quote(&building.to_string_lossy()),
        quote(&path.with_extension("tmp").to_string_lossy()),
        quote(super::SPILL_LIMIT),
        quote(opts.memory_limit),
        opts.threads
    ))?;
    let table = dataset.table_name();
    // Lake instants and dates become the API's wire forms here, once (`serving_select`).
    let create = if files.is_empty() {
        format!("CREATE TABLE {table} ({}, _pos BIGINT, _row_hash UBIGINT)", serving_column_defs(dataset))
    } else {
        format!(
            "CREATE TEMP TABLE _sorted AS SELECT {columns} FROM {} ORDER BY {key};
             CREATE TABLE {table} AS SELECT *, rowid AS _pos, {row_hash} AS _row_hash FROM _sorted;
             DROP TABLE _sorted;",
            read_parquet(files),
            columns = serving_select(dataset),
            key = dataset.sort_key(),
            row_hash = row_hash(dataset),
        )
    };
    let t = std::time::Instant::now();
    conn.execute_batch(&create)?;
    let create_ms = t.elapsed().as_millis() as u64;
    let t = std::time::Instant::now();
    if let Some((group, time)) = dataset.position_key() {
        conn.execute_batch(&format!(
            "CREATE TABLE _runs AS SELECT {group}, {time}, min(_pos), max(_pos), count(*)
             FROM {table} GROUP BY ALL ORDER BY 3"
        ))?;
    }
    let runs_ms = t.elapsed().as_millis() as u64;
    if let Some(sql) = super::derived::load_time_sql(dataset) {
        conn.execute_batch(&sql.replace("{table}", table))?;
    }
    let t = std::time::Instant::now();
    conn.execute_batch("CHECKPOINT; USE memory; DETACH ds;")?;
    tracing::debug!(%dataset, create_ms, runs_ms, checkpoint_ms = t.elapsed().as_millis() as u64, "build phases");
    drop(conn);
    std::fs::rename(&building, path)?;
    Ok(())
}

impl DatasetDb {
    /// The serving database of a version (blocking): re-attached from the cache directory when a
    /// complete file is there (a restart), else built once from the version's Parquet files.
    /// Either way it is smoke-tested (row count against the commit) before it serves.
    pub fn load(engine: &Arc<Engine>, spec: VersionSpec, opts: &BuildOptions) -> Result<Self, DbError> {
        std::fs::create_dir_all(opts.db_dir)?;
        let (dataset, version) = (spec.dataset, spec.version);
        let path = Self::file_of(opts.db_dir, dataset, version, &spec.files);
        let reopened = path.exists();
        let started = std::time::Instant::now();
        if !reopened {
            build_file(dataset, &path, &spec.files, opts)?;
            tracing::info!(%dataset, version, ms = started.elapsed().as_millis() as u64, "built serving database");
        }
        match Self::open(engine, &spec, &path) {
            Ok(mut db) => {
                db.reopened = reopened;
                Ok(db)
            }
            Err(e) if reopened => {
                // A file from an earlier process that does not check out: build it again.
                tracing::warn!(%dataset, version, error = %e, "cached serving database refused; rebuilding");
                std::fs::remove_file(&path)?;
                build_file(dataset, &path, &spec.files, opts)?;
                Self::open(engine, &spec, &path)
            }
            Err(e) => Err(e),
        }
    }

    /// Where the serving database of a version lives in the cache. The name carries a digest of
    /// the version's files (their paths name the runs that wrote them), so a file built from
    /// another lake's version with the same number is never taken for this one, and of its
    /// build settings, serving columns and load-time SQL, so a file laid out by another build
    /// is rebuilt, not re-attached.
    pub fn file_of(db_dir: &Path, dataset: DatasetId, version: u64, files: &[PathBuf]) -> PathBuf {
        file_named(db_dir, dataset, version, &layout_of(dataset), files)
    }

    /// Whether a version can be read from its Parquet files before its serving file is built:
    /// it has files, and no load-time tables (those exist only in the built file).
    pub fn readable_from_parquet(spec: &VersionSpec) -> bool {
        !spec.files.is_empty() && super::derived::load_time_sql(spec.dataset).is_none()
    }

    /// A version read through views over its Parquet files (blocking; see [`Backing::Parquet`]),
    /// smoke-tested like a built file. `db_dir` is where its serving file will be built.
    pub fn over_parquet(engine: &Arc<Engine>, spec: VersionSpec, db_dir: &Path) -> Result<Self, DbError> {
        let (dataset, version) = (spec.dataset, spec.version);
        let alias = Self::new_alias(dataset, version);
        engine.create_views(&alias, &parquet_view(&alias, dataset, &spec.files))?;
        let path = Self::file_of(db_dir, dataset, version, &spec.files);
        Self::checked(engine, &spec, alias, Backing::Parquet, path)
    }

    /// What this version was loaded from: enough to load it again (its serving file built).
    pub fn spec(&self) -> VersionSpec {
        VersionSpec {
            dataset: self.dataset,
            version: self.version,
            published_at: self.published_at,
            freshness: self.freshness.clone(),
            files: self.sources.clone(),
        }
    }

    pub fn backing(&self) -> Backing {
        self.backing
    }

    /// Makes this version's rows readable in another DuckDB instance of this process (a transient
    /// one that computes something from them away from the serving instance's memory): its file
    /// attached read-only as schema `alias`, or views over its Parquet files there. Returns the
    /// name of its table in that instance.
    pub fn expose_in(&self, conn: &Connection, alias: &str) -> Result<String, DbError> {
        match self.backing {
            Backing::File => {
                conn.execute_batch(&format!("ATTACH {} AS {alias} (READ_ONLY)", quote(&self.path.to_string_lossy())))?
            }
            Backing::Parquet => conn.execute_batch(&format!(
                "CREATE SCHEMA {alias}; {}",
                parquet_view(alias, self.dataset, &self.sources)
            ))?,
        }
        Ok(format!("{alias}.{}", self.dataset.table_name()))
    }

    /// A schema name no other attach has had.
    fn new_alias(dataset: DatasetId, version: u64) -> String {
        format!("{}_v{version}_{}", dataset.table_name(), ATTACHES.fetch_add(1, Ordering::Relaxed))
    }

    /// Attaches a complete database file read-only and checks it.
    fn open(engine: &Arc<Engine>, spec: &VersionSpec, path: &Path) -> Result<Self, DbError> {
        let alias = Self::new_alias(spec.dataset, spec.version);
        engine.attach(path, &alias)?;
        Self::checked(engine, spec, alias, Backing::File, path.to_path_buf())
    }

    /// The version attached as `alias`, once its row count matches the commit's (and, for a
    /// built file, its position runs are read); on a mismatch it is removed again.
    fn checked(
        engine: &Arc<Engine>,
        spec: &VersionSpec,
        alias: String,
        backing: Backing,
        path: PathBuf,
    ) -> Result<Self, DbError> {
        let (dataset, version) = (spec.dataset, spec.version);
        let table = format!("{alias}.{}", dataset.table_name());
        let checked = engine.admin(|conn| {
            let rows: i64 = conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
            let runs = match dataset.position_key() {
                Some(_) if backing == Backing::File => {
                    let mut stmt = conn.prepare(&format!("SELECT * FROM {alias}._runs ORDER BY 3"))?;
                    let runs = stmt
                        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
                        .collect::<Result<Vec<RunRow>, _>>()?;
                    Some(runs)
                }
                _ => None,
            };
            Ok((rows, runs))
        });
        let (rows, runs) = match checked {
            Ok(c) => c,
            Err(e) => {
                let _ = backing.remove(engine, &alias);
                return Err(e);
            }
        };
        if rows as u64 != spec.freshness.rows {
            let _ = backing.remove(engine, &alias);
            return Err(DbError::Smoke {
                dataset,
                version,
                detail: format!("{rows} rows, commit says {}", spec.freshness.rows),
            });
        }
        let index = runs.and_then(|runs| {
            let index = PositionIndex::from_runs(runs);
            if index.is_none() {
                tracing::warn!(%dataset, version, "table is not laid out by its position key; pages will sort");
            }
            index
        });
        Ok(DatasetDb {
            dataset,
            version,
            published_at: spec.published_at,
            freshness: spec.freshness.clone(),
            sources: spec.files.clone(),
            index,
            path,
            alias,
            table,
            reopened: false,
            backing,
            engine: engine.clone(),
        })
    }

    pub fn as_of(&self) -> Option<DateTime<Utc>> {
        self.freshness.as_of
    }

    /// The qualified name of this version's table (`<schema>.<table>`), for its SQL.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The schema this version is attached as: its load-time tables are `<schema>.<name>`.
    pub fn schema(&self) -> &str {
        &self.alias
    }

    /// The positions of `country`'s rows with a time in `from_ms ..= to_ms`, when indexed.
    pub fn positions(&self, country: &str, from_ms: i64, to_ms: i64) -> Option<PositionRange> {
        self.index.as_ref().map(|i| i.lookup(country, from_ms, to_ms))
    }

    /// Whether this version's data came from recorded fixtures.
    pub fn is_replay(&self) -> bool {
        self.freshness.mode == sitrep_schemas::DataMode::Replay
    }

    /// Runs `f` on a pooled connection of the server's engine (see [`Engine::query`]).
    pub async fn query<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, duckdb::Error> + Send + 'static,
    {
        self.engine.query(f).await
    }

    /// [`Self::query`] given this version's table name (copied once, for the pooled connection's thread).
    pub async fn query_table<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection, &str) -> Result<T, duckdb::Error> + Send + 'static,
    {
        let table = self.table.clone();
        self.engine.query(move |c| f(c, &table)).await
    }

    /// The database file (kept in the cache after the version is dropped; pruned by `Snapshots`).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DatasetDb {
    fn drop(&mut self) {
        let (alias, backing) = (std::mem::take(&mut self.alias), self.backing);
        self.engine.clone().in_background("detach a dropped dataset version", move |e| backing.remove(e, &alias));
    }
}

/// Everything that decides how a version's serving file is laid out: the build settings, the
/// serving columns and the load-time SQL.
fn layout_of(dataset: DatasetId) -> String {
    let mut layout = format!("{BUILD_SETTINGS}{}{}{}", serving_select(dataset), row_hash(dataset), duckdb_version());
    if let Some(sql) = super::derived::load_time_sql(dataset) {
        layout.push_str(sql);
    }
    layout
}

/// The serving file of a version laid out as `layout` from `files`, named by a digest of both.
fn file_named(db_dir: &Path, dataset: DatasetId, version: u64, layout: &str, files: &[PathBuf]) -> PathBuf {
    use sha2::{Digest, Sha256};
    let mut digest = Sha256::new();
    digest.update(layout.as_bytes());
    for f in files {
        digest.update(f.to_string_lossy().as_bytes());
        digest.update(b"\n");
    }
    let short = hex::encode(&digest.finalize()[..6]);
    db_dir.join(format!("{dataset}-v{version}-{short}.duckdb"))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn empty_db(dir: &Path, engine: &Arc<Engine>) -> DatasetDb {
        let opts = BuildOptions { db_dir: &dir.join("db"), memory_limit: "64MB", threads: 1 };
        let spec = VersionSpec {
            dataset: DatasetId::HUMANITARIAN,
            version: 1,
            published_at: DateTime::UNIX_EPOCH,
            freshness: Freshness::never(None),
            files: Vec::new(),
        };
        DatasetDb::load(engine, spec, &opts).expect("build")
    }

    #[test]
    fn a_serving_file_laid_out_otherwise_has_another_name() {
        let (dir, d) = (Path::new("/cache"), DatasetId::ARMED_EVENTS);
        let files = [PathBuf::from("armed-events/run-1/part-0.parquet")];
        let layout = layout_of(d);
        assert!(layout.contains(BUILD_SETTINGS) && layout.contains(&serving_select(d)));
        assert_eq!(DatasetDb::file_of(dir, d, 3, &files), file_named(dir, d, 3, &layout, &files));
        let other = layout.replace("fsst,dictionary", "fsst");
        assert_ne!(other, layout, "the build settings are part of the layout");
        assert_ne!(file_named(dir, d, 3, &other, &files), file_named(dir, d, 3, &layout, &files));
        let other_files = [PathBuf::from("armed-events/run-2/part-0.parquet")];
        assert_ne!(DatasetDb::file_of(dir, d, 3, &other_files), DatasetDb::file_of(dir, d, 3, &files));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancelled_and_panicking_queries_give_their_connections_back() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), "64MB", 4).unwrap());
        let db = Arc::new(empty_db(dir.path(), &engine));
        let count = format!("SELECT count(*) FROM {}", db.table());
        assert_eq!(engine.idle_connections(), 4);
        // A few hundred queries whose callers give up while the query runs or waits for a
        // connection: a query holds its connection until the loop has ended, so every caller
        // gives up, however slowly the machine runs (a timed query once finished first under load).
        let release = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut dropped = 0;
        for _ in 0..300 {
            let (sql, release) = (count.clone(), release.clone());
            let held = db.query(move |c| {
                let until = std::time::Instant::now() + Duration::from_secs(10);
                while !release.load(std::sync::atomic::Ordering::Acquire) && std::time::Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(1));
                }
                c.query_row(&sql, [], |r| r.get::<_, i64>(0))
            });
            if tokio::time::timeout(Duration::from_millis(1), held).await.is_err() {
                dropped += 1;
            }
        }
        release.store(true, std::sync::atomic::Ordering::Release);
        assert_eq!(dropped, 300, "every caller gave up mid-query or waiting for a connection");
        // A query that panics on its connection.
        let panicked = db.query(|_| -> Result<(), duckdb::Error> { panic!("boom") }).await;
        assert!(matches!(panicked, Err(DbError::Task(_))));
        // Once the abandoned work has ended, the whole pool is back and serves.
        for _ in 0..200 {
            if engine.idle_connections() == 4 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(engine.idle_connections(), 4);
        let counts = futures::future::join_all((0..16).map(|_| {
            let sql = count.clone();
            db.query(move |c| c.query_row(&sql, [], |r| r.get::<_, i64>(0)))
        }))
        .await;
        assert!(counts.iter().all(|c| matches!(c, Ok(0))));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_removed_version_makes_every_connection_drop_its_cached_statements_once() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), "64MB", 2).unwrap());
        let (gone, kept) = (empty_db(dir.path(), &engine), empty_db(dir.path(), &engine));
        fn count(db: &DatasetDb) -> impl std::future::Future<Output = Result<i64, DbError>> + '_ {
            let sql = format!("SELECT count(*) FROM {}", db.table());
            db.query(move |c| {
                std::thread::sleep(Duration::from_millis(20)); // both connections busy at once
                c.prepare_cached(&sql)?.query_row([], |r| r.get::<_, i64>(0))
            })
        }
        let both = futures::future::join(count(&gone), count(&kept)).await;
        assert!(matches!(both, (Ok(0), Ok(0))));
        assert_eq!(engine.connections_to_flush(), 0);
        drop(gone);
        for _ in 0..200 {
            if engine.connections_to_flush() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            engine.connections_to_flush(),
            2,
            "every idle connection still holds the removed version's statements"
        );
        let both = futures::future::join(count(&kept), count(&kept)).await;
        assert!(matches!(both, (Ok(0), Ok(0))), "the kept version's statements are prepared again");
        assert_eq!(engine.connections_to_flush(), 0);
    }

    #[tokio::test]
    async fn versions_share_one_locked_instance_and_detach_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), "64MB", 2).unwrap());
        let a = empty_db(dir.path(), &engine);
        let b = empty_db(dir.path(), &engine); // the same file, attached again under its own schema
        assert_ne!(a.table(), b.table());
        let (ta, tb) = (a.table().to_string(), b.table().to_string());
        // One instance: a query can join two attached versions.
        let sql = format!("SELECT count(*) FROM {ta} x JOIN {tb} y ON x.country_code = y.country_code");
        assert_eq!(a.query(move |c| c.query_row(&sql, [], |r| r.get::<_, i64>(0))).await.unwrap(), 0);
        // Locked down: nothing outside the cache directory.
        let outside = a.query(|c| c.execute_batch("ATTACH '/tmp/sitrep-outside.duckdb' AS o")).await;
        assert!(outside.is_err());
        drop(a);
        for _ in 0..100 {
            let sql = format!("SELECT count(*) FROM {ta}");
            if b.query(move |c| c.query_row(&sql, [], |r| r.get::<_, i64>(0))).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let sql = format!("SELECT count(*) FROM {ta}");
        assert!(b.query(move |c| c.query_row(&sql, [], |r| r.get::<_, i64>(0))).await.is_err(), "detached");
        let sql = format!("SELECT count(*) FROM {tb}");
        assert_eq!(b.query(move |c| c.query_row(&sql, [], |r| r.get::<_, i64>(0))).await.unwrap(), 0);
    }
}
