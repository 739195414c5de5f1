//! Response shapes of the Conflict group (SUPPLEMENT 2.3): complete field lists, camelCase JSON.
//! `Object` documents them; `Serialize` renders them, with the same names.

use std::collections::BTreeMap;

use poem_openapi::Object;
use serde::Serialize;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_schemas::conflict::UcdpViolenceType;

pub use crate::records::GeoCoordinates;
pub use sitrep_platform::kit::paged_list::Pagination;

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ArmedConflictEvent {
    pub id: String,
    pub event_type: String,
    /// ACLED country name.
    pub country: String,
    pub location: GeoCoordinates,
    /// UTC midnight of the event date, epoch ms.
    pub occurred_at: i64,
    pub fatalities: i32,
    pub actors: Vec<String>,
    pub source: String,
    pub admin1: String,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListArmedEventsResponse {
    pub events: Vec<ArmedConflictEvent>,
    pub pagination: Pagination,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct UcdpViolenceEvent {
    pub id: String,
    pub date_start: i64,
    /// Epoch ms; 0 when the upstream date is invalid.
    pub date_end: i64,
    pub location: GeoCoordinates,
    /// UCDP country name.
    pub country: String,
    pub side_a: String,
    pub side_b: String,
    pub deaths_best: i32,
    pub deaths_low: i32,
    pub deaths_high: i32,
    /// UcdpViolenceType.
    pub violence_type: WireName<UcdpViolenceType>,
    pub source_original: String,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListViolenceEventsResponse {
    pub events: Vec<UcdpViolenceEvent>,
    pub pagination: Pagination,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct HumanitarianSummary {
    pub country_code: String,
    pub country_name: String,
    pub conflict_events_total: i64,
    pub conflict_political_violence_events: i64,
    pub conflict_fatalities: i64,
    pub conflict_demonstrations: i64,
    /// First day of the reference period, YYYY-MM-DD.
    pub reference_period: String,
    /// Ingest time, epoch ms.
    pub updated_at: i64,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetHumanitarianSummaryResponse {
    /// Absent (`{}`) when the country has no data.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[oai(skip_serializing_if_is_none)]
    pub summary: Option<HumanitarianSummary>,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetHumanitarianSummaryBatchResponse {
    pub requested: i32,
    pub fetched: i32,
    pub results: BTreeMap<String, HumanitarianSummary>,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct IranEvent {
    pub id: String,
    pub title: String,
    pub category: String,
    pub source_url: String,
    pub latitude: f64,
    pub longitude: f64,
    pub location_name: String,
    /// Epoch ms as a decimal string.
    pub timestamp: String,
    pub severity: String,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListIranEventsResponse {
    pub events: Vec<IranEvent>,
    /// Export time, epoch ms as a decimal string; "0" when disabled or never fetched.
    pub scraped_at: String,
}
