//! The Conflict group (API.md 4.6, SUPPLEMENT 2.3): five operations answered from the current
//! generation's `armed-events`, `violence-events`, `humanitarian` and `iran-events` datasets.
//! The two event lists are [`PagedList`] declarations; their parameters live in `params`.

pub mod model;
pub mod params;
pub mod queries;

use std::{collections::BTreeMap, sync::Arc};

use duckdb::Connection;
use poem::Request;
use poem_openapi::{param::Header, payload::Json, OpenApi, Tags};
use sitrep_schemas::DatasetId;

use self::{
    model::*,
    params::{EventFilters, COUNTRY_CODE},
    queries::EventFilter,
};
use super::{
    answer::{check_jmespath_length, dataset_get, Answer},
    canonical::Canonical,
    dataset_read,
    error::{ApiError, Violations},
    paged_list::{Bounds, ListParams, Page, PagedList},
    params::{RawQuery, JMESPATH},
};
use crate::{app_state::AppState, snapshot::DatasetDb};

const DAY_MS: i64 = 86_400_000;

/// GetHumanitarianSummary's one parameter.
pub struct CountryCode(String);

impl ListParams for CountryCode {
    fn parse(q: &RawQuery, v: &mut Violations) -> Self {
        CountryCode(COUNTRY_CODE.country_code(q, v).unwrap_or_default())
    }

    fn canonical(&self) -> Canonical {
        Canonical::new(vec![("country_code", self.0.clone())])
    }
}

#[derive(Tags)]
enum ApiTags {
    /// Armed-conflict events, violence events, humanitarian summaries, regional conflict records.
    Conflict,
}

pub struct ConflictApi {
    pub state: Arc<AppState>,
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
    op: "list-armed-events",
    dataset: DatasetId::ARMED_EVENTS,
    params: params::ARMED_EVENTS,
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
    op: "list-violence-events",
    dataset: DatasetId::VIOLENCE_EVENTS,
    params: params::VIOLENCE_EVENTS,
    // UCDP matches dateStart in milliseconds; no lower bound by default.
    bounds: Some(|f, as_of| Bounds { start: f.start.unwrap_or(0), end: f.end.unwrap_or(as_of) }),
    page: |conn: &Connection, db, f, b, page| {
        queries::violence_events(conn, db.table(), &event_filter(db, f, (b.start, b.end), page))
    },
    respond: |events, pagination| ListViolenceEventsResponse { events, pagination },
};

#[OpenApi(prefix_path = "/api/conflict/v1", tag = "ApiTags::Conflict")]
impl ConflictApi {
    /// ListArmedEvents — ACLED armed-conflict events, newest first.
    #[oai(path = "/list-armed-events", method = "get", operation_id = "ListArmedEvents")]
    async fn list_armed_events(&self, req: &Request) -> Answer<ListArmedEventsResponse> {
        ARMED_EVENTS.answer(&self.state, req).await
    }

    /// ListViolenceEvents — UCDP GED events, newest dateStart first.
    #[oai(path = "/list-violence-events", method = "get", operation_id = "ListViolenceEvents")]
    async fn list_violence_events(&self, req: &Request) -> Answer<ListViolenceEventsResponse> {
        VIOLENCE_EVENTS.answer(&self.state, req).await
    }

    /// GetHumanitarianSummary — HDX HAPI conflict-event summary of one country.
    #[oai(path = "/get-humanitarian-summary", method = "get", operation_id = "GetHumanitarianSummary")]
    async fn get_humanitarian_summary(&self, req: &Request) -> Answer<GetHumanitarianSummaryResponse> {
        let op = "get-humanitarian-summary";
        let declared = params::HUMANITARIAN_SUMMARY;
        let empty = |_: &CountryCode| GetHumanitarianSummaryResponse { summary: None };
        dataset_read::params_get(
            &self.state,
            req,
            DatasetId::HUMANITARIAN,
            op,
            declared,
            empty,
            |db, code| async move {
                let table = db.table().to_string();
                let summary = db.query(move |c| queries::humanitarian_summary(c, &table, &code.0)).await?;
                Ok(GetHumanitarianSummaryResponse { summary })
            },
        )
        .await
    }

    /// ListIranEvents — regional conflict records; empty with scrapedAt "0" unless IRAN_EVENTS_ENABLED.
    #[oai(path = "/list-iran-events", method = "get", operation_id = "ListIranEvents")]
    async fn list_iran_events(&self, req: &Request) -> Answer<ListIranEventsResponse> {
        let q = RawQuery::of(req);
        let jmespath = JMESPATH.raw(&q);
        if let Err(e) = check_jmespath_length::<ListIranEventsResponse>(jmespath) {
            return e.into();
        }
        let (provenance, db) = dataset_read::current(&self.state, DatasetId::IRAN_EVENTS);
        let (provenance, db) = if self.state.settings.iran_events_enabled {
            (provenance, db)
        } else {
            (dataset_read::unavailable(provenance), None)
        };
        let key = db.as_ref().map(|d| Canonical::default().cache_key("list-iran-events", d.version, "", jmespath));
        dataset_get(&self.state.cache, req, key, jmespath, provenance, async move {
            let response = match db {
                Some(db) => {
                    let scraped_at = db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0).to_string();
                    let table = db.table().to_string();
                    ListIranEventsResponse {
                        events: db.query(move |c| queries::iran_events(c, &table)).await?,
                        scraped_at,
                    }
                }
                None => ListIranEventsResponse { events: vec![], scraped_at: "0".into() },
            };
            Ok(response)
        })
        .await
    }

    /// GetHumanitarianSummaryBatch — summaries of up to 25 countries in one call.
    #[oai(path = "/get-humanitarian-summary-batch", method = "post", operation_id = "GetHumanitarianSummaryBatch")]
    async fn get_humanitarian_summary_batch(
        &self,
        /// Optional idempotency key (1–255 printable ASCII characters).
        #[oai(name = "Idempotency-Key")]
        _idempotency_key: Header<Option<String>>,
        body: Json<serde_json::Value>,
    ) -> Answer<GetHumanitarianSummaryBatchResponse> {
        let mut v = Violations::default();
        let mut codes: Vec<String> = Vec::new();
        match body.0.as_object() {
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
        let db = self.state.snapshots.current().and_then(|g| g.dataset(DatasetId::HUMANITARIAN).cloned());
        let all = match db {
            Some(db) => match db
                .query({
                    let table = db.table().to_string();
                    move |c| queries::humanitarian_all(c, &table)
                })
                .await
            {
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
        let response = GetHumanitarianSummaryBatchResponse {
            requested: codes.len() as i32,
            fetched: results.len() as i32,
            results,
        };
        let body = serde_json::to_vec(&response).unwrap_or_default();
        Answer::from_response(
            poem::Response::builder()
                .content_type("application/json; charset=utf-8")
                .header("cache-control", "no-store")
                .body(body),
        )
    }
}
