//! What every request can reach: the loaded snapshots, the state store, caches, the rate limiter
//! and the settings. Its own module so that `app` (assembly), `api` (handlers), `edge` (the
//! per-operation pipeline) and `auth` all depend on it and not on each other.

use std::sync::Arc;

use poem::Request;
use rand::RngCore;

use crate::{
    api::{answer::BodyCache, error::ApiError},
    auth,
    edge::rate_limit::{InProcessLimiter, Limits, RateLimiter},
    metrics::Metrics,
    registry::Registry,
    snapshot::Snapshots,
    state::StateStore,
};

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
    pub rate_limits: Limits,
    /// The edge User-Agent filter of SUPPLEMENT 1.15 (`EDGE_UA_FILTER=on`; off by default).
    pub edge_ua_filter: bool,
    /// Browser origins allowed on `/mcp` besides the public ones and loopback (`MCP_ALLOWED_ORIGINS`).
    pub mcp_allowed_origins: Vec<String>,
    /// Redirect URIs of AI assistants that dynamic client registration accepts exactly (`OAUTH_ASSISTANT_CALLBACKS`).
    pub oauth_assistant_callbacks: Vec<String>,
    /// Test-only: Client ID Metadata Documents may be fetched from loopback (`OAUTH_CIMD_ALLOW_LOOPBACK=on`).
    pub oauth_cimd_allow_loopback: bool,
    /// An extra root certificate (PEM) for fetching metadata documents (`OAUTH_CIMD_CA_FILE`).
    pub oauth_cimd_ca: Option<Vec<u8>>,
    pub aviationstack_budget: crate::read_through::AviationStackBudget,
    /// The consumer-prices market of a request without `market_code` (`CONSUMER_PRICES_DEFAULT_MARKET`, `ae`).
    pub consumer_prices_default_market: String,
}

/// SUPPLEMENT 5.4's default assistant callbacks.
pub const DEFAULT_ASSISTANT_CALLBACKS: [&str; 3] = [
    "https://claude.ai/api/mcp/auth_callback",
    "https://claude.com/api/mcp/auth_callback",
    "https://chatgpt.com/connector_platform_oauth_redirect",
];

impl Settings {
    pub fn site_origin(&self) -> &str {
        self.public_origins.first().map(String::as_str).unwrap_or("http://127.0.0.1:8080")
    }

    /// Whether a browser request comes from one of our origins (a request without `Origin` is
    /// not a cross-origin browser request).
    pub fn is_own_origin(&self, req: &Request) -> bool {
        match req.headers().get("origin").and_then(|v| v.to_str().ok()) {
            None => true,
            Some(o) => self.public_origins.iter().any(|p| p == o),
        }
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

/// The time the authorization server and the dashboard judge lifetimes by: the system clock,
/// which tests can move forward to expire codes, tokens, nonces, sessions and registrations.
#[derive(Debug, Default)]
pub struct Clock {
    offset_seconds: std::sync::atomic::AtomicI64,
}

impl Clock {
    /// Epoch seconds.
    pub fn now(&self) -> i64 {
        chrono::Utc::now().timestamp() + self.offset_seconds.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Moves this clock `seconds` ahead of the system clock (tests).
    pub fn advance(&self, seconds: i64) {
        self.offset_seconds.fetch_add(seconds, std::sync::atomic::Ordering::Relaxed);
    }
}

pub struct AppState {
    /// The operations this server answers.
    pub registry: Arc<Registry>,
    pub snapshots: Arc<Snapshots>,
    pub store: StateStore,
    pub cursor_secret: Vec<u8>,
    pub cache: BodyCache,
    pub keys: auth::KeyCache,
    pub limiter: Arc<dyn RateLimiter>,
    pub metrics: Metrics,
    pub settings: Settings,
    pub clock: Clock,
    /// Client ID Metadata Documents fetched lately.
    pub client_metadata: crate::oauth::MetadataCache,
    /// The read-through layer of on-demand operations (unconfigured upstreams until set).
    pub read_through: crate::read_through::ReadThrough,
}

impl AppState {
    pub async fn new(
        registry: Arc<Registry>,
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
            metrics: Metrics::new(&registry),
            registry,
            snapshots,
            store,
            cursor_secret: secret.into_bytes(),
            cache: BodyCache::new(BODY_CACHE_BYTES),
            keys: auth::KeyCache::new(settings.key_cache_ttl),
            limiter: Arc::new(InProcessLimiter::default()),
            settings,
            clock: Clock::default(),
            client_metadata: Default::default(),
            read_through: crate::read_through::ReadThrough::live(Default::default())
                .map_err(|e| ApiError::internal(format!("read-through client: {e}")))?,
        })
    }

    /// The read-through layer to use (live with the deployment's credentials, or replay).
    pub fn with_read_through(mut self, read_through: crate::read_through::ReadThrough) -> Self {
        self.read_through = read_through;
        self
    }

    /// Replaces the rate limiter (a shared store when replicas run; tests fail it on purpose).
    pub fn with_limiter(mut self, limiter: Arc<dyn RateLimiter>) -> Self {
        self.limiter = limiter;
        self
    }
}
