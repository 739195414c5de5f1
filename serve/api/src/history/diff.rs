//! The changes between two versions of a dataset, computed in DuckDB: a full outer join of the two
//! serving tables on the dataset's declared row key. A row only in the newer version is added, only
//! in the older removed, in both with any column distinct changed. The join is materialised once
//! per version pair (keys and kinds, in key order: `diff_cache.rs` keeps it), so a cursor's offset
//! names the same rows on every replica and a page reads only its own rows whole, rendered to JSON.

use duckdb::{params, Connection};
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

/// The statement that materialises the changes between tables `older` and `newer` (names of our
/// own attached schemas, never from a request) as table `into`: each changed key with what
/// happened to it (1 added, 2 removed, 3 changed), in key order — the order pages are cut from.
///
/// The join is narrow — each side's key and the 64-bit hash of its whole row the serving file
/// stores (`_row_hash`) — so a million rows a side stay a small hash table; rows whose hashes match
/// are unchanged (two different rows of one key sharing a hash: a chance of 2⁻⁶⁴). The table
/// holds keys only: a page's rows are read whole when it is asked for ([`page_sql`]).
pub fn diff_table_sql(dataset: DatasetId, older: &str, newer: &str, into: &str) -> String {
    let c = Columns::of(dataset);
    let keys = |s: char| c.list(|i| format!("{} AS {s}{i}", c.names[i]), &c.key);
    let key_cols = c.list(|i| format!("coalesce(b{i}, a{i}) AS k{i}"), &c.key);
    let order = c.list(|i| format!("k{i}"), &c.key);
    format!(
        "CREATE TABLE {into} AS
         SELECT CAST(CASE WHEN a_h IS NULL THEN 1 WHEN b_h IS NULL THEN 2 ELSE 3 END AS UTINYINT) AS change, {key_cols}
         FROM (SELECT {a_keys}, _row_hash AS a_h FROM {older})
         FULL OUTER JOIN (SELECT {b_keys}, _row_hash AS b_h FROM {newer}) ON {on}
         WHERE a_h IS DISTINCT FROM b_h
         ORDER BY {order}",
        a_keys = keys('a'),
        b_keys = keys('b'),
        on = c.joined("a", "b"),
    )
}

/// How many of a materialised diff's changes are of each kind.
pub fn totals_sql(diff: &str) -> String {
    format!(
        "SELECT count(*) FILTER (WHERE change = 1), count(*) FILTER (WHERE change = 2),
                count(*) FILTER (WHERE change = 3)
         FROM {diff}"
    )
}

/// The statement of a page of a materialised diff (parameters: limit, offset): the page's keys
/// in the diff's order, each with its rows read whole from `older` and `newer` and compared
/// column by column.
pub fn page_sql(dataset: DatasetId, diff: &str, older: &str, newer: &str) -> String {
    let c = Columns::of(dataset);
    let order = c.list(|i| format!("k{i}"), &c.key);
    let whole = |s: char| c.list(|i| format!("{} AS {s}{i}", c.names[i]), &c.all());
    // The page's rows are read whole from rows whose first key column is one of the page's: a
    // filter DuckDB pushes into the scan (without it, every column of both versions is read).
    let of_page = match c.key.first().filter(|&&i| !c.nullable[i]) {
        Some(&i) => format!("WHERE {} IN (SELECT k{i} FROM page)", c.names[i]),
        None => String::new(),
    };
    let changed =
        c.list(|i| format!("CASE WHEN a{i} IS DISTINCT FROM b{i} THEN {} END", quoted(&c.names[i])), &c.all());
    let key_json = c.list(|i| format!("{}, k{i}", quoted(&c.names[i])), &c.key);
    format!(
        "WITH page AS (SELECT * FROM {diff} LIMIT ? OFFSET ?)
         SELECT CASE change WHEN 1 THEN 'added' WHEN 2 THEN 'removed' ELSE 'changed' END,
                CAST(json_object({key_json}) AS VARCHAR),
                CASE WHEN change = 3
                     THEN CAST(to_json(list_filter([{changed}], x -> x IS NOT NULL)) AS VARCHAR) ELSE '[]' END,
                {before}, {after}
         FROM page
         LEFT JOIN (SELECT true AS a_in, {a_whole} FROM {older} {of_page}) ON {on_a}
         LEFT JOIN (SELECT true AS b_in, {b_whole} FROM {newer} {of_page}) ON {on_b}
         ORDER BY {order}",
        a_whole = whole('a'),
        b_whole = whole('b'),
        on_a = c.joined("k", "a"),
        on_b = c.joined("k", "b"),
        before = row_json(dataset, 'a'),
        after = row_json(dataset, 'b'),
    )
}

/// Materialises the changes between two versions' tables as table `into`; returns the totals.
/// Statements are not cached: their text names two attached versions, which come and go.
pub fn materialise(
    conn: &Connection,
    dataset: DatasetId,
    older: &str,
    newer: &str,
    into: &str,
) -> duckdb::Result<Totals> {
    conn.execute_batch(&diff_table_sql(dataset, older, newer, into))?;
    conn.query_row(&totals_sql(into), [], |r| Ok(Totals { added: r.get(0)?, removed: r.get(1)?, changed: r.get(2)? }))
}

/// A page of a materialised diff.
pub fn page(
    conn: &Connection,
    dataset: DatasetId,
    diff: &str,
    older: &str,
    newer: &str,
    limit: i64,
    offset: i64,
) -> duckdb::Result<Vec<ChangedRow>> {
    let mut stmt = conn.prepare(&page_sql(dataset, diff, older, newer))?;
    let rows = stmt.query_map(params![limit, offset], |r| {
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
