//! The read-through layer of on-demand operations (SUPPLEMENT 1.8): a TTL cache keyed by
//! operation and normalised parameters in front of the live connectors, with a single flight per
//! key (many concurrent identical requests make one upstream call) and short lifetimes for
//! failures. In replay mode the connectors talk to the recorded fixtures through the same code.

use std::{
    any::Any,
    collections::HashMap,
    future::Future,
    path::Path,
    sync::{Arc, Mutex},
};

use sitrep_pipelines::{
    http::{Http, RetryPolicy},
    replay::FixtureServer,
    transport::Transport,
    SourceError, UpstreamConfig,
};

/// Upstreams whose recordings replay mode serves to the read-through connectors.
pub const REPLAY_UPSTREAMS: [&str; 7] =
    ["youtube", "aviationstack", "aviation-news", "wingbits", "opensky", "travelpayouts", "flight-search"];

pub use sitrep_pipelines::budget::{cycle_start, AviationStackBudget};

/// A computed answer and how long it may be reused.
pub struct Fresh<V> {
    pub value: V,
    pub ttl_seconds: i64,
}

struct Slot {
    until: i64,
    value: Arc<dyn Any + Send + Sync>,
}

pub struct ReadThrough {
    pub http: Http,
    pub config: UpstreamConfig,
    slots: Mutex<HashMap<String, Slot>>,
    /// One lock per key being fetched: the single flight.
    flights: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Upstream calls made (for the single-flight test and metrics).
    calls: std::sync::atomic::AtomicU64,
    /// In replay mode, when the recordings were made: the time the answers describe.
    replay_now: Option<i64>,
    _fixtures: Option<Arc<FixtureServer>>,
}

/// A caller's place in the queue of one key. Dropped on every exit — an answer, a cache hit, or a
/// caller that gave up (a cancelled request) — and the last one out removes the key's lock, so
/// nothing is left behind.
struct FlightTicket<'a> {
    flights: &'a Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    key: &'a str,
    flight: Arc<tokio::sync::Mutex<()>>,
}

impl<'a> FlightTicket<'a> {
    fn take(flights: &'a Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>, key: &'a str) -> Self {
        let flight = flights.lock().unwrap_or_else(|p| p.into_inner()).entry(key.to_string()).or_default().clone();
        FlightTicket { flights, key, flight }
    }
}

impl Drop for FlightTicket<'_> {
    fn drop(&mut self) {
        let mut flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        // Ours and the map's: nobody else is waiting on this key.
        if Arc::strong_count(&self.flight) <= 2 {
            flights.remove(self.key);
        }
    }
}

impl ReadThrough {
    fn new(http: Http, config: UpstreamConfig, fixtures: Option<FixtureServer>) -> Self {
        ReadThrough {
            http,
            config,
            slots: Mutex::default(),
            flights: Mutex::default(),
            calls: Default::default(),
            replay_now: fixtures.as_ref().and_then(|f| f.recorded_at()).map(|t| t.timestamp()),
            _fixtures: fixtures.map(Arc::new),
        }
    }

    /// Live upstreams with the deployment's credentials.
    pub fn live(config: UpstreamConfig) -> Result<Self, SourceError> {
        Ok(Self::new(Http::new(Transport::Live, RetryPolicy::default())?, config, None))
    }

    /// The recorded upstreams of `fixtures/<upstream>/normal`, through a local fixture server.
    pub async fn replay(fixtures: &Path) -> Result<Self, SourceError> {
        Self::replay_scenarios(fixtures, &[], UpstreamConfig::replay(fixtures)).await
    }

    /// As [`Self::replay`], with other scenarios for some upstreams (`("wingbits", "down")`) and
    /// the given configuration (tests turn optional providers on this way).
    pub async fn replay_scenarios(
        fixtures: &Path,
        scenarios: &[(&str, &str)],
        config: UpstreamConfig,
    ) -> Result<Self, SourceError> {
        let scenario = |u: &str| scenarios.iter().find(|(name, _)| *name == u).map(|(_, s)| *s).unwrap_or("normal");
        let dirs: Vec<_> = REPLAY_UPSTREAMS.iter().map(|u| fixtures.join(u).join(scenario(u))).collect();
        let server = FixtureServer::start_dirs(&dirs).await?;
        let retry = RetryPolicy { max_retries: 0, ..RetryPolicy::default() };
        let http = Http::new(server.transport(), retry)?;
        Ok(Self::new(http, config, Some(server)))
    }

    /// Whether answers come from recorded fixtures (`X-Data-Mode: replay`).
    pub fn is_replay(&self) -> bool {
        self.http.transport().is_replay()
    }

    /// The time a live answer describes (epoch seconds): `now`, or the recordings' time in replay
    /// mode, so windows such as "the last 24 hours" select what was recorded.
    pub fn upstream_now(&self, now: i64) -> i64 {
        self.replay_now.unwrap_or(now)
    }

    /// Keeps `value` under `key` for `ttl_seconds` (state such as a provider's cool-down).
    pub fn remember<V: Send + Sync + 'static>(&self, key: &str, value: V, ttl_seconds: i64, now: i64) {
        if let Ok(mut slots) = self.slots.lock() {
            slots.insert(key.to_string(), Slot { until: now + ttl_seconds, value: Arc::new(value) });
        }
    }

    /// What [`Self::remember`] kept under `key`, while it lasts.
    pub fn recall<V: Clone + Send + Sync + 'static>(&self, key: &str, now: i64) -> Option<V> {
        self.cached(key, now)
    }

    pub fn upstream_calls(&self) -> u64 {
        self.calls.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn cached<V: Clone + Send + Sync + 'static>(&self, key: &str, now: i64) -> Option<V> {
        let slots = self.slots.lock().ok()?;
        let slot = slots.get(key).filter(|s| now < s.until)?;
        slot.value.downcast_ref::<V>().cloned()
    }

    /// The cached answer for `key` (and `true`), or `fetch`'s (and `false`), stored for its TTL.
    /// Concurrent callers of one key wait for the one fetch in flight instead of making their own.
    pub async fn get_or_fetch<V, F, Fut>(&self, key: &str, now: impl Fn() -> i64, fetch: F) -> (V, bool)
    where
        V: Clone + Send + Sync + 'static,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Fresh<V>>,
    {
        if let Some(v) = self.cached(key, now()) {
            return (v, true);
        }
        let ticket = FlightTicket::take(&self.flights, key);
        let _turn = ticket.flight.lock().await;
        // Whoever held the turn before may have filled the slot.
        if let Some(v) = self.cached(key, now()) {
            return (v, true);
        }
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let fresh = fetch().await;
        if let Ok(mut slots) = self.slots.lock() {
            if slots.len() > 10_000 {
                let t = now();
                slots.retain(|_, s| t < s.until);
            }
            slots.insert(
                key.to_string(),
                Slot { until: now() + fresh.ttl_seconds, value: Arc::new(fresh.value.clone()) },
            );
        }
        (fresh.value, false)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicI64, Ordering};

    use super::*;

    fn rt() -> ReadThrough {
        ReadThrough::live(UpstreamConfig::default()).unwrap()
    }

    #[tokio::test]
    async fn hits_misses_and_ttls() {
        let rt = rt();
        let clock = AtomicI64::new(1_000);
        let now = || clock.load(Ordering::Relaxed);
        let (v, hit) = rt.get_or_fetch("k", now, || async { Fresh { value: 1u32, ttl_seconds: 60 } }).await;
        assert_eq!((v, hit), (1, false));
        let (v, hit) = rt.get_or_fetch("k", now, || async { Fresh { value: 2u32, ttl_seconds: 60 } }).await;
        assert_eq!((v, hit), (1, true));
        clock.store(1_060, Ordering::Relaxed);
        let (v, hit) = rt.get_or_fetch("k", now, || async { Fresh { value: 3u32, ttl_seconds: 30 } }).await;
        assert_eq!((v, hit), (3, false), "expired after its TTL");
        assert_eq!(rt.upstream_calls(), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_flight_per_key() {
        let rt = Arc::new(rt());
        let answers = futures::future::join_all((0..200).map(|_| {
            let rt = rt.clone();
            async move {
                rt.get_or_fetch(
                    "same",
                    || 0,
                    || async {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        Fresh { value: "answer".to_string(), ttl_seconds: 60 }
                    },
                )
                .await
            }
        }))
        .await;
        assert_eq!(rt.upstream_calls(), 1, "200 concurrent identical requests, one upstream call");
        assert!(answers.iter().all(|(v, _)| v == "answer"));
        assert_eq!(answers.iter().filter(|(_, hit)| !hit).count(), 1);
        assert!(rt.flights.lock().unwrap().is_empty(), "no lock is left behind");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn callers_that_give_up_leave_nothing_behind() {
        let rt = Arc::new(rt());
        // Callers cancelled while fetching or while waiting for the one fetching.
        for _ in 0..50 {
            let waiting = (0..4).map(|_| {
                let rt = rt.clone();
                async move {
                    rt.get_or_fetch(
                        "slow",
                        || 0,
                        || async {
                            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                            Fresh { value: 1u8, ttl_seconds: 60 }
                        },
                    )
                    .await
                }
            });
            let all = futures::future::join_all(waiting);
            assert!(tokio::time::timeout(std::time::Duration::from_millis(2), all).await.is_err());
        }
        assert!(rt.flights.lock().unwrap().is_empty(), "cancelled callers left no lock behind");
        let (v, hit) = rt.get_or_fetch("slow", || 0, || async { Fresh { value: 2u8, ttl_seconds: 60 } }).await;
        assert_eq!((v, hit), (2, false), "the key still answers");
    }
}
