//! Company monitoring's response shapes (SUPPLEMENT 4.3). Enums are their full wire names.

use poem_openapi::Object;
use serde::Serialize;
use sitrep_cm::{
    records::{
        AccessState, AllowedUse, AuthorityTier, Channel, ClaimType, CoverageState, Direction, Domicile,
        ImpactLifecycle, ImportOutcome, Lifecycle, Magnitude, ObservationState, PollState, Provenance, Provider,
        ProviderCoverage as ProviderCoverageState, TrustState,
    },
    settings::Flags,
};

use sitrep_platform::kit::wire_name::WireName;

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

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetCompanyMonitoringStatusResponse {
    /// CompanyMonitoringAccessState (`COMPANY_MONITORING_ACCESS_STATE_ENTITLED`, …).
    pub access_state: WireName<AccessState>,
    pub company_count: i32,
    pub company_limit: i32,
    /// int64 as a decimal string.
    pub snapshot_generation: String,
    pub feature_flags: FeatureFlags,
}

/// A claim (SUPPLEMENT 4.3).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Claim {
    pub claim_id: String,
    /// CompanyClaimType.
    #[serde(rename = "type")]
    #[oai(rename = "type")]
    pub kind: WireName<ClaimType>,
    pub value: String,
    /// CompanyClaimProvenance.
    pub provenance: WireName<Provenance>,
    /// CompanyClaimTrustState.
    pub trust_state: WireName<TrustState>,
    /// CompanyClaimAllowedUse values (at most 3).
    pub allowed_uses: Vec<WireName<AllowedUse>>,
    /// ISO 8601; "" when the claim does not expire.
    pub expires_at: String,
}

/// A monitored company (SUPPLEMENT 4.3).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct MonitoredCompany {
    pub company_id: String,
    pub name: String,
    /// DomicileCountry.
    pub domicile_country: WireName<Domicile>,
    /// MonitoredCompanyLifecycle.
    pub lifecycle: WireName<Lifecycle>,
    pub claims: Vec<Claim>,
    /// CompanyCoverageState.
    pub coverage: WireName<CoverageState>,
    /// CompanyObservationState.
    pub observation: WireName<ObservationState>,
    pub created_at: String,
    pub updated_at: String,
    /// `{site_url}/company-monitoring/companies/<companyId>`.
    pub canonical_url: String,
}

/// CreateMonitoredCompany's and UpdateMonitoredCompany's answer.
#[derive(Debug, Clone, Serialize, Object)]
pub struct CompanyResponse {
    pub company: MonitoredCompany,
}

/// One row's outcome (SUPPLEMENT 4.5).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ImportRowResult {
    pub ordinal: i32,
    /// CompanyImportRowOutcome.
    pub outcome: WireName<ImportOutcome>,
    /// "" when none.
    pub company_id: String,
    /// "" when none.
    pub reason_code: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ImportMonitoredCompanyBatchResponse {
    pub created_count: i32,
    pub rejected_count: i32,
    pub replayed_count: i32,
    pub results: Vec<ImportRowResult>,
}

/// The signed boundary a listing was read at (SUPPLEMENT 4.3).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Snapshot {
    pub snapshot_as_of: String,
    /// int64 as a decimal string.
    pub snapshot_generation: String,
    /// The cursor to poll ListCompanyEventChanges with.
    pub poll_cursor: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListMonitoredCompaniesResponse {
    pub companies: Vec<MonitoredCompany>,
    /// "" after the last page.
    pub next_cursor: String,
    pub snapshot: Snapshot,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct SetMonitoredCompanyStateResponse {
    pub company: MonitoredCompany,
    /// Whether the call moved the account's snapshot generation on (lists must be read again).
    pub snapshot_required: bool,
}

/// One provider's part of a company's coverage (SUPPLEMENT 4.9).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ProviderCoverage {
    /// MonitoringProvider.
    pub provider: WireName<Provider>,
    /// ProviderCoverageState.
    pub state: WireName<ProviderCoverageState>,
    pub capped: bool,
    pub fresh: bool,
    pub returned_window_start: String,
    pub returned_window_end: String,
    pub reason_code: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct CoverageRecord {
    /// CompanyCoverageState.
    pub state: WireName<CoverageState>,
    /// CompanyObservationState.
    pub observation: WireName<ObservationState>,
    /// At most one entry per provider; none before the first scan.
    pub providers: Vec<ProviderCoverage>,
    pub assessment_ready: bool,
    pub changed_at: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetCompanyCoverageResponse {
    pub company_id: String,
    pub coverage: CoverageRecord,
}

/// The confidence axes of an impact (numbers in [0, 1]; overall is the least of the three).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ImpactConfidence {
    pub attribution: f64,
    pub occurrence_truth: f64,
    pub material_impact: f64,
    pub overall: f64,
}

/// A material event's impact on a company, its current revision (SUPPLEMENT 4.3).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Impact {
    pub impact_id: String,
    pub event_id: String,
    pub company_id: String,
    pub event_revision: i64,
    pub impact_revision: i64,
    /// Always true: only current revisions are shown.
    pub is_current: bool,
    /// MaterialImpactDirection.
    pub direction: WireName<Direction>,
    /// MaterialImpactChannel values (at most 2).
    pub channels: Vec<WireName<Channel>>,
    /// MaterialImpactMagnitude.
    pub magnitude: WireName<Magnitude>,
    pub confidence: ImpactConfidence,
    pub rationale: String,
    /// MaterialImpactLifecycle.
    pub lifecycle: WireName<ImpactLifecycle>,
    pub occurred_at: String,
    pub changed_at: String,
    /// How many evidence references GetCompanyMaterialEvent shows (0–20).
    pub evidence_reference_count: i32,
    pub evidence_total_count: i32,
    pub evidence_truncated: bool,
    /// The event's canonical URL.
    pub canonical_url: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListCompanyEventImpactsResponse {
    pub impacts: Vec<Impact>,
    /// "" after the last page.
    pub next_cursor: String,
    pub snapshot: Snapshot,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListCompanyEventChangesResponse {
    pub impacts: Vec<Impact>,
    /// The cursor to poll with next ("" only with SNAPSHOT_REQUIRED).
    pub next_cursor: String,
    /// CompanyEventPollState.
    pub poll_state: WireName<PollState>,
}

/// A material event (SUPPLEMENT 4.3).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct MaterialEvent {
    pub event_id: String,
    pub revision: i64,
    /// MaterialImpactLifecycle.
    pub lifecycle: WireName<ImpactLifecycle>,
    pub title: String,
    pub summary: String,
    pub occurred_at: String,
    pub category: String,
    /// The URL of the highest-tier evidence, earliest on ties.
    pub canonical_url: String,
}

/// An item of evidence (SUPPLEMENT 4.3).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct EvidenceReference {
    pub evidence_id: String,
    /// MonitoringProvider.
    pub provider: WireName<Provider>,
    pub source_id: String,
    pub canonical_url: String,
    pub publisher: String,
    /// "" when unknown.
    pub published_at: String,
    /// EvidenceAuthorityTier.
    pub authority_tier: WireName<AuthorityTier>,
    pub excerpt: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetCompanyMaterialEventResponse {
    pub event: MaterialEvent,
    pub impact: Impact,
    /// At most 20, by authority tier then latest published.
    pub evidence: Vec<EvidenceReference>,
    pub evidence_total_count: i32,
    pub evidence_truncated: bool,
}
