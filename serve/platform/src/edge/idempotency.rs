//! The Idempotency-Key layer for the POST operations that declare it (SUPPLEMENT 1.13): validate
//! the key, look it up before rate limiting (a replay costs no unit), claim it after, and store
//! or release the outcome. A claim is released when its request is cancelled or fails, so an
//! abandoned request never holds the key for the whole lock period.

use poem::{
    http::{HeaderValue, StatusCode},
    Response,
};
use sha2::{Digest, Sha256};

use crate::{
    app_state::AppState,
    kit::error::ApiError,
    state::{Claim, StateStore, StoredResponse},
};

pub const MAX_STORED_BODY: usize = 262_144;

/// One request's key, scoped to (principal or client IP, route, key), and its body's identity.
pub struct Keyed {
    pub key: String,
    scope: String,
    body_hash: String,
}

impl Keyed {
    /// `Ok(None)` without the header; 400 for a malformed key.
    pub fn from_header(
        header: Option<&HeaderValue>,
        caller: &str,
        path: &str,
        body: &[u8],
    ) -> Result<Option<Keyed>, ApiError> {
        let Some(raw) = header.map(HeaderValue::as_bytes) else { return Ok(None) };
        if raw.is_empty() || raw.len() > 255 || !raw.iter().all(|b| (0x21..=0x7e).contains(b)) {
            return Err(ApiError::InvalidIdempotencyKey);
        }
        let key = String::from_utf8(raw.to_vec()).map_err(|_| ApiError::InvalidIdempotencyKey)?;
        Ok(Some(Keyed { scope: format!("{caller}|{path}|{key}"), body_hash: hex::encode(Sha256::digest(body)), key }))
    }
}

/// An earlier outcome of the same key as the answer, if there is one.
fn settled(claim: Claim, key: &str) -> Result<Option<Response>, ApiError> {
    match claim {
        Claim::Claimed => Ok(None),
        Claim::Replay(stored) => {
            let mut r = Response::builder()
                .status(StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK))
                .content_type(stored.content_type)
                .header("cache-control", "no-store")
                .body(stored.body);
            set_headers(&mut r, key, true);
            Ok(Some(r))
        }
        Claim::InFlight => Err(ApiError::IdempotencyInFlight { key: key.to_string() }),
        Claim::Mismatch => Err(ApiError::IdempotencyReused { key: key.to_string() }),
    }
}

/// The lookup step: a replay, 409 or 422 answers now; `Ok(None)` goes on to the rate limiter.
/// An unavailable store fails open (the request proceeds without deduplication).
pub async fn lookup(state: &AppState, k: &Keyed) -> Result<Option<Response>, ApiError> {
    match state.store.idempotency_peek(&k.scope, &k.body_hash, state.clock.now_ms()).await {
        Ok(Some(claim)) => settled(claim, &k.key),
        Ok(None) => Ok(None),
        Err(e) => {
            tracing::warn!(error = %e, "idempotency store unavailable; proceeding without deduplication");
            Ok(None)
        }
    }
}

/// The claim step, after rate limiting. `Ok(Ok(guard))` = this request runs the handler;
/// `Ok(Err(response))` = a concurrent request settled the key meanwhile.
pub async fn claim(state: &AppState, k: &Keyed) -> Result<Result<Option<ClaimGuard>, Response>, ApiError> {
    match state.store.idempotency_claim(&k.scope, &k.body_hash, state.clock.now_ms()).await {
        Ok(Claim::Claimed) => {
            Ok(Ok(Some(ClaimGuard { store: state.store.clone(), scope: k.scope.clone(), settled: false })))
        }
        Ok(other) => Ok(Err(settled(other, &k.key)?.unwrap_or_default())),
        Err(e) => {
            tracing::warn!(error = %e, "idempotency store unavailable; proceeding without deduplication");
            Ok(Ok(None))
        }
    }
}

/// A held claim. [`ClaimGuard::finish`] stores or releases it; dropping it unfinished (the request
/// was cancelled, or its handler panicked) releases it.
pub struct ClaimGuard {
    store: StateStore,
    scope: String,
    settled: bool,
}

impl ClaimGuard {
    /// Stores `r` for replay when SUPPLEMENT 1.13 allows, else releases the claim. Returns the
    /// response with its body read into memory.
    pub async fn finish(mut self, mut r: Response) -> Response {
        let status = r.status().as_u16();
        let content_type = r.content_type().unwrap_or("").to_string();
        let storable = !matches!(status, 408 | 409 | 429) && status < 500 && content_type.contains("json");
        let bytes = r.take_body().into_bytes().await.unwrap_or_default();
        let outcome = if storable && bytes.len() <= MAX_STORED_BODY {
            let stored = StoredResponse { status, content_type, body: bytes.to_vec() };
            self.store.idempotency_complete(&self.scope, &stored).await
        } else {
            self.store.idempotency_release(&self.scope).await
        };
        if let Err(e) = outcome {
            tracing::warn!(error = %e, "could not settle an idempotency claim");
        }
        self.settled = true;
        r.set_body(bytes);
        r
    }
}

impl Drop for ClaimGuard {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let (store, scope) = (self.store.clone(), std::mem::take(&mut self.scope));
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Err(e) = store.idempotency_release(&scope).await {
                    tracing::warn!(error = %e, "could not release an abandoned idempotency claim");
                }
            });
        }
    }
}

pub fn set_headers(r: &mut Response, key: &str, replayed: bool) {
    if let Ok(v) = HeaderValue::from_str(key) {
        r.headers_mut().insert("idempotency-key", v);
    }
    r.headers_mut().insert("idempotent-replayed", HeaderValue::from_static(if replayed { "true" } else { "false" }));
}
