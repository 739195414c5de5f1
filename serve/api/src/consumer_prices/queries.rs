//! Consumer prices SQL over one version: its table (`table`, the baskets and observations) and the
//! tables derived when the version was loaded (`schema.cp_*`, see `snapshot::derived`). Values are
//! always bound parameters.

use duckdb::{params, Connection, OptionalExt};

/// A configured market of the version.
pub struct Market {
    pub currency: String,
    pub basket_slug: String,
    pub freshness_lag_min: i32,
    /// Basket items.
    pub items: i64,
}

pub fn market(conn: &Connection, table: &str, code: &str) -> duckdb::Result<Option<Market>> {
    conn.prepare_cached(&format!(
        "SELECT currency, basket_slug, coalesce(freshness_lag_min, 0),
                (SELECT count(*) FROM {table} WHERE row_kind = 'item' AND market_code = ?)
         FROM {table} WHERE row_kind = 'market' AND market_code = ?"
    ))?
    .query_row(params![code, code], |r| {
        Ok(Market { currency: r.get(0)?, basket_slug: r.get(1)?, freshness_lag_min: r.get(2)?, items: r.get(3)? })
    })
    .optional()
}

/// The basket's categories (snake case, as configured) and their item counts, by name.
pub fn categories(conn: &Connection, table: &str, code: &str) -> duckdb::Result<Vec<(String, i64)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT category, count(*) FROM {table} WHERE row_kind = 'item' AND market_code = ? GROUP BY ALL ORDER BY 1"
    ))?;
    let rows = stmt.query_map(params![code], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// One day of one index series: `series` is essentials, value or category (then `category` names it).
pub struct IndexRow {
    pub series: String,
    pub category: String,
    pub day: String,
    pub index: f64,
    /// |M(D)|: items priced that day.
    pub items: i64,
}

/// Every daily index of the market, oldest first.
pub fn indices(conn: &Connection, schema: &str, code: &str) -> duckdb::Result<Vec<IndexRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT series, category, CAST(day AS VARCHAR), idx, items FROM {schema}.cp_index
         WHERE market_code = ? ORDER BY series, category, day"
    ))?;
    let rows = stmt.query_map(params![code], |r| {
        Ok(IndexRow { series: r.get(0)?, category: r.get(1)?, day: r.get(2)?, index: r.get(3)?, items: r.get(4)? })
    })?;
    rows.collect()
}

/// The spread of per-retailer basket totals on `d0` over the items every retailer priced that day:
/// (max − min) ÷ min × 100, or 0 with fewer than 2 retailers or 4 common items.
pub fn retailer_spread(conn: &Connection, schema: &str, code: &str, d0: &str) -> duckdb::Result<f64> {
    conn.prepare_cached(&format!(
        "WITH at_d0 AS (SELECT retailer, item_id, price FROM {schema}.cp_prices WHERE market_code = ? AND day = CAST(? AS DATE)),
              n AS (SELECT count(DISTINCT retailer) AS retailers FROM at_d0),
              common AS (SELECT item_id FROM at_d0 GROUP BY item_id HAVING count(DISTINCT retailer) = (SELECT retailers FROM n)),
              totals AS (SELECT retailer, sum(price) AS total FROM at_d0 WHERE item_id IN (SELECT item_id FROM common) GROUP BY ALL)
         SELECT CASE WHEN (SELECT retailers FROM n) >= 2 AND (SELECT count(*) FROM common) >= 4
                     THEN (max(total) - min(total)) / min(total) * 100 ELSE 0 END
         FROM totals"
    ))?
    .query_row(params![code, d0], |r| Ok(r.get::<_, Option<f64>>(0)?.unwrap_or(0.0)))
}

/// A (retailer, item) move between `d0` and `range_days` earlier.
pub struct MoverRow {
    pub retailer: String,
    pub item_id: String,
    pub title: String,
    pub category: String,
    pub change_pct: f64,
    pub current_price: f64,
}

/// Every (retailer, item) priced on `d0` (the 7-day carry) and observed on the UTC day
/// `range_days` before it (its last observation that day), with a ratio in 0.25–4 and a change.
pub fn movers(
    conn: &Connection,
    schema: &str,
    table: &str,
    code: &str,
    d0: &str,
    range_days: i32,
) -> duckdb::Result<Vec<MoverRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "WITH cur AS (SELECT retailer, item_id, price FROM {schema}.cp_prices WHERE market_code = ? AND day = CAST(? AS DATE)),
              past AS (SELECT retailer, item_id, price FROM {schema}.cp_last_daily
                       WHERE market_code = ? AND day = CAST(? AS DATE) - CAST(? AS INTEGER)),
              title AS (SELECT retailer, item_id, arg_max(item_name, observed_at) AS title FROM {schema}.cp_last_daily
                        WHERE market_code = ? GROUP BY ALL)
         SELECT c.retailer, c.item_id, t.title, it.category, (c.price / p.price - 1) * 100, c.price
         FROM cur c JOIN past p USING (retailer, item_id) JOIN title t USING (retailer, item_id)
         JOIN {table} it ON it.row_kind = 'item' AND it.market_code = ? AND it.item_id = c.item_id
         WHERE c.price / p.price BETWEEN 0.25 AND 4 AND c.price <> p.price"
    ))?;
    let rows = stmt.query_map(params![code, d0, code, d0, range_days, code, code], |r| {
        Ok(MoverRow {
            retailer: r.get(0)?,
            item_id: r.get(1)?,
            title: r.get(2)?,
            category: r.get(3)?,
            change_pct: r.get(4)?,
            current_price: r.get(5)?,
        })
    })?;
    rows.collect()
}
