//! Company monitoring's response shapes (SUPPLEMENT 4.3). Enums are their full wire names.

use poem_openapi::Object;
use serde::Serialize;
use sitrep_cm::settings::Flags;

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct FeatureFlags {
    pub alerts: bool,
    pub publication: bool,
    pub rest_writes: bool,
    pub search_provider: bool,
    pub ui: bool,
}

impl From<Flags> for FeatureFlags {
    fn from(f: Flags) -> Self {
        FeatureFlags {
            alerts: f.alerts,
            publication: f.publication,
            rest_writes: f.rest_writes,
            search_provider: f.search_provider,
            ui: f.ui,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetCompanyMonitoringStatusResponse {
    /// CompanyMonitoringAccessState (`COMPANY_MONITORING_ACCESS_STATE_ENTITLED`, …).
    pub access_state: String,
    pub company_count: i32,
    pub company_limit: i32,
    /// int64 as a decimal string.
    pub snapshot_generation: String,
    pub feature_flags: FeatureFlags,
}
