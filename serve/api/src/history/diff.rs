//! The changes between two versions of a dataset, computed in DuckDB: a full outer join of the two
//! serving tables on the dataset's declared row key. A row only in the newer version is added, only
//! in the older removed, in both with any column distinct changed. The join is computed once per
//! version pair and its changes rendered to JSON, in key order, into a file of their own
//! (`diff_file.rs`; `diff_cache.rs` keeps it), so a cursor's offset names the same rows on every
//! replica and a page reads only its own lines.

use std::path::{Path, PathBuf};

use duckdb::{params, Connection};
use sitrep_platform::snapshot::{open_duckdb, DatasetDb, DbError, Running, TimeSpent};
use sitrep_schemas::DatasetId;

use super::diff_file::DiffWriter;

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

/// A row of one side as a JSON object (`NULL` where the row is absent). List columns are stored as
/// JSON text, so they go in as JSON, not as a string.
fn row_json(dataset: DatasetId, side: char) -> String {
    let fields = dataset.schema();
    let members: Vec<String> = fields
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let value = match f.data_type() {
                arrow::datatypes::DataType::List(_) => format!("json({side}{i})"),
                _ => format!("{side}{i}"),
            };
            format!("{}, {value}", quoted(f.name()))
        })
        .collect();
    format!("CASE WHEN {side}_in THEN json_object({}) END", members.join(", "))
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

    fn all(&self) -> Vec<usize> {
        (0..self.names.len()).collect()
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
/// attached schemas, never from a request) and write them as table `into`: each changed key and
/// what happened to it, in key order (so a row's `rowid` is its number in that order). Run in
/// order; the second takes a partition number in [0, [`KEY_PARTITIONS`]) and runs once for each.
///
/// The join is narrow — each side's key and the 64-bit hash of its whole row the serving file
/// stores (`_row_hash`) — so a million rows a side stay a small hash table; rows whose hashes match
/// are unchanged (two different rows of one key sharing a hash: a chance of 2⁻⁶⁴). It runs a
/// partition of the keys (by their hash) at a time, so its hash table is a fraction of that: a
/// full outer join's table must stay in memory, and the diff's memory limit is small.
pub fn keys_sql(dataset: DatasetId, older: &str, newer: &str, into: &str) -> [String; 4] {
    let c = Columns::of(dataset);
    let keys = |s: char| c.list(|i| format!("{} AS {s}{i}", c.names[i]), &c.key);
    let key_cols = c.list(|i| format!("coalesce(b{i}, a{i}) AS k{i}"), &c.key);
    let key_hash = |s: char| format!("hash({}) % {KEY_PARTITIONS} = $1", c.list(|i| format!("{s}{i}"), &c.key));
    let unordered = format!("{into}_unordered");
    [
        format!(
            "CREATE TABLE {unordered} AS SELECT NULL::VARCHAR AS change_kind, {} FROM (SELECT {} FROM {newer}) LIMIT 0",
            c.list(|i| format!("b{i} AS k{i}"), &c.key),
            keys('b'),
        ),
        format!(
            "INSERT INTO {unordered}
             SELECT CASE WHEN a_h IS NULL THEN 'added' WHEN b_h IS NULL THEN 'removed' ELSE 'changed' END AS change_kind,
                    {key_cols}
             FROM (SELECT * FROM (SELECT {a_keys}, _row_hash AS a_h FROM {older}) WHERE {a_part})
             FULL OUTER JOIN (SELECT * FROM (SELECT {b_keys}, _row_hash AS b_h FROM {newer}) WHERE {b_part}) ON {on}
             WHERE a_h IS DISTINCT FROM b_h",
            a_keys = keys('a'),
            b_keys = keys('b'),
            a_part = key_hash('a'),
            b_part = key_hash('b'),
            on = c.joined("a", "b"),
        ),
        format!("CREATE TABLE {into} AS SELECT * FROM {unordered} ORDER BY {}", c.list(|i| format!("k{i}"), &c.key)),
        format!("DROP TABLE {unordered}"),
    ]
}

/// Key partitions [`keys_sql`] joins one at a time.
pub const KEY_PARTITIONS: u64 = 8;

/// The statements that render the changes numbered `rn` in [?, ?) of `keys` ([`keys_sql`]): their
/// rows read whole from `older`, then from `newer`, each into a temporary table, then compared
/// column by column and written to the file `lines` (a path of ours, never from a request), one
/// JSON line per change (a `RowChange`), in key order. Written by DuckDB as it goes: a result
/// fetched whole took more than the diff's memory limit. One join each: a hash join holds a block per
/// partition for its rows, so two joins of whole rows at once took more memory than the diff's
/// limit, however few rows a slice has. Each side's scan reads only the slice's range of the first
/// key column (when it has no nulls): the variables `slice_lo` and `slice_hi` ([`slice_range_sql`]),
/// constants DuckDB prunes row groups with.
pub fn render_sql(dataset: DatasetId, keys: &str, older: &str, newer: &str, lines: &Path) -> [String; 3] {
    let c = Columns::of(dataset);
    let whole = |s: char| c.list(|i| format!("{} AS {s}{i}", c.names[i]), &c.all());
    let of_slice = match c.key.first().filter(|&&i| !c.nullable[i]) {
        Some(&i) => format!("WHERE {} BETWEEN getvariable('slice_lo') AND getvariable('slice_hi')", c.names[i]),
        None => String::new(),
    };
    let slice = format!("(SELECT rowid AS rn, * FROM {keys} WHERE rowid >= $1 AND rowid < $2)");
    let changed =
        c.list(|i| format!("CASE WHEN a{i} IS DISTINCT FROM b{i} THEN {} END", quoted(&c.names[i])), &c.all());
    let key_json = c.list(|i| format!("{}, k{i}", quoted(&c.names[i])), &c.key);
    [
        format!(
            "CREATE OR REPLACE TEMP TABLE slice_before AS
             SELECT slice.*, a_in, {a_cols} FROM {slice} slice
             LEFT JOIN (SELECT true AS a_in, {a_whole} FROM {older} {of_slice}) ON {on_a}",
            a_cols = c.list(|i| format!("a{i}"), &c.all()),
            a_whole = whole('a'),
            on_a = c.joined("k", "a"),
        ),
        format!(
            "CREATE OR REPLACE TEMP TABLE slice_after AS
             SELECT slice.rn, true AS b_in, {b_cols} FROM {slice} slice
             JOIN (SELECT {b_whole} FROM {newer} {of_slice}) ON {on_b}",
            b_cols = c.list(|i| format!("b{i}"), &c.all()),
            b_whole = whole('b'),
            on_b = c.joined("k", "b"),
        ),
        format!(
            "COPY (SELECT change_kind AS change,
                          json_object({key_json}) AS key,
                          CASE WHEN change_kind = 'changed'
                               THEN to_json(list_filter([{changed}], x -> x IS NOT NULL)) ELSE '[]'::JSON END
                              AS \"changedColumns\",
                          {before} AS before,
                          {after} AS after
                   FROM slice_before LEFT JOIN slice_after USING (rn)
                   ORDER BY rn)
             TO {lines} (FORMAT json)",
            before = row_json(dataset, 'a'),
            after = row_json(dataset, 'b'),
            lines = quoted(&lines.to_string_lossy()),
        ),
    ]
}

/// Sets `slice_lo` and `slice_hi` ([`render_sql`]) to the first key column's least and greatest
/// value among the changes numbered [`first`, `end`) of `keys`.
pub fn slice_range_sql(dataset: DatasetId, keys: &str, first: i64, end: i64) -> String {
    let c = Columns::of(dataset);
    let k = c.key.first().map_or(0, |&i| i);
    let of = format!("FROM {keys} WHERE rowid >= {first} AND rowid < {end}");
    format!("SET VARIABLE slice_lo = (SELECT min(k{k}) {of}); SET VARIABLE slice_hi = (SELECT max(k{k}) {of});")
}

/// How many of a diff's changes are of each kind.
pub fn totals_sql(diff: &str) -> String {
    format!(
        "SELECT count(*) FILTER (WHERE change_kind = 'added'), count(*) FILTER (WHERE change_kind = 'removed'),
                count(*) FILTER (WHERE change_kind = 'changed')
         FROM {diff}"
    )
}

/// How a diff's rendering is cut (changes a statement renders, statements an instance runs) and
/// how large its file may grow.
#[derive(Debug, Clone, Copy)]
pub struct Slicing {
    pub changes: i64,
    pub per_instance: usize,
    pub max_bytes: u64,
}

impl Default for Slicing {
    fn default() -> Self {
        Slicing { changes: SLICE, per_instance: SLICES_AN_INSTANCE, max_bytes: MAX_BYTES }
    }
}

/// The bytes of rendered changes one diff may take at most (about 2.5 million changes of armed
/// events): the diff cache's disk and each computation's time stay bounded however far apart
/// the versions a caller names are.
pub const MAX_BYTES: u64 = 1 << 30;

/// Changes rendered by one statement, at first. The rows of a slice's key range lie all over the
/// serving files (sorted for the list operations, not by key), so every slice reads most of both
/// versions' row groups: the number of slices is the rendering's cost. 5,000 renders a 2M-change
/// diff of armed events (added and removed rows) in about 16 s within the default 32 MB; 1,000
/// took 40 s. Rows changed on both sides take twice the memory: a slice that does not fit is
/// rendered again in halves ([`MIN_SLICE`]).
const SLICE: i64 = 5_000;

/// The least a slice is halved to when it does not fit the diff's memory limit.
const MIN_SLICE: i64 = 50;

/// Whether DuckDB refused a statement for want of memory (its message's error class).
fn out_of_memory(e: &duckdb::Error) -> bool {
    matches!(e, duckdb::Error::DuckDBFailure(_, Some(message)) if message.starts_with("Out of Memory Error"))
}

/// Slices rendered by one instance (100,000 changes): DuckDB keeps a few kilobytes outside its
/// memory limit for every join it has run, until its instance closes (in one instance, the 7,800
/// statements of a 2M-change diff rendered 1,000 changes a slice held 28 MB more at the end), so
/// the rendering moves to a fresh instance (about 10 ms to open) every so often.
const SLICES_AN_INSTANCE: usize = 20;

/// Where a diff's work goes: the keys file, DuckDB's spill directory and one slice's lines.
struct Scratch {
    keys: PathBuf,
    spill: PathBuf,
    lines: PathBuf,
}

impl Scratch {
    fn beside(into: &Path) -> Self {
        Scratch {
            keys: into.with_extension("keys"),
            spill: into.with_extension("tmp"),
            lines: into.with_extension("slice"),
        }
    }

    fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.spill);
        let _ = std::fs::remove_file(&self.keys);
        let _ = std::fs::remove_file(&self.lines);
        let _ = std::fs::remove_file(self.keys.with_extension("keys.wal"));
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
/// ([`DiffWriter`]), in transient instances of its own (blocking): the join and the sort take at
/// most `memory_limit` and spill to disk past it, away from the serving instance's memory.
/// Returns the totals. Stops (`Cancelled`) soon after `running` is abandoned: the statement
/// running is interrupted and no other starts.
pub fn materialise_file(
    older: &DatasetDb,
    newer: &DatasetDb,
    into: &Path,
    memory_limit: &str,
    slicing: Slicing,
    running: &Running,
) -> Result<Totals, DiffError> {
    let scratch = Scratch::beside(into);
    let dataset = older.dataset;
    let go_on = || if running.is_abandoned() { Err(DiffError::Cancelled) } else { Ok(()) };
    let written = (|| {
        let (conn, a, b) = instance(older, newer, &scratch, memory_limit, running)?;
        // The keys in a file of their own (deleted after): two million changed keys would
        // otherwise be an in-memory table of tens of megabytes, which DuckDB cannot spill.
        let [create, partition, order, drop_unordered] = keys_sql(dataset, &a, &b, "k.changed_keys");
        conn.execute_batch(&create)?;
        let mut join = conn.prepare(&partition)?;
        // Progress: the keys' join a tenth of the work, the rendering the rest (by changes).
        for p in 0..KEY_PARTITIONS {
            go_on()?;
            join.execute(params![p])?;
            running.progress_to(0.1 * (p + 1) as f64 / KEY_PARTITIONS as f64);
        }
        std::mem::drop(join);
        conn.execute_batch(&order)?;
        conn.execute_batch(&drop_unordered)?;
        let totals = conn.query_row(&totals_sql("k.changed_keys"), [], |r| {
            Ok(Totals { added: r.get(0)?, removed: r.get(1)?, changed: r.get(2)? })
        })?;
        std::mem::drop(conn);
        let mut file = DiffWriter::create(into)?;
        let [before, after, compare] = render_sql(dataset, "k.changed_keys", &a, &b, &scratch.lines);
        let render = |conn: &Connection, first: i64, end: i64| -> Result<(), duckdb::Error> {
            conn.execute_batch(&slice_range_sql(dataset, "k.changed_keys", first, end))?;
            conn.execute(&before, params![first, end])?;
            conn.execute(&after, params![first, end])?;
            conn.execute_batch(&compare)
        };
        let (mut first, mut step) = (0, slicing.changes.max(1));
        // The instance rendering now, and the slices it has rendered.
        let mut current: Option<(Connection, usize)> = None;
        while first < totals.all() {
            go_on()?;
            let (conn, rendered) = match current.take() {
                Some(c) if c.1 < slicing.per_instance.max(1) => c,
                _ => (instance(older, newer, &scratch, memory_limit, running)?.0, 0),
            };
            match render(&conn, first, first + step) {
                Ok(()) => {
                    let slice_bytes = std::fs::metadata(&scratch.lines)?.len();
                    if file.bytes() + slice_bytes > slicing.max_bytes {
                        return Err(DiffError::TooLarge { limit: slicing.max_bytes });
                    }
                    file.push_lines(std::io::BufReader::new(std::fs::File::open(&scratch.lines)?))?;
                    first += step;
                    running.progress_to(0.1 + 0.9 * first as f64 / totals.all() as f64);
                    current = Some((conn, rendered + 1));
                }
                // Rows wider than the default's (or changed on both sides, twice as wide): the
                // slice again in halves, in a fresh instance, down to a few rows.
                Err(e) if out_of_memory(&e) && step > MIN_SLICE => step = (step / 2).max(MIN_SLICE),
                Err(e) => return Err(e.into()),
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
                DataType::Utf8 if f.name() == "id" => "'e' || lpad(i::VARCHAR, 6, '0')".to_string(),
                DataType::Utf8 => format!("'{}-' || (i % 7)", f.name()),
                DataType::Int32 => format!("(i % 50 + CASE WHEN {bumped} THEN 1 ELSE 0 END)::INTEGER"),
                DataType::Int64 => format!("(i + CASE WHEN {bumped} THEN 1 ELSE 0 END)::BIGINT"),
                DataType::Float64 => "i * 0.5".into(),
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
        let opts = BuildOptions { db_dir: &dir.join("db"), memory_limit: "64MB", threads: 1 };
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

    /// Every row changed (both sides of each change rendered): 5,000 a slice does not fit 32 MB,
    /// so slices are halved until they do, and every change is written once, in key order.
    #[test]
    fn a_slice_too_large_for_the_memory_limit_is_rendered_in_halves() {
        let dir = tempfile::tempdir().unwrap();
        let (older, newer) = pair(dir.path(), 20_000, 20_000, "true", "true");
        let into = dir.path().join("diff.changes");
        let totals = materialise_file(&older, &newer, &into, "32MB", Slicing::default(), &Running::default()).unwrap();
        assert_eq!(totals, Totals { added: 0, removed: 0, changed: 20_000 });
        let (changes, ascending) = changes_of(&read_page(&into, 20_000, 0, u64::MAX).unwrap());
        assert_eq!(changes.len(), 20_000);
        assert!(ascending, "each once, in key order");
    }

    /// The same changes whatever the slicing: cut into slices of 7 changes, 2 slices an instance
    /// (13 slices over 7 instances), the file holds line for line what one slice writes, in key
    /// order, each kind as the versions differ.
    #[test]
    fn a_diff_rendered_in_slices_and_instances_is_the_diff_rendered_whole() {
        let dir = tempfile::tempdir().unwrap();
        // 300 rows; then every tenth removed, the ones after them changed, 27 added.
        let (older, newer) = pair(dir.path(), 300, 330, "i % 10 <> 0", "i % 10 = 1");
        let rendered = |name: &str, slicing: Slicing| {
            let into = dir.path().join(name);
            let totals = materialise_file(&older, &newer, &into, "32MB", slicing, &Running::default()).unwrap();
            (totals, read_page(&into, totals.all() as u64, 0, u64::MAX).unwrap())
        };
        let (totals, whole) =
            rendered("whole.changes", Slicing { changes: 1_000, per_instance: 1, ..Slicing::default() });
        assert_eq!(totals, Totals { added: 27, removed: 30, changed: 30 });
        let (sliced_totals, sliced) =
            rendered("sliced.changes", Slicing { changes: 7, per_instance: 2, ..Slicing::default() });
        assert_eq!((sliced_totals, sliced.len()), (totals, 87));
        assert_eq!(sliced, whole);
        let (changes, ascending) = changes_of(&sliced);
        assert!(ascending, "in key order");
        let changed = changes.iter().find(|c| c.change == "changed").unwrap();
        assert_eq!(changed.changed_columns, ["fatalities"]);
        assert_eq!(
            changed.before.as_ref().unwrap()["fatalities"].as_i64().unwrap() + 1,
            changed.after.as_ref().unwrap()["fatalities"].as_i64().unwrap()
        );
        let removed = changes.iter().find(|c| c.change == "removed").unwrap();
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
        let slicing = Slicing { changes: 20, max_bytes: 10_000, ..Slicing::default() };
        let refused = materialise_file(&older, &newer, &into, "32MB", slicing, &Running::default());
        assert!(matches!(refused, Err(DiffError::TooLarge { limit: 10_000 })), "{refused:?}");
        assert!(!into.exists());
        assert_no_scratch(dir.path());
        let fits = Slicing { max_bytes: 1 << 20, ..slicing };
        assert_eq!(materialise_file(&older, &newer, &into, "32MB", fits, &Running::default()).unwrap().all(), 87);
    }

    /// Abandoned before or while it runs, a computation stops with `Cancelled` and leaves nothing.
    #[test]
    fn an_abandoned_diff_stops_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (older, newer) = pair(dir.path(), 20_000, 20_000, "true", "true");
        let into = dir.path().join("abandoned.changes");
        let before = Running::default();
        before.abandon();
        let stopped = materialise_file(&older, &newer, &into, "32MB", Slicing::default(), &before);
        assert!(matches!(stopped, Err(DiffError::Cancelled)), "{stopped:?}");
        let running = std::sync::Arc::new(Running::default());
        let leaves = {
            let running = running.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(300));
                running.abandon();
            })
        };
        let slicing = Slicing { changes: 100, ..Slicing::default() };
        let started = std::time::Instant::now();
        let stopped = materialise_file(&older, &newer, &into, "32MB", slicing, &running);
        leaves.join().unwrap();
        assert!(matches!(stopped, Err(DiffError::Cancelled)), "{stopped:?} after {:?}", started.elapsed());
        assert!(!into.exists());
        assert_no_scratch(dir.path());
    }
}
