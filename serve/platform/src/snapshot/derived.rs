//! Tables a dataset version's serving file carries besides its rows: derived once, when the file
//! is built (DESIGN §4's load-time index), so handlers read precomputed rows. `{table}` names the
//! version's table; the derived tables sit beside it in the version's schema.

use sitrep_schemas::DatasetId;

/// Consumer prices (SUPPLEMENT 2.4.0), from the observations and the baskets of one version:
/// - `cp_last_daily`: per (market, retailer, item, UTC day) the day's latest observation;
/// - `cp_prices`: price(r, i, D) — the latest observation in the 7 days ending D, for every day of
///   the market's observed span (an ASOF join: the newest observed day ≤ D, kept if > D − 7);
/// - `cp_item_days`: avg(i, D) and min(i, D) over retailers;
/// - `cp_base`: base(i) = avg(i, B) (and min(i, B) for the value index) at the first day B on or
///   after the basket's base date with a price;
/// - `cp_index`: per market and day the essentials, value and category indices over M(D) (items
///   with a base and a price on D), weights renormalised over M(D), and |M(D)|.
const CONSUMER_PRICES: &str = "
CREATE TABLE cp_last_daily AS
SELECT market_code, retailer, item_id, CAST(make_timestamp(observed_at * 1000) AS DATE) AS day,
       arg_max(price, observed_at) AS price, arg_max(item_name, observed_at) AS item_name, max(observed_at) AS observed_at
FROM {table} WHERE row_kind = 'observation' GROUP BY ALL;

CREATE TABLE cp_prices AS
WITH bounds AS (SELECT market_code, min(day) AS first_day, max(day) AS last_day FROM cp_last_daily GROUP BY ALL),
days AS (
  SELECT market_code, CAST(unnest(generate_series(CAST(first_day AS TIMESTAMP), CAST(last_day AS TIMESTAMP), INTERVAL 1 DAY)) AS DATE) AS day
  FROM bounds),
grid AS (
  SELECT p.market_code, p.retailer, p.item_id, d.day
  FROM (SELECT DISTINCT market_code, retailer, item_id FROM cp_last_daily) p JOIN days d USING (market_code))
SELECT g.market_code, g.retailer, g.item_id, g.day, l.price
FROM grid g ASOF JOIN cp_last_daily l
  ON g.market_code = l.market_code AND g.retailer = l.retailer AND g.item_id = l.item_id AND g.day >= l.day
WHERE l.day > g.day - 7
ORDER BY g.market_code, g.day, g.retailer, g.item_id;

CREATE TABLE cp_item_days AS
SELECT market_code, item_id, day, avg(price) AS avg_price, min(price) AS min_price
FROM cp_prices GROUP BY ALL;

CREATE TABLE cp_base AS
SELECT d.market_code, d.item_id, arg_min(d.avg_price, d.day) AS base_avg, arg_min(d.min_price, d.day) AS base_min
FROM cp_item_days d JOIN {table} m ON m.row_kind = 'market' AND m.market_code = d.market_code
WHERE d.day >= TRY_CAST(m.base_date AS DATE)
GROUP BY ALL;

CREATE TABLE cp_index AS
WITH priced AS (
  SELECT d.market_code, d.day, it.category, it.weight,
         d.avg_price / b.base_avg AS avg_ratio, d.min_price / b.base_min AS min_ratio
  FROM cp_item_days d
  JOIN cp_base b USING (market_code, item_id)
  JOIN {table} it ON it.row_kind = 'item' AND it.market_code = d.market_code AND it.item_id = d.item_id)
SELECT * FROM (
  SELECT market_code, 'essentials' AS series, '' AS category, day,
         100 * sum(weight * avg_ratio) / sum(weight) AS idx, count(*) AS items
  FROM priced GROUP BY ALL
  UNION ALL
  SELECT market_code, 'value', '', day, 100 * sum(weight * min_ratio) / sum(weight), count(*) FROM priced GROUP BY ALL
  UNION ALL
  SELECT market_code, 'category', category, day, 100 * sum(weight * avg_ratio) / sum(weight), count(*)
  FROM priced GROUP BY ALL)
ORDER BY market_code, series, category, day;
";

/// The load-time SQL of a dataset, if it has derived tables.
pub fn load_time_sql(dataset: DatasetId) -> Option<&'static str> {
    (dataset == DatasetId::CONSUMER_PRICES).then_some(CONSUMER_PRICES)
}
