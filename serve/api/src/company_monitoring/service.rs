//! Company monitoring as the deployment runs it: its store, its settings and the runtime gate;
//! what the operations ask of it.

use sitrep_cm::{records::AccessState, settings::CmSettings, store::CmStore};
use sitrep_platform::kit::wire_name::WireName;
use sitrep_platform::{auth::Principal, kit::error::ApiError, state::Standing};

use super::{
    gate::RuntimeGate,
    model::{FeatureFlags, GetCompanyMonitoringStatusResponse},
};

/// Company monitoring's part of the API's context: its store, its settings and the runtime gate.
pub struct CompanyMonitoring {
    pub store: CmStore,
    pub settings: CmSettings,
    gate: RuntimeGate,
}

impl CompanyMonitoring {
    /// The group over `store` with `settings`, its gate evaluated once now.
    pub async fn new(store: CmStore, settings: CmSettings) -> Self {
        let cm = CompanyMonitoring { store, settings, gate: RuntimeGate::default() };
        cm.refresh_gate().await;
        cm
    }

    /// The runtime gate's last verdict.
    pub fn gate_is_open(&self) -> bool {
        self.gate.is_open()
    }

    /// Evaluates the runtime gate again (at start-up and every 60 s).
    pub async fn refresh_gate(&self) {
        let schema_current = self.store.schema_current().await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "company monitoring: schema version unreadable");
            false
        });
        self.gate.set(self.settings.gate(schema_current));
    }

    /// GetCompanyMonitoringStatus's fields for `principal`, from the table of 4.1.
    pub(super) async fn status(&self, principal: &Principal) -> Result<GetCompanyMonitoringStatusResponse, ApiError> {
        if !self.gate.is_open() {
            return Ok(GetCompanyMonitoringStatusResponse {
                access_state: WireName(AccessState::Disabled),
                company_count: 0,
                company_limit: 0,
                snapshot_generation: "0".into(),
                feature_flags: FeatureFlags::default(),
            });
        }
        let flags = FeatureFlags::from(self.settings.effective_flags());
        if !principal.plan.has_company_monitoring() {
            return Ok(GetCompanyMonitoringStatusResponse {
                access_state: WireName(AccessState::Denied),
                company_count: 0,
                company_limit: 0,
                snapshot_generation: "0".into(),
                feature_flags: flags,
            });
        }
        let account = principal.account_id.as_str();
        let (count, generation) = (self.store.company_count(account).await, self.store.generation(account).await);
        let state =
            if principal.standing == Standing::Lapsed { AccessState::EntitlementLapsed } else { AccessState::Entitled };
        Ok(GetCompanyMonitoringStatusResponse {
            access_state: WireName(state),
            company_count: i32::try_from(count.map_err(ApiError::internal)?).unwrap_or(i32::MAX),
            company_limit: i32::try_from(self.settings.company_limit(principal.plan.tier())).unwrap_or(i32::MAX),
            snapshot_generation: generation.map_err(ApiError::internal)?.to_string(),
            feature_flags: flags,
        })
    }
}
