//! Consumer prices response shapes (SUPPLEMENT 2.4.1–2.4.4). Each has the group's empty shape:
//! strings "" but the requested `marketCode` and `asOf` "0", numbers 0, lists [], and
//! `upstreamUnavailable: true`.

use poem_openapi::Object;
use serde::Serialize;

/// One basket category over a range (ListConsumerPriceCategories, the overview's top categories).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct CategorySnapshot {
    /// Lower-kebab (`cooking-oil`).
    pub slug: String,
    /// Title case (`Cooking Oil`).
    pub name: String,
    /// Change over 7 days when the range is 7d, else 0 (%, 1 dp).
    pub wow_pct: f64,
    /// Change over the range when it is longer than 7 days, else 0 (%, 1 dp).
    pub mom_pct: f64,
    /// The category index on the latest day (1 dp; 100 when undefined).
    pub current_index: f64,
    /// The daily category index over the range, oldest first (1 dp).
    pub sparkline: Vec<f64>,
    /// Priced items ÷ the category's basket items × 100 (1 dp).
    pub coverage_pct: f64,
    /// Basket items in the category.
    pub item_count: i32,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetConsumerPriceOverviewResponse {
    pub market_code: String,
    /// Publish time, epoch ms as a decimal string ("0" in the empty shape).
    pub as_of: String,
    pub currency_code: String,
    pub essentials_index: f64,
    pub value_basket_index: f64,
    pub wow_pct: f64,
    pub mom_pct: f64,
    pub retailer_spread_pct: f64,
    pub coverage_pct: f64,
    pub freshness_lag_min: i32,
    /// Categories over 7 days, at most 8, furthest from 100 first.
    pub top_categories: Vec<CategorySnapshot>,
    pub upstream_unavailable: bool,
}

/// One day of an index series.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct IndexPoint {
    /// YYYY-MM-DD (UTC).
    pub date: String,
    pub index: f64,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetConsumerPriceBasketSeriesResponse {
    pub market_code: String,
    pub basket_slug: String,
    pub as_of: String,
    pub currency_code: String,
    pub range: String,
    /// Every day of the range with a defined index, oldest first.
    pub essentials_series: Vec<IndexPoint>,
    pub value_series: Vec<IndexPoint>,
    pub upstream_unavailable: bool,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListConsumerPriceCategoriesResponse {
    pub market_code: String,
    pub as_of: String,
    pub range: String,
    pub categories: Vec<CategorySnapshot>,
    pub upstream_unavailable: bool,
}

/// One retailer's item price move over the range.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct PriceMover {
    /// `<retailer>:<item_id>`.
    pub product_id: String,
    /// The retailer's latest product title.
    pub title: String,
    /// The category slug.
    pub category: String,
    pub retailer_slug: String,
    /// %, 2 dp.
    pub change_pct: f64,
    /// 2 dp.
    pub current_price: f64,
    pub currency_code: String,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListConsumerPriceMoversResponse {
    pub market_code: String,
    pub as_of: String,
    pub range: String,
    /// Largest rises first.
    pub risers: Vec<PriceMover>,
    /// Largest falls first.
    pub fallers: Vec<PriceMover>,
    pub upstream_unavailable: bool,
}

/// The group's empty shape of each response, for a market.
pub trait EmptyShape: Default {
    fn empty(market: &str) -> Self;
}

macro_rules! empty_shape {
    ($($t:ty),*) => {$(
        impl EmptyShape for $t {
            fn empty(market: &str) -> Self {
                Self { market_code: market.to_string(), as_of: "0".into(), upstream_unavailable: true, ..Default::default() }
            }
        }
    )*};
}

empty_shape!(
    GetConsumerPriceOverviewResponse,
    GetConsumerPriceBasketSeriesResponse,
    ListConsumerPriceCategoriesResponse,
    ListConsumerPriceMoversResponse
);
