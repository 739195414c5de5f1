//! The Consumer prices group (API.md 4.7, SUPPLEMENT 2.4): four operations over one
//! `consumer-prices` version. The indices are derived in DuckDB when the version is loaded
//! (`snapshot::derived`); handlers read those rows, look up the days they need, and round.
//! Unknown markets, a basket of another market and a version without prices answer the group's
//! empty shape.

pub mod model;
pub mod params;
pub mod queries;

use std::{collections::HashMap, sync::Arc};

use chrono::{Duration, NaiveDate};
use duckdb::Connection;
use poem::Request;
use sitrep_schemas::{numbers::round_to, DatasetId};

use self::{model::*, queries::IndexRow};
use sitrep_platform::{
    answered_by,
    app_state::AppState,
    kit::{
        answer::Answer,
        canonical,
        canonical::Canonical,
        dataset_read::params_get,
        error::{ApiError, Violations},
        paged_list::{ListParams, QueryParams},
        params::{Param, ParamKind, RawQuery},
    },
    registry::{Group, McpTool, Operation},
    snapshot::DatasetDb,
};

pub static GROUP: Group = Group {
    tag: "ConsumerPrices",
    description: "Essentials basket indices, series, categories and price movers per market.",
    operations: &[
        &GET_CONSUMER_PRICE_OVERVIEW,
        &GET_CONSUMER_PRICE_BASKET_SERIES,
        &LIST_CONSUMER_PRICE_CATEGORIES,
        &LIST_CONSUMER_PRICE_MOVERS,
    ],
};

pub static GET_CONSUMER_PRICE_OVERVIEW: Operation = Operation {
    id: "GetConsumerPriceOverview",
    path: "/api/consumer-prices/v1/get-consumer-price-overview",
    summary: "a market's essentials and value basket indices, their weekly and monthly change, retailer spread, coverage and top categories.",
    datasets: &[DatasetId::CONSUMER_PRICES],
    params: params::OVERVIEW,
    mcp: Some(McpTool {
        title: "Get consumer price overview",
        description: "A market's essentials and value basket indices (base 100), weekly and monthly change, retailer spread, coverage and the categories moving most.",
        open_world: false,
    }),
    answer: answered_by!(GetConsumerPriceOverviewResponse, get_consumer_price_overview),
    ..Operation::GET
};

pub static GET_CONSUMER_PRICE_BASKET_SERIES: Operation = Operation {
    id: "GetConsumerPriceBasketSeries",
    path: "/api/consumer-prices/v1/get-consumer-price-basket-series",
    summary: "the daily essentials and value basket indices of a market over a range.",
    datasets: &[DatasetId::CONSUMER_PRICES],
    params: params::BASKET_SERIES,
    mcp: Some(McpTool {
        title: "Get consumer price basket series",
        description: "Daily essentials and value basket indices of a market over 7, 30, 90 or 180 days.",
        open_world: false,
    }),
    answer: answered_by!(GetConsumerPriceBasketSeriesResponse, get_consumer_price_basket_series),
    ..Operation::GET
};

pub static LIST_CONSUMER_PRICE_CATEGORIES: Operation = Operation {
    id: "ListConsumerPriceCategories",
    path: "/api/consumer-prices/v1/list-consumer-price-categories",
    summary: "a market's basket categories over a range: index, change, sparkline and coverage.",
    datasets: &[DatasetId::CONSUMER_PRICES],
    params: params::CATEGORIES,
    mcp: Some(McpTool {
        title: "List consumer price categories",
        description: "A market's basket categories over a range: current index, change, daily sparkline and coverage, furthest from 100 first.",
        open_world: false,
    }),
    answer: answered_by!(ListConsumerPriceCategoriesResponse, list_consumer_price_categories),
    ..Operation::GET
};

pub static LIST_CONSUMER_PRICE_MOVERS: Operation = Operation {
    id: "ListConsumerPriceMovers",
    path: "/api/consumer-prices/v1/list-consumer-price-movers",
    summary: "the largest rises and falls of retailer item prices in a market over a range.",
    datasets: &[DatasetId::CONSUMER_PRICES],
    params: params::MOVERS,
    mcp: Some(McpTool {
        title: "List consumer price movers",
        description:
            "The largest rises and falls of retailer item prices in a market over a range, optionally in one category.",
        open_world: false,
    }),
    answer: answered_by!(ListConsumerPriceMoversResponse, list_consumer_price_movers),
    ..Operation::GET
};

const TOP_CATEGORIES: usize = 8;

/// A consumer-prices request, parsed from the parameters its operation declares.
#[derive(Debug, Clone)]
pub struct PriceQuery {
    /// Lower case; "" until the deployment's default market is applied.
    pub market: String,
    /// Lower case, as asked.
    pub basket: Option<String>,
    pub range: &'static str,
    pub limit: i32,
    pub category: Option<String>,
}

impl PriceQuery {
    fn parse(declared: &[Param], q: &RawQuery, v: &mut Violations) -> Self {
        let declares = |p: &Param| declared.iter().any(|d| d.name == p.name);
        // The series operation checks the slug's pattern; the others take any value.
        let basket = declared.iter().find(|p| p.name == "basket_slug").and_then(|p| match p.kind {
            ParamKind::Checked { .. } => p.checked(q, v),
            _ => p.raw(q).map(str::to_string),
        });
        PriceQuery {
            market: params::MARKET_CODE.checked(q, v).map(|m| m.to_ascii_lowercase()).unwrap_or_default(),
            basket: basket.map(|b| b.to_ascii_lowercase()),
            range: if declares(&params::RANGE) { params::RANGE.one_of(q, v).unwrap_or("30d") } else { "30d" },
            limit: if declares(&params::LIMIT) { params::LIMIT.int32(q, v) } else { 0 },
            category: if declares(&params::CATEGORY_SLUG) {
                params::CATEGORY_SLUG.raw(q).map(str::to_string)
            } else {
                None
            },
        }
    }

    fn canonical(&self) -> Canonical {
        Canonical::new(vec![
            ("market_code", self.market.clone()),
            ("basket_slug", canonical::opt(&self.basket)),
            ("range", self.range.to_string()),
            ("limit", self.limit.to_string()),
            ("category_slug", canonical::opt(&self.category)),
        ])
    }

    fn range_days(&self) -> i64 {
        self.range.trim_end_matches('d').parse().unwrap_or(30)
    }

    /// Whether the asked basket (if any) is this market's.
    fn basket_matches(&self, market: &queries::Market) -> bool {
        self.basket.as_deref().is_none_or(|b| b == market.basket_slug)
    }
}

macro_rules! price_query {
    ($name:ident, $declared:expr) => {
        pub struct $name(PriceQuery);

        impl QueryParams for $name {
            fn parse(q: &RawQuery, v: &mut Violations) -> Self {
                $name(PriceQuery::parse($declared, q, v))
            }

            fn apply_deployment(&mut self, state: &AppState) {
                if self.0.market.is_empty() {
                    self.0.market = crate::context(state).settings.consumer_prices_default_market.clone();
                }
            }
        }

        impl ListParams for $name {
            fn canonical(&self) -> Canonical {
                self.0.canonical()
            }
        }

        impl From<$name> for PriceQuery {
            fn from(q: $name) -> PriceQuery {
                q.0
            }
        }

        impl AsRef<PriceQuery> for $name {
            fn as_ref(&self) -> &PriceQuery {
                &self.0
            }
        }
    };
}

price_query!(OverviewQuery, params::OVERVIEW);
price_query!(SeriesQuery, params::BASKET_SERIES);
price_query!(CategoriesQuery, params::CATEGORIES);
price_query!(MoversQuery, params::MOVERS);

fn day(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

/// One day of a series: the day, the index, |M(D)|.
type Point = (NaiveDate, f64, i64);

/// A market's daily index series, by (series, category), oldest first.
struct Indices(HashMap<(String, String), Vec<Point>>);

impl Indices {
    fn new(rows: Vec<IndexRow>) -> Self {
        let mut map: HashMap<(String, String), Vec<Point>> = HashMap::new();
        for r in rows {
            if let Some(d) = day(&r.day) {
                map.entry((r.series, r.category)).or_default().push((d, r.index, r.items));
            }
        }
        Indices(map)
    }

    fn series(&self, series: &str, category: &str) -> &[Point] {
        self.0.get(&(series.to_string(), category.to_string())).map(Vec::as_slice).unwrap_or(&[])
    }

    /// D0: the latest day with an essentials index.
    fn d0(&self) -> Option<NaiveDate> {
        self.series("essentials", "").last().map(|p| p.0)
    }

    fn at(&self, series: &str, category: &str, d: NaiveDate) -> Option<(f64, i64)> {
        let s = self.series(series, category);
        s.binary_search_by_key(&d, |p| p.0).ok().map(|i| (s[i].1, s[i].2))
    }

    /// change(X, k): I(D0) ÷ I(Dk) − 1 in %, Dk the latest day ≤ D0 − k with an index; 0 if none.
    fn change(&self, series: &str, category: &str, d0: NaiveDate, k: i64) -> f64 {
        let s = self.series(series, category);
        let before = s.partition_point(|p| p.0 <= d0 - Duration::days(k));
        match (self.at(series, category, d0), before.checked_sub(1).map(|i| s[i].1)) {
            (Some((now, _)), Some(then)) if then != 0.0 => (now / then - 1.0) * 100.0,
            _ => 0.0,
        }
    }

    /// The days D0 − days + 1 ..= D0 that have an index, oldest first.
    fn window(&self, series: &str, category: &str, d0: NaiveDate, days: i64) -> Vec<(NaiveDate, f64)> {
        let from = d0 - Duration::days(days - 1);
        self.series(series, category).iter().filter(|p| p.0 >= from && p.0 <= d0).map(|p| (p.0, p.1)).collect()
    }
}

/// `cooking_oil` → (`cooking-oil`, `Cooking Oil`).
fn category_names(category: &str) -> (String, String) {
    let slug = category.to_lowercase().replace(['_', ' '], "-");
    let name = slug
        .split('-')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ");
    (slug, name)
}

/// The categories over a range of `days`, at most 8, furthest from 100 first, then by name.
fn category_snapshots(idx: &Indices, categories: &[(String, i64)], d0: NaiveDate, days: i64) -> Vec<CategorySnapshot> {
    let mut out: Vec<CategorySnapshot> = categories
        .iter()
        .map(|(category, item_count)| {
            let (slug, name) = category_names(category);
            let today = idx.at("category", category, d0);
            CategorySnapshot {
                slug,
                name,
                wow_pct: if days == 7 { round_to(idx.change("category", category, d0, 7), 1) } else { 0.0 },
                mom_pct: if days > 7 { round_to(idx.change("category", category, d0, days), 1) } else { 0.0 },
                current_index: today.map(|(i, _)| round_to(i, 1)).unwrap_or(100.0),
                sparkline: idx
                    .window("category", category, d0, days)
                    .into_iter()
                    .map(|(_, i)| round_to(i, 1))
                    .collect(),
                coverage_pct: round_to(
                    today.map(|(_, n)| n).unwrap_or(0) as f64 * 100.0 / (*item_count).max(1) as f64,
                    1,
                ),
                item_count: *item_count as i32,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        (b.current_index - 100.0).abs().total_cmp(&(a.current_index - 100.0).abs()).then_with(|| a.name.cmp(&b.name))
    });
    out.truncate(TOP_CATEGORIES);
    out
}

/// What every answer reads first: the market (None → the empty shape), its indices and D0.
struct Loaded {
    market: queries::Market,
    indices: Indices,
    d0: NaiveDate,
}

fn load(conn: &Connection, db: &DatasetDb, q: &PriceQuery) -> duckdb::Result<Option<Loaded>> {
    let Some(market) = queries::market(conn, db.table(), &q.market)? else { return Ok(None) };
    if !q.basket_matches(&market) {
        return Ok(None);
    }
    let indices = Indices::new(queries::indices(conn, db.schema(), &q.market)?);
    Ok(indices.d0().map(|d0| Loaded { market, indices, d0 }))
}

fn as_of(db: &DatasetDb) -> String {
    db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0).to_string()
}

/// Runs `answer` on a pooled connection; the empty shape when the market has nothing to show.
async fn answer_with<R, F>(db: Arc<DatasetDb>, q: PriceQuery, answer: F) -> Result<R, ApiError>
where
    R: EmptyShape + Send + 'static,
    F: FnOnce(&Connection, &DatasetDb, &PriceQuery, Loaded) -> duckdb::Result<R> + Send + 'static,
{
    let version = db.clone();
    let r = db
        .query(move |conn| match load(conn, &version, &q)? {
            Some(loaded) => answer(conn, &version, &q, loaded),
            None => Ok(R::empty(&q.market)),
        })
        .await?;
    Ok(r)
}

/// The GET of a consumer-prices operation: `Q` parsed, the group's empty shape before the first
/// publication or for a market with nothing to show, else `answer` on a pooled connection.
async fn prices_get<Q, R, F>(state: &AppState, req: &Request, op: &'static Operation, answer: F) -> Answer<R>
where
    Q: ListParams + AsRef<PriceQuery> + Into<PriceQuery>,
    R: EmptyShape + serde::Serialize + poem_openapi::types::Type + Send + 'static,
    F: FnOnce(&Connection, &DatasetDb, &PriceQuery, Loaded) -> duckdb::Result<R> + Send + 'static,
{
    let empty = |q: &Q| R::empty(&q.as_ref().market);
    params_get(state, req, op, empty, |db, q: Q| answer_with(db, q.into(), answer)).await
}

async fn get_consumer_price_overview(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<GetConsumerPriceOverviewResponse> {
    prices_get::<OverviewQuery, _, _>(state, req, op, |conn, db, q, l| {
        let categories = queries::categories(conn, db.table(), &q.market)?;
        let spread = queries::retailer_spread(conn, db.schema(), &q.market, &l.d0.to_string())?;
        let (essentials, items) = l.indices.at("essentials", "", l.d0).unwrap_or((0.0, 0));
        Ok(GetConsumerPriceOverviewResponse {
            market_code: q.market.clone(),
            as_of: as_of(db),
            currency_code: l.market.currency.clone(),
            essentials_index: round_to(essentials, 1),
            value_basket_index: round_to(l.indices.at("value", "", l.d0).map(|v| v.0).unwrap_or(0.0), 1),
            wow_pct: round_to(l.indices.change("essentials", "", l.d0, 7), 1),
            mom_pct: round_to(l.indices.change("essentials", "", l.d0, 30), 1),
            retailer_spread_pct: round_to(spread, 1),
            coverage_pct: round_to(items as f64 * 100.0 / l.market.items.max(1) as f64, 1),
            freshness_lag_min: l.market.freshness_lag_min,
            top_categories: category_snapshots(&l.indices, &categories, l.d0, 7),
            upstream_unavailable: false,
        })
    })
    .await
}

async fn get_consumer_price_basket_series(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<GetConsumerPriceBasketSeriesResponse> {
    prices_get::<SeriesQuery, _, _>(state, req, op, |_, db, q, l| {
        let points = |series: &str| {
            l.indices
                .window(series, "", l.d0, q.range_days())
                .into_iter()
                .map(|(d, i)| IndexPoint { date: d.to_string(), index: round_to(i, 1) })
                .collect()
        };
        Ok(GetConsumerPriceBasketSeriesResponse {
            market_code: q.market.clone(),
            basket_slug: l.market.basket_slug.clone(),
            as_of: as_of(db),
            currency_code: l.market.currency.clone(),
            range: q.range.to_string(),
            essentials_series: points("essentials"),
            value_series: points("value"),
            upstream_unavailable: false,
        })
    })
    .await
}

async fn list_consumer_price_categories(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<ListConsumerPriceCategoriesResponse> {
    prices_get::<CategoriesQuery, _, _>(state, req, op, |conn, db, q, l| {
        let categories = queries::categories(conn, db.table(), &q.market)?;
        Ok(ListConsumerPriceCategoriesResponse {
            market_code: q.market.clone(),
            as_of: as_of(db),
            range: q.range.to_string(),
            categories: category_snapshots(&l.indices, &categories, l.d0, q.range_days()),
            upstream_unavailable: false,
        })
    })
    .await
}

async fn list_consumer_price_movers(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<ListConsumerPriceMoversResponse> {
    prices_get::<MoversQuery, _, _>(state, req, op, |conn, db, q, l| {
        let rows = queries::movers(conn, db.schema(), db.table(), &q.market, &l.d0.to_string(), q.range_days() as i32)?;
        let movers: Vec<PriceMover> = rows
            .into_iter()
            .map(|r| PriceMover {
                product_id: format!("{}:{}", r.retailer, r.item_id),
                title: r.title,
                category: category_names(&r.category).0,
                retailer_slug: r.retailer,
                change_pct: round_to(r.change_pct, 2),
                current_price: round_to(r.current_price, 2),
                currency_code: l.market.currency.clone(),
            })
            .filter(|m| q.category.as_deref().is_none_or(|c| c == m.category))
            .collect();
        let side = |rising: bool| {
            let mut side: Vec<PriceMover> =
                movers.iter().filter(|m| (m.change_pct > 0.0) == rising && m.change_pct != 0.0).cloned().collect();
            side.sort_by(|a, b| {
                let order = a.change_pct.total_cmp(&b.change_pct);
                (if rising { order.reverse() } else { order }).then_with(|| a.product_id.cmp(&b.product_id))
            });
            side.truncate(q.limit.max(1) as usize);
            side
        };
        Ok(ListConsumerPriceMoversResponse {
            market_code: q.market.clone(),
            as_of: as_of(db),
            range: q.range.to_string(),
            risers: side(true),
            fallers: side(false),
            upstream_unavailable: false,
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(series: &str, category: &str, d: &str, index: f64) -> IndexRow {
        IndexRow { series: series.into(), category: category.into(), day: d.into(), index, items: 3 }
    }

    #[test]
    fn changes_look_back_to_the_latest_day_with_an_index() {
        let idx = Indices::new(vec![
            row("essentials", "", "2026-11-01", 100.0),
            row("essentials", "", "2026-11-10", 104.0),
            row("essentials", "", "2026-11-12", 102.0),
            row("essentials", "", "2026-11-19", 105.06),
        ]);
        let d0 = idx.d0().unwrap();
        assert_eq!(d0.to_string(), "2026-11-19");
        // k = 7: D0 − 7 = 11-12 has an index: 105.06 / 102 − 1 = 3.0 %.
        assert!((idx.change("essentials", "", d0, 7) - 3.0).abs() < 1e-9);
        // k = 8: 11-11 has none; the latest before it is 11-10: 105.06 / 104 − 1 = 1.019…%.
        assert!((idx.change("essentials", "", d0, 8) - (105.06 / 104.0 - 1.0) * 100.0).abs() < 1e-9);
        assert_eq!(idx.change("essentials", "", d0, 30), 0.0, "nothing 30 days back");
        assert_eq!(idx.window("essentials", "", d0, 8).len(), 2, "11-12 and 11-19");
        assert_eq!(category_names("cooking_oil"), ("cooking-oil".into(), "Cooking Oil".into()));
    }

    #[test]
    fn snapshots_are_ordered_by_distance_from_100_then_name() {
        let idx = Indices::new(vec![
            row("essentials", "", "2026-11-19", 100.0),
            row("category", "dairy", "2026-11-19", 96.0),
            row("category", "bread", "2026-11-19", 104.0),
            row("category", "eggs", "2026-11-19", 101.0),
        ]);
        let cats = [("bread".into(), 1), ("dairy".into(), 3), ("eggs".into(), 1), ("water".into(), 1)];
        let s = category_snapshots(&idx, &cats, idx.d0().unwrap(), 7);
        let names: Vec<&str> = s.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["Bread", "Dairy", "Eggs", "Water"], "4 from 100 (by name), then 1, then 0");
        assert_eq!((s[3].current_index, s[3].coverage_pct, s[1].coverage_pct), (100.0, 0.0, 100.0));
    }
}
