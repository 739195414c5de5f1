//! What every request can reach: the loaded snapshots, the state store, caches, the rate limiter,
//! the settings, and the extensions the crates above the platform keep here (their settings and
//! caches). Its own module so that `edge` (the per-operation pipeline), `auth`, the handlers and
//! the assembly all depend on it and not on each other.

use std::{
    any::{Any, TypeId},
    collections::HashMap,
    sync::Arc,
};

use poem::Request;
use rand::RngCore;
use sitrep_schemas::DatasetId;

use crate::{
    access::{Access, DatasetAccess},
    auth::key_cache::KeyCache,
    edge::rate_limit::{InProcessLimiter, Limits, RateLimiter},
    kit::{answer::BodyCache, error::ApiError},
    metrics::Metrics,
    snapshot::Snapshots,
    state::{StateError, StateStore},
};

/// Memory for rendered response bodies (a page of 100 events renders to about 40 KB).
const BODY_CACHE_BYTES: usize = 64 << 20;

#[derive(Debug, Clone)]
pub struct Settings {
    pub realm: String,
    /// Allowed public origins; the first is the site origin.
    pub public_origins: Vec<String>,
    pub api_key_prefix: String,
    /// How long a resolved API key is trusted before the state store is asked again: the delay
    /// before a revocation or suspension made elsewhere takes effect.
    pub key_cache_ttl: std::time::Duration,
    pub rate_limits: Limits,
    /// The edge User-Agent filter of SUPPLEMENT 1.15 (`EDGE_UA_FILTER=on`; off by default).
    pub edge_ua_filter: bool,
    /// Datasets the deployment does not serve (`iran-events` unless `IRAN_EVENTS_ENABLED`): every
    /// operation that reads one, or names it, answers its documented empty shape, unavailable.
    pub datasets_off: Vec<DatasetId>,
    /// The proxies whose forwarding headers name the caller (`SITREP_TRUSTED_PROXIES`; none:
    /// the TCP peer is the caller). See `edge::client_addr`.
    pub trusted_proxies: crate::edge::client_addr::TrustedProxies,
}

impl Settings {
    pub fn serves(&self, dataset: DatasetId) -> bool {
        !self.datasets_off.contains(&dataset)
    }

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

/// The time the edge, the authorization server, the dashboard and company monitoring judge
/// lifetimes by: the state store's clock (this machine's plus the measured skew), which tests can
/// move forward to expire codes, tokens, nonces, sessions and registrations.
#[derive(Debug, Default)]
pub struct Clock {
    offset_seconds: std::sync::atomic::AtomicI64,
    /// The state store's clock minus this machine's ([`Clock::sync`]): what the time-to-live
    /// checks (idempotency locks, OAuth items, sessions) are judged on is the database's clock,
    /// the same for every replica.
    skew_ms: std::sync::atomic::AtomicI64,
}

impl Clock {
    /// Epoch seconds.
    pub fn now(&self) -> i64 {
        self.now_ms().div_euclid(1_000)
    }

    /// Epoch milliseconds.
    pub fn now_ms(&self) -> i64 {
        use std::sync::atomic::Ordering::Relaxed;
        chrono::Utc::now().timestamp_millis() + self.skew_ms.load(Relaxed) + self.offset_seconds.load(Relaxed) * 1_000
    }

    /// How far tests moved this clock (seconds; 0 outside tests).
    pub fn offset(&self) -> i64 {
        self.offset_seconds.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// When this clock reads `at_ms` (epoch milliseconds), on the monotonic clock, at most a year
    /// ahead; `None` when it already has.
    pub fn deadline(&self, at_ms: i64) -> Option<std::time::Instant> {
        let left = u64::try_from(at_ms - self.now_ms()).ok().filter(|&ms| ms > 0)?;
        let left = std::time::Duration::from_millis(left.min(365 * 86_400_000));
        Some(std::time::Instant::now() + left)
    }

    /// Moves this clock `seconds` ahead of the system clock (tests).
    pub fn advance(&self, seconds: i64) {
        self.offset_seconds.fetch_add(seconds, std::sync::atomic::Ordering::Relaxed);
    }

    /// Follows the state store's clock: called at start and periodically by the upkeep.
    pub async fn sync(&self, store: &StateStore) -> Result<(), StateError> {
        let skew = store.db().skew_ms().await?;
        self.skew_ms.store(skew, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

/// Values of types the platform does not know, by type: how the API's and the agents' crates
/// keep their settings and caches in the one state every handler receives.
#[derive(Default)]
struct Extensions(HashMap<TypeId, Box<dyn Any + Send + Sync>>);

pub struct AppState {
    pub snapshots: Arc<Snapshots>,
    pub store: StateStore,
    pub cursor_secret: Vec<u8>,
    pub cache: BodyCache,
    pub keys: KeyCache,
    pub limiter: Arc<dyn RateLimiter>,
    pub metrics: Metrics,
    pub settings: Settings,
    pub clock: Clock,
    /// Each dataset's access, derived from the registry's declarations.
    dataset_access: DatasetAccess,
    /// What the crates above keep here (their settings and caches), one value per type.
    extensions: Extensions,
}

impl AppState {
    /// The epoch remembered answers are judged in now.
    pub fn epoch(&self) -> crate::kit::answer::Epoch {
        crate::kit::answer::Epoch { generation: self.snapshots.current_number(), clock_offset: self.clock.offset() }
    }

    /// The state of a server answering the operations of these ids (their metric series), with
    /// what reaching each dataset asks (`Registry::datasets_access`).
    pub async fn new(
        operations: impl IntoIterator<Item = &'static str>,
        dataset_access: DatasetAccess,
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
        let clock = Clock::default();
        if let Err(e) = clock.sync(&store).await {
            tracing::warn!(error = %e, "could not read the state store's clock; judging lifetimes on this machine's");
        }
        Ok(AppState {
            metrics: Metrics::new(operations),
            dataset_access,
            snapshots,
            store,
            cursor_secret: secret.into_bytes(),
            cache: BodyCache::new(BODY_CACHE_BYTES),
            keys: KeyCache::new(settings.key_cache_ttl),
            limiter: Arc::new(InProcessLimiter::default()),
            settings,
            clock,
            extensions: Extensions::default(),
        })
    }

    /// What reaching `dataset` asks of a caller.
    pub fn dataset_access(&self, dataset: DatasetId) -> Access {
        self.dataset_access.of(dataset)
    }

    /// Keeps `value` for the crate that owns its type (one value per type; a second replaces the first).
    pub fn with_extension<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.extensions.0.insert(TypeId::of::<T>(), Box::new(value));
        self
    }

    /// The value of type `T` the assembly kept here, if it did.
    pub fn extension<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.extensions.0.get(&TypeId::of::<T>()).and_then(|v| v.downcast_ref())
    }

    /// Keeps [`AppState::clock`] on the state store's clock, re-measured `every` period (clocks
    /// drift); a failed measurement keeps the last skew.
    pub fn spawn_clock_sync(self: &Arc<Self>, every: std::time::Duration) -> tokio::task::JoinHandle<()> {
        let state = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let Some(state) = state.upgrade() else { return };
                if let Err(e) = state.clock.sync(&state.store).await {
                    tracing::warn!(error = %e, "could not read the state store's clock; keeping the last skew");
                }
            }
        })
    }

    /// Replaces the rate limiter (a shared store when replicas run; tests fail it on purpose).
    pub fn with_limiter(mut self, limiter: Arc<dyn RateLimiter>) -> Self {
        self.limiter = limiter;
        self
    }
}
