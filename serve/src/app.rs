//! Assembling the server: shared state, the route tree and the middleware chain in the processing
//! order of SUPPLEMENT 1.1 (routing → authentication → idempotency → handler → jmespath/ETag).

use std::sync::Arc;

use poem::{
    endpoint::BoxEndpoint, get, http::HeaderValue, http::StatusCode, middleware::CatchPanic, Endpoint, EndpointExt,
    IntoResponse, Request, Response, Route,
};
use poem_openapi::OpenApiService;
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::{
    api::{self, answer::BodyCache, conflict::ConflictApi, error::ApiError},
    auth,
    snapshot::Snapshots,
    state::{Claim, StateStore, StoredResponse},
};

pub const MAX_BODY: usize = 262_144;

/// Memory for rendered response bodies (a page of 100 events renders to about 40 KB).
const BODY_CACHE_BYTES: usize = 64 << 20;

#[derive(Debug, Clone)]
pub struct Settings {
    pub realm: String,
    /// Allowed public origins; the first is the site origin.
    pub public_origins: Vec<String>,
    pub iran_events_enabled: bool,
    pub api_key_prefix: String,
    /// How long a resolved API key is trusted before the state store is asked again: the delay
    /// before a revocation or suspension made elsewhere takes effect.
    pub key_cache_ttl: std::time::Duration,
}

impl Settings {
    pub fn site_origin(&self) -> &str {
        self.public_origins.first().map(String::as_str).unwrap_or("http://127.0.0.1:8080")
    }

    /// The request's origin if it is in the allowlist, else the site origin (SUPPLEMENT 5.2).
    pub fn origin_for(&self, req: &Request) -> String {
        let host = req.headers().get("host").and_then(|h| h.to_str().ok()).unwrap_or("");
        self.public_origins
            .iter()
            .find(|o| o.split("://").nth(1) == Some(host))
            .cloned()
            .unwrap_or_else(|| self.site_origin().to_string())
    }
}

pub struct AppState {
    pub snapshots: Arc<Snapshots>,
    pub store: StateStore,
    pub cursor_secret: Vec<u8>,
    pub cache: BodyCache,
    pub keys: auth::KeyCache,
    pub settings: Settings,
}

impl AppState {
    pub async fn new(
        snapshots: Arc<Snapshots>,
        store: StateStore,
        cursor_secret: Option<String>,
        settings: Settings,
    ) -> Result<Self, ApiError> {
        // Cursors must survive restarts: without DATA_CURSOR_SECRET, one random secret is kept in the store.
        let secret = match cursor_secret {
            Some(s) => s,
            None => {
                let mut raw = [0u8; 32];
                rand::thread_rng().fill_bytes(&mut raw);
                store.setting_or_insert("data_cursor_secret", &hex::encode(raw)).await?
            }
        };
        Ok(AppState {
            snapshots,
            store,
            cursor_secret: secret.into_bytes(),
            cache: BodyCache::new(BODY_CACHE_BYTES),
            keys: auth::KeyCache::new(settings.key_cache_ttl),
            settings,
        })
    }
}

pub fn openapi(state: Arc<AppState>, server_url: &str) -> OpenApiService<ConflictApi, ()> {
    OpenApiService::new(ConflictApi { state }, "sitrep Data Intelligence API", "1.0.0")
        .description("Situational data about armed conflict (and, in later versions, aviation, climate, consumer prices and energy), answered from versioned lake snapshots.")
        .server(server_url)
}

/// Maps poem's own errors (unknown route, wrong method, bad payload, panics) to our JSON bodies.
fn error_edge(err: poem::Error, path: &str) -> Response {
    match err.status() {
        StatusCode::NOT_FOUND => ApiError::NotFound.into_response(),
        StatusCode::METHOD_NOT_ALLOWED => match api::allowed_method(path) {
            Some(allow) => ApiError::MethodNotAllowed { allow }.into_response(),
            None => ApiError::NotFound.into_response(),
        },
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::TooLarge.into_response(),
        StatusCode::BAD_REQUEST | StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::InvalidBody.into_response(),
        s if s.is_server_error() => ApiError::Internal(err.to_string()).into_response(),
        _ => ApiError::InvalidBody.into_response(),
    }
}

fn request_id(req: &Request) -> String {
    req.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| (8..=128).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)))
        .map(str::to_string)
        // From the thread-local generator: `Uuid::new_v4` makes a getrandom syscall per request.
        .unwrap_or_else(|| {
            let mut bytes = [0u8; 16];
            rand::thread_rng().fill_bytes(&mut bytes);
            uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
        })
}

/// Body-size limit and the idempotency layer for POST operations (SUPPLEMENT 1.13).
async fn post_layer<E: Endpoint>(next: &E, state: &AppState, mut req: Request) -> Result<Response, ApiError> {
    let path = req.uri().path().to_string();
    if req.method() != poem::http::Method::POST {
        return Ok(next.call(req).await.map(IntoResponse::into_response).unwrap_or_else(|e| error_edge(e, &path)));
    }
    let body = req.take_body().into_bytes_limit(MAX_BODY).await.map_err(|_| ApiError::TooLarge)?;
    let key = req.headers().get("idempotency-key").map(|v| v.as_bytes().to_vec());
    let Some(key) = key.filter(|_| api::IDEMPOTENT_POSTS.contains(&path.as_str())) else {
        req.set_body(body);
        return Ok(next.call(req).await.map(IntoResponse::into_response).unwrap_or_else(|e| error_edge(e, &path)));
    };
    if key.is_empty() || key.len() > 255 || !key.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(ApiError::InvalidIdempotencyKey);
    }
    let key = String::from_utf8(key).map_err(|_| ApiError::InvalidIdempotencyKey)?;
    let principal = req.extensions().get::<auth::Principal>().map(|p| p.account_id.clone()).unwrap_or_default();
    let scope = format!("{principal}|{path}|{key}");
    let hash = hex::encode(Sha256::digest(&body));
    let now = chrono::Utc::now().timestamp_millis();
    let claim = match state.store.idempotency_claim(&scope, &hash, now).await {
        Ok(c) => c,
        Err(e) => {
            // Fail open: an unavailable store must not block the request (Decision in SUPPLEMENT 1.13).
            tracing::warn!(error = %e, "idempotency store unavailable; proceeding without deduplication");
            req.set_body(body);
            let mut r = next.call(req).await.map(IntoResponse::into_response).unwrap_or_else(|e| error_edge(e, &path));
            set_idempotency_headers(&mut r, &key, false);
            return Ok(r);
        }
    };
    match claim {
        Claim::Replay(stored) => {
            let mut r = Response::builder()
                .status(StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK))
                .content_type(stored.content_type)
                .header("cache-control", "no-store")
                .body(stored.body);
            set_idempotency_headers(&mut r, &key, true);
            Ok(r)
        }
        Claim::InFlight => Err(ApiError::IdempotencyInFlight { key }),
        Claim::Mismatch => Err(ApiError::IdempotencyReused { key }),
        Claim::Claimed => {
            req.set_body(body);
            let mut r = next.call(req).await.map(IntoResponse::into_response).unwrap_or_else(|e| error_edge(e, &path));
            let status = r.status().as_u16();
            let content_type = r.content_type().unwrap_or("").to_string();
            let storable = !matches!(status, 408 | 409 | 429) && status < 500 && content_type.contains("json");
            let bytes = r.take_body().into_bytes().await.unwrap_or_default();
            if storable && bytes.len() <= MAX_BODY {
                let stored = StoredResponse { status, content_type, body: bytes.to_vec() };
                if let Err(e) = state.store.idempotency_complete(&scope, &stored).await {
                    tracing::warn!(error = %e, "could not store idempotent response");
                }
            } else if let Err(e) = state.store.idempotency_release(&scope).await {
                tracing::warn!(error = %e, "could not release idempotency claim");
            }
            r.set_body(bytes);
            set_idempotency_headers(&mut r, &key, false);
            Ok(r)
        }
    }
}

fn set_idempotency_headers(r: &mut Response, key: &str, replayed: bool) {
    if let Ok(v) = key.parse() {
        r.headers_mut().insert("idempotency-key", v);
    }
    r.headers_mut().insert("idempotent-replayed", HeaderValue::from_static(if replayed { "true" } else { "false" }));
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::Internal("handler panicked".into()).into_response()
}

/// The whole HTTP application.
pub fn build(state: Arc<AppState>, server_url: &str) -> BoxEndpoint<'static> {
    let api = openapi(state.clone(), server_url);
    let spec_json = api.spec();
    let spec_yaml = api.spec_yaml();
    let docs = api.swagger_ui();
    let api_state = state.clone();
    let api = api.around(move |next, req| {
        let state = api_state.clone();
        async move {
            let path = req.uri().path().to_string();
            let known = api::allowed_method(&path);
            let method_ok = known.is_some_and(|m| m == req.method().as_str());
            // Unknown paths and wrong methods fall through to routing errors before authentication.
            if !method_ok {
                return Ok(next
                    .call(req)
                    .await
                    .map(IntoResponse::into_response)
                    .unwrap_or_else(|e| error_edge(e, &path)));
            }
            let req = match auth::authenticate(&state, req).await {
                Ok(r) => r,
                Err(e) => return Ok(e.into_response()),
            };
            Ok(post_layer(&next, &state, req).await.unwrap_or_else(ApiError::into_response))
        }
    });
    Route::new()
        .nest("/", api)
        .at(
            "/openapi.json",
            get(poem::endpoint::make_sync(move |_: Request| {
                Response::builder().content_type("application/json; charset=utf-8").body(spec_json.clone())
            })),
        )
        .at(
            "/openapi.yaml",
            get(poem::endpoint::make_sync(move |_: Request| {
                Response::builder().content_type("application/yaml; charset=utf-8").body(spec_yaml.clone())
            })),
        )
        .nest("/docs", docs)
        .at("/healthz", get(api::meta::healthz))
        .at("/readyz", get(api::meta::readyz))
        .at("/api/health", get(api::meta::api_health))
        .at("/.well-known/oauth-protected-resource", get(api::meta::protected_resource))
        .at("/.well-known/oauth-protected-resource/mcp", get(api::meta::protected_resource))
        .data(state)
        .with(CatchPanic::new().with_handler(panic_response))
        .around(|next, req| async move {
            let id = request_id(&req);
            let path = req.uri().path().to_string();
            let mut resp = match next.call(req).await {
                Ok(r) => r.into_response(),
                Err(e) => error_edge(e, &path),
            };
            if let Ok(v) = id.parse() {
                resp.headers_mut().insert("x-request-id", v);
            }
            if path.starts_with("/api/") {
                resp.headers_mut().insert(
                    "vary",
                    HeaderValue::from_static("Authorization, X-Service-Key, X-Api-Key, Accept-Encoding"),
                );
            }
            Ok(resp)
        })
        .boxed()
}
