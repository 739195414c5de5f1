//! ListMonitoredCompanies (SUPPLEMENT 4.6): filters in their canonical form, the signed snapshot
//! boundary of the first page carried by every later page's cursor, keyset positions, and the
//! poll cursor each page hands out for ListCompanyEventChanges.

use poem::Request;
use serde_json::{json, Value};
use sitrep_cm::{
    company_input::fingerprint_of,
    cursor::{Claims, CursorError, Expected, Mode, Surface},
    records::{CoverageState, Lifecycle, WireEnum},
    store::ListFilter,
};
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{account_get, Answer},
        error::{ApiError, Violations},
        params::{Param, ParamKind, RawQuery},
        parse::parse_with,
    },
    registry::Operation,
};

use super::{
    company_monitoring,
    model::{ListMonitoredCompaniesResponse, Snapshot},
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

pub const PAGE_SIZE: Param = Param {
    name: "page_size",
    kind: ParamKind::Int32 { min: 1, max: 100, default: 50 },
    required: false,
    description: "Companies per page, 1–100; 0 or absent = 50.",
};

pub const CURSOR: Param = Param {
    name: "cursor",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description:
        "`nextCursor` of the previous page: `cmc1.<16–1536 of [A-Za-z0-9_-]>.<43 of the same>`, at most 2,048 bytes.",
};

/// The values of a repeated enum filter (the exact short or full form), de-duplicated and sorted.
fn enum_filter<E: WireEnum + Ord>(param: &Param, q: &RawQuery, v: &mut Violations) -> Vec<E> {
    let mut out: Vec<E> = Vec::new();
    for (i, raw) in param.repeated(q, v).iter().enumerate() {
        match E::from_filter(raw) {
            Some(e) => out.push(e),
            None => {
                v.push(&format!("{}[{i}]", param.field()), format!("string must match pattern {}", E::filter_pattern()))
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

struct Query {
    filter: ListFilter,
    page_size: usize,
    cursor: Option<String>,
}

/// The filters as the cursor binds them: their canonical JSON (defaults applied) and its hash.
fn canonical(filter: &ListFilter) -> (Value, String) {
    let lifecycles: Vec<String> = if filter.lifecycles.is_empty() {
        vec![Lifecycle::Active.short_name(), Lifecycle::Paused.short_name()]
    } else {
        filter.lifecycles.iter().map(|l| l.short_name()).collect()
    };
    let coverages: Vec<String> = filter.coverages.iter().map(|c| c.short_name()).collect();
    let value = json!({"coverage": coverages, "lifecycle": lifecycles});
    let hash = fingerprint_of(&value);
    (value, hash)
}

fn cursor_violation(e: CursorError) -> ApiError {
    let mut v = Violations::default();
    v.push("cursor", e.to_string());
    ApiError::Validation(v.0)
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
        let principal = principal(req)?;
        let account = principal.account_id.as_str();
        let cm = company_monitoring(state);
        // The runtime gate (checked before the handler) holds only with a secret.
        let secret = cm.settings.cursor_secret.as_deref().ok_or_else(|| ApiError::internal("no cursor secret"))?;
        let query = &parsed.params;
        let (filters, filter_hash) = canonical(&query.filter);
        let now = state.clock.now_ms();
        let generation = cm.store.generation(account).await.map_err(ApiError::internal)?;
        let (as_of, after) = match &query.cursor {
            Some(cursor) => {
                let expected = Expected {
                    account_id: account,
                    surface: Surface::ListMonitoredCompanies,
                    mode: Mode::Snapshot,
                    filter_hash: Some(&filter_hash),
                    generation,
                    now_ms: now,
                };
                let claims = Claims::open(secret, cursor, &expected).map_err(cursor_violation)?;
                (claims.snapshot_as_of, claims.after_key.zip(claims.after_id))
            }
            None => (records::iso(now), None),
        };
        let after_ref = after.as_ref().map(|(k, id)| (k.as_str(), id.as_str()));
        let page =
            cm.store.companies(account, &query.filter, after_ref, query.page_size).await.map_err(ApiError::internal)?;
        let signed = |surface, mode, position: Option<(String, String)>, with_filters: bool| {
            let mut c = Claims::new(account, surface, mode, &filter_hash, now);
            c.snapshot_generation = generation.to_string();
            c.snapshot_as_of = as_of.clone();
            c.watermark = as_of.clone();
            (c.after_key, c.after_id) = position.unzip();
            c.filters = with_filters.then(|| filters.clone());
            c.sign(secret)
        };
        let next_cursor = match page.next {
            Some(position) => signed(Surface::ListMonitoredCompanies, Mode::Snapshot, Some(position), false),
            None => String::new(),
        };
        let site = state.settings.site_origin();
        Ok::<_, ApiError>(ListMonitoredCompaniesResponse {
            companies: page.companies.into_iter().map(|c| records::company(c, site)).collect(),
            next_cursor,
            snapshot: Snapshot {
                snapshot_as_of: as_of.clone(),
                snapshot_generation: generation.to_string(),
                poll_cursor: signed(Surface::ListCompanyEventChanges, Mode::Poll, None, true),
            },
        })
    };
    account_get(req, parsed.jmespath.as_deref(), result.await)
}
