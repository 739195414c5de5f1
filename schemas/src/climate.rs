//! The Climate datasets: their descriptors and Arrow schemas (SUPPLEMENT 2.2).

use std::{sync::OnceLock, time::Duration};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::{
    dataset::{DatasetDescriptor, Partitioning},
    fields::{cached, float64_or_null, instant, utf8, utf8_or_null},
};

/// GetCo2Monitoring's material (2.2.3), computed at ingest from NOAA GML's five text files, as
/// rows of two kinds:
/// - `row_kind = 'summary'`: one row — the latest daily Mauna Loa value and the day it was
///   measured, the value a year earlier, the annual growth, the month's average, the latest
///   global methane and nitrous oxide;
/// - `row_kind = 'trend'`: the last 12 monthly means (`month` `YYYY-MM`) with the anomaly against
///   the same month a year earlier, in `position` order.
pub fn co2_monitoring_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("row_kind"),
            Field::new("position", DataType::Int32, false),
            float64_or_null("current_ppm"),
            float64_or_null("year_ago_ppm"),
            float64_or_null("annual_growth_rate"),
            float64_or_null("pre_industrial_baseline"),
            float64_or_null("monthly_average"),
            float64_or_null("methane_ppb"),
            float64_or_null("nitrous_oxide_ppb"),
            instant("measured_at", true),
            utf8_or_null("station"),
            utf8_or_null("month"),
            float64_or_null("ppm"),
            float64_or_null("anomaly"),
        ])
    })
}

/// `co2-monitoring`: NOAA GML's CO₂ (Mauna Loa daily and monthly, global annual), CH₄ and N₂O
/// (global monthly), daily.
pub static CO2_MONITORING: DatasetDescriptor = DatasetDescriptor {
    id: "co2-monitoring",
    table: "co2_monitoring",
    group: "climate",
    provider: "NOAA Global Monitoring Laboratory",
    license: "public domain (NOAA)",
    cadence: Duration::from_secs(24 * 3600),
    cron: "0 15 3 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "row_kind, position",
    schema: co2_monitoring_schema,
    operations: &["GetCo2Monitoring"],
};

/// ListAirQualityData's stations (2.2.5), in the API's order (AQI descending, then newest): the
/// freshest PM2.5 reading per OpenAQ location of the last two hours, with its US EPA AQI.
pub fn air_quality_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            Field::new("position", DataType::Int32, false),
            utf8("city"),
            utf8("country_code"),
            Field::new("lat", DataType::Float64, false),
            Field::new("lng", DataType::Float64, false),
            Field::new("pm25", DataType::Float64, false),
            Field::new("aqi", DataType::Int32, false),
            utf8("risk_level"),
            utf8("pollutant"),
            instant("measured_at", false),
            utf8("source"),
        ])
    })
}

/// `air-quality`: OpenAQ v3 PM2.5 (locations and latest values), hourly.
pub static AIR_QUALITY: DatasetDescriptor = DatasetDescriptor {
    id: "air-quality",
    table: "air_quality",
    group: "climate",
    provider: "OpenAQ",
    license: "CC BY 4.0 (OpenAQ; each provider's own terms apply)",
    cadence: Duration::from_secs(3600),
    cron: "0 5 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "position",
    schema: air_quality_schema,
    operations: &["ListAirQualityData"],
};

/// ListClimateNews's items (2.2.6): eight climate feeds and ReliefWeb's disaster reports, one row
/// per URL, newest first (`position`), at most 100.
pub fn climate_news_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            Field::new("position", DataType::Int32, false),
            utf8("id"),
            utf8("title"),
            utf8("url"),
            utf8("source_name"),
            utf8("summary"),
            instant("published_at", false),
        ])
    })
}

/// `climate-news`: the climate feeds and ReliefWeb reports, every 30 minutes.
pub static CLIMATE_NEWS: DatasetDescriptor = DatasetDescriptor {
    id: "climate-news",
    table: "climate_news",
    group: "climate",
    provider: "8 climate RSS/Atom feeds, ReliefWeb",
    license: "publisher-terms",
    cadence: Duration::from_secs(30 * 60),
    cron: "0 */30 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "position",
    schema: climate_news_schema,
    operations: &["ListClimateNews"],
};
