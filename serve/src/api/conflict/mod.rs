//! The Conflict group (API.md 4.6, SUPPLEMENT 2.3): five operations answered from the current
//! generation's `armed-events`, `violence-events`, `humanitarian` and `iran-events` datasets.

pub mod model;
pub mod queries;

use std::{collections::BTreeMap, sync::Arc};

use chrono::Utc;
use poem::Request;
use poem_openapi::{
    param::{Header, Query},
    payload::Json,
    OpenApi, Tags,
};
use sitrep_schemas::{countries::is_api_country_code, DatasetId};

use self::{model::*, queries::EventFilter};
use super::{
    answer::{dataset_get, Answer, DataState, GetRequest, Provenance},
    cursor::{self, CursorPayload},
    error::{ApiError, Violations},
    params::{country_param, epoch_ms_param, int32_param, value, Int32, Int64String, RawParam, Text},
};
use crate::{app::AppState, snapshot::DatasetDb};

const DAY_MS: i64 = 86_400_000;

#[derive(Tags)]
enum ApiTags {
    /// Armed-conflict events, violence events, humanitarian summaries, regional conflict records.
    Conflict,
}

pub struct ConflictApi {
    pub state: Arc<AppState>,
}

/// What distinguishes the two event lists.
struct ListSpec {
    op: &'static str,
    dataset: DatasetId,
    /// ACLED matches on UTC event DATES; UCDP on dateStart milliseconds.
    day_granular: bool,
}

const ARMED: ListSpec = ListSpec { op: "list-armed-events", dataset: DatasetId::ArmedEvents, day_granular: true };
const VIOLENCE: ListSpec =
    ListSpec { op: "list-violence-events", dataset: DatasetId::ViolenceEvents, day_granular: false };

struct ListQuery<'a> {
    start: Option<&'a str>,
    end: Option<&'a str>,
    page_size: Option<&'a str>,
    cursor: Option<&'a str>,
    country: Option<&'a str>,
    jmespath: Option<&'a str>,
}

fn if_none_match(req: &Request) -> Option<&str> {
    req.headers().get("if-none-match").and_then(|v| v.to_str().ok())
}

impl ConflictApi {
    fn provenance(
        &self,
        generation: u64,
        published_at: chrono::DateTime<Utc>,
        db: Option<&DatasetDb>,
        dataset: DatasetId,
    ) -> Provenance {
        Provenance { generation, published_at, state: DataState::of(dataset, db.map(|d| &d.freshness), Utc::now()) }
    }

    async fn list_events<T: serde::Serialize>(
        &self,
        req: &Request,
        spec: &ListSpec,
        q: ListQuery<'_>,
        render: impl FnOnce(
            Arc<DatasetDb>,
            EventFilter,
            CursorPayload,
        ) -> futures::future::BoxFuture<'static, Result<T, ApiError>>,
    ) -> Answer<T> {
        let mut v = Violations::default();
        let start = epoch_ms_param(&mut v, "start", q.start);
        let end = epoch_ms_param(&mut v, "end", q.end);
        let page_size = int32_param(&mut v, "pageSize", q.page_size, 1, 100, 100);
        let generation = self.state.snapshots.current();
        let current = generation.as_ref().and_then(|g| g.dataset(spec.dataset)).cloned();
        let fh = cursor::filter_hash(&[("country", q.country), ("end", q.end), ("start", q.start)]);
        let mut pinned: Option<(CursorPayload, Arc<DatasetDb>)> = None;
        if let Some(c) = q.cursor {
            match cursor::decode(&self.state.cursor_secret, c, spec.op, &fh) {
                Err(msg) => v.push("cursor", msg),
                Ok(p) => {
                    let db = current
                        .clone()
                        .filter(|d| d.version == p.gen)
                        .or_else(|| self.state.snapshots.version(spec.dataset, p.gen));
                    match db {
                        Some(db) => pinned = Some((p, db)),
                        None => v.push("cursor", cursor::NO_LONGER_AVAILABLE),
                    }
                }
            }
        }
        let country = country_param(&mut v, "country", q.country);
        let db = pinned.as_ref().map(|(_, d)| d.clone()).or(current);
        let as_of_ms = db.as_ref().and_then(|d| d.as_of()).map(|t| t.timestamp_millis()).unwrap_or(0);
        let (s, e) = match &pinned {
            Some((p, _)) => (p.s.unwrap_or(0), p.e.unwrap_or(as_of_ms)),
            None => {
                let default_start = if spec.day_granular { (as_of_ms / DAY_MS - 30) * DAY_MS } else { 0 };
                (start.unwrap_or(default_start), end.unwrap_or(as_of_ms))
            }
        };
        if pinned.is_none() && s > e {
            v.push("start", "start must be less than or equal to end");
        }
        if let Err(err) = v.into_result() {
            return err.into();
        }
        let (gen_no, published) =
            generation.as_ref().map(|g| (g.number, g.committed_at)).unwrap_or((0, chrono::DateTime::UNIX_EPOCH));
        let Some(db) = db else {
            let empty = serde_json::json!({ "events": [], "pagination": Pagination::empty() });
            let prov = Provenance { generation: gen_no, published_at: published, state: DataState::Unavailable };
            return dataset_get(
                &self.state.cache,
                GetRequest { if_none_match: if_none_match(req), jmespath: q.jmespath, cache_key: None },
                prov,
                async { Ok(empty) },
            )
            .await;
        };
        let offset = pinned.as_ref().map(|(p, _)| p.off).unwrap_or(0);
        let (from_ms, to_ms) =
            if spec.day_granular { (s.div_euclid(DAY_MS) * DAY_MS, e.div_euclid(DAY_MS) * DAY_MS) } else { (s, e) };
        let positions = country.as_deref().and_then(|c| db.positions(c, from_ms, to_ms));
        let filter = EventFilter {
            from_ms,
            to_ms,
            country: country.clone(),
            positions,
            limit: page_size as i64,
            offset: offset as i64,
        };
        let this_page = CursorPayload { op: spec.op.into(), gen: db.version, off: offset, fh, s: Some(s), e: Some(e) };
        let key = format!(
            "{}|v{}|{s}|{e}|{}|{offset}|{page_size}|{}",
            spec.op,
            db.version,
            country.as_deref().unwrap_or(""),
            q.jmespath.unwrap_or("")
        );
        let prov_generation = if pinned.is_some() { db.version } else { gen_no };
        let prov = self.provenance(prov_generation, published, Some(&db), spec.dataset);
        let get = GetRequest { if_none_match: if_none_match(req), jmespath: q.jmespath, cache_key: Some(key) };
        dataset_get(&self.state.cache, get, prov, render(db, filter, this_page)).await
    }
}

/// `nextCursor` after a page of `rows` rows: the same pinned query at the next offset, or "" at the end.
fn next_cursor(secret: &[u8], mut page: CursorPayload, rows: usize, total: i64) -> String {
    page.off += rows as u64;
    if rows == 0 || page.off >= total.max(0) as u64 {
        return String::new();
    }
    cursor::encode(secret, &page)
}

#[OpenApi(prefix_path = "/api/conflict/v1", tag = "ApiTags::Conflict")]
impl ConflictApi {
    /// ListArmedEvents — ACLED armed-conflict events, newest first.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/list-armed-events", method = "get", operation_id = "ListArmedEvents")]
    async fn list_armed_events(
        &self,
        req: &Request,
        /// Inclusive start, epoch ms (decimal string). Default: 00:00 UTC of (as-of date − 30 days).
        start: Query<Option<RawParam<Int64String>>>,
        /// Inclusive end, epoch ms (decimal string). Default: the dataset's as-of time.
        end: Query<Option<RawParam<Int64String>>>,
        /// 1–100; 0 or absent = 100.
        page_size: Query<Option<RawParam<Int32>>>,
        /// Dataset cursor from `pagination.nextCursor`.
        cursor: Query<Option<RawParam<Text>>>,
        /// ISO 3166-1 alpha-2 country filter.
        country: Query<Option<RawParam<Text>>>,
        /// JMESPath projection of the response (≤ 1024 bytes).
        jmespath: Query<Option<RawParam<Text>>>,
    ) -> Answer<ListArmedEventsResponse> {
        let secret = self.state.cursor_secret.clone();
        let q = ListQuery {
            start: value(&start),
            end: value(&end),
            page_size: value(&page_size),
            cursor: value(&cursor),
            country: value(&country),
            jmespath: value(&jmespath),
        };
        self.list_events(req, &ARMED, q, move |db, filter, page| {
            Box::pin(async move {
                let (events, total) = db.query(move |c| queries::armed_events(c, &filter)).await?;
                let pagination = Pagination {
                    next_cursor: next_cursor(&secret, page, events.len(), total),
                    total_count: total as i32,
                };
                Ok(ListArmedEventsResponse { events, pagination })
            })
        })
        .await
    }

    /// ListViolenceEvents — UCDP GED events, newest dateStart first.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/list-violence-events", method = "get", operation_id = "ListViolenceEvents")]
    async fn list_violence_events(
        &self,
        req: &Request,
        /// Inclusive start on dateStart, epoch ms. Default: no lower bound.
        start: Query<Option<RawParam<Int64String>>>,
        /// Inclusive end on dateStart, epoch ms. Default: the dataset's as-of time.
        end: Query<Option<RawParam<Int64String>>>,
        /// 1–100; 0 or absent = 100.
        page_size: Query<Option<RawParam<Int32>>>,
        /// Dataset cursor from `pagination.nextCursor`.
        cursor: Query<Option<RawParam<Text>>>,
        /// ISO 3166-1 alpha-2 country filter.
        country: Query<Option<RawParam<Text>>>,
        /// JMESPath projection of the response (≤ 1024 bytes).
        jmespath: Query<Option<RawParam<Text>>>,
    ) -> Answer<ListViolenceEventsResponse> {
        let secret = self.state.cursor_secret.clone();
        let q = ListQuery {
            start: value(&start),
            end: value(&end),
            page_size: value(&page_size),
            cursor: value(&cursor),
            country: value(&country),
            jmespath: value(&jmespath),
        };
        self.list_events(req, &VIOLENCE, q, move |db, filter, page| {
            Box::pin(async move {
                let (events, total) = db.query(move |c| queries::violence_events(c, &filter)).await?;
                let pagination = Pagination {
                    next_cursor: next_cursor(&secret, page, events.len(), total),
                    total_count: total as i32,
                };
                Ok(ListViolenceEventsResponse { events, pagination })
            })
        })
        .await
    }

    /// GetHumanitarianSummary — HDX HAPI conflict-event summary of one country.
    #[oai(path = "/get-humanitarian-summary", method = "get", operation_id = "GetHumanitarianSummary")]
    async fn get_humanitarian_summary(
        &self,
        req: &Request,
        /// Uppercase ISO 3166-1 alpha-2 code from the fixed list of API.md 4.6.
        country_code: Query<Option<RawParam<Text>>>,
        /// JMESPath projection of the response (≤ 1024 bytes).
        jmespath: Query<Option<RawParam<Text>>>,
    ) -> Answer<GetHumanitarianSummaryResponse> {
        let mut v = Violations::default();
        let code = match value(&country_code) {
            None => {
                v.push("countryCode", "value is required");
                None
            }
            Some(c) if c.chars().count() != 2 => {
                v.push("countryCode", "string length must be exactly 2");
                None
            }
            Some(c) if !c.bytes().all(|b| b.is_ascii_uppercase()) => {
                v.push("countryCode", "string must match pattern ^[A-Z]{2}$");
                None
            }
            Some(c) if !is_api_country_code(c) => {
                v.push("countryCode", "enum value must be defined");
                None
            }
            Some(c) => Some(c.to_string()),
        };
        if let Err(e) = v.into_result() {
            return e.into();
        }
        let code = code.unwrap_or_default();
        let jm = value(&jmespath);
        let generation = self.state.snapshots.current();
        let (gen_no, published) =
            generation.as_ref().map(|g| (g.number, g.committed_at)).unwrap_or((0, chrono::DateTime::UNIX_EPOCH));
        let db = generation.as_ref().and_then(|g| g.dataset(DatasetId::Humanitarian)).cloned();
        let prov = self.provenance(gen_no, published, db.as_deref(), DatasetId::Humanitarian);
        let key = db.as_ref().map(|d| format!("get-humanitarian-summary|v{}|{code}|{}", d.version, jm.unwrap_or("")));
        let get = GetRequest { if_none_match: if_none_match(req), jmespath: jm, cache_key: key };
        dataset_get(&self.state.cache, get, prov, async move {
            let summary = match db {
                Some(db) => db.query(move |c| queries::humanitarian_summary(c, &code)).await?,
                None => None,
            };
            Ok(GetHumanitarianSummaryResponse { summary })
        })
        .await
    }

    /// ListIranEvents — regional conflict records; empty with scrapedAt "0" unless IRAN_EVENTS_ENABLED.
    #[oai(path = "/list-iran-events", method = "get", operation_id = "ListIranEvents")]
    async fn list_iran_events(
        &self,
        req: &Request,
        /// JMESPath projection of the response (≤ 1024 bytes).
        jmespath: Query<Option<RawParam<Text>>>,
    ) -> Answer<ListIranEventsResponse> {
        let jm = value(&jmespath);
        let generation = self.state.snapshots.current();
        let (gen_no, published) =
            generation.as_ref().map(|g| (g.number, g.committed_at)).unwrap_or((0, chrono::DateTime::UNIX_EPOCH));
        let db = if self.state.settings.iran_events_enabled {
            generation.as_ref().and_then(|g| g.dataset(DatasetId::IranEvents)).cloned()
        } else {
            None
        };
        let prov = self.provenance(gen_no, published, db.as_deref(), DatasetId::IranEvents);
        let key = db.as_ref().map(|d| format!("list-iran-events|v{}|{}", d.version, jm.unwrap_or("")));
        let get = GetRequest { if_none_match: if_none_match(req), jmespath: jm, cache_key: key };
        dataset_get(&self.state.cache, get, prov, async move {
            let response = match db {
                Some(db) => {
                    let scraped_at = db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0).to_string();
                    ListIranEventsResponse { events: db.query(queries::iran_events).await?, scraped_at }
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
        let db = self.state.snapshots.current().and_then(|g| g.dataset(DatasetId::Humanitarian).cloned());
        let all = match db {
            Some(db) => match db.query(queries::humanitarian_all).await {
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
