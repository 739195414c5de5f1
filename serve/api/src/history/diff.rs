//! The changes between two versions of a dataset, computed in DuckDB: a full outer join of the two
//! serving tables on the dataset's declared row key. A row only in the newer version is added, only
//! in the older removed, in both with any column distinct changed. The join is materialised once
//! per version pair (keys and kinds, in key order, in a file of its own: `diff_cache.rs` keeps it),
//! so a cursor's offset names the same rows on every replica and a page reads only its own rows
//! whole, rendered to JSON.

use std::path::Path;

use duckdb::{params, Connection};
use sitrep_platform::snapshot::{open_duckdb, DatasetDb, DbError};
use sitrep_schemas::DatasetId;

/// One changed row: what happened, its key, the columns that differ (changed rows), and the row
/// before and after as JSON objects (the serving forms: instants in epoch ms, dates as text).
pub struct ChangedRow {
    pub change: String,
    pub key: String,
    pub changed_columns: String,
    pub before: Option<String>,
    pub after: Option<String>,
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
    format!("CASE WHEN {side}_in THEN CAST(json_object({}) AS VARCHAR) END", members.join(", "))
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

/// The rendered table a diff is paged from: per change its number in key order (`rn`, from 0: a
/// page is a range of it, which prunes row groups), what happened, the key, the changed columns,
/// and the rows before and after, as JSON.
pub const RENDERED_TABLE: &str = "(rn BIGINT, change_kind VARCHAR, key_json VARCHAR, changed_columns VARCHAR,
     before_json VARCHAR, after_json VARCHAR)";

/// The statements that render the changes numbered `rn` in [?, ?) of `keys` ([`keys_sql`]) into
/// `into` ([`RENDERED_TABLE`]): their rows read whole from `older`, then from `newer`, each into a
/// temporary table, then compared column by column. One join each: a hash join holds a block per
/// partition for its rows, so two joins of whole rows at once took more memory than the diff's
/// limit, however few rows a slice has. Each side's scan reads only the slice's range of the first
/// key column (when it has no nulls): the variables `slice_lo` and `slice_hi` ([`slice_range_sql`]),
/// constants DuckDB prunes row groups with.
pub fn render_sql(dataset: DatasetId, keys: &str, older: &str, newer: &str, into: &str) -> [String; 3] {
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
            "INSERT INTO {into}
             SELECT rn, change_kind,
                    CAST(json_object({key_json}) AS VARCHAR),
                    CASE WHEN change_kind = 'changed'
                         THEN CAST(to_json(list_filter([{changed}], x -> x IS NOT NULL)) AS VARCHAR) ELSE '[]' END,
                    {before}, {after}
             FROM slice_before LEFT JOIN slice_after USING (rn)
             ORDER BY rn",
            before = row_json(dataset, 'a'),
            after = row_json(dataset, 'b'),
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

/// Changes rendered by one statement.
const SLICE: i64 = 2_500;

/// The statement of a page of a materialised diff (parameters: the first `rn`, the end).
pub fn page_sql(diff: &str) -> String {
    format!(
        "SELECT change_kind, key_json, changed_columns, before_json, after_json
         FROM {diff} WHERE rn >= ? AND rn < ? ORDER BY rn"
    )
}

/// Rows per row group of a diff file: a page reads the row groups its `rn` range falls in, so
/// small ones (the serving files' size) keep a page's read to its own rows' neighbourhood.
const DIFF_ROW_GROUP: usize = 8192;

/// Materialises the changes between two versions as table `changes` of a new DuckDB file `into`,
/// in a transient instance of its own (blocking): the join and the sort take at most
/// `memory_limit` and spill to disk past it, away from the serving instance's memory. The file is
/// written under a temporary name and renamed when complete. Returns the totals.
pub fn materialise_file(
    older: &DatasetDb,
    newer: &DatasetDb,
    into: &Path,
    memory_limit: &str,
) -> Result<Totals, DbError> {
    let (building, spill, keys) =
        (into.with_extension("building"), into.with_extension("tmp"), into.with_extension("keys"));
    let path = |p: &Path| quoted(&p.to_string_lossy());
    let written = (|| {
        let conn = open_duckdb()?;
        conn.execute_batch(&format!(
            "SET memory_limit = {}; SET threads = 1; SET temp_directory = {}; SET preserve_insertion_order = true;
             ATTACH {} AS d (ROW_GROUP_SIZE {DIFF_ROW_GROUP}); ATTACH {} AS k;",
            quoted(memory_limit),
            path(&spill),
            path(&building),
            path(&keys),
        ))?;
        let (a, b) = (older.expose_in(&conn, "a")?, newer.expose_in(&conn, "b")?);
        let dataset = older.dataset;
        // The keys in a file of their own (deleted after): two million changed keys would
        // otherwise be an in-memory table of tens of megabytes, which DuckDB cannot spill.
        let [create, partition, order, drop_unordered] = keys_sql(dataset, &a, &b, "k.changed_keys");
        conn.execute_batch(&create)?;
        let mut join = conn.prepare(&partition)?;
        for p in 0..KEY_PARTITIONS {
            join.execute(params![p])?;
        }
        std::mem::drop(join);
        conn.execute_batch(&order)?;
        conn.execute_batch(&drop_unordered)?;
        let totals = conn.query_row(&totals_sql("k.changed_keys"), [], |r| {
            Ok(Totals { added: r.get(0)?, removed: r.get(1)?, changed: r.get(2)? })
        })?;
        conn.execute_batch(&format!("CREATE TABLE d.changes {RENDERED_TABLE}"))?;
        let [before, after, compare] = render_sql(dataset, "k.changed_keys", &a, &b, "d.changes");
        for first in (0..totals.all()).step_by(SLICE as usize) {
            conn.execute_batch(&slice_range_sql(dataset, "k.changed_keys", first, first + SLICE))?;
            conn.execute(&before, params![first, first + SLICE])?;
            conn.execute(&after, params![first, first + SLICE])?;
            conn.execute_batch(&compare)?;
        }
        conn.execute_batch("DROP TABLE IF EXISTS slice_before; DROP TABLE IF EXISTS slice_after;")?;
        conn.execute_batch("CHECKPOINT d; DETACH d;")?;
        std::fs::rename(&building, into)?;
        Ok(totals)
    })();
    let _ = std::fs::remove_dir_all(&spill);
    let _ = std::fs::remove_file(&keys);
    let _ = std::fs::remove_file(keys.with_extension("keys.wal"));
    if written.is_err() {
        let _ = std::fs::remove_file(&building);
    }
    written
}

/// A page of a materialised diff.
pub fn page(conn: &Connection, diff: &str, limit: i64, offset: i64) -> duckdb::Result<Vec<ChangedRow>> {
    let mut stmt = conn.prepare(&page_sql(diff))?;
    let rows = stmt.query_map(params![offset, offset.saturating_add(limit)], |r| {
        Ok(ChangedRow {
            change: r.get(0)?,
            key: r.get(1)?,
            changed_columns: r.get(2)?,
            before: r.get(3)?,
            after: r.get(4)?,
        })
    })?;
    rows.collect()
}
