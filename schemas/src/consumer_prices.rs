//! The Consumer prices dataset (SUPPLEMENT 2.4): the retail basket observations feed and the
//! basket configs it is read against, in one version, so every derived answer (indices, series,
//! categories, movers) is a function of that version alone.

use std::{sync::OnceLock, time::Duration};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::content_clock::{days, ContentClock};
use crate::{
    descriptor::{DatasetDescriptor, Partitioning},
    fields::{cached, date_or_null, float64_or_null, instant, int32_or_null, utf8, utf8_or_null},
};

/// Rows of four kinds (`row_kind`):
/// - `market`: one per configured market — `currency`, `basket_slug`, `base_date`, and
///   `freshness_lag_min` computed at publish time;
/// - `item`: one per basket item — `item_id`, `item_name` (the basket's), `category`, `weight`
///   (normalised to sum 1 per market);
/// - `observation`: one per accepted feed row — `retailer`, `item_id`, `item_name` (the
///   retailer's title), `category` (the basket's), `unit`, `price`, `currency`, `observed_at`;
/// - `feed`: one per run — `rows_read`, `rows_rejected`, `rows_ignored` (items outside the basket).
pub fn consumer_prices_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("row_kind"),
            utf8("market_code"),
            utf8_or_null("retailer"),
            utf8_or_null("item_id"),
            utf8_or_null("item_name"),
            utf8_or_null("category"),
            float64_or_null("weight"),
            utf8_or_null("unit"),
            float64_or_null("price"),
            utf8_or_null("currency"),
            instant("observed_at", true),
            utf8_or_null("basket_slug"),
            date_or_null("base_date"),
            int32_or_null("freshness_lag_min"),
            Field::new("rows_read", DataType::Int64, true),
            Field::new("rows_rejected", DataType::Int64, true),
            Field::new("rows_ignored", DataType::Int64, true),
        ])
    })
}

/// `consumer-prices`: our retail basket observations feed, checked hourly; an unchanged feed
/// publishes no new version (the content hash), a changed one recomputes every derived view.
pub static CONSUMER_PRICES: DatasetDescriptor = DatasetDescriptor {
    id: "consumer-prices",
    table: "consumer_prices",
    group: "consumer-prices",
    provider: "sitrep retail basket observations feed",
    license: "proprietary (our feed)",
    cadence: Duration::from_secs(3600),
    cron: "0 10 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "row_kind, market_code, retailer, item_id, observed_at",
    row_key: &["row_kind", "market_code", "retailer", "item_id", "observed_at"],
    content_clock: ContentClock::Column { column: "observed_at", frozen_after: days(3) },
    schema: consumer_prices_schema,
};
