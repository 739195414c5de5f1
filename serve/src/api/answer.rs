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

/// Bounded cache of rendered bodies, by bytes. Entries are immutable functions of their key, so
/// eviction is only about memory. Two halves approximate LRU at O(1) per operation: a hit in the
/// older half moves to the newer one; when the newer half holds half the budget, the older half
/// is dropped and the newer one becomes the older.
pub struct BodyCache {
    halves: Mutex<Halves>,
    half_budget: usize,
}

#[derive(Default)]
struct Halves {
    newer: HashMap<String, Arc<Served>>,
    newer_bytes: usize,
    older: HashMap<String, Arc<Served>>,
}

impl Halves {
    fn insert(&mut self, key: String, served: Arc<Served>, half_budget: usize) {
        self.newer_bytes += served.body.len() + key.len();
        self.newer.insert(key, served);
        if self.newer_bytes >= half_budget {
            self.older = std::mem::take(&mut self.newer);
            self.newer_bytes = 0;
        }
    }
}

impl BodyCache {
    /// A cache holding at most about `budget_bytes` of bodies and keys.
    pub fn new(budget_bytes: usize) -> Self {
        BodyCache { halves: Mutex::new(Halves::default()), half_budget: (budget_bytes / 2).max(1) }
    }
    fn get(&self, key: &str) -> Option<Arc<Served>> {
        let mut h = self.halves.lock().ok()?;
        if let Some(hit) = h.newer.get(key) {
            return Some(hit.clone());
        }
        let (key, hit) = h.older.remove_entry(key)?;
        h.insert(key, hit.clone(), self.half_budget);
        Some(hit)
    }
    fn put(&self, key: String, served: Arc<Served>) {
        if let Ok(mut h) = self.halves.lock() {
            h.insert(key, served, self.half_budget);
        }
    }
}

pub fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", &hex::encode(Sha256::digest(body))[..32])
}

/// Renders straight to bytes; only a jmespath projection needs the JSON value tree.
fn serve_bytes<R: serde::Serialize>(rendered: &R, jmespath: Option<&str>) -> Result<Served, ApiError> {
    let body = match jmespath {
        Some(expr) => super::jmes::project(expr, &serde_json::to_value(rendered).map_err(ApiError::internal)?)?,
        None => serde_json::to_vec(rendered).map_err(ApiError::internal)?,
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
pub async fn dataset_get<T, R, F>(
    cache: &BodyCache,
    req: GetRequest<'_>,
    provenance: Provenance,
    render: F,
) -> Answer<T>
where
    R: serde::Serialize,
    F: Future<Output = Result<R, ApiError>>,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn served(n: usize) -> Arc<Served> {
        Arc::new(Served { body: Bytes::from(vec![b'x'; n]), etag: String::new() })
    }

    #[test]
    fn body_cache_keeps_recently_used_entries_within_its_budget() {
        // Budget 400 bytes: each half rotates once it holds 200.
        let cache = BodyCache::new(400);
        cache.put("a".into(), served(99));
        cache.put("b".into(), served(99)); // newer half full (200 bytes): {a, b} become the older half
        assert!(cache.get("a").is_some()); // promoted back into the newer half
        cache.put("c".into(), served(99)); // newer {a, c} full: rotates, b is dropped
        assert!(cache.get("b").is_none());
        assert!(cache.get("a").is_some() && cache.get("c").is_some());
        let h = cache.halves.lock().unwrap();
        let held: usize = h.newer.values().chain(h.older.values()).map(|s| s.body.len()).sum();
        assert!(held <= 400, "held {held} bytes");
    }
}
