//! The changes between two versions of a dataset: a full outer join in DuckDB of the two serving
//! tables on the dataset's declared row key. A row only in the newer version is added, only in the
//! older removed, in both with any column distinct changed. The join is computed once per version
//! pair and its changes rendered to JSON, in key order, into a file of their own (`diff_file.rs`;
//! `diff_cache.rs` keeps it), so a cursor's offset names the same rows on every replica and a page
//! reads only its own lines. The changed rows are read in one scan of each side, rendered here
//! (`row_render.rs`) and put in key order by their change's number (`side_rows.rs`).

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
};

use arrow::{
    array::{Array, AsArray, StructArray},
    datatypes::Int64Type,
};
use duckdb::{params, Connection, Statement};
use sitrep_platform::snapshot::{open_duckdb, DatasetDb, DbError, Running, TimeSpent};
use sitrep_schemas::DatasetId;

use super::{
    diff_file::DiffWriter,
    model::ChangeKind,
    row_render::RowRender,
    side_rows::{SideBuckets, SideRows, SideRowsError, BUCKET},
};

/// Why a diff was not had.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(transparent)]
    Db(#[from] DbError),
    /// Its rendered changes grew past the bytes a diff may take.
    #[error("the rendered changes exceed {limit} bytes")]
    TooLarge { limit: u64 },
    /// Every caller asking for it left, so its computation stopped.
    #[error("every caller asking for the diff left")]
    Cancelled,
    /// The caller's time for heavy work is spent (nothing was started).
    #[error(transparent)]
    Busy(#[from] TimeSpent),
    /// Still being computed when this caller could wait no longer: it goes on, and is had by
    /// asking again after about `retry_after` (one caller's answer; the computation is shared).
    #[error("the diff is still being computed")]
    InProgress { retry_after: std::time::Duration },
}

impl From<duckdb::Error> for DiffError {
    fn from(e: duckdb::Error) -> Self {
        DiffError::Db(e.into())
    }
}

impl From<std::io::Error> for DiffError {
    fn from(e: std::io::Error) -> Self {
        DiffError::Db(e.into())
    }
}

/// How many rows were added, removed and changed in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub added: i64,
    pub removed: i64,
    pub changed: i64,
}

impl Totals {
    pub fn all(&self) -> i64 {
        self.added + self.removed + self.changed
    }
}

fn quoted(name: &str) -> String {
    format!("'{}'", name.replace('\'', "''"))
}

/// The names of the statements' columns: `{side}{i}` is the i-th schema column of a side, `k{i}`
/// the i-th key column of a change.
struct Columns {
    names: Vec<String>,
    nullable: Vec<bool>,
    /// The schema positions of the row key's columns, in key order.
    key: Vec<usize>,
}

impl Columns {
    fn of(dataset: DatasetId) -> Self {
        let schema = dataset.schema();
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        let nullable = schema.fields().iter().map(|f| f.is_nullable()).collect();
        let key = dataset.row_key().iter().map(|k| names.iter().position(|n| n == k).unwrap_or_default()).collect();
        Columns { names, nullable, key }
    }

    fn list(&self, each: impl Fn(usize) -> String, of: &[usize]) -> String {
        of.iter().map(|&i| each(i)).collect::<Vec<_>>().join(", ")
    }

    /// `l` and `r`'s keys equal: nulls in a key are equal; `=` where a column has none (the
    /// faster join).
    fn joined(&self, l: &str, r: &str) -> String {
        let equal = |&i: &usize| match self.nullable[i] {
            true => format!("{l}{i} IS NOT DISTINCT FROM {r}{i}"),
            false => format!("{l}{i} = {r}{i}"),
        };
        self.key.iter().map(equal).collect::<Vec<_>>().join(" AND ")
    }
}

/// The statements that find the changes between tables `older` and `newer` (names of our own
/// attached schemas, never from a request) and write them as table `into`: where each changed
/// key's row is on each side (`a_r`, `b_r`: its ordinal in a scan of the side, which one thread
/// reads in storage order; `NULL` on the side without it) and the key, unordered. Run in order;
/// the second takes a partition number in [0, `partitions`) and runs once for each.
///
/// The join is narrow — each side's key and the 64-bit hash of its whole row the serving file
/// stores (`_row_hash`) — so a million rows a side stay a small hash table; rows whose hashes match
/// are unchanged (two different rows of one key sharing a hash: a chance of 2⁻⁶⁴). It runs a
/// partition of the keys (by their hash) at a time, so its hash table is a fraction of that: a
/// full outer join's table must stay in memory, and the diff's memory limit is small.
pub fn keys_sql(dataset: DatasetId, older: &str, newer: &str, into: &str, partitions: u64) -> [String; 2] {
    let c = Columns::of(dataset);
    let keys = |s: char| c.list(|i| format!("{} AS {s}{i}", c.names[i]), &c.key);
    let key_cols = c.list(|i| format!("coalesce(b{i}, a{i}) AS k{i}"), &c.key);
    let key_hash = |s: char| format!("hash({}) % {partitions} = $1", c.list(|i| format!("{s}{i}"), &c.key));
    [
        format!(
            "CREATE TABLE {into} AS SELECT NULL::BIGINT AS a_r, NULL::BIGINT AS b_r, {} FROM (SELECT {} FROM {newer}) LIMIT 0",
            c.list(|i| format!("b{i} AS k{i}"), &c.key),
            keys('b'),
        ),
        format!(
            "INSERT INTO {into}
             SELECT a_r, b_r, {key_cols}
             FROM (SELECT * FROM (SELECT row_number() OVER () - 1 AS a_r, {a_keys}, _row_hash AS a_h FROM {older})
                   WHERE {a_part})
             FULL OUTER JOIN (SELECT * FROM (SELECT row_number() OVER () - 1 AS b_r, {b_keys}, _row_hash AS b_h FROM {newer})
                              WHERE {b_part}) ON {on}
             WHERE a_h IS DISTINCT FROM b_h",
            a_keys = keys('a'),
            b_keys = keys('b'),
            a_part = key_hash('a'),
            b_part = key_hash('b'),
            on = c.joined("a", "b"),
        ),
    ]
}

/// Where each change's row is on each side ([`keys_sql`]'s table `keys`), in key order: the
/// change's number is its place in this order.
pub fn in_key_order_sql(dataset: DatasetId, keys: &str) -> String {
    let c = Columns::of(dataset);
    format!("SELECT a_r, b_r FROM {keys} ORDER BY {}", c.list(|i| format!("k{i}"), &c.key))
}

/// Rows of the larger version a partition of [`keys_sql`]'s join holds at most: its hash table
/// (a key, an ordinal and a hash a row) then fits the default 32 MB. A million rows a side are
/// joined in 4 partitions (8 took 0.8 s more: each reads both sides' keys again).
const ROWS_A_PARTITION: u64 = 262_144;

/// How many key partitions [`keys_sql`] joins, one at a time, for versions of `rows` rows.
fn key_partitions(rows: u64) -> u64 {
    rows.div_ceil(ROWS_A_PARTITION).max(1)
}

/// The bytes of rendered changes one diff may take at most (about 2.5 million changes of armed
/// events): the diff cache's disk and each computation's time stay bounded however far apart
/// the versions a caller names are.
pub const MAX_BYTES: u64 = 1 << 30;

/// The names of the columns whose values differ between two renderings of a row (JSON objects),
/// in schema order, as a JSON array.
fn changed_columns(names: &[String], before: &str, after: &str) -> Result<String, DiffError> {
    let object = |row: &str| {
        serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(row)
            .map_err(|e| DiffError::Db(std::io::Error::new(std::io::ErrorKind::InvalidData, e).into()))
    };
    let (a, b) = (object(before)?, object(after)?);
    let changed: Vec<&String> = names.iter().filter(|n| a.get(n.as_str()) != b.get(n.as_str())).collect();
    Ok(serde_json::to_string(&changed).unwrap_or_default())
}

/// Where a diff's work goes: the keys file, DuckDB's spill directory, one statement's lines and
/// each side's rows.
struct Scratch {
    keys: PathBuf,
    spill: PathBuf,
    lines: PathBuf,
    sides: [PathBuf; 2],
}

impl Scratch {
    fn beside(into: &Path) -> Self {
        Scratch {
            keys: into.with_extension("keys"),
            spill: into.with_extension("tmp"),
            lines: into.with_extension("slice"),
            sides: [into.with_extension("before"), into.with_extension("after")],
        }
    }

    fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.spill);
        let _ = std::fs::remove_file(&self.keys);
        let _ = std::fs::remove_file(&self.lines);
        let _ = std::fs::remove_file(self.keys.with_extension("keys.wal"));
        for side in &self.sides {
            let _ = std::fs::remove_file(side);
        }
    }
}

/// A transient instance for a diff's work: its memory `memory_limit`, one thread, spilling to
/// `scratch.spill`, the keys file attached as `k` and the two versions exposed; returns it and the
/// versions' tables. `running` interrupts its statements from now on.
fn instance(
    older: &DatasetDb,
    newer: &DatasetDb,
    scratch: &Scratch,
    memory_limit: &str,
    running: &Running,
) -> Result<(Connection, String, String), DiffError> {
    let path = |p: &Path| quoted(&p.to_string_lossy());
    let conn = open_duckdb()?;
    if !running.begin(&conn.interrupt_handle()) {
        return Err(DiffError::Cancelled);
    }
    conn.execute_batch(&format!(
        "SET memory_limit = {}; SET threads = 1; SET temp_directory = {}; SET max_temp_directory_size = {};
         SET preserve_insertion_order = true; ATTACH {} AS k;",
        quoted(memory_limit),
        path(&scratch.spill),
        quoted(sitrep_platform::snapshot::SPILL_LIMIT),
        path(&scratch.keys),
    ))?;
    let (a, b) = (older.expose_in(&conn, "a")?, newer.expose_in(&conn, "b")?);
    Ok((conn, a, b))
}

/// Computes the changes between two versions and writes them rendered as a diff file `into`
/// ([`DiffWriter`]), in a transient instance of its own (blocking): the joins and the sort take
/// at most `memory_limit` and spill to disk past it, away from the serving instance's memory; the
/// rendered changes may take at most `max_bytes`. Returns the totals. Stops (`Cancelled`) soon
/// after `running` is abandoned: the statement running is interrupted and no other starts.
///
/// Three steps: the changed keys and where their rows are, in key order ([`keys_sql`],
/// [`in_key_order_sql`]); one scan of each side, its changed rows rendered ([`RowRender`]) and
/// kept by change number ([`SideRows`]); then the lines, in key order a bucket of changes at a
/// time, each from its rows on the two sides. The only memory outside DuckDB's limit: 8 bytes a
/// change a side, and a bucket of rows a side.
pub fn materialise_file(
    older: &DatasetDb,
    newer: &DatasetDb,
    into: &Path,
    memory_limit: &str,
    max_bytes: u64,
    running: &Running,
) -> Result<Totals, DiffError> {
    let scratch = Scratch::beside(into);
    let dataset = older.dataset;
    let go_on = || if running.is_abandoned() { Err(DiffError::Cancelled) } else { Ok(()) };
    let written = (|| {
        let (conn, a, b) = instance(older, newer, &scratch, memory_limit, running)?;
        // The keys in a file of their own (deleted after): two million changed keys would
        // otherwise be an in-memory table of tens of megabytes, which DuckDB cannot spill.
        let partitions = key_partitions(older.freshness.rows.max(newer.freshness.rows));
        let [create, partition] = keys_sql(dataset, &a, &b, "k.changed_keys", partitions);
        conn.execute_batch(&create)?;
        let mut join = conn.prepare(&partition)?;
        // Progress: the keys' join a tenth of the work, the sides' rows 0.6, the lines the rest.
        for p in 0..partitions {
            go_on()?;
            join.execute(params![p])?;
            running.progress_to(0.1 * (p + 1) as f64 / partitions as f64);
        }
        std::mem::drop(join);
        let (totals, [wanted_a, wanted_b]) = wanted_rows(&conn, &in_key_order_sql(dataset, "k.changed_keys"))?;
        let changes = totals.all() as usize;
        let render = RowRender::of(dataset);
        let columns = Columns::of(dataset).names.join(", ");
        let side = |s: usize, table: &str, wanted: Wanted| -> Result<SideBuckets, DiffError> {
            let mut rows = SideRows::create(&scratch.sides[s], changes)?;
            let mut stmt = conn.prepare(&format!("SELECT {columns} FROM {table}"))?;
            let (mut at, mut next) = (0u32, wanted.into_iter().peekable());
            let (mut key, mut row) = (Vec::new(), Vec::new());
            each_chunk(&mut stmt, |chunk| {
                go_on()?;
                let (columns, end) = (chunk.columns(), at.saturating_add(chunk.len() as u32));
                while let Some((ordinal, rank)) = next.next_if(|&(ordinal, _)| ordinal < end) {
                    let i = (ordinal - at) as usize;
                    key.clear();
                    row.clear();
                    render
                        .key(columns, i, &mut key)
                        .and_then(|_| render.row(columns, i, &mut row))
                        .map_err(unrenderable)?;
                    rows.keep(rank as usize, &key, &row, max_bytes).map_err(side_error)?;
                }
                at = end;
                Ok(next.peek().is_some())
            })?;
            if next.peek().is_some() {
                return Err(side_error(SideRowsError::Malformed("a changed row past the side's end")));
            }
            running.progress_to(0.1 + 0.3 * (s + 1) as f64);
            Ok(rows.finish(&scratch.sides[s])?)
        };
        let (before, after) = (side(0, &a, wanted_a)?, side(1, &b, wanted_b)?);
        std::mem::drop(conn);
        let names = Columns::of(dataset).names;
        let mut file = DiffWriter::create(into)?;
        let mut line = String::new();
        for first in (0..changes).step_by(BUCKET) {
            go_on()?;
            running.progress_to(0.7 + 0.3 * first as f64 / changes as f64);
            let b = first / BUCKET;
            let (older, newer) = (before.bucket(b).map_err(side_error)?, after.bucket(b).map_err(side_error)?);
            for rank in first..(first + BUCKET).min(changes) {
                let (a, b) = (older.get(rank), newer.get(rank));
                let (change, key, columns) = match (a, b) {
                    (Some((key, _)), Some((other, _))) if key != other => {
                        return Err(side_error(SideRowsError::Malformed("a change's two sides of different keys")))
                    }
                    (Some((key, a)), Some((_, b))) => (ChangeKind::Changed, key, changed_columns(&names, a, b)?),
                    (None, Some((key, _))) => (ChangeKind::Added, key, "[]".into()),
                    (Some((key, _)), None) => (ChangeKind::Removed, key, "[]".into()),
                    (None, None) => return Err(side_error(SideRowsError::Malformed("a change on neither side"))),
                };
                line.clear();
                let _ = write!(
                    line,
                    "{{\"change\":\"{}\",\"key\":{key},\"changedColumns\":{columns},\"before\":{},\"after\":{}}}",
                    change.as_str(),
                    a.map_or("null", |r| r.1),
                    b.map_or("null", |r| r.1),
                );
                if file.bytes() + line.len() as u64 + 1 > max_bytes {
                    return Err(DiffError::TooLarge { limit: max_bytes });
                }
                file.push(&line)?;
            }
        }
        file.finish()?;
        Ok(totals)
    })();
    running.end();
    scratch.remove();
    if written.is_err() {
        DiffWriter::discard(into);
    }
    // An interrupted statement's error, or one that failed as its caller left: the work stopped
    // because no one waits for it.
    written.map_err(|e| if running.is_abandoned() { DiffError::Cancelled } else { e })
}

/// A side's changed rows: (ordinal in a scan of the side, change number), by ordinal.
type Wanted = Vec<(u32, u32)>;

/// The totals, and each side's changed rows as (ordinal, change number) pairs in the order of a
/// scan of the side (the ordinals [`keys_sql`] writes; 8 bytes a change a side), from the changes
/// in key order ([`in_key_order_sql`]): a change on one side only is added or removed, on both
/// changed.
fn wanted_rows(conn: &Connection, in_key_order: &str) -> Result<(Totals, [Wanted; 2]), DiffError> {
    let (mut totals, mut wanted) = (Totals::default(), [Vec::new(), Vec::new()]);
    let mut stmt = conn.prepare(in_key_order)?;
    let mut rank = 0u32;
    each_chunk(&mut stmt, |chunk| {
        let ordinals = [chunk.column(0).as_primitive::<Int64Type>(), chunk.column(1).as_primitive::<Int64Type>()];
        for i in 0..chunk.len() {
            for (side, ordinal) in ordinals.iter().enumerate() {
                if ordinal.is_valid(i) {
                    let ordinal =
                        u32::try_from(ordinal.value(i)).map_err(|_| DiffError::TooLarge { limit: MAX_BYTES })?;
                    wanted[side].push((ordinal, rank));
                }
            }
            match (ordinals[0].is_valid(i), ordinals[1].is_valid(i)) {
                (true, true) => totals.changed += 1,
                (false, true) => totals.added += 1,
                _ => totals.removed += 1,
            }
            rank = rank.checked_add(1).ok_or(DiffError::TooLarge { limit: MAX_BYTES })?;
        }
        Ok(true)
    })?;
    for side in &mut wanted {
        side.sort_unstable();
    }
    Ok((totals, wanted))
}

/// Streams the rows of `stmt` (no parameters) a chunk at a time to `each` while it answers true;
/// unlike `duckdb`'s Arrow iterator, a chunk DuckDB fails to give (an interrupted statement) is
/// an error, not a panic.
fn each_chunk(
    stmt: &mut Statement<'_>,
    mut each: impl FnMut(&StructArray) -> Result<bool, DiffError>,
) -> Result<(), DiffError> {
    // Starts the streaming result; its chunks are fetched one by one below.
    std::mem::drop(stmt.stream_arrow([])?);
    while let Some(chunk) = stmt.step()? {
        if !each(&chunk)? {
            break;
        }
    }
    Ok(())
}

fn unrenderable(e: super::row_render::Unrenderable) -> DiffError {
    DiffError::Db(std::io::Error::new(std::io::ErrorKind::InvalidData, e).into())
}

fn side_error(e: SideRowsError) -> DiffError {
    match e {
        SideRowsError::TooLarge { limit } => DiffError::TooLarge { limit },
        SideRowsError::Io(e) => e.into(),
        malformed => DiffError::Db(std::io::Error::new(std::io::ErrorKind::InvalidData, malformed).into()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::datatypes::DataType;
    use chrono::DateTime;
    use sitrep_platform::snapshot::{BuildOptions, Engine, VersionSpec};
    use sitrep_schemas::Freshness;

    use super::*;
    use crate::history::{diff_file::read_page, model::RowChange};

    /// Row `i` of a synthetic version, every column from `i`: ids `e000123`, and in `bumped` rows
    /// every integer one more (a changed row).
    fn synthetic_row(dataset: DatasetId, bumped: &str) -> String {
        let schema = dataset.schema();
        let column = |f: &arrow::datatypes::Field| {
            let v = match f.data_type() {
                DataType::Utf8 if f.name() == "id" => "'e' || lpad(i::VARCHAR, 7, '0')".to_string(),
                DataType::Utf8 => format!("'{}-' || (i % 7)", f.name()),
                DataType::Int32 => format!("(i % 50 + CASE WHEN {bumped} THEN 1 ELSE 0 END)::INTEGER"),
                DataType::Int64 => format!("(i + CASE WHEN {bumped} THEN 1 ELSE 0 END)::BIGINT"),
                DataType::Float64 => "(i * 0.5)::DOUBLE".into(),
                DataType::Boolean => "i % 2 = 0".into(),
                DataType::Timestamp(..) => "to_timestamp(1700000000 + i)".into(),
                DataType::Date32 => "DATE '2026-01-01' + (i % 30)::INTEGER".into(),
                DataType::List(_) => "['a', i::VARCHAR]".into(),
                other => unreachable!("a synthetic {other:?}"),
            };
            format!("{v} AS {}", f.name())
        };
        schema.fields().iter().map(|f| column(f)).collect::<Vec<_>>().join(", ")
    }

    /// A version of armed events over the rows `i` of `range` (SQL) that `keep` holds.
    fn version(engine: &Arc<Engine>, dir: &Path, version: u64, range: &str, keep: &str, bumped: &str) -> DatasetDb {
        let dataset = DatasetId::ARMED_EVENTS;
        let file = dir.join(format!("v{version}.parquet"));
        let conn = open_duckdb().unwrap();
        let rows = synthetic_row(dataset, bumped);
        let copy =
            format!("COPY (SELECT {rows} FROM {range} t(i) WHERE {keep}) TO '{}' (FORMAT parquet)", file.display());
        conn.execute_batch(&copy).unwrap();
        let rows =
            conn.query_row(&format!("SELECT count(*) FROM {range} t(i) WHERE {keep}"), [], |r| r.get(0)).unwrap();
        let freshness = Freshness { rows, ..Freshness::never(None) };
        let spec = VersionSpec { dataset, version, published_at: DateTime::UNIX_EPOCH, freshness, files: vec![file] };
        let opts = BuildOptions { db_dir: &dir.join("db"), memory_limit: "1GB", threads: 1 };
        DatasetDb::load(engine, spec, &opts).unwrap()
    }

    /// Two versions over a fresh engine: the older of `range(older)`, the newer of the rows `i`
    /// of `range(newer)` that `keep` holds, `bumped` ones changed.
    fn pair(dir: &Path, older: u32, newer: u32, keep: &str, bumped: &str) -> (DatasetDb, DatasetDb) {
        let engine = Arc::new(Engine::open(dir, "64MB", 2).unwrap());
        (
            version(&engine, dir, 1, &format!("range({older})"), "true", "false"),
            version(&engine, dir, 2, &format!("range({newer})"), keep, bumped),
        )
    }

    /// The changes of a diff file's lines, and whether their keys ascend (each key once).
    fn changes_of(lines: &[String]) -> (Vec<RowChange>, bool) {
        let changes: Vec<RowChange> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        let keys: Vec<&str> = changes.iter().map(|c| c.key["id"].as_str().unwrap()).collect();
        let ascending = keys.windows(2).all(|w| w[0] < w[1]);
        (changes, ascending)
    }

    /// Every row changed (both sides of each change rendered) within 32 MB, and every change is
    /// written once, in key order.
    #[test]
    fn every_row_changed_is_written_once_in_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let (older, newer) = pair(dir.path(), 20_000, 20_000, "true", "true");
        let into = dir.path().join("diff.changes");
        let totals = materialise_file(&older, &newer, &into, "32MB", MAX_BYTES, &Running::default()).unwrap();
        assert_eq!(totals, Totals { added: 0, removed: 0, changed: 20_000 });
        let (changes, ascending) = changes_of(&read_page(&into, 20_000, 0, u64::MAX).unwrap());
        assert_eq!(changes.len(), 20_000);
        assert!(ascending, "each once, in key order");
    }

    /// Each kind of change as the versions differ, each once, in key order, a changed row with
    /// the columns that differ and both its renderings.
    #[test]
    fn a_diff_holds_each_change_once_in_key_order_with_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        // 300 rows; then every tenth removed, the ones after them changed, 27 added.
        let (older, newer) = pair(dir.path(), 300, 330, "i % 10 <> 0", "i % 10 = 1");
        let into = dir.path().join("diff.changes");
        let totals = materialise_file(&older, &newer, &into, "32MB", MAX_BYTES, &Running::default()).unwrap();
        assert_eq!(totals, Totals { added: 27, removed: 30, changed: 30 });
        let lines = read_page(&into, totals.all() as u64, 0, u64::MAX).unwrap();
        assert_eq!(lines.len(), 87);
        let (changes, ascending) = changes_of(&lines);
        assert!(ascending, "in key order");
        let changed = changes.iter().find(|c| c.change == ChangeKind::Changed).unwrap();
        assert_eq!(changed.changed_columns, ["fatalities"]);
        assert_eq!(
            changed.before.as_ref().unwrap()["fatalities"].as_i64().unwrap() + 1,
            changed.after.as_ref().unwrap()["fatalities"].as_i64().unwrap()
        );
        let removed = changes.iter().find(|c| c.change == ChangeKind::Removed).unwrap();
        assert!(removed.after.is_none() && removed.before.as_ref().unwrap()["actors"].is_array());
        assert_no_scratch(dir.path());
    }

    /// No keys, slice, spill or unfinished diff file left in `dir`.
    fn assert_no_scratch(dir: &Path) {
        let names: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        let scratch = [".keys", ".slice", ".tmp", ".building", ".indexing"];
        assert!(!names.iter().any(|n| scratch.iter().any(|s| n.contains(s))), "{names:?}");
    }

    /// A diff whose rendered changes pass the bytes a diff may take stops there: an error that
    /// says so, and no file, whole or half.
    #[test]
    fn a_diff_past_its_bytes_stops_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (older, newer) = pair(dir.path(), 300, 330, "i % 10 <> 0", "i % 10 = 1");
        let into = dir.path().join("large.changes");
        let refused = materialise_file(&older, &newer, &into, "32MB", 10_000, &Running::default());
        assert!(matches!(refused, Err(DiffError::TooLarge { limit: 10_000 })), "{refused:?}");
        assert!(!into.exists());
        assert_no_scratch(dir.path());
        assert_eq!(materialise_file(&older, &newer, &into, "32MB", 1 << 20, &Running::default()).unwrap().all(), 87);
    }

    /// Abandoned before or while it runs (mid-way through rendering), a computation stops with `Cancelled` and leaves nothing.
    #[test]
    fn an_abandoned_diff_stops_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (older, newer) = pair(dir.path(), 20_000, 20_000, "true", "true");
        let into = dir.path().join("abandoned.changes");
        let before = Running::default();
        before.abandon();
        let stopped = materialise_file(&older, &newer, &into, "32MB", MAX_BYTES, &before);
        assert!(matches!(stopped, Err(DiffError::Cancelled)), "{stopped:?}");
        let running = std::sync::Arc::new(Running::default());
        let leaves = {
            let running = running.clone();
            // Mid-way: once the keys are joined, while the sides' rows are rendered.
            std::thread::spawn(move || {
                let waiting = std::time::Instant::now();
                while running.progress() < 0.15 && waiting.elapsed() < std::time::Duration::from_secs(30) {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                running.abandon();
            })
        };
        let started = std::time::Instant::now();
        let stopped = materialise_file(&older, &newer, &into, "32MB", MAX_BYTES, &running);
        leaves.join().unwrap();
        assert!(matches!(stopped, Err(DiffError::Cancelled)), "{stopped:?} after {:?}", started.elapsed());
        assert!(!into.exists());
        assert_no_scratch(dir.path());
    }
}
