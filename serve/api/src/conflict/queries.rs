//! SQL of the Conflict operations. Every value is a bound parameter; table and column names are
//! ours (a version's table is the schema-qualified name its `DatasetDb` gives).

use duckdb::{params, Connection};

use super::model::*;
use crate::sql_values::text_list;
use sitrep_platform::snapshot::PositionRange;

pub struct EventFilter {
    pub from_ms: i64,
    pub to_ms: i64,
    pub country: Option<String>,
    /// Where the filter's rows sit in the table, when the dataset's position index knows (one
    /// country, a time range): the page is then read by position, with no sort and no count.
    pub positions: Option<PositionRange>,
    pub limit: i64,
    pub offset: i64,
}

/// An event table: the time column of its range filter and the columns of a page. Which version's
/// table is read is the caller's (`DatasetDb::table`, a schema-qualified name).
struct EventTable {
    time_col: &'static str,
    columns: &'static [&'static str],
}

const ARMED_EVENTS: EventTable = EventTable {
    time_col: "occurred_at",
    columns: &[
        "id",
        "event_type",
        "country",
        "latitude",
        "longitude",
        "occurred_at",
        "fatalities",
        "actors",
        "source",
        "admin1",
    ],
};

const VIOLENCE_EVENTS: EventTable = EventTable {
    time_col: "date_start",
    columns: &[
        "id",
        "date_start",
        "date_end",
        "latitude",
        "longitude",
        "country",
        "side_a",
        "side_b",
        "deaths_best",
        "deaths_low",
        "deaths_high",
        "violence_type",
        "source_original",
    ],
};

fn page_sql(name: &str, table: &EventTable, with_country: bool) -> (String, String) {
    let (time_col, columns) = (table.time_col, table.columns.join(", "));
    let country = if with_country { " AND country_iso2 = ?" } else { "" };
    let filter = format!("WHERE {time_col} BETWEEN ? AND ?{country}");
    (
        format!("SELECT {columns} FROM {name} {filter} ORDER BY {time_col} DESC, id LIMIT ? OFFSET ?"),
        format!("SELECT count(*) FROM {name} {filter}"),
    )
}

/// Rows `offset .. offset + limit` of a known run of positions, in table (= API) order.
fn positioned_page<T>(
    conn: &Connection,
    name: &str,
    table: &EventTable,
    range: PositionRange,
    f: &EventFilter,
    map: impl Fn(&duckdb::Row) -> duckdb::Result<T>,
) -> duckdb::Result<(Vec<T>, i64)> {
    let first = range.first + f.offset;
    let last = (range.first + range.rows).min(first + f.limit) - 1;
    if last < first {
        return Ok((Vec::new(), range.rows));
    }
    // Ordered here rather than by an ORDER BY: DuckDB's sort operator costs more than the scan.
    // The cached statement saves parsing only: DuckDB binds, optimises and plans a statement that
    // has parameters and reads a table again at every execution (so the values reach the scan's
    // zone maps) — about half of this query's time in DuckDB, and no setting avoids it.
    // `_pos` comes after the page's columns, which `map` reads from index 0.
    let pos_col = table.columns.len();
    let sql = format!("SELECT {}, _pos FROM {name} WHERE _pos BETWEEN ? AND ?", table.columns.join(", "));
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt
        .query_map(params![first, last], |r| Ok((r.get::<_, i64>(pos_col)?, map(r)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    rows.sort_unstable_by_key(|(pos, _)| *pos);
    let rows = rows.into_iter().map(|(_, row)| row).collect();
    Ok((rows, range.rows))
}

fn run_page<T>(
    conn: &Connection,
    name: &str,
    table: &EventTable,
    f: &EventFilter,
    map: impl Fn(&duckdb::Row) -> duckdb::Result<T>,
) -> duckdb::Result<(Vec<T>, i64)> {
    if let Some(range) = f.positions {
        return positioned_page(conn, name, table, range, f, map);
    }
    let (page, count) = page_sql(name, table, f.country.is_some());
    let mut stmt = conn.prepare_cached(&page)?;
    let mut cstmt = conn.prepare_cached(&count)?;
    let (rows, total) = match &f.country {
        Some(c) => (
            stmt.query_map(params![f.from_ms, f.to_ms, c, f.limit, f.offset], |r| map(r))?
                .collect::<Result<Vec<_>, _>>()?,
            cstmt.query_row(params![f.from_ms, f.to_ms, c], |r| r.get(0))?,
        ),
        None => (
            stmt.query_map(params![f.from_ms, f.to_ms, f.limit, f.offset], |r| map(r))?
                .collect::<Result<Vec<_>, _>>()?,
            cstmt.query_row(params![f.from_ms, f.to_ms], |r| r.get(0))?,
        ),
    };
    Ok((rows, total))
}

/// A page of `table` (a version's qualified `armed_events`).
pub fn armed_events(conn: &Connection, table: &str, f: &EventFilter) -> duckdb::Result<(Vec<ArmedConflictEvent>, i64)> {
    run_page(conn, table, &ARMED_EVENTS, f, |r| {
        Ok(ArmedConflictEvent {
            id: r.get(0)?,
            event_type: r.get(1)?,
            country: r.get(2)?,
            location: GeoCoordinates { latitude: r.get(3)?, longitude: r.get(4)? },
            occurred_at: r.get(5)?,
            fatalities: r.get(6)?,
            actors: text_list(r, 7)?,
            source: r.get(8)?,
            admin1: r.get(9)?,
        })
    })
}

/// A page of `table` (a version's qualified `violence_events`).
pub fn violence_events(
    conn: &Connection,
    table: &str,
    f: &EventFilter,
) -> duckdb::Result<(Vec<UcdpViolenceEvent>, i64)> {
    run_page(conn, table, &VIOLENCE_EVENTS, f, |r| {
        Ok(UcdpViolenceEvent {
            id: r.get(0)?,
            date_start: r.get(1)?,
            date_end: r.get(2)?,
            location: GeoCoordinates { latitude: r.get(3)?, longitude: r.get(4)? },
            country: r.get(5)?,
            side_a: r.get(6)?,
            side_b: r.get(7)?,
            deaths_best: r.get(8)?,
            deaths_low: r.get(9)?,
            deaths_high: r.get(10)?,
            violence_type: r.get(11)?,
            source_original: r.get(12)?,
        })
    })
}

const SUMMARY_COLS: &str = "country_code, country_name, conflict_events_total, conflict_political_violence_events, conflict_fatalities, conflict_demonstrations, reference_period, updated_at";

fn summary(r: &duckdb::Row) -> duckdb::Result<HumanitarianSummary> {
    Ok(HumanitarianSummary {
        country_code: r.get(0)?,
        country_name: r.get(1)?,
        conflict_events_total: r.get(2)?,
        conflict_political_violence_events: r.get(3)?,
        conflict_fatalities: r.get(4)?,
        conflict_demonstrations: r.get(5)?,
        reference_period: r.get(6)?,
        updated_at: r.get(7)?,
    })
}

pub fn humanitarian_summary(conn: &Connection, table: &str, code: &str) -> duckdb::Result<Option<HumanitarianSummary>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {SUMMARY_COLS} FROM {table} WHERE country_code = ?"))?;
    let mut rows = stmt.query_map(params![code], summary)?;
    rows.next().transpose()
}

/// All summaries (one row per country, a few hundred at most); the batch filters in memory.
pub fn humanitarian_all(conn: &Connection, table: &str) -> duckdb::Result<Vec<HumanitarianSummary>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {SUMMARY_COLS} FROM {table} ORDER BY country_code"))?;
    let rows = stmt.query_map([], summary)?;
    rows.collect()
}

pub fn iran_events(conn: &Connection, table: &str) -> duckdb::Result<Vec<IranEvent>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, title, category, source_url, latitude, longitude, location_name, published_at, severity FROM {table} ORDER BY published_at DESC, id"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(IranEvent {
            id: r.get(0)?,
            title: r.get(1)?,
            category: r.get(2)?,
            source_url: r.get(3)?,
            latitude: r.get(4)?,
            longitude: r.get(5)?,
            location_name: r.get(6)?,
            timestamp: r.get::<_, i64>(7)?.to_string(),
            severity: r.get(8)?,
        })
    })?;
    rows.collect()
}
