//! The Company monitoring group (API.md 2.6, 4.5; SUPPLEMENT Part 4) over `sitrep-cm`: the
//! runtime gate and access states of 4.1, and the operations as they land.

mod body;
mod changes;
mod company_list;
mod errors;
mod gate;
mod impact_list;
mod listing;
mod material_event;
pub(crate) mod model;
pub(crate) mod records;
pub mod service;

use sitrep_platform::kit::wire_name::WireName;
use std::{
    sync::{Arc, Weak},
    time::Duration,
};

use poem::Request;
use sitrep_cm::{
    ids::Kind,
    records::{ImportOutcome, Lifecycle},
    store::{Created, LifecycleChange, Updated},
};
use sitrep_platform::{
    answered_by,
    app_state::AppState,
    auth::Principal,
    edge::rate_limit::Policy,
    kit::{
        answer::{account_get, account_get_in_mode, account_write, Answer},
        error::ApiError,
        json_body,
        params::{Param, ParamKind},
        parse::parse_with,
    },
    registry::{Access, Group, Guard, Link, Operation},
};

use model::{
    CompanyResponse, GetCompanyCoverageResponse, GetCompanyMaterialEventResponse, GetCompanyMonitoringStatusResponse,
    ImportMonitoredCompanyBatchResponse, ImportRowResult, ListCompanyEventChangesResponse,
    ListCompanyEventImpactsResponse, ListMonitoredCompaniesResponse, SetMonitoredCompanyStateResponse,
};
pub use service::CompanyMonitoring;

pub static GROUP: Group = Group {
    tag: "Company monitoring",
    description: "Account-scoped monitored companies, coverage, material event impacts, change polling.",
    operations: &[
        &CREATE_MONITORED_COMPANY,
        &IMPORT_MONITORED_COMPANY_BATCH,
        &UPDATE_MONITORED_COMPANY,
        &SET_MONITORED_COMPANY_STATE,
        &LIST_MONITORED_COMPANIES,
        &LIST_COMPANY_EVENT_IMPACTS,
        &LIST_COMPANY_EVENT_CHANGES,
        &GET_COMPANY_MATERIAL_EVENT,
        &GET_COMPANY_COVERAGE,
        &GET_COMPANY_MONITORING_STATUS,
    ],
};

/// Where a company's answer leads: its coverage and its impacts.
const COVERAGE_OF_COMPANY: Link =
    Link { operation_id: "GetCompanyCoverage", parameter: "company_id", pointer: "/company/companyId" };
const IMPACTS_OF_COMPANY: Link =
    Link { operation_id: "ListCompanyEventImpacts", parameter: "company_id", pointer: "/company/companyId" };
/// A listing's poll cursor leads to the change feed.
const POLL_CHANGES: Link =
    Link { operation_id: "ListCompanyEventChanges", parameter: "cursor", pointer: "/snapshot/pollCursor" };

/// A read: the runtime gate, then the access rule.
const READ: Guard = Guard { available: gate_open, admitted: Guard::pass };
/// A write: the runtime gate, the access rule, then the `restWrites` flag.
const WRITE: Guard = Guard { available: gate_open, admitted: writes_enabled };

pub static CREATE_MONITORED_COMPANY: Operation = Operation {
    id: "CreateMonitoredCompany",
    path: "/api/company-monitoring/v1/create-monitored-company",
    summary: "registers a company to monitor (replayable by clientRequestId; a live company with the same customerReference answers for it).",
    access: Access::CmWrite,
    rate: Policy::CmWrite,
    body: Some(body::create),
    guard: Some(WRITE),
    links: &[COVERAGE_OF_COMPANY, IMPACTS_OF_COMPANY],
    answer: answered_by!(CompanyResponse, create),
    ..Operation::POST
};

pub static IMPORT_MONITORED_COMPANY_BATCH: Operation = Operation {
    id: "ImportMonitoredCompanyBatch",
    path: "/api/company-monitoring/v1/import-monitored-company-batch",
    summary:
        "registers up to 100 companies with a deterministic outcome per row (replayable by clientImportId and ordinal).",
    access: Access::CmWrite,
    rate: Policy::CmImport,
    // Replayed by its own rows (4.5), not by the Idempotency-Key layer, which it ignores.
    idempotent: false,
    body: Some(body::import),
    guard: Some(WRITE),
    answer: answered_by!(ImportMonitoredCompanyBatchResponse, import),
    ..Operation::POST
};

pub static UPDATE_MONITORED_COMPANY: Operation = Operation {
    id: "UpdateMonitoredCompany",
    path: "/api/company-monitoring/v1/update-monitored-company",
    summary: "changes a company's name, customer reference, domicile and claims (a bounded patch).",
    access: Access::CmWrite,
    rate: Policy::CmWrite,
    body: Some(body::update),
    guard: Some(WRITE),
    links: &[COVERAGE_OF_COMPANY],
    answer: answered_by!(CompanyResponse, update),
    ..Operation::POST
};

pub static SET_MONITORED_COMPANY_STATE: Operation = Operation {
    id: "SetMonitoredCompanyState",
    path: "/api/company-monitoring/v1/set-monitored-company-state",
    summary: "moves a company to active, paused or removed (removed is terminal; snapshotRequired when the listings changed).",
    access: Access::CmWrite,
    rate: Policy::CmWrite,
    body: Some(body::set_state),
    guard: Some(WRITE),
    answer: answered_by!(SetMonitoredCompanyStateResponse, set_state),
    ..Operation::POST
};

pub static GET_COMPANY_COVERAGE: Operation = Operation {
    id: "GetCompanyCoverage",
    path: "/api/company-monitoring/v1/get-company-coverage",
    summary: "how well a company is covered: its state, observation, providers and whether its assessment is ready.",
    access: Access::CmRead,
    params: &[COMPANY_ID],
    guard: Some(READ),
    answer: answered_by!(GetCompanyCoverageResponse, get_coverage),
    ..Operation::GET
};

const COMPANY_ID: Param = Param {
    name: "company_id",
    kind: ParamKind::Checked {
        min_chars: 1,
        max_chars: 64,
        pattern: Some((Kind::Company.pattern(), |s| Kind::Company.matches(s))),
    },
    required: true,
    description: "A companyId: `cm_company_` and 26 Crockford base32 characters.",
};

pub static LIST_MONITORED_COMPANIES: Operation = Operation {
    id: "ListMonitoredCompanies",
    path: "/api/company-monitoring/v1/list-monitored-companies",
    summary:
        "the account's companies in name order, at a signed snapshot boundary, with a poll cursor for the change feed.",
    access: Access::CmRead,
    params: company_list::PARAMS,
    guard: Some(READ),
    links: &[
        Link { operation_id: "GetCompanyCoverage", parameter: "company_id", pointer: "/companies/0/companyId" },
        POLL_CHANGES,
    ],
    answer: answered_by!(ListMonitoredCompaniesResponse, company_list::list),
    ..Operation::GET
};

pub static LIST_COMPANY_EVENT_IMPACTS: Operation = Operation {
    id: "ListCompanyEventImpacts",
    path: "/api/company-monitoring/v1/list-company-event-impacts",
    summary: "the current impacts of material events on the account's companies, newest change first, at a signed snapshot boundary, with a poll cursor for the change feed.",
    access: Access::CmRead,
    params: impact_list::PARAMS,
    guard: Some(READ),
    links: &[
        Link { operation_id: "GetCompanyMaterialEvent", parameter: "impact_id", pointer: "/impacts/0/impactId" },
        POLL_CHANGES,
    ],
    answer: answered_by!(ListCompanyEventImpactsResponse, impact_list::list),
    ..Operation::GET
};

pub static LIST_COMPANY_EVENT_CHANGES: Operation = Operation {
    id: "ListCompanyEventChanges",
    path: "/api/company-monitoring/v1/list-company-event-changes",
    summary: "the impacts that changed after a poll cursor's position, oldest first (corrections and retractions included); SNAPSHOT_REQUIRED when the account's listings changed.",
    access: Access::CmRead,
    params: changes::PARAMS,
    guard: Some(READ),
    answer: answered_by!(ListCompanyEventChangesResponse, changes::changes),
    ..Operation::GET
};

pub static GET_COMPANY_MATERIAL_EVENT: Operation = Operation {
    id: "GetCompanyMaterialEvent",
    path: "/api/company-monitoring/v1/get-company-material-event",
    summary: "an impact with its material event and evidence (at most 20, by authority tier then latest published).",
    access: Access::CmRead,
    params: material_event::PARAMS,
    guard: Some(READ),
    answer: answered_by!(GetCompanyMaterialEventResponse, material_event::get),
    ..Operation::GET
};

pub static GET_COMPANY_MONITORING_STATUS: Operation = Operation {
    id: "GetCompanyMonitoringStatus",
    path: "/api/company-monitoring/v1/get-company-monitoring-status",
    summary: "The caller's access state, company count and limit, snapshot generation and feature flags.",
    access: Access::CmStatus,
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
    account_get(req, parsed.jmespath.as_deref(), company_monitoring(state).status(principal).await)
}

/// Company monitoring's upkeep while `state` lives, every 60 s: the runtime gate evaluated
/// again, and companies removed more than 30 days ago purged (idempotent, so replicas may all run it).
pub fn spawn_upkeep(state: &Arc<AppState>) -> tokio::task::JoinHandle<()> {
    let state: Weak<AppState> = Arc::downgrade(state);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(60));
        tick.tick().await;
        loop {
            tick.tick().await;
            let Some(state) = state.upgrade() else { return };
            let cm = company_monitoring(&state);
            cm.refresh_gate().await;
            match cm.store.purge_removed(state.clock.now_ms()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(companies = n, "company monitoring: removed companies purged"),
                Err(e) => tracing::warn!(error = %e, "company monitoring: purge failed"),
            }
        }
    })
}

fn gate_open(state: &AppState) -> Result<(), ApiError> {
    if company_monitoring(state).gate_is_open() {
        Ok(())
    } else {
        Err(errors::disabled())
    }
}

fn writes_enabled(state: &AppState) -> Result<(), ApiError> {
    if company_monitoring(state).settings.flags.rest_writes {
        Ok(())
    } else {
        Err(errors::writes_disabled())
    }
}

/// The principal the edge admitted (every operation of the group needs a credential).
fn principal(req: &Request) -> Result<&Principal, ApiError> {
    Principal::of(req)
}

/// A read of what scans found (impacts, events, coverage): labelled `X-Data-Mode: replay` when
/// this deployment's upstreams are recorded fixtures (`make run`), as its scans' are.
fn scanned_get<T: serde::Serialize>(
    state: &AppState,
    req: &Request,
    jmespath: Option<&str>,
    result: Result<T, ApiError>,
) -> Answer<T> {
    account_get_in_mode(req, jmespath, result, crate::context(state).read_through.is_replay())
}

async fn create(state: &AppState, req: &mut Request, _: &'static Operation) -> Answer<CompanyResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let (client_request_id, input) = body::parse_create(&body)?;
        let principal = principal(req)?;
        let cm = company_monitoring(state);
        let limit = cm.settings.company_limit(principal.plan.tier());
        let created = cm.store.create(&principal.account_id, &client_request_id, &input, limit, state.clock.now_ms());
        match created.await.map_err(ApiError::internal)? {
            Created::New(c) | Created::Replayed(c) | Created::Existing(c) => {
                Ok(CompanyResponse { company: records::company(c, state.settings.site_origin()) })
            }
            Created::Conflict => Err(errors::replay_conflict()),
            Created::LimitReached => Err(errors::limit_reached(limit)),
        }
    };
    account_write(result.await)
}

async fn import(
    state: &AppState,
    req: &mut Request,
    _: &'static Operation,
) -> Answer<ImportMonitoredCompanyBatchResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let batch = body::parse_import(&body)?;
        let principal = principal(req)?;
        let cm = company_monitoring(state);
        let limit = cm.settings.company_limit(principal.plan.tier());
        let imported =
            cm.store.import(&principal.account_id, &batch.client_import_id, &batch.rows, limit, state.clock.now_ms());
        let results = imported.await.map_err(ApiError::internal)?;
        let count =
            |outcomes: &[ImportOutcome]| results.iter().filter(|r| outcomes.contains(&r.outcome)).count() as i32;
        Ok::<_, ApiError>(ImportMonitoredCompanyBatchResponse {
            created_count: count(&[ImportOutcome::Created]),
            rejected_count: count(&[ImportOutcome::Rejected, ImportOutcome::Conflict]),
            replayed_count: count(&[ImportOutcome::Replayed]),
            results: results
                .into_iter()
                .map(|r| ImportRowResult {
                    ordinal: r.ordinal as i32,
                    outcome: WireName(r.outcome),
                    company_id: r.company_id,
                    reason_code: r.reason_code.to_string(),
                })
                .collect(),
        })
    };
    account_write(result.await)
}

async fn set_state(
    state: &AppState,
    req: &mut Request,
    _: &'static Operation,
) -> Answer<SetMonitoredCompanyStateResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let (company_id, target) = body::parse_set_state(&body)?;
        let principal = principal(req)?;
        let store = &company_monitoring(state).store;
        let change = store.set_lifecycle(&principal.account_id, &company_id, target, state.clock.now_ms());
        let site = state.settings.site_origin();
        match change.await.map_err(ApiError::internal)? {
            LifecycleChange::NotFound => Err(errors::company_not_found()),
            LifecycleChange::Terminal => Err(errors::removed_is_terminal()),
            LifecycleChange::Unchanged(c) => {
                Ok(SetMonitoredCompanyStateResponse { company: records::company(c, site), snapshot_required: false })
            }
            LifecycleChange::Changed(c) => {
                Ok(SetMonitoredCompanyStateResponse { company: records::company(c, site), snapshot_required: true })
            }
        }
    };
    account_write(result.await)
}

async fn get_coverage(state: &AppState, req: &Request, op: &'static Operation) -> Answer<GetCompanyCoverageResponse> {
    let parsed = match parse_with::<GetCompanyCoverageResponse, _>(req, op, |q, v| COMPANY_ID.checked(q, v)) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let result = async {
        let principal = principal(req)?;
        let company_id = parsed.params.as_deref().unwrap_or_default();
        let cm = company_monitoring(state);
        let company = cm.store.company(&principal.account_id, company_id).await.map_err(ApiError::internal)?;
        // A removed company, like another account's, is not found here (4.6).
        let Some(c) = company.filter(|c| c.lifecycle != Lifecycle::Removed) else {
            return Err(errors::company_not_found());
        };
        let scan = cm.store.scan_record(&c.company_id).await.map_err(ApiError::internal)?;
        let coverage = records::coverage(&c, &scan, cm.settings.scan_interval_ms);
        Ok(GetCompanyCoverageResponse { coverage, company_id: c.company_id })
    };
    scanned_get(state, req, parsed.jmespath.as_deref(), result.await)
}

async fn update(state: &AppState, req: &mut Request, _: &'static Operation) -> Answer<CompanyResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let (company_id, patch) = body::parse_update(&body)?;
        let principal = principal(req)?;
        let store = &company_monitoring(state).store;
        let updated = store.update(&principal.account_id, &company_id, &patch, state.clock.now_ms());
        match updated.await.map_err(ApiError::internal)? {
            Updated::NotFound => Err(errors::company_not_found()),
            Updated::ClaimNotFound(claim_id) => Err(errors::claim_not_found(&claim_id)),
            Updated::ReferenceConflict => Err(errors::reference_conflict()),
            Updated::BudgetExceeded => Err(errors::claim_budget_exceeded()),
            Updated::Unchanged(c) | Updated::Changed(c) => {
                Ok(CompanyResponse { company: records::company(c, state.settings.site_origin()) })
            }
        }
    };
    account_write(result.await)
}
