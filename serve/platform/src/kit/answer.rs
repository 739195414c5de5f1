//! The response pipeline shared by every dataset GET: render (or take from the body cache) →
//! jmespath → ETag → conditional 304 → headers of SUPPLEMENT 1.14. The body cache is keyed by
//! (operation, dataset version, canonical query incl. jmespath), so a repeat costs no query and no
//! rendering.

use std::{
    future::Future,
    marker::PhantomData,
    sync::Arc,
    time::{Duration, Instant},
};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use poem::{
    http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode},
    IntoResponse, Request, Response,
};
use poem_openapi::types::Type;
use sha2::{Digest, Sha256};
use sitrep_schemas::{DatasetId, Freshness, StaleReason};

use crate::per_thread::{Counter, Front};

use super::{
    canonical::AnswerKey,
    encoding::{negotiate, Encodings},
    error::ApiError,
};

/// A fully built response whose 200 body is a `T` (the type the operation's declaration
/// documents; `answered_by!` checks that they agree).
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
        Self::judged(dataset, freshness, now).0
    }
    /// The state and, when stale, why: an upstream that answers but whose content stopped
    /// advancing (its `ContentClock`) is stale however recent the fetch.
    pub fn judged(
        dataset: DatasetId,
        freshness: Option<&Freshness>,
        now: DateTime<Utc>,
    ) -> (Self, Option<StaleReason>) {
        match Self::stale_from(dataset, freshness) {
            None => (DataState::Unavailable, None),
            Some(_) if freshness.is_some_and(|f| dataset.content_clock().frozen(f)) => {
                (DataState::Stale, Some(StaleReason::FrozenUpstream))
            }
            Some(stale) if now < stale => (DataState::Fresh, None),
            Some(_) => (DataState::Stale, Some(StaleReason::Overdue)),
        }
    }
    /// When data fetched as `freshness` says turns stale: two cadences after its fetch (`None`:
    /// never fetched).
    pub fn stale_from(dataset: DatasetId, freshness: Option<&Freshness>) -> Option<DateTime<Utc>> {
        let at = freshness.and_then(|f| f.fetched_at)?;
        Some(at + chrono::Duration::from_std(dataset.cadence() * 2).unwrap_or_default())
    }
    /// Until when an answer in this state holds, given when the data turns stale.
    pub fn holds_until(self, stale_from: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
        match self {
            DataState::Fresh => stale_from,
            DataState::Stale => Some(DateTime::<Utc>::MAX_UTC),
            DataState::Unavailable => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            DataState::Fresh => "fresh",
            DataState::Stale => "stale",
            DataState::Unavailable => "unavailable",
        }
    }
}

pub struct Served {
    pub body: Bytes,
    /// A header value ready to send: each answer clones it instead of parsing the string.
    pub etag: HeaderValue,
    /// Compressed forms, made on first request for each.
    pub encodings: Encodings,
}

impl Served {
    pub fn new(body: Bytes) -> Self {
        let etag = etag_of(&body);
        Served { body, etag, encodings: Encodings::default() }
    }
}

/// What a bounded cache charges for an entry besides its key.
trait Charged {
    fn cost(&self) -> usize;
}

impl Charged for Served {
    /// The body plus an allowance for its compressed forms, which are made later and are each
    /// smaller than the body (JSON compresses 5–10×).
    fn cost(&self) -> usize {
        self.body.len() + self.body.len() / 2
    }
}

/// A map bounded by bytes (moka's: frequency-aware admission, least-recently-used eviction).
/// Entries are immutable functions of their key, so eviction is only about memory.
struct Bounded<V>(moka::sync::Cache<String, Arc<V>>);

impl<V: Charged + Send + Sync + 'static> Bounded<V> {
    fn new(budget_bytes: usize) -> Self {
        let weigher = |key: &String, value: &Arc<V>| u32::try_from(key.len() + value.cost()).unwrap_or(u32::MAX);
        Bounded(moka::sync::Cache::builder().max_capacity(budget_bytes as u64).weigher(weigher).build())
    }
    fn get(&self, key: &str) -> Option<Arc<V>> {
        self.0.get(key)
    }
    fn put(&self, key: String, value: Arc<V>) {
        self.0.insert(key, value);
    }
    /// Bytes charged (after moka's pending housekeeping: it is asked at a scrape, not per request).
    fn bytes(&self) -> usize {
        self.0.run_pending_tasks();
        self.0.weighted_size() as usize
    }
}

/// What every remembered answer is judged under besides its own end: the snapshot generation it
/// was answered in, and the offset of the clock tests move ([`crate::app_state::Clock::advance`]):
/// moving that clock answers everything anew, so a read-through answer ends on the moved clock
/// too. Outside tests the offset is always 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Epoch {
    pub generation: u64,
    pub clock_offset: i64,
}

/// An answer as the edge repeats it without routing, parameters or handler: its body and the
/// headers it was sent with. It holds in its [`Epoch`] and until `until`: a dataset answer until
/// its `X-Data-State` would turn stale (or the reuse window of a computed answer ends), a
/// read-through answer until its cache entry expires. Within those it is a function of the
/// request alone. `until` is on the monotonic clock, which the edge reads once per request anyway.
#[derive(Clone)]
pub struct Remembered {
    served: Arc<Served>,
    headers: HeaderMap,
    epoch: Epoch,
    until: Instant,
    /// On a thread's own copy ([`Remembered::for_this_thread`]): the plain answer (no
    /// `If-None-Match`, no `Accept-Encoding`) ready to send as it is.
    plain: Option<Plain>,
}

/// A whole answer's headers and body, in memory only one thread writes: sending it again clones
/// them without hashing a header name or writing a reference count another thread writes.
#[derive(Clone)]
struct Plain {
    headers: HeaderMap,
    body: Bytes,
}

/// A thread's copy of a remembered answer has a body of its own up to this size (a larger one is
/// shared): with [`FRONT_ANSWERS`], at most 4 MB per thread.
const OWN_BODY_MAX: usize = 64 * 1024;

impl Remembered {
    /// A copy for this thread's front: the header values made per answer copied (the others are
    /// static, and cloning them writes nothing), and its plain answer made.
    fn for_this_thread(&self) -> Remembered {
        let mut headers = HeaderMap::with_capacity(RESPONSE_HEADERS);
        for (name, value) in &self.headers {
            headers.insert(name.clone(), if made_per_answer(name) { unshared(value) } else { value.clone() });
        }
        let mut plain = headers.clone();
        plain.insert(header::ETAG, unshared(&self.served.etag));
        plain.insert(header::CONTENT_TYPE, JSON);
        let body = &self.served.body;
        let body = if body.len() <= OWN_BODY_MAX { Bytes::copy_from_slice(body) } else { body.clone() };
        Remembered {
            served: self.served.clone(),
            headers,
            epoch: self.epoch,
            until: self.until,
            plain: Some(Plain { headers: plain, body }),
        }
    }

    /// Whether it still holds in `epoch` at `now`.
    fn holds(&self, epoch: Epoch, now: Instant) -> bool {
        self.epoch == epoch && now < self.until
    }

    /// The body as it was rendered (uncompressed).
    pub fn body(&self) -> &Bytes {
        &self.served.body
    }
}

/// The longest an answer is held without a new generation (a stale answer's `until` is the end
/// of time, which `Instant` cannot hold); past it, the answer is rendered again.
const LONGEST_HOLD: Duration = Duration::from_secs(365 * 24 * 3600);

/// `until` on the monotonic clock; `None` when it has passed.
fn monotonic(until: DateTime<Utc>) -> Option<Instant> {
    let left = (until - Utc::now()).to_std().ok()?;
    Some(Instant::now() + left.min(LONGEST_HOLD))
}

impl Charged for Remembered {
    fn cost(&self) -> usize {
        // The body may be shared with the rendered index; charging it here too keeps the bound
        // true when that index has dropped it.
        self.served.cost() + self.headers.len() * 64
    }
}

/// Bytes another protocol made from a remembered answer (an MCP tool result): they hold exactly
/// as long as the answer they were made from.
struct Derived {
    bytes: Bytes,
    epoch: Epoch,
    until: Instant,
}

impl Derived {
    fn holds(&self, epoch: Epoch, now: Instant) -> bool {
        self.epoch == epoch && now < self.until
    }

    /// A copy for this thread's front, with bytes of its own up to [`OWN_BODY_MAX`].
    fn for_this_thread(&self) -> Derived {
        let bytes = &self.bytes;
        let bytes = if bytes.len() <= OWN_BODY_MAX { Bytes::copy_from_slice(bytes) } else { bytes.clone() };
        Derived { bytes, epoch: self.epoch, until: self.until }
    }
}

impl Charged for Derived {
    fn cost(&self) -> usize {
        self.bytes.len()
    }
}

/// Rendered dataset answers, bounded by bytes, under two indexes: by (operation, dataset version,
/// canonical request), which the handlers fill and read; and by the request exactly as it came
/// (path and query), which the edge reads before routing (see [`Remembered`]). Beside them, what
/// other protocols made of remembered answers ([`BodyCache::derived`]).
pub struct BodyCache {
    rendered: Bounded<Served>,
    answers: Bounded<Remembered>,
    derived: Bounded<Derived>,
    /// Each thread's own copies of the answers it repeated: a repeat then writes no lock and no
    /// reference count another thread writes.
    front: Front<String, Arc<Remembered>>,
    derived_front: Front<String, Arc<Derived>>,
    hits: Counter,
    misses: Counter,
}

/// Answers a thread keeps copies of at most.
const FRONT_ANSWERS: usize = 64;

impl BodyCache {
    /// A cache holding at most about `budget_bytes` of rendered bodies and keys, half as much
    /// again of answers by request, and half as much again of derived bytes.
    pub fn new(budget_bytes: usize) -> Self {
        BodyCache {
            rendered: Bounded::new(budget_bytes),
            answers: Bounded::new(budget_bytes / 2),
            derived: Bounded::new(budget_bytes / 2),
            front: Front::new(FRONT_ANSWERS),
            derived_front: Front::new(FRONT_ANSWERS),
            hits: Counter::default(),
            misses: Counter::default(),
        }
    }
    fn count(&self, hit: bool) {
        let counter = if hit { &self.hits } else { &self.misses };
        counter.add(1);
    }
    fn get(&self, key: &str) -> Option<Arc<Served>> {
        let found = self.rendered.get(key);
        self.count(found.is_some());
        found
    }
    fn put(&self, key: String, served: Arc<Served>) {
        self.rendered.put(key, served);
    }
    /// The answer remembered for this exact `path_and_query`, when it still holds in `epoch` at
    /// `now`. Counted as a hit; a miss is counted by the handler's own lookup.
    pub fn remembered(&self, path_and_query: &str, epoch: Epoch, now: Instant) -> Option<Arc<Remembered>> {
        let holds = |r: &Arc<Remembered>| r.holds(epoch, now);
        let found = match self.front.get(path_and_query, holds) {
            Some(mine) => mine,
            None => {
                let shared = self.answers.get(path_and_query).filter(holds)?;
                // A copy of its own for this thread (the body itself stays shared).
                let mine = Arc::new(shared.for_this_thread());
                self.front.put(path_and_query.to_owned(), mine.clone());
                mine
            }
        };
        self.count(true);
        Some(found)
    }
    /// Keeps `answer`, made while the moved clock's offset was `clock_offset`.
    pub fn remember(&self, path_and_query: String, mut answer: Remembered, clock_offset: i64) {
        answer.epoch.clock_offset = clock_offset;
        self.answers.put(path_and_query, Arc::new(answer));
    }
    /// The bytes made under `key` from a remembered answer, while that answer would hold in
    /// `epoch` at `now`. Counted as a hit.
    pub fn derived(&self, key: &str, epoch: Epoch, now: Instant) -> Option<Bytes> {
        let holds = |d: &Arc<Derived>| d.holds(epoch, now);
        let found = match self.derived_front.get(key, holds) {
            Some(mine) => mine,
            None => {
                let mine = Arc::new(self.derived.get(key).filter(holds)?.for_this_thread());
                self.derived_front.put(key.to_owned(), mine.clone());
                mine
            }
        };
        self.count(true);
        Some(found.bytes.clone())
    }
    /// Keeps `bytes` made from `answer` (made while the moved clock's offset was `clock_offset`)
    /// under `key`, for as long as the answer holds.
    pub fn derive(&self, key: String, answer: &Remembered, bytes: Bytes, clock_offset: i64) {
        let epoch = Epoch { clock_offset, ..answer.epoch };
        self.derived.put(key, Arc::new(Derived { bytes, epoch, until: answer.until }));
    }
    /// (hits, misses, bytes charged), for `/metrics`.
    pub fn stats(&self) -> (u64, u64, usize) {
        let bytes = self.rendered.bytes() + self.answers.bytes() + self.derived.bytes();
        (self.hits.get(), self.misses.get(), bytes)
    }
}

/// A strong ETag: the quoted first 128 bits of the body's SHA-256, in hex (SUPPLEMENT 1.14 fixes
/// the hash; about 15 µs of an uncached 26 KB page, which a non-cryptographic hash would save).
fn etag_of(body: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(body);
    let mut tag = Vec::with_capacity(34);
    tag.push(b'"');
    tag.extend_from_slice(hex::encode(&digest[..16]).as_bytes());
    tag.push(b'"');
    // Quotes and hex digits are all visible ASCII, so this cannot fail.
    HeaderValue::from_maybe_shared(Bytes::from(tag)).unwrap_or(HeaderValue::from_static("\"\""))
}

/// Renders straight to bytes; only a jmespath projection needs the JSON value tree.
fn serve_bytes<R: serde::Serialize>(rendered: &R, jmespath: Option<&str>) -> Result<Served, ApiError> {
    let body = match jmespath {
        Some(expr) => super::jmes::project(expr, &serde_json::to_value(rendered).map_err(ApiError::internal)?)?,
        None => serde_json::to_vec(rendered).map_err(ApiError::internal)?,
    };
    Ok(Served::new(Bytes::from(body)))
}

/// [`serve_bytes`] of a body being answered: a projection, which evaluates the caller's expression
/// (up to its budget: tens of milliseconds), runs on a blocking thread, not on the async workers
/// that every other request shares.
async fn projected<R: serde::Serialize + Send + 'static>(
    rendered: R,
    jmespath: Option<&str>,
) -> Result<Served, ApiError> {
    match jmespath {
        None => serve_bytes(&rendered, None),
        Some(expression) => {
            let expression = expression.to_owned();
            tokio::task::spawn_blocking(move || serve_bytes(&rendered, Some(&expression)))
                .await
                .map_err(ApiError::internal)?
        }
    }
}

/// The dataset version a request is answered from, and how it is described in the headers:
/// `X-Snapshot-Generation` and `X-Data-As-Of` always describe the same generation.
#[derive(Debug, Clone, Copy)]
pub struct Provenance {
    pub generation: u64,
    pub published_at: DateTime<Utc>,
    pub state: DataState,
    /// The data came from recorded fixtures (`X-Data-Mode: replay`).
    pub replay: bool,
    /// Until when the answer, built from the current generation, holds as it is (its state turns
    /// stale then, or its reuse window ends). `None`: the edge must not repeat it (an answer from
    /// a cursor's pinned version, or an unavailable one).
    pub until: Option<DateTime<Utc>>,
}

/// Builds the final response of a dataset GET: the rendered body is taken from the body cache
/// under `cache_key` with the request's projection (`None`: not cached, e.g. unavailable answers)
/// or rendered by `render`, then ETag, conditional 304 and the headers of SUPPLEMENT 1.14.
pub async fn dataset_get<T, R, F>(
    cache: &BodyCache,
    req: &Request,
    cache_key: Option<AnswerKey>,
    jmespath: Option<&str>,
    provenance: Provenance,
    render: F,
) -> Answer<T>
where
    R: serde::Serialize + Send + 'static,
    F: Future<Output = Result<R, ApiError>>,
{
    // The body is cached after the projection: the projection is part of its key.
    let cache_key = cache_key.map(|k| k.projected(jmespath));
    let cacheable = cache_key.is_some();
    let served = match cache_key.as_deref().and_then(|k| cache.get(k)) {
        Some(hit) => hit,
        None => {
            let value = match render.await {
                Ok(v) => v,
                Err(e) => return e.into(),
            };
            let served = match projected(value, jmespath).await {
                Ok(s) => Arc::new(s),
                Err(e) => return e.into(),
            };
            if let Some(k) = cache_key {
                cache.put(k, served.clone());
            }
            served
        }
    };
    let cache_control = if provenance.state == DataState::Unavailable { NO_STORE } else { PRIVATE_60 };
    let mut h = response_headers(cache_control);
    h.insert(X_SNAPSHOT_GENERATION, HeaderValue::from(provenance.generation));
    if let Ok(v) = HeaderValue::try_from(provenance.published_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)) {
        h.insert(X_DATA_AS_OF, v);
    }
    h.insert(X_DATA_STATE, HeaderValue::from_static(provenance.state.as_str()));
    if provenance.replay {
        h.insert(X_DATA_MODE, HeaderValue::from_static("replay"));
    }
    let epoch = Epoch { generation: provenance.generation, clock_offset: 0 };
    let held = provenance.until.filter(|_| cacheable).and_then(monotonic).map(|until| (epoch, until));
    respond_held(req, h, &served, held)
}

/// [`respond`], and when the answer may be repeated (`held`: in that epoch, until then), the
/// [`Remembered`] answer in its extensions, for the edge, which keeps it under the request's path
/// and query.
fn respond_held<T>(
    req: &Request,
    headers: HeaderMap,
    served: &Arc<Served>,
    held: Option<(Epoch, Instant)>,
) -> Answer<T> {
    let remembered = held.map(|(epoch, until)| Remembered {
        served: served.clone(),
        headers: headers.clone(),
        epoch,
        until,
        plain: None,
    });
    let mut answer = respond(req, headers, served);
    if let Some(r) = remembered {
        answer.0.extensions_mut().insert(r);
    }
    answer
}

/// A remembered answer sent again: the conditional 304 and the encoding are decided anew (a plain
/// request takes a thread's ready answer as it is).
pub fn repeat(req: &Request, remembered: &Remembered) -> Response {
    let conditional_or_encoded =
        || req.headers().contains_key(header::IF_NONE_MATCH) || req.headers().contains_key(header::ACCEPT_ENCODING);
    if let Some(plain) = remembered.plain.as_ref().filter(|_| !conditional_or_encoded()) {
        let mut r = Response::builder().body(plain.body.clone());
        *r.headers_mut() = plain.headers.clone();
        return r;
    }
    let mut headers = HeaderMap::with_capacity(RESPONSE_HEADERS);
    for (name, value) in &remembered.headers {
        headers.insert(name.clone(), if made_per_answer(name) { unshared(value) } else { value.clone() });
    }
    respond::<()>(req, headers, &remembered.served).0
}

/// Whether a remembered answer's header value was made for it (the generation and the as-of);
/// the others are static values, which clone for free.
fn made_per_answer(name: &HeaderName) -> bool {
    name == X_SNAPSHOT_GENERATION || name == X_DATA_AS_OF
}

/// A copy of a header value that concurrent answers share. Cloning it would write its reference
/// count, a cache line the worker threads then trade on every request; a copy of a few dozen
/// bytes writes only this thread's memory.
pub fn unshared(value: &HeaderValue) -> HeaderValue {
    HeaderValue::from_bytes(value.as_bytes()).unwrap_or_else(|_| value.clone())
}

/// The answer of a read-through operation (SUPPLEMENT 1.8): computed live or taken from the
/// read-through cache, so no snapshot headers; degraded answers are not to be stored.
pub fn live_get<T, R: serde::Serialize>(
    req: &Request,
    jmespath: Option<&str>,
    value: &R,
    degraded: bool,
    replay: bool,
) -> Answer<T> {
    live_answer(req, jmespath, value, degraded, replay, None)
}

/// A read-through answer that every identical request gets as it is until `until` (a cache hit
/// whose entry expires then): the edge repeats it as it repeats a dataset answer, in `epoch`.
pub fn live_get_held<T, R: serde::Serialize>(
    req: &Request,
    jmespath: Option<&str>,
    value: &R,
    replay: bool,
    epoch: Epoch,
    until: Instant,
) -> Answer<T> {
    live_answer(req, jmespath, value, false, replay, Some((epoch, until)))
}

fn live_answer<T, R: serde::Serialize>(
    req: &Request,
    jmespath: Option<&str>,
    value: &R,
    degraded: bool,
    replay: bool,
    held: Option<(Epoch, Instant)>,
) -> Answer<T> {
    let served = match serve_bytes(value, jmespath) {
        Ok(s) => Arc::new(s),
        Err(e) => return e.into(),
    };
    let mut h = response_headers(if degraded { NO_STORE } else { PRIVATE_60 });
    if replay {
        h.insert(X_DATA_MODE, HeaderValue::from_static("replay"));
    }
    respond_held(req, h, &served, held)
}

/// An answer about the caller's own account (company monitoring): `no-store`, with its ETag;
/// or the handler's refusal.
pub fn account_get<T: serde::Serialize>(
    req: &Request,
    jmespath: Option<&str>,
    result: Result<T, ApiError>,
) -> Answer<T> {
    account_get_in_mode(req, jmespath, result, false)
}

/// As [`account_get`], for account data built from upstream answers: labelled
/// `X-Data-Mode: replay` when those answers were recorded fixtures.
pub fn account_get_in_mode<T: serde::Serialize>(
    req: &Request,
    jmespath: Option<&str>,
    result: Result<T, ApiError>,
    replay: bool,
) -> Answer<T> {
    match result.and_then(|value| serve_bytes(&value, jmespath)) {
        Ok(served) => {
            let mut headers = response_headers(NO_STORE);
            if replay {
                headers.insert(X_DATA_MODE, HeaderValue::from_static("replay"));
            }
            respond(req, headers, &served)
        }
        Err(e) => e.into(),
    }
}

/// A write's answer: its JSON, never stored (`no-store`), or its refusal.
pub fn account_write<T: serde::Serialize>(result: Result<T, ApiError>) -> Answer<T> {
    match result.and_then(|value| serde_json::to_vec(&value).map_err(ApiError::internal)) {
        Ok(body) => Answer::from_response(
            Response::builder()
                .content_type("application/json; charset=utf-8")
                .header(header::CACHE_CONTROL, "no-store")
                .body(body),
        ),
        Err(e) => e.into(),
    }
}

/// Headers a dataset answer carries by the time it leaves (its own, the edge's RateLimit set, the
/// outer layer's request id and `Vary`), reserved at once: a growing `HeaderMap` reallocates and
/// rehashes, which showed in the cached path's profile.
const RESPONSE_HEADERS: usize = 20;

const X_SNAPSHOT_GENERATION: HeaderName = HeaderName::from_static("x-snapshot-generation");
const X_DATA_AS_OF: HeaderName = HeaderName::from_static("x-data-as-of");
const X_DATA_STATE: HeaderName = HeaderName::from_static("x-data-state");
const X_DATA_MODE: HeaderName = HeaderName::from_static("x-data-mode");
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
const PRIVATE_60: HeaderValue = HeaderValue::from_static("private, max-age=60");
const JSON: HeaderValue = HeaderValue::from_static("application/json; charset=utf-8");

fn response_headers(cache_control: HeaderValue) -> HeaderMap {
    let mut h = HeaderMap::with_capacity(RESPONSE_HEADERS);
    h.insert(header::CACHE_CONTROL, cache_control);
    h
}

/// ETag, the conditional 304, and the negotiated encoding of a rendered body.
fn respond<T>(req: &Request, mut headers: HeaderMap, served: &Served) -> Answer<T> {
    headers.insert(header::ETAG, unshared(&served.etag));
    let etag = served.etag.to_str().unwrap_or_default();
    let if_none_match = req.headers().get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok());
    let mut r = if if_none_match.is_some_and(|v| etag_matches(v, etag)) {
        Response::builder().status(StatusCode::NOT_MODIFIED).finish()
    } else {
        let accept = req.headers().get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok());
        let body = match negotiate(accept).and_then(|c| Some((c, served.encodings.get(c, &served.body)?))) {
            Some((coding, compressed)) => {
                headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding.token()));
                compressed
            }
            None => served.body.clone(),
        };
        headers.insert(header::CONTENT_TYPE, JSON);
        Response::builder().body(body)
    };
    *r.headers_mut() = headers;
    Answer::from_response(r)
}

/// `If-None-Match` against our strong ETag with the weak comparison of RFC 9110 13.1.2: `*`, or
/// any listed tag whose opaque part equals ours (`W/` prefixes ignored).
pub fn etag_matches(if_none_match: &str, etag: &str) -> bool {
    if_none_match.split(',').map(str::trim).any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

/// The documented top-level keys of `T`, for a jmespath error raised before anything is rendered.
pub fn documented_keys<T: Type>() -> Vec<String> {
    let mut registry = poem_openapi::registry::Registry::new();
    T::register(&mut registry);
    registry
        .schemas
        .get(T::name().as_ref())
        .map(|s| s.properties.iter().map(|(name, _)| name.to_string()).collect())
        .unwrap_or_default()
}

/// The jmespath expression's 1,024-byte limit, checked before any query runs.
pub fn check_jmespath_length<T: Type>(jmespath: Option<&str>) -> Result<(), ApiError> {
    match jmespath {
        Some(expr) if expr.len() > super::jmes::MAX_EXPRESSION_BYTES => Err(ApiError::Jmespath {
            error: format!("expression_too_long: {} > {}", expr.len(), super::jmes::MAX_EXPRESSION_BYTES),
            original_keys: documented_keys::<T>(),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(n: usize) -> Arc<Served> {
        Arc::new(Served::new(Bytes::from(vec![b'x'; n])))
    }

    #[test]
    fn body_cache_keeps_entries_within_its_budget() {
        // Each entry charges 150 bytes of body and compressed forms plus its key.
        let cache = BodyCache::new(1_000);
        for round in 0..3 {
            for key in ["a", "b", "c"] {
                cache.put(format!("{key}{round}"), served(100));
            }
        }
        cache.put("big".into(), served(2_000));
        let held = cache.rendered.bytes();
        assert!(cache.get("big").is_none(), "an entry larger than the budget is not kept");
        assert!(held > 0 && held <= 1_000, "held {held} bytes");
        assert!(cache.rendered.0.entry_count() < 9, "{} of 9 entries kept", cache.rendered.0.entry_count());
    }

    #[test]
    fn a_remembered_answer_holds_only_in_its_generation_and_until_its_state_turns() {
        let cache = BodyCache::new(1 << 20);
        let now = Instant::now();
        let until = now + Duration::from_secs(60);
        let path = "/api/x?country=UA";
        let epoch = |generation, clock_offset| Epoch { generation, clock_offset };
        cache.remember(
            path.into(),
            Remembered { served: served(10), headers: HeaderMap::new(), epoch: epoch(7, 0), until, plain: None },
            5,
        );
        assert!(cache.remembered(path, epoch(7, 5), now).is_some());
        assert!(
            cache.remembered("/api/x?country=ua", epoch(7, 5), now).is_none(),
            "only the request exactly as it came"
        );
        assert!(cache.remembered(path, epoch(8, 5), now).is_none(), "a new generation answers anew");
        assert!(cache.remembered(path, epoch(7, 6), now).is_none(), "a moved clock answers anew");
        assert!(cache.remembered(path, epoch(7, 5), until).is_none(), "the answer's state has turned by then");
        let (hits, misses, _) = cache.stats();
        assert_eq!((hits, misses), (1, 0), "misses are counted by the handler's own lookup");
    }

    #[test]
    fn derived_bytes_hold_as_long_as_the_answer_they_were_made_from() {
        let cache = BodyCache::new(1 << 20);
        let now = Instant::now();
        let until = now + Duration::from_secs(60);
        let epoch = Epoch { generation: 7, clock_offset: 0 };
        let answer = Remembered { served: served(10), headers: HeaderMap::new(), epoch, until, plain: None };
        cache.derive("mcp:k".into(), &answer, Bytes::from_static(b"{\"content\":[]}"), 0);
        assert_eq!(cache.derived("mcp:k", epoch, now).as_deref(), Some(&b"{\"content\":[]}"[..]));
        assert_eq!(
            cache.derived("mcp:k", epoch, now).as_deref(),
            Some(&b"{\"content\":[]}"[..]),
            "from this thread's copy"
        );
        assert!(cache.derived("mcp:k", Epoch { generation: 8, ..epoch }, now).is_none());
        assert!(cache.derived("mcp:k", Epoch { clock_offset: 3, ..epoch }, now).is_none());
        assert!(cache.derived("mcp:k", epoch, until).is_none());
        assert!(cache.derived("mcp:other", epoch, now).is_none());
        assert_eq!(cache.stats().0, 2, "hits counted");
    }

    /// A thread's ready answer is exactly the answer the general path builds; a conditional or
    /// encoded request still takes the general path.
    #[test]
    fn a_threads_plain_answer_is_the_same_answer() {
        let mut headers = response_headers(PRIVATE_60);
        headers.insert(X_SNAPSHOT_GENERATION, HeaderValue::from(7u64));
        headers.insert(X_DATA_AS_OF, HeaderValue::from_static("2026-11-24T00:00:00Z"));
        headers.insert(X_DATA_STATE, HeaderValue::from_static("fresh"));
        let until = Instant::now() + Duration::from_secs(60);
        let epoch = Epoch { generation: 7, clock_offset: 0 };
        let shared = Remembered { served: served(2000), headers, epoch, until, plain: None };
        let mine = shared.for_this_thread();
        let plain = poem::Request::builder().finish();
        let described = |r: &Response| {
            let mut h: Vec<_> = r.headers().iter().map(|(n, v)| format!("{n}: {v:?}")).collect();
            h.sort();
            (r.status(), h)
        };
        let (general, fast) = (repeat(&plain, &shared), repeat(&plain, &mine));
        assert!(mine.plain.is_some() && shared.plain.is_none());
        assert_eq!(described(&general), described(&fast));
        assert_eq!(fast.headers().len(), 6, "cache-control, generation, as-of, state, etag, content-type");
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let (a, b) =
            rt.block_on(async { (general.into_body().into_bytes().await, fast.into_body().into_bytes().await) });
        assert_eq!(a.unwrap(), b.unwrap());
        let etag = shared.served.etag.clone();
        let conditional = poem::Request::builder().header(header::IF_NONE_MATCH, etag).finish();
        assert_eq!(repeat(&conditional, &mine).status(), StatusCode::NOT_MODIFIED);
        let gzip = poem::Request::builder().header(header::ACCEPT_ENCODING, "gzip").finish();
        assert_eq!(repeat(&gzip, &mine).headers()[header::CONTENT_ENCODING], "gzip");
    }

    #[test]
    fn a_stale_answers_end_of_time_is_held_a_year_and_a_past_end_not_at_all() {
        assert!(monotonic(Utc::now() - chrono::Duration::seconds(1)).is_none());
        let soon = monotonic(Utc::now() + chrono::Duration::seconds(60)).expect("held");
        assert!(soon > Instant::now() + Duration::from_secs(59) && soon <= Instant::now() + Duration::from_secs(60));
        let forever = monotonic(DateTime::<Utc>::MAX_UTC).expect("held");
        assert!(forever <= Instant::now() + LONGEST_HOLD && forever > Instant::now() + LONGEST_HOLD / 2);
    }

    #[test]
    fn a_recent_fetch_of_frozen_content_is_stale_for_that_reason() {
        let now = Utc::now();
        let fetched = |content_days: i64| Freshness {
            status: sitrep_schemas::DatasetStatus::Ok,
            fetched_at: Some(now - chrono::Duration::hours(1)),
            content_at: Some(now - chrono::Duration::days(content_days)),
            ..Freshness::never(None)
        };
        let co2 = DatasetId::CO2_MONITORING;
        assert_eq!(DataState::judged(co2, Some(&fetched(2)), now), (DataState::Fresh, None));
        assert_eq!(
            DataState::judged(co2, Some(&fetched(9)), now),
            (DataState::Stale, Some(StaleReason::FrozenUpstream))
        );
        assert_eq!(DataState::of(co2, Some(&fetched(9)), now), DataState::Stale, "what X-Data-State says");
        let overdue = Freshness { fetched_at: Some(now - chrono::Duration::days(3)), ..fetched(3) };
        assert_eq!(DataState::judged(co2, Some(&overdue), now), (DataState::Stale, Some(StaleReason::Overdue)));
        assert_eq!(DataState::judged(co2, None, now), (DataState::Unavailable, None));
    }

    #[test]
    fn an_answer_holds_until_its_data_turns_stale_and_a_stale_one_until_the_next_generation() {
        let stale_from = Some(Utc::now());
        assert_eq!(DataState::Fresh.holds_until(stale_from), stale_from);
        assert_eq!(DataState::Stale.holds_until(stale_from), Some(DateTime::<Utc>::MAX_UTC));
        assert_eq!(DataState::Unavailable.holds_until(stale_from), None);
    }

    #[test]
    fn if_none_match_uses_weak_comparison() {
        let tag = "\"abc\"";
        assert!(etag_matches("\"abc\"", tag));
        assert!(etag_matches("W/\"abc\"", tag));
        assert!(etag_matches("\"x\", W/\"abc\"", tag));
        assert!(etag_matches("*", tag));
        assert!(!etag_matches("\"abcd\"", tag));
        assert!(!etag_matches("abc", tag));
    }
}
