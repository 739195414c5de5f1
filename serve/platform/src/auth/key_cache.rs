//! Resolved API keys, remembered for a short time. Without it every data request would cost a
//! state-store read and a `lastUsedAt` write — a SQLite write serialises the whole server. With it,
//! a key is read (and its use recorded) at most once per TTL, so revocation, suspension and plan
//! changes made elsewhere (the `keys` CLI, another replica) take effect within one TTL.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::Principal;
use crate::{
    per_thread::Front,
    state::{StateError, StateStore},
};

/// Entries kept at most; past it the cache starts over (each entry is one live key).
const CAPACITY: usize = 10_000;
/// Keys a thread keeps copies of at most.
const FRONT_CAPACITY: usize = 1_024;

pub struct KeyCache {
    ttl: Duration,
    entries: Mutex<HashMap<KeyDigest, Entry>>,
    /// Each thread's copies of the entries it used, with a principal of its own: a hit then
    /// writes no lock and no reference count that another thread writes too.
    front: Front<KeyDigest, Entry>,
}

/// A live key's caller as resolved from the store, and until when that holds here: one TTL, or
/// less when the account's paid plan lapses sooner (then it is read again and found lapsed), so a
/// hit computes nothing.
#[derive(Clone)]
struct Entry {
    holds_until: Instant,
    principal: Arc<Principal>,
}

/// A key's SHA-256 (`state::key_digest`): the cache holds no secret and needs no hex per request.
type KeyDigest = [u8; 32];

impl KeyCache {
    pub fn new(ttl: Duration) -> Self {
        KeyCache { ttl, entries: Mutex::new(HashMap::new()), front: Front::new(FRONT_CAPACITY) }
    }

    /// The caller of the live key with this digest (`state::key_digest`): from the cache while it
    /// holds, else from the store (recording the use). Unknown keys are not remembered, so a key
    /// minted a moment ago works. A thread's repeat allocates nothing and writes only memory of
    /// its own (its front).
    pub async fn resolve(
        &self,
        store: &StateStore,
        digest: &KeyDigest,
        now: Instant,
    ) -> Result<Option<Arc<Principal>>, StateError> {
        let holds = |e: &Entry| now < e.holds_until;
        if let Some(mine) = self.front.get(digest, holds) {
            return Ok(Some(mine.principal));
        }
        let shared = self.entries.lock().ok().and_then(|m| m.get(digest).filter(|e| holds(e)).cloned());
        if let Some(e) = shared {
            return Ok(Some(self.keep_in_front(digest, &e)));
        }
        // Boxed: held inline, the store's futures would enlarge every request's future (cache
        // hits included) by their size.
        Box::pin(self.load(store, digest, now)).await
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
        self.front.put(*digest, Entry { holds_until: shared.holds_until, principal: principal.clone() });
        principal
    }

    /// A miss: the key from the store, remembered while live, its use recorded.
    async fn load(
        &self,
        store: &StateStore,
        digest: &KeyDigest,
        now: Instant,
    ) -> Result<Option<Arc<Principal>>, StateError> {
        let found = store.live_key(&hex::encode(digest)).await?;
        let wall = chrono::Utc::now();
        let principal = found.as_ref().map(|(key, account)| {
            Arc::new(Principal {
                account_id: account.id.clone(),
                key_id: key.id.clone(),
                plan: account.plan,
                standing: account.standing(wall),
                scopes: key.scopes.clone(),
            })
        });
        if let Ok(mut m) = self.entries.lock() {
            match (&principal, &found) {
                (Some(principal), Some((_, account))) if !self.ttl.is_zero() => {
                    if m.len() >= CAPACITY {
                        m.clear();
                    }
                    // A lapse still ahead ends the entry early; a past one is already in `standing`.
                    let lapse = account.lapses_at().and_then(|t| (t - wall).to_std().ok());
                    let holds_for = lapse.map_or(self.ttl, |l| l.min(self.ttl));
                    let entry = Entry { holds_until: now + holds_for, principal: principal.clone() };
                    m.insert(*digest, entry.clone());
                    self.front.put(*digest, entry);
                }
                // A thread's copy of an entry that ended here ended there too (the same instant).
                _ => {
                    m.remove(digest);
                }
            }
        }
        if let Some((key, _)) = &found {
            // Losing a lastUsedAt update is harmless; failing the request over it is not.
            if let Err(e) = store.touch_key(&key.id).await {
                tracing::warn!(error = %e, "could not record key use");
            }
        }
        Ok(principal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{key_digest, NewKey, Plan, Standing};

    /// A store with one account and one key: (store, account id, key, key digest).
    async fn store_with_key() -> (StateStore, String, NewKey, KeyDigest) {
        let store = StateStore::open("sqlite::memory:").await.unwrap();
        let acct = store.create_account("a", Plan::Pro).await.unwrap();
        let key = store.create_key(&acct.id, "k", "di", &[], false).await.unwrap();
        let hash = key_digest(&key.secret);
        (store, acct.id, key, hash)
    }

    #[tokio::test]
    async fn serves_from_memory_within_the_ttl_and_rereads_after_it() {
        let (store, _, key, hash) = store_with_key().await;
        let cache = KeyCache::new(Duration::from_secs(5));
        let t0 = Instant::now();

        let resolved = cache.resolve(&store, &hash, t0).await.unwrap().expect("live key");
        assert_eq!(resolved.key_id, key.record.id);
        let used = store.list_keys().await.unwrap()[0].0.last_used_at.clone();
        assert!(used.is_some(), "the first resolution records the use");

        // Revoked in the store: still served from memory inside the TTL, without touching the store.
        assert!(store.revoke_key(&key.record.id).await.unwrap());
        let cached = cache.resolve(&store, &hash, t0 + Duration::from_secs(4)).await.unwrap().expect("cached");
        assert!(Arc::ptr_eq(&cached, &resolved), "this thread's copy, from its front");
        // Past the TTL the store is asked again and the revocation shows.
        assert!(cache.resolve(&store, &hash, t0 + Duration::from_secs(5)).await.unwrap().is_none());
        assert!(cache.entries.lock().unwrap().is_empty(), "a revoked key is forgotten");
    }

    /// A key revoked through this process is refused at once, though threads held copies of it.
    #[tokio::test]
    async fn a_forgotten_key_is_read_again_by_every_thread() {
        let (store, _, key, hash) = store_with_key().await;
        let cache = Arc::new(KeyCache::new(Duration::from_secs(60)));
        let now = Instant::now();
        assert!(cache.resolve(&store, &hash, now).await.unwrap().is_some());
        let elsewhere = {
            let (cache, store) = (cache.clone(), store.clone());
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
                rt.block_on(async { cache.resolve(&store, &hash, now).await.unwrap().is_some() })
            })
        };
        assert!(elsewhere.join().unwrap(), "another thread's copy");
        assert!(store.revoke_key(&key.record.id).await.unwrap());
        cache.forget(&key.record.id);
        assert!(cache.resolve(&store, &hash, now).await.unwrap().is_none(), "this thread's front emptied");
    }

    #[tokio::test]
    async fn a_zero_ttl_always_reads_the_store() {
        let (store, account_id, _, hash) = store_with_key().await;
        let cache = KeyCache::new(Duration::ZERO);
        let now = Instant::now();
        assert!(cache.resolve(&store, &hash, now).await.unwrap().is_some());
        store.set_account_status(&account_id, "suspended").await.unwrap();
        let resolved = cache.resolve(&store, &hash, now).await.unwrap().unwrap();
        assert_eq!(resolved.standing, Standing::Suspended);
        assert!(cache.resolve(&store, &key_digest("di_unknown"), now).await.unwrap().is_none());
    }

    /// A paid plan that lapses within the TTL is not served as active past its end.
    #[tokio::test]
    async fn an_entry_ends_when_the_accounts_plan_lapses() {
        let (store, account_id, _, hash) = store_with_key().await;
        let ends = chrono::Utc::now() + chrono::Duration::seconds(1);
        store.set_account_valid_until(&account_id, Some(ends)).await.unwrap();
        let cache = KeyCache::new(Duration::from_secs(60));
        let t0 = Instant::now();
        let before = cache.resolve(&store, &hash, t0).await.unwrap().unwrap();
        assert_eq!(before.standing, Standing::Active);
        let entry_until = cache.entries.lock().unwrap()[&hash].holds_until;
        assert!(entry_until <= t0 + Duration::from_secs(1), "held past the lapse");
        // By the time the entry has ended, the lapse has happened: the store is read again.
        tokio::time::sleep((entry_until + Duration::from_millis(10)).saturating_duration_since(Instant::now())).await;
        let after = cache.resolve(&store, &hash, Instant::now()).await.unwrap().unwrap();
        assert_eq!(after.standing, Standing::Lapsed);
    }
}
