//! The Conflict group (API.md 4.6, SUPPLEMENT 2.3): five operations answered from the current
//! generation's `armed-events`, `violence-events`, `humanitarian` and `iran-events` datasets.
//! The two event lists are [`PagedList`] declarations; their parameters live in `params`.

pub mod model;
pub mod params;
pub mod queries;

use std::collections::BTreeMap;

use duckdb::Connection;
use poem::Request;
use sitrep_schemas::DatasetId;

use self::{
    model::*,
    params::{EventFilters, COUNTRY_CODE},
    queries::EventFilter,
};
use sitrep_platform::{
    answered_by,
    app_state::AppState,
    edge::rate_limit::Policy,
    kit::{
        answer::Answer,
        canonical::Canonical,
        dataset_read,
        dataset_read::{params_get, whole_dataset_get},
        error::{ApiError, Violations},
        json_body,
        paged_list::{Bounds, ListParams, Page, PagedList, QueryParams},
        params::RawQuery,
    },
    registry::{Group, McpTool, Operation},
    snapshot::DatasetDb,
};

pub static GROUP: Group = Group {
    tag: "Conflict",
    description: "Armed-conflict events, violence events, humanitarian summaries, regional conflict records.",
    operations: &[
        &LIST_ARMED_EVENTS,
        &LIST_VIOLENCE_EVENTS,
        &GET_HUMANITARIAN_SUMMARY,
        &LIST_IRAN_EVENTS,
        &GET_HUMANITARIAN_SUMMARY_BATCH,
    ],
};

pub static LIST_ARMED_EVENTS: Operation = Operation {
    id: "ListArmedEvents",
    path: "/api/conflict/v1/list-armed-events",
    summary: "ACLED armed-conflict events, newest first.",
    datasets: &[DatasetId::ARMED_EVENTS],
    params: params::ARMED_EVENTS,
    mcp: Some(McpTool {
        title: "List armed-conflict events",
        description: "ACLED armed-conflict events (battles, explosions, violence against civilians), newest first; filter by country and time range, paged.",
        open_world: false,
    }),
    answer: answered_by!(ListArmedEventsResponse, |state, req, op| ARMED_EVENTS.answer(state, req, op)),
    ..Operation::GET
};

pub static LIST_VIOLENCE_EVENTS: Operation = Operation {
    id: "ListViolenceEvents",
    path: "/api/conflict/v1/list-violence-events",
    summary: "UCDP GED events, newest dateStart first.",
    datasets: &[DatasetId::VIOLENCE_EVENTS],
    params: params::VIOLENCE_EVENTS,
    mcp: Some(McpTool {
        title: "List violence events",
        description: "UCDP georeferenced organised-violence events with fatality estimates, newest first; filter by country and time range, paged.",
        open_world: false,
    }),
    answer: answered_by!(ListViolenceEventsResponse, |state, req, op| VIOLENCE_EVENTS.answer(state, req, op)),
    ..Operation::GET
};

pub static GET_HUMANITARIAN_SUMMARY: Operation = Operation {
    id: "GetHumanitarianSummary",
    path: "/api/conflict/v1/get-humanitarian-summary",
    summary: "HDX HAPI conflict-event summary of one country.",
    datasets: &[DatasetId::HUMANITARIAN],
    params: params::HUMANITARIAN_SUMMARY,
    mcp: Some(McpTool {
        title: "Get a country's humanitarian summary",
        description: "HDX HAPI conflict-event summary of one country: political violence, civilian targeting and demonstrations with fatalities, latest reference period.",
        open_world: false,
    }),
    answer: answered_by!(GetHumanitarianSummaryResponse, get_humanitarian_summary),
    ..Operation::GET
};

pub static LIST_IRAN_EVENTS: Operation = Operation {
    id: "ListIranEvents",
    path: "/api/conflict/v1/list-iran-events",
    summary: "regional conflict records; empty with scrapedAt \"0\" unless IRAN_EVENTS_ENABLED.",
    datasets: &[DatasetId::IRAN_EVENTS],
    mcp: Some(McpTool {
        title: "List regional conflict records",
        description:
            "Regional conflict records from the operator-supplied export; empty unless the deployment enables them.",
        open_world: false,
    }),
    answer: answered_by!(ListIranEventsResponse, list_iran_events),
    ..Operation::GET
};

pub static GET_HUMANITARIAN_SUMMARY_BATCH: Operation = Operation {
    id: "GetHumanitarianSummaryBatch",
    path: "/api/conflict/v1/get-humanitarian-summary-batch",
    summary: "summaries of up to 25 countries in one call.",
    rate: Policy::HumanitarianBatch,
    datasets: &[DatasetId::HUMANITARIAN],
    body: Some(params::humanitarian_batch_body),
    answer: answered_by!(GetHumanitarianSummaryBatchResponse, get_humanitarian_summary_batch),
    ..Operation::POST
};

const DAY_MS: i64 = 86_400_000;

/// GetHumanitarianSummary's one parameter.
pub struct CountryCode(String);

impl QueryParams for CountryCode {
    fn parse(q: &RawQuery, v: &mut Violations) -> Self {
        CountryCode(COUNTRY_CODE.country_code(q, v).unwrap_or_default())
    }
}

impl ListParams for CountryCode {
    fn canonical(&self) -> Canonical {
        Canonical::new(vec![("country_code", self.0.clone())])
    }
}

/// ACLED events match on UTC event DATES: the bounds widen to whole days.
fn whole_days(b: Bounds) -> (i64, i64) {
    (b.start.div_euclid(DAY_MS) * DAY_MS, b.end.div_euclid(DAY_MS) * DAY_MS)
}

fn event_filter(db: &DatasetDb, f: &EventFilters, (from_ms, to_ms): (i64, i64), page: Page) -> EventFilter {
    EventFilter {
        from_ms,
        to_ms,
        country: f.country.clone(),
        positions: f.country.as_deref().and_then(|c| db.positions(c, from_ms, to_ms)),
        limit: page.limit,
        offset: page.offset,
    }
}

static ARMED_EVENTS: PagedList<EventFilters, ArmedConflictEvent, ListArmedEventsResponse> = PagedList {
    // Default window: from 00:00 UTC of (as-of date − 30 days) to the as-of time (SUPPLEMENT 1.3).
    bounds: Some(|f, as_of| Bounds {
        start: f.start.unwrap_or((as_of.div_euclid(DAY_MS) - 30) * DAY_MS),
        end: f.end.unwrap_or(as_of),
    }),
    page: |conn: &Connection, db, f, b, page| {
        queries::armed_events(conn, db.table(), &event_filter(db, f, whole_days(b), page))
    },
    respond: |events, pagination| ListArmedEventsResponse { events, pagination },
};

static VIOLENCE_EVENTS: PagedList<EventFilters, UcdpViolenceEvent, ListViolenceEventsResponse> = PagedList {
    // UCDP matches dateStart in milliseconds; no lower bound by default.
    bounds: Some(|f, as_of| Bounds { start: f.start.unwrap_or(0), end: f.end.unwrap_or(as_of) }),
    page: |conn: &Connection, db, f, b, page| {
        queries::violence_events(conn, db.table(), &event_filter(db, f, (b.start, b.end), page))
    },
    respond: |events, pagination| ListViolenceEventsResponse { events, pagination },
};

async fn get_humanitarian_summary(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<GetHumanitarianSummaryResponse> {
    let empty = |_: &CountryCode| GetHumanitarianSummaryResponse { summary: None };
    params_get(state, req, op, empty, |db, code: CountryCode| async move {
        let summary = db.query_table(move |c, table| queries::humanitarian_summary(c, table, &code.0)).await?;
        Ok(GetHumanitarianSummaryResponse { summary })
    })
    .await
}

async fn list_iran_events(state: &AppState, req: &Request, op: &'static Operation) -> Answer<ListIranEventsResponse> {
    let empty = ListIranEventsResponse { events: vec![], scraped_at: "0".into() };
    if !state.settings.serves(op.dataset()) {
        return dataset_read::disabled_get(state, req, op, empty).await;
    }
    whole_dataset_get(state, req, op, empty, |db| async move {
        let scraped_at = db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0).to_string();
        Ok(ListIranEventsResponse { events: db.query_table(queries::iran_events).await?, scraped_at })
    })
    .await
}

async fn get_humanitarian_summary_batch(
    state: &AppState,
    req: &mut Request,
    op: &'static Operation,
) -> Answer<GetHumanitarianSummaryBatchResponse> {
    let body = match json_body::take(req).await {
        Ok(body) => body,
        Err(e) => return e.into(),
    };
    let mut v = Violations::default();
    let mut codes: Vec<String> = Vec::new();
    match body.as_object() {
        None => v.push("$request", "value must be an object"),
        Some(obj) => match obj.get("countryCodes") {
            None | Some(serde_json::Value::Null) => v.push("countryCodes", "value is required"),
            Some(serde_json::Value::Array(items)) if items.is_empty() => {
                v.push("countryCodes", "array must contain at least 1 item(s)")
            }
            Some(serde_json::Value::Array(items)) if items.len() > 25 => {
                v.push("countryCodes", "array must contain at most 25 item(s)")
            }
            Some(serde_json::Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    match item.as_str() {
                        Some(s) => codes.push(s.trim().to_ascii_uppercase()),
                        None => v.push(&format!("countryCodes[{i}]"), "value must be a string"),
                    }
                }
            }
            Some(_) => v.push("countryCodes", "value must be an array"),
        },
    }
    if let Err(e) = v.into_result() {
        return e.into();
    }
    codes.retain(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase()));
    codes.sort();
    codes.dedup();
    codes.truncate(25);
    let db = state.snapshots.current().and_then(|g| g.dataset(op.dataset()).cloned());
    let all = match db {
        Some(db) => match db.query_table(queries::humanitarian_all).await {
            Ok(rows) => rows,
            Err(e) => return ApiError::from(e).into(),
        },
        None => Vec::new(),
    };
    let results: BTreeMap<String, HumanitarianSummary> = all
        .into_iter()
        .filter(|s| codes.binary_search(&s.country_code).is_ok())
        .map(|s| (s.country_code.clone(), s))
        .collect();
    let response =
        GetHumanitarianSummaryBatchResponse { requested: codes.len() as i32, fetched: results.len() as i32, results };
    let body = serde_json::to_vec(&response).unwrap_or_default();
    Answer::from_response(
        poem::Response::builder()
            .content_type("application/json; charset=utf-8")
            .header("cache-control", "no-store")
            .body(body),
    )
}
