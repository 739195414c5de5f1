//! Climate response shapes (SUPPLEMENT 2.2), as the API emits them.

use poem_openapi::Object;
use serde::Serialize;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_schemas::climate::{
    AnomalySeverity, AnomalyType, ArcticTrend, DisasterSeverity, DisasterSource, DisasterStatus, DisasterType,
    RiskLevel,
};

/// One month of the CO₂ trend.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Co2TrendPoint {
    /// YYYY-MM.
    pub month: String,
    pub ppm: f64,
    /// Against the same month a year earlier (0 when that month is unknown).
    pub anomaly: f64,
}

/// Greenhouse-gas monitoring (2.2.3).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Co2Monitoring {
    /// Latest daily mean at Mauna Loa.
    pub current_ppm: f64,
    /// The same calendar day a year earlier (else the closest day of that year).
    pub year_ago_ppm: f64,
    /// Last global annual mean minus the one before.
    pub annual_growth_rate: f64,
    pub pre_industrial_baseline: f64,
    pub monthly_average: f64,
    /// The last 12 monthly means.
    pub trend12m: Vec<Co2TrendPoint>,
    /// Latest global monthly means.
    pub methane_ppb: f64,
    pub nitrous_oxide_ppb: f64,
    /// UTC midnight of the latest daily value, epoch ms as a decimal string.
    pub measured_at: String,
    pub station: String,
}

/// GetCo2Monitoring: `{}` until the dataset is published.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetCo2MonitoringResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monitoring: Option<Co2Monitoring>,
}

/// One station's latest PM2.5 (2.2.5).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AirQualityStation {
    pub city: String,
    pub country_code: String,
    /// 4 dp.
    pub lat: f64,
    /// 4 dp.
    pub lng: f64,
    /// µg/m³, 1 dp.
    pub pm25: f64,
    /// US EPA PM2.5 AQI, 0–500.
    pub aqi: i32,
    /// AirQualityRiskLevel (≤ 50 good, ≤ 100 moderate, ≤ 300 unhealthy, else hazardous).
    pub risk_level: WireName<RiskLevel>,
    /// "pm25".
    pub pollutant: String,
    pub measured_at: i64,
    /// "OpenAQ".
    pub source: String,
}

/// ListAirQualityData: AQI descending, then newest.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListAirQualityDataResponse {
    pub stations: Vec<AirQualityStation>,
    /// When the readings were fetched (epoch ms; 0 before the first publication).
    pub fetched_at: i64,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ClimateNewsItem {
    /// First 16 hex of SHA-256 of the URL, `-`, publishedAt.
    pub id: String,
    pub title: String,
    pub url: String,
    pub source_name: String,
    /// Plain text, at most 300 characters ("" for ReliefWeb reports).
    pub summary: String,
    pub published_at: i64,
}

/// ListClimateNews (2.2.6): newest first, at most 100.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListClimateNewsResponse {
    pub items: Vec<ClimateNewsItem>,
    /// When the feeds were read (epoch ms; 0 before the first publication).
    pub fetched_at: i64,
    /// True once a generation of the dataset exists.
    pub data_available: bool,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct IceMonth {
    /// YYYY-MM.
    pub month: String,
    pub extent_mkm2: f64,
    /// Against the 1981–2010 median of that day of year (2 dp).
    pub anomaly_mkm2: f64,
}

/// Ocean and ice indicators (2.2.4). A value whose source has never answered is absent.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct OceanIceData {
    /// Latest daily Arctic sea-ice extent, 10⁶ km².
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arctic_extent_mkm2: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arctic_extent_anomaly_mkm2: Option<f64>,
    /// ArcticTrend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arctic_trend: Option<WireName<ArcticTrend>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sea_level_mm_above1993: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sea_level_annual_rise_mm: Option<f64>,
    /// Ocean heat content 0–700 m, zettajoules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ohc0700m_zj: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sst_anomaly_c: Option<f64>,
    /// The latest of the sea-ice day, the heat content's mid-year and the temperature's month (ms).
    pub measured_at: i64,
    pub ice_trend12m: Vec<IceMonth>,
}

/// GetOceanIceData: `{}` until the dataset is published.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetOceanIceDataResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<OceanIceData>,
}

pub use crate::records::GeoCoordinates;
pub use sitrep_platform::kit::paged_list::Pagination;

/// One zone's anomaly over its last 7 valid days (2.2.1).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ClimateAnomaly {
    pub zone: String,
    pub location: GeoCoordinates,
    /// Mean temperature minus the 1991–2020 normal of the month, °C, 1 dp.
    pub temp_delta: f64,
    /// Mean daily precipitation minus the normal, mm/day, 1 dp.
    pub precip_delta: f64,
    /// AnomalySeverity.
    pub severity: WireName<AnomalySeverity>,
    /// AnomalyType.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: WireName<AnomalyType>,
    /// `<first date> to <last date>` of the days averaged.
    pub period: String,
}

/// ListClimateAnomalies: zones in the documented order.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListClimateAnomaliesResponse {
    pub anomalies: Vec<ClimateAnomaly>,
    pub pagination: Pagination,
}

/// One current disaster (2.2.2).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ClimateDisaster {
    /// `reliefweb-…`, `gdacs-<type>-<id>` or `eonet-…`.
    pub id: String,
    /// ClimateDisasterType.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: WireName<DisasterType>,
    pub name: String,
    /// English name; "" outside every country.
    pub country: String,
    /// ISO 3166-1 alpha-2; "" outside every country.
    pub country_code: String,
    pub lat: f64,
    pub lng: f64,
    /// ClimateDisasterSeverity (red, orange or green from GDACS and EONET; high or medium from ReliefWeb).
    pub severity: WireName<DisasterSeverity>,
    /// Epoch ms.
    pub started_at: i64,
    /// ClimateDisasterStatus.
    pub status: WireName<DisasterStatus>,
    /// 0 when unknown.
    pub affected_population: i64,
    /// ClimateDisasterSource.
    pub source: WireName<DisasterSource>,
    pub source_url: String,
}

/// ListClimateDisasters: newest first.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListClimateDisastersResponse {
    pub disasters: Vec<ClimateDisaster>,
    pub pagination: Pagination,
}
