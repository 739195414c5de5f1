//! The changes between two versions of a dataset, computed in DuckDB: a full outer join of the two
//! serving tables on the dataset's declared row key. A row only in the newer version is added, only
//! in the older removed, in both with any column distinct changed. The page is ordered by the key,
//! so a cursor's offset names the same rows on every replica; only the page's rows are read whole
//! and rendered to JSON, and the totals come from the same join.

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

/// The statement of a page of changes between tables `older` and `newer` (names of our own
/// attached schemas, never from a request); parameters: limit, offset.
///
/// The join is narrow — each side's key and the 64-bit hash of its whole row the serving file
/// stores (`_row_hash`) — so a million rows a side stay a small hash table; rows whose hashes match
/// are unchanged (two different rows of one key sharing a hash: a chance of 2⁻⁶⁴). Only the page's
/// rows are then read whole, matched by key, and compared column by column.
pub fn changes_sql(dataset: DatasetId, older: &str, newer: &str) -> String {
    let schema = dataset.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let key = dataset.row_key();
    let index = |name: &str| names.iter().position(|n| *n == name).unwrap_or_default();
    let keys = |s: char| key.iter().map(|k| format!("{k} AS {s}{}", index(k))).collect::<Vec<_>>().join(", ");
    let whole =
        |s: char| names.iter().enumerate().map(|(i, n)| format!("{n} AS {s}{i}")).collect::<Vec<_>>().join(", ");
    // Nulls in a key are equal; `=` where a column has none (the faster join).
    let nullable = |k: &str| schema.field_with_name(k).map_or(true, |f| f.is_nullable());
    let joined = |l: &str, r: &str| {
        let equal = |k: &&str| match nullable(k) {
            true => format!("{l}{i} IS NOT DISTINCT FROM {r}{i}", i = index(k)),
            false => format!("{l}{i} = {r}{i}", i = index(k)),
        };
        key.iter().map(equal).collect::<Vec<_>>().join(" AND ")
    };
    // The page's rows are read whole from rows whose first key column is one of the page's: a
    // filter DuckDB pushes into the scan (without it, every column of both versions is read).
    let of_page = match key.first().filter(|k| !nullable(k)) {
        Some(k) => format!("WHERE {k} IN (SELECT k{} FROM page)", index(k)),
        None => String::new(),
    };
    let key_cols: Vec<String> = key.iter().map(|k| format!("coalesce(b{i}, a{i}) AS k{i}", i = index(k))).collect();
    let order: Vec<String> = key.iter().map(|k| format!("k{}", index(k))).collect();
    let changed: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| format!("CASE WHEN a{i} IS DISTINCT FROM b{i} THEN {} END", quoted(n)))
        .collect();
    let key_json: Vec<String> = key.iter().map(|k| format!("{}, k{}", quoted(k), index(k))).collect();
    format!(
        "WITH d AS MATERIALIZED (
            SELECT CASE WHEN a_h IS NULL THEN 'added' WHEN b_h IS NULL THEN 'removed' ELSE 'changed' END AS change,
                   {key_cols}
            FROM (SELECT {a_keys}, _row_hash AS a_h FROM {older})
            FULL OUTER JOIN (SELECT {b_keys}, _row_hash AS b_h FROM {newer}) ON {on}
            WHERE a_h IS DISTINCT FROM b_h
         ),
         totals AS (
            SELECT count(*) FILTER (WHERE change = 'added') AS added,
                   count(*) FILTER (WHERE change = 'removed') AS removed,
                   count(*) FILTER (WHERE change = 'changed') AS changed
            FROM d
         ),
         page AS (SELECT * FROM d ORDER BY {order} LIMIT ? OFFSET ?),
         rows AS (
            SELECT * FROM page
            LEFT JOIN (SELECT true AS a_in, {a_whole} FROM {older} {of_page}) ON {on_a}
            LEFT JOIN (SELECT true AS b_in, {b_whole} FROM {newer} {of_page}) ON {on_b}
         )
         SELECT totals.added, totals.removed, totals.changed, rows.change,
                CAST(json_object({key_json}) AS VARCHAR),
                CASE WHEN rows.change = 'changed'
                     THEN CAST(to_json(list_filter([{changed}], x -> x IS NOT NULL)) AS VARCHAR) ELSE '[]' END,
                {before}, {after}
         FROM totals LEFT JOIN rows ON true
         ORDER BY {order}",
        key_cols = key_cols.join(", "),
        a_keys = keys('a'),
        b_keys = keys('b'),
        on = joined("a", "b"),
        a_whole = whole('a'),
        b_whole = whole('b'),
        on_a = joined("k", "a"),
        on_b = joined("k", "b"),
        order = order.join(", "),
        key_json = key_json.join(", "),
        changed = changed.join(", "),
        before = row_json(dataset, 'a'),
        after = row_json(dataset, 'b'),
    )
}

/// A page of the changes between two versions' tables, and the totals.
pub fn changes_page(
    conn: &Connection,
    dataset: DatasetId,
    older: &str,
    newer: &str,
    limit: i64,
    offset: i64,
) -> duckdb::Result<(Vec<ChangedRow>, Totals)> {
    // Not cached: the text names two attached versions, which come and go.
    let mut stmt = conn.prepare(&changes_sql(dataset, older, newer))?;
    let mut rows = stmt.query(params![limit, offset])?;
    let (mut page, mut totals) = (Vec::new(), Totals::default());
    while let Some(r) = rows.next()? {
        totals = Totals { added: r.get(0)?, removed: r.get(1)?, changed: r.get(2)? };
        let Some(change) = r.get::<_, Option<String>>(3)? else { continue };
        page.push(ChangedRow {
            change,
            key: r.get(4)?,
            changed_columns: r.get(5)?,
            before: r.get(6)?,
            after: r.get(7)?,
        });
    }
    Ok((page, totals))
}
