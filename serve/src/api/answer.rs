//! The response pipeline shared by every dataset GET: render (or take from the body cache) →
//! jmespath → ETag → conditional 304 → headers of SUPPLEMENT 1.14. The body cache is keyed by
//! (operation, dataset version, canonical query incl. jmespath), so a repeat costs no query and no
//! rendering.

use std::{
    collections::HashMap,
    future::Future,
    marker::PhantomData,
    sync::{Arc, Mutex},
};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use poem::{http::StatusCode, IntoResponse, Response};
use poem_openapi::{
    registry::{MetaMediaType, MetaResponse, MetaResponses, Registry},
    types::Type,
    ApiResponse,
};
use sha2::{Digest, Sha256};
use sitrep_schemas::{DatasetId, Freshness};

use super::error::{ApiError, ErrorBody, ValidationError};

/// A fully built response documented as `T` in the OpenAPI document.
pub struct Answer<T>(pub Response, PhantomData<T>);

impl<T> Answer<T> {
    pub fn from_response(r: Response) -> Self {
        Answer(r, PhantomData)
    }
}

impl<T> From<ApiError> for Answer<T> {
    fn from(e: ApiError) -> Self {
        Answer::from_response(e.into_response())
    }
}

fn media(schema: poem_openapi::registry::MetaSchemaRef) -> Vec<MetaMediaType> {
    vec![MetaMediaType { content_type: "application/json; charset=utf-8", schema }]
}

fn meta_response(description: &'static str, status: u16, content: Vec<MetaMediaType>) -> MetaResponse {
    MetaResponse { description, status: Some(status), status_range: None, content, headers: vec![] }
}

impl<T: Type> ApiResponse for Answer<T> {
    fn meta() -> MetaResponses {
        MetaResponses {
            responses: vec![
                meta_response(
                    "OK (may be a jmespath projection when `jmespath` is given)",
                    200,
                    media(T::schema_ref()),
                ),
                meta_response("Not modified (If-None-Match matched the ETag)", 304, vec![]),
                meta_response(
                    "ValidationError, or a jmespath error envelope",
                    400,
                    media(ValidationError::schema_ref()),
                ),
                meta_response("Missing or invalid credential", 401, media(ErrorBody::schema_ref())),
            ],
        }
    }
    fn register(registry: &mut Registry) {
        T::register(registry);
        ValidationError::register(registry);
        ErrorBody::register(registry);
    }
}

impl<T: Send> IntoResponse for Answer<T> {
    fn into_response(self) -> Response {
        self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataState {
    Fresh,
    Stale,
    Unavailable,
}

impl DataState {
    pub fn of(dataset: DatasetId, freshness: Option<&Freshness>, now: DateTime<Utc>) -> Self {
        match freshness.and_then(|f| f.fetched_at) {
            None => DataState::Unavailable,
            Some(at) if now - at < chrono::Duration::from_std(dataset.cadence() * 2).unwrap_or_default() => {
                DataState::Fresh
            }
            Some(_) => DataState::Stale,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            DataState::Fresh => "fresh",
            DataState::Stale => "stale",
            DataState::Unavailable => "unavailable",
        }
    }
}

/// Where a dataset answer came from.
pub struct Provenance {
    pub generation: u64,
    pub published_at: DateTime<Utc>,
    pub state: DataState,
}

pub struct Served {
    pub body: Bytes,
    pub etag: String,
}

/// Bounded cache of rendered bodies. Entries are immutable functions of their key, so eviction is
/// only about memory: when full, the cache starts over.
pub struct BodyCache {
    entries: Mutex<HashMap<String, Arc<Served>>>,
    capacity: usize,
}

impl BodyCache {
    pub fn new(capacity: usize) -> Self {
        BodyCache { entries: Mutex::new(HashMap::new()), capacity }
    }
    fn get(&self, key: &str) -> Option<Arc<Served>> {
        self.entries.lock().ok()?.get(key).cloned()
    }
    fn put(&self, key: String, served: Arc<Served>) {
        if let Ok(mut m) = self.entries.lock() {
            if m.len() >= self.capacity {
                m.clear();
            }
            m.insert(key, served);
        }
    }
}

pub fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", &hex::encode(Sha256::digest(body))[..32])
}

fn serve_bytes(value: &serde_json::Value, jmespath: Option<&str>) -> Result<Served, ApiError> {
    let body = match jmespath {
        Some(expr) => super::jmes::project(expr, value)?,
        None => serde_json::to_vec(value).map_err(ApiError::internal)?,
    };
    let etag = etag_of(&body);
    Ok(Served { body: Bytes::from(body), etag })
}

pub struct GetRequest<'a> {
    pub if_none_match: Option<&'a str>,
    pub jmespath: Option<&'a str>,
    /// `None` disables caching (unavailable answers).
    pub cache_key: Option<String>,
}

/// Renders (or reuses) a dataset answer and builds the final response.
pub async fn dataset_get<T, F>(cache: &BodyCache, req: GetRequest<'_>, provenance: Provenance, render: F) -> Answer<T>
where
    F: Future<Output = Result<serde_json::Value, ApiError>>,
{
    let served = match req.cache_key.as_deref().and_then(|k| cache.get(k)) {
        Some(hit) => hit,
        None => {
            let value = match render.await {
                Ok(v) => v,
                Err(e) => return e.into(),
            };
            let served = match serve_bytes(&value, req.jmespath) {
                Ok(s) => Arc::new(s),
                Err(e) => return e.into(),
            };
            if let Some(k) = req.cache_key {
                cache.put(k, served.clone());
            }
            served
        }
    };
    let cache_control = if provenance.state == DataState::Unavailable { "no-store" } else { "private, max-age=60" };
    let not_modified =
        req.if_none_match.is_some_and(|v| v.split(',').any(|t| t.trim() == served.etag || t.trim() == "*"));
    let mut builder = Response::builder()
        .header("etag", served.etag.as_str())
        .header("cache-control", cache_control)
        .header("x-snapshot-generation", provenance.generation.to_string())
        .header("x-data-as-of", provenance.published_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .header("x-data-state", provenance.state.as_str());
    if not_modified {
        builder = builder.status(StatusCode::NOT_MODIFIED);
        return Answer::from_response(builder.finish());
    }
    Answer::from_response(builder.content_type("application/json; charset=utf-8").body(served.body.clone()))
}
