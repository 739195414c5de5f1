//! The Climate datasets: their descriptors and Arrow schemas (SUPPLEMENT 2.2).

use std::{sync::OnceLock, time::Duration};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::content_clock::{days, ContentClock};
use crate::{
    descriptor::{DatasetDescriptor, Partitioning},
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
    row_key: &["row_kind", "month"],
    content_clock: ContentClock::Column { column: "measured_at", frozen_after: days(7) },
    schema: co2_monitoring_schema,
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
    row_key: &["lat", "lng", "city"],
    content_clock: ContentClock::Column { column: "measured_at", frozen_after: days(2) },
    schema: air_quality_schema,
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
    row_key: &["url"],
    content_clock: ContentClock::Column { column: "published_at", frozen_after: days(3) },
    schema: climate_news_schema,
};

/// GetOceanIceData's material (2.2.4) from four independent sources, as rows of three kinds:
/// - `row_kind = 'summary'`: one row — every value, with the time each source's value describes;
/// - `row_kind = 'ice_month'`: the last 12 months of Arctic sea-ice extent against the median;
/// - `row_kind = 'source'`: one per source (`nsidc`, `nasa-sea-level`, `ncei-ohc`, `noaa-sst`) —
///   `status` (`ok`, `reused`, `failed`) and `message`; a failed source's values are the previous
///   version's.
pub fn ocean_ice_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("row_kind"),
            Field::new("position", DataType::Int32, false),
            float64_or_null("arctic_extent_mkm2"),
            float64_or_null("arctic_extent_anomaly_mkm2"),
            utf8_or_null("arctic_trend"),
            instant("ice_measured_at", true),
            float64_or_null("sea_level_mm_above_1993"),
            float64_or_null("sea_level_annual_rise_mm"),
            float64_or_null("ohc_0700m_zj"),
            instant("ohc_measured_at", true),
            float64_or_null("sst_anomaly_c"),
            instant("sst_measured_at", true),
            utf8_or_null("month"),
            float64_or_null("extent_mkm2"),
            float64_or_null("anomaly_mkm2"),
            utf8_or_null("source"),
            utf8_or_null("status"),
            utf8_or_null("message"),
        ])
    })
}

/// `ocean-ice`: NSIDC sea ice, NASA sea level, NCEI ocean heat content, NOAA ocean temperature, daily.
pub static OCEAN_ICE: DatasetDescriptor = DatasetDescriptor {
    id: "ocean-ice",
    table: "ocean_ice",
    group: "climate",
    provider: "NSIDC, NASA, NOAA NCEI",
    license: "public domain (US government) / NSIDC terms",
    cadence: Duration::from_secs(24 * 3600),
    cron: "0 45 3 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "row_kind, position",
    row_key: &["row_kind", "month", "source"],
    content_clock: ContentClock::Column { column: "ice_measured_at", frozen_after: days(7) },
    schema: ocean_ice_schema,
};

/// The 1991–2020 monthly normals of every anomaly zone (2.2.1): per zone (in zone order,
/// `position`) and calendar month, the mean over years of the per-(year, month) mean of daily
/// values, to 2 dp. ListClimateAnomalies' baseline; refreshed every 30 days.
pub fn climate_normals_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            Field::new("position", DataType::Int32, false),
            utf8("zone"),
            Field::new("month", DataType::Int32, false),
            Field::new("temperature_c", DataType::Float64, false),
            Field::new("precipitation_mm", DataType::Float64, false),
        ])
    })
}

/// `climate-normals`: Open-Meteo's ERA5 archive over 1991–2020, every 30 days.
pub static CLIMATE_NORMALS: DatasetDescriptor = DatasetDescriptor {
    id: "climate-normals",
    table: "climate_normals",
    group: "climate",
    provider: "Open-Meteo (ERA5 reanalysis, Copernicus)",
    license: "CC BY 4.0 (Open-Meteo; ERA5 by Copernicus)",
    cadence: Duration::from_secs(30 * 24 * 3600),
    cron: "0 20 2 1 * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "position, month",
    row_key: &["zone", "month"],
    content_clock: ContentClock::Static,
    schema: climate_normals_schema,
};

/// ListClimateAnomalies' anomalies (2.2.1) in zone order (`position`): the last 7 valid days of
/// each zone against its monthly normal, classified.
pub fn climate_anomalies_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            Field::new("position", DataType::Int32, false),
            utf8("zone"),
            Field::new("lat", DataType::Float64, false),
            Field::new("lng", DataType::Float64, false),
            Field::new("temp_delta", DataType::Float64, false),
            Field::new("precip_delta", DataType::Float64, false),
            utf8("severity"),
            utf8("type"),
            utf8("period"),
        ])
    })
}

/// `climate-anomalies`: Open-Meteo's ERA5 archive, the last 21 days of 25 zones, every 3 hours.
pub static CLIMATE_ANOMALIES: DatasetDescriptor = DatasetDescriptor {
    id: "climate-anomalies",
    table: "climate_anomalies",
    group: "climate",
    provider: "Open-Meteo (ERA5 reanalysis, Copernicus)",
    license: "CC BY 4.0 (Open-Meteo; ERA5 by Copernicus)",
    cadence: Duration::from_secs(3 * 3600),
    cron: "0 25 */3 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "position",
    row_key: &["zone"],
    content_clock: ContentClock::Hash { frozen_after: days(2) },
    schema: climate_anomalies_schema,
};

/// ListClimateDisasters' disasters (2.2.2) in the API's order (`position`: newest first, then
/// id), at most 300: ReliefWeb, GDACS and EONET merged and de-duplicated by source priority.
pub fn climate_disasters_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            Field::new("position", DataType::Int32, false),
            utf8("id"),
            utf8("type"),
            utf8("name"),
            utf8("country"),
            utf8("country_code"),
            Field::new("lat", DataType::Float64, false),
            Field::new("lng", DataType::Float64, false),
            utf8("severity"),
            instant("started_at", false),
            utf8("status"),
            Field::new("affected_population", DataType::Int64, false),
            utf8("source"),
            utf8("source_url"),
        ])
    })
}

/// `climate-disasters`: ReliefWeb, NASA EONET and GDACS, merged every 3 hours (EONET and GDACS
/// are fetched on each run; SUPPLEMENT's 6 h is the merge's freshness horizon).
pub static CLIMATE_DISASTERS: DatasetDescriptor = DatasetDescriptor {
    id: "climate-disasters",
    table: "climate_disasters",
    group: "climate",
    provider: "ReliefWeb (OCHA), NASA EONET, GDACS (EC JRC / UN OCHA)",
    license: "ReliefWeb terms; NASA EONET public domain; GDACS terms (attribution)",
    cadence: Duration::from_secs(6 * 3600),
    cron: "0 35 */3 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "position",
    row_key: &["id"],
    content_clock: ContentClock::Column { column: "started_at", frozen_after: days(7) },
    schema: climate_disasters_schema,
};

crate::closed_set!(
    /// A climate anomaly's severity (2.2.1): by how far the week's means left the normals.
    AnomalySeverity,
    "AnomalySeverity",
    [
        Normal = "ANOMALY_SEVERITY_NORMAL",
        Moderate = "ANOMALY_SEVERITY_MODERATE",
        Extreme = "ANOMALY_SEVERITY_EXTREME",
    ]
);

crate::closed_set!(
    /// A climate anomaly's type (2.2.1).
    AnomalyType,
    "AnomalyType",
    [
        Warm = "ANOMALY_TYPE_WARM",
        Cold = "ANOMALY_TYPE_COLD",
        Wet = "ANOMALY_TYPE_WET",
        Dry = "ANOMALY_TYPE_DRY",
        Mixed = "ANOMALY_TYPE_MIXED",
    ]
);

crate::closed_set!(
    /// A disaster's type (2.2.2): every upstream's categories mapped to these six.
    DisasterType,
    "ClimateDisasterType",
    [
        Flood = "flood",
        Cyclone = "cyclone",
        Drought = "drought",
        Heatwave = "heatwave",
        Wildfire = "wildfire",
        Volcano = "volcano",
    ]
);

crate::closed_set!(
    /// A disaster's severity (2.2.2): GDACS's alert colours (EONET's events are green), ReliefWeb's two levels.
    DisasterSeverity,
    "ClimateDisasterSeverity",
    [Red = "red", Orange = "orange", Green = "green", High = "high", Medium = "medium"]
);

crate::closed_set!(
    /// A disaster's status (2.2.2).
    DisasterStatus,
    "ClimateDisasterStatus",
    [Alert = "alert", Ongoing = "ongoing", Past = "past"]
);

crate::closed_set!(
    /// The upstreams of `climate-disasters`, in de-duplication priority order.
    DisasterSource,
    "ClimateDisasterSource",
    [ReliefWeb = "ReliefWeb", Gdacs = "GDACS", Eonet = "EONET"]
);

crate::closed_set!(
    /// An air-quality station's risk level (2.2.4), from its AQI.
    RiskLevel,
    "AirQualityRiskLevel",
    [Good = "good", Moderate = "moderate", Unhealthy = "unhealthy", Hazardous = "hazardous"]
);

crate::closed_set!(
    /// Where the latest Arctic sea-ice extent stands (2.2.6).
    ArcticTrend,
    "ArcticTrend",
    [RecordLow = "record_low", BelowAverage = "below_average", Average = "average", AboveAverage = "above_average"]
);
