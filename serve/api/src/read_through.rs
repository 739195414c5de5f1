//! The read-through layer of on-demand operations (SUPPLEMENT 1.8): a TTL cache keyed by
//! operation and normalised parameters in front of the live connectors, with a single flight per
//! key (many concurrent identical requests make one upstream call) and short lifetimes for
//! failures. In replay mode the connectors talk to the recorded fixtures through the same code.
//!
//! The cache is moka's: bounded in entries, each entry dropped when its TTL runs out, and one
//! computation per key at a time. Entries also carry their expiry on the caller's clock, which
//! decides what is fresh: tests move that clock (`AppState::clock`), moka's own cannot be moved.

use std::{
    any::Any,
    future::Future,
    path::Path,
    sync::Arc,
    time::{Duration, Instant},
};

use moka::{future::Cache, ops::compute::Op, Expiry};
use poem::Request;
use sitrep_platform::{
    app_state::AppState,
    kit::answer::{live_get, live_get_held, Answer},
};
use sitrep_platform::{edge::load_shedding::answered, kit::canonical::LiveKey};

use sitrep_pipelines::{
    http::{Http, RetryPolicy},
    replay::FixtureServer,
    transport::Transport,
    SourceError, UpstreamConfig,
};

/// Upstreams whose recordings replay mode serves to the read-through connectors.
pub const REPLAY_UPSTREAMS: [&str; 7] =
    ["youtube", "aviationstack", "aviation-news", "wingbits", "opensky", "travelpayouts", "flight-search"];

pub use sitrep_pipelines::budget::{cycle_start, AviationStackBudget, LiveCall};

/// A computed answer and how long it may be reused.
pub struct Fresh<V> {
    pub value: V,
    pub ttl_seconds: i64,
}

/// How a read-through answer was had: taken from the cache (`hit`) or fetched, and until when its
/// entry is fresh (epoch seconds on the caller's clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    pub hit: bool,
    pub until: i64,
}

/// Entries kept at most (each a small answer: a flight, a page of positions, a fare list).
const MAX_ENTRIES: u64 = 10_000;

/// A cached value and when it stops being fresh (epoch seconds on the caller's clock). The value's
/// type is the one its key's operation stores; a key names its operation, so one key holds one type.
#[derive(Clone)]
struct Slot {
    until: i64,
    ttl_seconds: i64,
    value: Arc<dyn Any + Send + Sync>,
}

/// moka drops an entry once its TTL has passed on moka's clock.
struct SlotExpiry;

impl Expiry<String, Slot> for SlotExpiry {
    fn expire_after_create(&self, _key: &String, slot: &Slot, _created: Instant) -> Option<Duration> {
        Some(Duration::from_secs(slot.ttl_seconds.max(0) as u64))
    }
}

pub struct ReadThrough {
    pub http: Http,
    pub config: UpstreamConfig,
    slots: Cache<String, Slot>,
    /// Until when the flight-search provider is cooling down (epoch seconds; 0: it is not).
    cooldown_until: std::sync::atomic::AtomicI64,
    /// Upstream calls made (for the single-flight test and metrics).
    calls: std::sync::atomic::AtomicU64,
    /// In replay mode, when the recordings were made: the time the answers describe.
    replay_now: Option<i64>,
    _fixtures: Option<Arc<FixtureServer>>,
}

/// What one upstream answer of a read-through call may weigh: it answers one request (the
/// largest recorded, a regional Wingbits box or a news feed, are well under 1 MB).
const MAX_ANSWER: usize = 32 << 20;

impl ReadThrough {
    fn new(http: Http, config: UpstreamConfig, fixtures: Option<FixtureServer>) -> Self {
        ReadThrough {
            http,
            config,
            slots: Cache::builder().max_capacity(MAX_ENTRIES).expire_after(SlotExpiry).build(),
            cooldown_until: Default::default(),
            calls: Default::default(),
            replay_now: fixtures.as_ref().and_then(|f| f.recorded_at()).map(|t| t.timestamp()),
            _fixtures: fixtures.map(Arc::new),
        }
    }

    /// Live upstreams with the deployment's credentials.
    pub fn live(config: UpstreamConfig) -> Result<Self, SourceError> {
        let http = Http::new(Transport::Live, RetryPolicy::default())?.with_max_body(MAX_ANSWER);
        Ok(Self::new(http, config, None))
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
        let http = Http::new(server.transport(), retry)?.with_max_body(MAX_ANSWER);
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

    /// The flight-search provider asked us to back off (a 429): no call until `until` (epoch seconds).
    pub fn cool_down(&self, until: i64) {
        self.cooldown_until.fetch_max(until, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the flight-search provider is cooling down at `now`.
    pub fn cooling_down(&self, now: i64) -> bool {
        now < self.cooldown_until.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn upstream_calls(&self) -> u64 {
        self.calls.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The cached answer for `key`, or `fetch`'s, stored for its TTL; the lease says which, and
    /// until when. Concurrent callers of one key wait for the one fetch in flight instead of
    /// making their own; a caller that gives up (a cancelled request) hands the turn to the next.
    pub async fn get_or_fetch<V, F, Fut>(&self, key: &LiveKey, now: impl Fn() -> i64, fetch: F) -> (V, Lease)
    where
        V: Clone + Send + Sync + 'static,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Fresh<V>>,
    {
        let key = key.as_str();
        if let Some(hit) = self.slots.get(key).await.and_then(|slot| slot.fresh(now())) {
            return hit;
        }
        // moka runs one computation per key at a time: whoever waited behind the one fetching
        // finds its answer here and leaves the entry as it is.
        let mut fetched = None;
        // Waiting behind the fetch in flight, or making it (an upstream call: a socket and little
        // CPU), this request does not count against load shedding: a cold burst is one fetch, not
        // a thousand requests at work; and what it fetched is its answer, so it stays out after.
        answered(self.slots.entry_by_ref(key).and_compute_with(|current| async {
            if let Some(hit) = current.and_then(|e| e.into_value().fresh::<V>(now())) {
                fetched = Some(hit);
                return Op::Nop;
            }
            self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let fresh = fetch().await;
            let slot = Slot::new(fresh.value.clone(), fresh.ttl_seconds, now());
            fetched = Some((fresh.value, Lease { hit: false, until: slot.until }));
            Op::Put(slot)
        }))
        .await;
        fetched.expect("the computation ran to its end (it was awaited)")
    }
}

impl Slot {
    fn new<V: Send + Sync + 'static>(value: V, ttl_seconds: i64, now: i64) -> Slot {
        Slot { until: now + ttl_seconds, ttl_seconds, value: Arc::new(value) }
    }

    /// The value while fresh at `now`, as a hit.
    fn fresh<V: Clone + 'static>(&self, now: i64) -> Option<(V, Lease)> {
        let value = (now < self.until).then(|| self.value.downcast_ref::<V>().cloned()).flatten()?;
        Some((value, Lease { hit: true, until: self.until }))
    }
}

impl ReadThrough {
    /// The answer of a read-through operation: a cache hit that is not degraded is held for the
    /// edge (and the MCP server) to repeat as it is until its entry expires, as dataset answers
    /// are; a fetched or degraded answer is made per request.
    pub fn answer<T, R: serde::Serialize>(
        &self,
        state: &AppState,
        req: &Request,
        jmespath: Option<&str>,
        value: &R,
        degraded: bool,
        lease: Lease,
    ) -> Answer<T> {
        let replay = self.is_replay();
        match state.clock.deadline(lease.until * 1_000).filter(|_| lease.hit && !degraded) {
            Some(until) => live_get_held(req, jmespath, value, replay, state.epoch(), until),
            None => live_get(req, jmespath, value, degraded, replay),
        }
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
        let (v, lease) =
            rt.get_or_fetch(&LiveKey::fixed("k"), now, || async { Fresh { value: 1u32, ttl_seconds: 60 } }).await;
        assert_eq!((v, lease), (1, Lease { hit: false, until: 1_060 }));
        clock.store(1_030, Ordering::Relaxed);
        let (v, lease) =
            rt.get_or_fetch(&LiveKey::fixed("k"), now, || async { Fresh { value: 2u32, ttl_seconds: 60 } }).await;
        assert_eq!((v, lease), (1, Lease { hit: true, until: 1_060 }), "a hit ends when its entry does");
        clock.store(1_060, Ordering::Relaxed);
        let (v, lease) =
            rt.get_or_fetch(&LiveKey::fixed("k"), now, || async { Fresh { value: 3u32, ttl_seconds: 30 } }).await;
        assert_eq!((v, lease), (3, Lease { hit: false, until: 1_090 }), "expired after its TTL");
        assert_eq!(rt.upstream_calls(), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_flight_per_key() {
        let rt = Arc::new(rt());
        let answers = futures::future::join_all((0..200).map(|_| {
            let rt = rt.clone();
            async move {
                rt.get_or_fetch(
                    &LiveKey::fixed("same"),
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
        assert_eq!(answers.iter().filter(|(_, lease)| !lease.hit).count(), 1);
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
                        &LiveKey::fixed("slow"),
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
        // Each round's first caller started a fetch; nobody was left holding the key's turn.
        assert_eq!(rt.upstream_calls(), 50);
        let answer = tokio::time::timeout(
            std::time::Duration::from_secs(1),
            rt.get_or_fetch(&LiveKey::fixed("slow"), || 0, || async { Fresh { value: 2u8, ttl_seconds: 60 } }),
        )
        .await;
        assert_eq!(answer.ok().map(|(v, l)| (v, l.hit)), Some((2, false)), "the key still answers, at once");
    }

    #[tokio::test]
    async fn distinct_keys_beyond_the_bound_evict_others() {
        let rt = rt();
        for i in 0..MAX_ENTRIES + 500 {
            rt.get_or_fetch(
                &LiveKey::fixed(&format!("flight-status:{i}")),
                || 0,
                || async { Fresh { value: i, ttl_seconds: 3600 } },
            )
            .await;
        }
        rt.slots.run_pending_tasks().await;
        assert!(rt.slots.entry_count() <= MAX_ENTRIES, "{} entries kept", rt.slots.entry_count());
    }

    #[test]
    fn a_cool_down_lasts_until_its_end() {
        let rt = rt();
        assert!(!rt.cooling_down(1_000));
        rt.cool_down(1_120);
        assert!(rt.cooling_down(1_119) && !rt.cooling_down(1_120));
        rt.cool_down(1_050);
        assert!(rt.cooling_down(1_119), "an earlier end does not shorten it");
    }
}
