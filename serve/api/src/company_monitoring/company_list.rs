//! ListMonitoredCompanies (SUPPLEMENT 4.6): the account's companies in name order at a snapshot
//! boundary.

use poem::Request;
use sitrep_cm::{
    cursor::Surface,
    filters::{FeedFilter, ListFilter},
    records::CoverageState,
};
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{account_get, Answer},
        error::ApiError,
        params::{Param, ParamKind},
        parse::parse_with,
    },
    registry::Operation,
};

use super::{
    company_monitoring,
    listing::{enum_filter, Boundary, CURSOR, PAGE_SIZE},
    model::ListMonitoredCompaniesResponse,
    principal, records,
};

pub const LIFECYCLE: Param = Param {
    name: "lifecycle",
    kind: ParamKind::Repeated { max_items: 3 },
    required: false,
    description:
        "Repeated: active, paused, removed (or MONITORED_COMPANY_LIFECYCLE_<UPPER>); default active and paused.",
};

pub const COVERAGE: Param = Param {
    name: "coverage",
    kind: ParamKind::Repeated { max_items: 7 },
    required: false,
    description: "Repeated: awaiting_first_scan, identity_unresolved, adequate, partial, stale, unavailable, needs_confirmation (or COMPANY_COVERAGE_STATE_<UPPER>).",
};

pub const PARAMS: &[Param] = &[LIFECYCLE, COVERAGE, PAGE_SIZE, CURSOR];

struct Query {
    filter: ListFilter,
    page_size: usize,
    cursor: Option<String>,
}

pub async fn list(state: &AppState, req: &Request, op: &'static Operation) -> Answer<ListMonitoredCompaniesResponse> {
    let parsed = parse_with::<ListMonitoredCompaniesResponse, _>(req, op, |q, v| Query {
        filter: ListFilter {
            lifecycles: enum_filter(&LIFECYCLE, q, v),
            coverages: enum_filter::<CoverageState>(&COVERAGE, q, v),
        },
        page_size: PAGE_SIZE.int32(q, v).max(1) as usize,
        cursor: CURSOR.raw(q).map(str::to_string),
    });
    let parsed = match parsed {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let result = async {
        let account = principal(req)?.account_id.as_str();
        let query = &parsed.params;
        let feed = FeedFilter::Companies(query.filter.clone());
        let boundary =
            Boundary::open(state, account, Surface::ListMonitoredCompanies, &feed, query.cursor.as_deref()).await?;
        let after = boundary.after.as_ref().map(|(k, id)| (k.as_str(), id.as_str()));
        let store = &company_monitoring(state).store;
        let page = store.companies(account, &query.filter, after, query.page_size).await.map_err(ApiError::internal)?;
        let site = state.settings.site_origin();
        Ok::<_, ApiError>(ListMonitoredCompaniesResponse {
            next_cursor: boundary.next_cursor(page.next),
            snapshot: boundary.snapshot(),
            companies: page.companies.into_iter().map(|c| records::company(c, site)).collect(),
        })
    };
    account_get(req, parsed.jmespath.as_deref(), result.await)
}
