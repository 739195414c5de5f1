//! Records shared by several groups' responses (SUPPLEMENT 2.1.0 "Shared records"): declared once,
//! so the OpenAPI document has one schema of each name.

use poem_openapi::Object;
use serde::Serialize;

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GeoCoordinates {
    pub latitude: f64,
    pub longitude: f64,
}
