//! Resolved credentials, remembered for a short time. Without it every data request would cost a
//! state-store read and a `lastUsedAt` write — a SQLite write serialises the whole server.
//!
//! - A live API key is read at most once per TTL, so revocation, suspension and plan changes
//!   made elsewhere (the `keys` CLI, another replica) take effect within one TTL.
//! - A live OAuth access token is read every time (a reused refresh token or code revokes its
//!   family, and that must stop its tokens at once), but its family's use, like a key's, is
//!   written at most once a minute per process.
//! - A key or token the store does not know is remembered for one TTL, apart from the live ones:
//!   a client repeating a wrong credential costs one read per TTL, and a flood of random ones
//!   never pushes a live key out (revoked credentials never come back, so this is never wrong).

use std::{
    collections::HashMap,
    future::Future,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::{known::KnownCredentials, Principal};
use crate::{
    edge::load_shedding::parked,
    per_thread::Front,
    state::{Account, StateError, StateStore},
};

/// Entries kept at most, of live and of unknown credentials each; past it that map starts over.
const CAPACITY: usize = 10_000;
/// Keys a thread keeps copies of at most.
const FRONT_CAPACITY: usize = 1_024;
/// A credential's use is written at most this often by one process.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

pub struct KeyCache {
    ttl: Duration,
    entries: Mutex<HashMap<KeyDigest, Entry>>,
    /// Each thread's copies of the entries it used, with a principal of its own: a hit then
    /// writes no lock and no reference count that another thread writes too.
    front: Front<KeyDigest, Entry>,
    /// Credentials the store did not know, and until when that is believed.
    unknown: Mutex<HashMap<KeyDigest, Instant>>,
    /// When this process last wrote each key's or token family's use.
    touched: Mutex<HashMap<String, Instant>>,
    /// The credentials that exist: read past a full refused-credential window (`known`).
    known: KnownCredentials,
    /// An API key being read from the store, and the callers' turn at it: a burst of requests
    /// with a key not yet cached makes one store read, the others parked until it is in.
    reading: Mutex<HashMap<KeyDigest, Arc<tokio::sync::Mutex<()>>>>,
}

/// A live credential's caller as resolved from the store, and until when that holds here: one
/// TTL, or less when the account's paid plan lapses sooner or the token expires sooner (then it
/// is read again and found lapsed or gone), so a hit computes nothing.
#[derive(Clone)]
struct Entry {
    holds_until: Instant,
    principal: Arc<Principal>,
}

/// A caller's turn at reading one key; given up when dropped, and the key's entry in `reading`
/// with it once no one else waits (the map and this turn hold the only references then).
struct Turn<'a> {
    cache: &'a KeyCache,
    digest: KeyDigest,
    turn: Arc<tokio::sync::Mutex<()>>,
    held: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        drop(self.held.take());
        let mut reading = self.cache.reading.lock().unwrap_or_else(|p| p.into_inner());
        if Arc::strong_count(&self.turn) <= 2 {
            reading.remove(&self.digest);
        }
    }
}

/// A credential's SHA-256 (`state::key_digest`): the cache holds no secret and needs no hex per request.
type KeyDigest = [u8; 32];

/// What a store read found: the caller, and how long it may be believed at most.
struct Found {
    principal: Arc<Principal>,
    ends_within: Option<Duration>,
}

/// How long until `account`'s paid plan lapses, if it lapses ahead (a past lapse is already in
/// its standing).
fn lapse_within(account: &Account, wall: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    account.lapses_at().and_then(|t| (t - wall).to_std().ok())
}

impl KeyCache {
    pub fn new(ttl: Duration) -> Self {
        KeyCache {
            ttl,
            entries: Mutex::new(HashMap::new()),
            front: Front::new(FRONT_CAPACITY),
            unknown: Mutex::new(HashMap::new()),
            touched: Mutex::new(HashMap::new()),
            known: KnownCredentials::default(),
            reading: Mutex::new(HashMap::new()),
        }
    }

    /// The caller of the live API key with this digest (`state::key_digest`): from the cache
    /// while it holds, else from the store. A thread's repeat allocates nothing and writes only
    /// memory of its own (its front).
    pub async fn resolve<Gate: Future<Output = bool>>(
        &self,
        store: &StateStore,
        digest: &KeyDigest,
        now: Instant,
        may_look_up: impl FnOnce() -> Gate,
    ) -> Result<Option<Arc<Principal>>, StateError> {
        self.cached_or(store, digest, now, true, may_look_up, || async {
            let Some((key, account)) = store.live_key(&hex::encode(digest)).await? else { return Ok(None) };
            let wall = chrono::Utc::now();
            self.touch(&key.id, now, || store.touch_key(&key.id)).await;
            Ok(Some(Found {
                principal: Arc::new(Principal {
                    account_id: account.id.clone(),
                    key_id: key.id.clone(),
                    plan: account.plan,
                    standing: account.standing(wall),
                    scopes: key.scopes.clone(),
                }),
                ends_within: lapse_within(&account, wall),
            }))
        })
        .await
    }

    /// The caller of the live OAuth access token with this digest at `clock` (the OAuth clock,
    /// seconds): from the store (only its absence is remembered).
    pub async fn resolve_token<Gate: Future<Output = bool>>(
        &self,
        store: &StateStore,
        digest: &KeyDigest,
        now: Instant,
        clock: i64,
        may_look_up: impl FnOnce() -> Gate,
    ) -> Result<Option<Arc<Principal>>, StateError> {
        self.cached_or(store, digest, now, false, may_look_up, || async {
            let Some((family, account)) = store.live_access_token(&hex::encode(digest), clock).await? else {
                return Ok(None);
            };
            let wall = chrono::Utc::now();
            self.touch(&family.id, now, || store.touch_family(&family.id, clock)).await;
            Ok(Some(Found {
                principal: Arc::new(Principal {
                    account_id: account.id.clone(),
                    key_id: family.key_id.clone(),
                    plan: account.plan,
                    standing: account.standing(wall),
                    scopes: family.scope.split_whitespace().map(str::to_string).collect(),
                }),
                ends_within: None,
            }))
        })
        .await
    }

    /// From memory while an entry holds (a live one only if `keep_live`), else `load`ed and
    /// remembered if `may_look_up` allows the read or the credential exists (`known`); `None`
    /// unread if neither.
    async fn cached_or<Gate, F, Fut>(
        &self,
        store: &StateStore,
        digest: &KeyDigest,
        now: Instant,
        keep_live: bool,
        may_look_up: impl FnOnce() -> Gate,
        load: F,
    ) -> Result<Option<Arc<Principal>>, StateError>
    where
        Gate: Future<Output = bool>,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Option<Found>, StateError>>,
    {
        let holds = |e: &Entry| now < e.holds_until;
        // A key that was live when last read is read again whatever its address's window says:
        // a client behind the same address as a guesser keeps working.
        let mut was_live = false;
        if keep_live {
            if let Some(mine) = self.front.get(digest, holds) {
                return Ok(Some(mine.principal));
            }
            let shared = self.entries.lock().ok().and_then(|m| m.get(digest).cloned());
            if let Some(e) = shared {
                if holds(&e) {
                    return Ok(Some(self.keep_in_front(digest, &e)));
                }
                was_live = true;
            }
        }
        if self.unknown.lock().ok().and_then(|m| m.get(digest).copied()).is_some_and(|until| now < until) {
            return Ok(None);
        }
        // One store read per API key at a time: the callers behind it find its result here.
        let _turn = match keep_live {
            true => Some(Box::pin(self.turn_at(digest)).await),
            false => None,
        };
        if keep_live {
            let read_meanwhile = self.entries.lock().ok().and_then(|m| m.get(digest).cloned());
            if let Some(e) = read_meanwhile.filter(holds) {
                return Ok(Some(self.keep_in_front(digest, &e)));
            }
            if self.unknown.lock().ok().and_then(|m| m.get(digest).copied()).is_some_and(|until| now < until) {
                return Ok(None);
            }
        }
        // Boxed: held inline, the gate's and the store's futures would enlarge every request's
        // future (cache hits included) by their size.
        if !was_live && !Box::pin(may_look_up()).await && !Box::pin(self.exists(store, digest, now)).await {
            return Ok(None);
        }
        let found = Box::pin(load()).await;
        Ok(match found? {
            Some(found) if !keep_live => Some(found.principal),
            found => self.remember(digest, now, found),
        })
    }

    /// This caller's turn at reading `digest`'s key, waited for (parked: it costs no work).
    async fn turn_at(&self, digest: &KeyDigest) -> Turn<'_> {
        let turn = {
            let mut reading = self.reading.lock().unwrap_or_else(|p| p.into_inner());
            reading.entry(*digest).or_default().clone()
        };
        let held = parked(turn.clone().lock_owned()).await;
        Turn { cache: self, digest: *digest, turn, held: Some(held) }
    }

    /// Whether the credential exists (`known`); a store that cannot be read says no, as an
    /// unread guess is answered.
    async fn exists(&self, store: &StateStore, digest: &KeyDigest, arrived: Instant) -> bool {
        self.known.exists(store, digest, arrived).await.unwrap_or_else(|e| {
            tracing::debug!(error = %e, "the credentials that exist could not be read");
            false
        })
    }

    /// Forgets a key revoked by this process, so the revocation takes effect at once here (other
    /// processes see it within one TTL).
    pub fn forget(&self, key_id: &str) {
        if let Ok(mut m) = self.entries.lock() {
            m.retain(|_, entry| entry.principal.key_id != key_id);
        }
        self.front.invalidate();
    }

    /// A copy of `shared` in this thread's front, with a principal of its own (the shared one's
    /// reference count would be written by every thread).
    fn keep_in_front(&self, digest: &KeyDigest, shared: &Entry) -> Arc<Principal> {
        let principal = Arc::new(Principal::clone(&shared.principal));
        let mine = Entry { principal: principal.clone(), ..shared.clone() };
        self.front.put(*digest, mine);
        principal
    }

    /// Keeps what a store read found for one TTL (or less, see `Entry`).
    fn remember(&self, digest: &KeyDigest, now: Instant, found: Option<Found>) -> Option<Arc<Principal>> {
        let Some(found) = found else {
            if !self.ttl.is_zero() {
                if let Ok(mut m) = self.unknown.lock() {
                    if m.len() >= CAPACITY {
                        m.clear();
                    }
                    m.insert(*digest, now + self.ttl);
                }
            }
            // A thread's copy of an entry that ended here ended there too (the same instant).
            if let Ok(mut m) = self.entries.lock() {
                m.remove(digest);
            }
            return None;
        };
        if let Ok(mut m) = self.entries.lock() {
            if self.ttl.is_zero() {
                m.remove(digest);
            } else {
                if m.len() >= CAPACITY {
                    m.clear();
                }
                let holds_for = found.ends_within.map_or(self.ttl, |l| l.min(self.ttl));
                let entry = Entry { holds_until: now + holds_for, principal: found.principal.clone() };
                m.insert(*digest, entry.clone());
                self.front.put(*digest, entry);
            }
        }
        Some(found.principal)
    }

    /// Writes a credential's use unless this process wrote it within the last minute.
    async fn touch<Fut>(&self, id: &str, now: Instant, write: impl FnOnce() -> Fut)
    where
        Fut: Future<Output = Result<(), StateError>>,
    {
        let due = self.touched.lock().is_ok_and(|mut m| {
            if m.get(id).is_some_and(|last| now.saturating_duration_since(*last) < TOUCH_EVERY) {
                return false;
            }
            if m.len() >= CAPACITY {
                m.clear();
            }
            m.insert(id.to_string(), now);
            true
        });
        // Losing a lastUsedAt update is harmless; failing the request over it is not.
        if due {
            if let Err(e) = write().await {
                tracing::warn!(error = %e, "could not record a credential's use");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{key_digest, NewKey, Plan, Standing};

    /// The address gate of a caller that has attempts left.
    async fn open() -> bool {
        true
    }

    /// A store with one account and one key: (store, account id, key, key digest).
    async fn store_with_key() -> (StateStore, String, NewKey, KeyDigest) {
        let store = StateStore::open("sqlite::memory:").await.unwrap();
        let acct = store.create_account("a", Plan::Pro).await.unwrap();
        let key = store.create_key(&acct.id, "k", "di", &[], false).await.unwrap();
        let hash = key_digest(&key.secret);
        (store, acct.id, key, hash)
    }

    /// A burst of requests with a key not yet cached makes one store read; the rest wait for it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_burst_of_one_new_key_reads_the_store_once() {
        let (store, _, _, hash) = store_with_key().await;
        let cache = Arc::new(KeyCache::new(Duration::from_secs(60)));
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let t0 = Instant::now();
        let burst = (0..50).map(|_| {
            let (cache, store, reads) = (cache.clone(), store.clone(), reads.clone());
            tokio::spawn(async move {
                let load = || async {
                    reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let principal = Arc::new(Principal {
                        account_id: "a".into(),
                        key_id: "k".into(),
                        plan: Plan::Pro,
                        standing: crate::state::Standing::Active,
                        scopes: Vec::new(),
                    });
                    Ok(Some(Found { principal, ends_within: None }))
                };
                cache.cached_or(&store, &hash, t0, true, open, load).await.unwrap().expect("resolved").key_id.clone()
            })
        });
        for caller in futures::future::join_all(burst).await {
            assert_eq!(caller.unwrap(), "k");
        }
        assert_eq!(reads.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(cache.reading.lock().unwrap().is_empty(), "the turn is forgotten once no one waits");
    }

    #[tokio::test]
    async fn serves_from_memory_within_the_ttl_and_rereads_after_it() {
        let (store, _, key, hash) = store_with_key().await;
        let cache = KeyCache::new(Duration::from_secs(5));
        let t0 = Instant::now();

        let resolved = cache.resolve(&store, &hash, t0, open).await.unwrap().expect("live key");
        assert_eq!(resolved.key_id, key.record.id);
        let used = store.list_keys().await.unwrap()[0].0.last_used_at.clone();
        assert!(used.is_some(), "the first resolution records the use");

        // Revoked in the store: still served from memory inside the TTL, without touching the store.
        assert!(store.revoke_key(&key.record.id).await.unwrap());
        let cached = cache.resolve(&store, &hash, t0 + Duration::from_secs(4), open).await.unwrap().expect("cached");
        assert!(Arc::ptr_eq(&cached, &resolved), "this thread's copy, from its front");
        // Past the TTL the store is asked again and the revocation shows.
        assert!(cache.resolve(&store, &hash, t0 + Duration::from_secs(5), open).await.unwrap().is_none());
        assert!(cache.entries.lock().unwrap().is_empty(), "a revoked key is forgotten");
    }

    /// A key revoked through this process is refused at once, though threads held copies of it.
    #[tokio::test]
    async fn a_forgotten_key_is_read_again_by_every_thread() {
        let (store, _, key, hash) = store_with_key().await;
        let cache = Arc::new(KeyCache::new(Duration::from_secs(60)));
        let now = Instant::now();
        assert!(cache.resolve(&store, &hash, now, open).await.unwrap().is_some());
        let elsewhere = {
            let (cache, store) = (cache.clone(), store.clone());
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
                rt.block_on(async { cache.resolve(&store, &hash, now, open).await.unwrap().is_some() })
            })
        };
        assert!(elsewhere.join().unwrap(), "another thread's copy");
        assert!(store.revoke_key(&key.record.id).await.unwrap());
        cache.forget(&key.record.id);
        assert!(cache.resolve(&store, &hash, now, open).await.unwrap().is_none(), "this thread's front emptied");
    }

    #[tokio::test]
    async fn a_zero_ttl_always_reads_the_store() {
        let (store, account_id, _, hash) = store_with_key().await;
        let cache = KeyCache::new(Duration::ZERO);
        let now = Instant::now();
        assert!(cache.resolve(&store, &hash, now, open).await.unwrap().is_some());
        store.set_account_status(&account_id, "suspended").await.unwrap();
        let resolved = cache.resolve(&store, &hash, now, open).await.unwrap().unwrap();
        assert_eq!(resolved.standing, Standing::Suspended);
        assert!(cache.resolve(&store, &key_digest("di_unknown"), now, open).await.unwrap().is_none());
    }

    /// A paid plan that lapses within the TTL is not served as active past its end.
    #[tokio::test]
    async fn an_entry_ends_when_the_accounts_plan_lapses() {
        let (store, account_id, _, hash) = store_with_key().await;
        let ends = chrono::Utc::now() + chrono::Duration::seconds(1);
        store.set_account_valid_until(&account_id, Some(ends)).await.unwrap();
        let cache = KeyCache::new(Duration::from_secs(60));
        let t0 = Instant::now();
        let before = cache.resolve(&store, &hash, t0, open).await.unwrap().unwrap();
        assert_eq!(before.standing, Standing::Active);
        let entry_until = cache.entries.lock().unwrap()[&hash].holds_until;
        assert!(entry_until <= t0 + Duration::from_secs(1), "held past the lapse");
        // By the time the entry has ended, the lapse has happened: the store is read again.
        tokio::time::sleep((entry_until + Duration::from_millis(10)).saturating_duration_since(Instant::now())).await;
        let after = cache.resolve(&store, &hash, Instant::now(), open).await.unwrap().unwrap();
        assert_eq!(after.standing, Standing::Lapsed);
    }

    /// A wrong key is read once per TTL (not once per request), and a caller whose address spent
    /// its attempts is refused without a read: both hold with the store gone.
    #[tokio::test]
    async fn unknown_keys_are_remembered_and_a_closed_gate_reads_nothing() {
        let (store, _, _, hash) = store_with_key().await;
        let cache = KeyCache::new(Duration::from_secs(5));
        let t0 = Instant::now();
        let wrong = key_digest("di_0000000000000000000000000000000000000000");
        assert!(cache.resolve(&store, &wrong, t0, open).await.unwrap().is_none());
        store.close().await;
        let again = cache.resolve(&store, &wrong, t0 + Duration::from_secs(4), open).await;
        assert!(matches!(again, Ok(None)), "the store was asked again within the TTL");
        let past = cache.resolve(&store, &wrong, t0 + Duration::from_secs(5), open).await;
        assert!(past.is_err(), "past the TTL the store is asked again (and is gone)");
        let shut = || async { false };
        let gated = cache.resolve(&store, &hash, t0, shut).await;
        assert!(matches!(gated, Ok(None)), "a closed gate refuses unread");
    }

    /// A key that was live is read again when its entry ends, even from an address whose
    /// attempts are spent (a client sharing its address with a guesser).
    #[tokio::test]
    async fn a_key_that_was_live_is_read_again_past_a_closed_gate() {
        let (store, _, _, hash) = store_with_key().await;
        let cache = KeyCache::new(Duration::from_secs(5));
        let t0 = Instant::now();
        assert!(cache.resolve(&store, &hash, t0, open).await.unwrap().is_some());
        let shut = || async { false };
        let later = cache.resolve(&store, &hash, t0 + Duration::from_secs(6), shut).await.unwrap();
        assert!(later.is_some(), "a live key was refused by its address's window");
    }
}
