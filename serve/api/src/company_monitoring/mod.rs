//! The Company monitoring group (API.md 2.6, 4.5; SUPPLEMENT Part 4) over `sitrep-cm`: the
//! runtime gate and access states of 4.1, and the operations as they land.

mod gate;
mod model;
pub mod service;

use poem::Request;
use std::{
    sync::{Arc, Weak},
    time::Duration,
};

use sitrep_platform::{
    answered_by,
    app_state::AppState,
    auth::Principal,
    edge::rate_limit::Policy,
    kit::{
        answer::{account_get, Answer},
        error::ApiError,
        parse::parse_with,
    },
    registry::{Access, Group, Operation},
};

use model::GetCompanyMonitoringStatusResponse;
pub use service::CompanyMonitoring;

pub static GROUP: Group = Group {
    tag: "Company monitoring",
    description: "Account-scoped monitored companies, coverage, material event impacts, change polling.",
    operations: &[&GET_COMPANY_MONITORING_STATUS],
};

pub static GET_COMPANY_MONITORING_STATUS: Operation = Operation {
    id: "GetCompanyMonitoringStatus",
    path: "/api/company-monitoring/v1/get-company-monitoring-status",
    summary: "The caller's access state, company count and limit, snapshot generation and feature flags.",
    access: Access::CmStatus,
    rate: Policy::Default,
    batchable: false,
    answer: answered_by!(GetCompanyMonitoringStatusResponse, get_status),
    ..Operation::GET
};

fn company_monitoring(state: &AppState) -> &CompanyMonitoring {
    &crate::context(state).company_monitoring
}

async fn get_status(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<GetCompanyMonitoringStatusResponse> {
    let parsed = match parse_with::<GetCompanyMonitoringStatusResponse, _>(req, op, |_, _| ()) {
        Ok(parsed) => parsed,
        Err(e) => return e.into(),
    };
    // The edge admits this operation only with a credential, and keeps its principal here.
    let Some(principal) = req.extensions().get::<Principal>() else {
        return ApiError::internal("GetCompanyMonitoringStatus reached without a principal").into();
    };
    match company_monitoring(state).status(principal).await {
        Ok(status) => account_get(req, parsed.jmespath.as_deref(), &status),
        Err(e) => e.into(),
    }
}

/// Re-evaluates the runtime gate of `state`'s company monitoring every 60 s while the state lives.
pub fn spawn_gate_refresh(state: &Arc<AppState>) -> tokio::task::JoinHandle<()> {
    let state: Weak<AppState> = Arc::downgrade(state);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(60));
        tick.tick().await;
        loop {
            tick.tick().await;
            let Some(state) = state.upgrade() else { return };
            company_monitoring(&state).refresh_gate().await;
        }
    })
}
