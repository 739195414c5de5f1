//! Resolved API keys, remembered for a short time. Without it every data request would cost a
//! state-store read and a `lastUsedAt` write — a SQLite write serialises the whole server. With it,
//! a key is read (and its use recorded) at most once per TTL, so revocation, suspension and plan
//! changes made elsewhere (the `keys` CLI, another replica) take effect within one TTL.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::state::{Account, ApiKeyRecord, StateError, StateStore};

/// Entries kept at most; past it the cache starts over (each entry is one live key).
const CAPACITY: usize = 10_000;

pub struct KeyCache {
    ttl: Duration,
    entries: Mutex<HashMap<KeyDigest, (Instant, ResolvedKey)>>,
}

/// A live key and its account.
pub type ResolvedKey = (ApiKeyRecord, Account);

/// A key's SHA-256 (`state::key_digest`): the cache holds no secret and needs no hex per request.
type KeyDigest = [u8; 32];

impl KeyCache {
    pub fn new(ttl: Duration) -> Self {
        KeyCache { ttl, entries: Mutex::new(HashMap::new()) }
    }

    /// `read` of the live key with this digest (`state::key_digest`) and its account: from the
    /// cache while fresh, else from the store (recording the use). Unknown keys are not
    /// remembered, so a key minted a moment ago works. A hit is read under the lock, so no shared
    /// reference count (a cache line both worker threads would write) is touched.
    pub async fn resolve<T>(
        &self,
        store: &StateStore,
        digest: &KeyDigest,
        read: impl Fn(&ResolvedKey) -> T,
    ) -> Result<Option<T>, StateError> {
        self.resolve_at(store, digest, Instant::now(), read).await
    }

    /// Forgets a key revoked by this process, so the revocation takes effect at once here (other
    /// processes see it within one TTL).
    pub fn forget(&self, key_id: &str) {
        if let Ok(mut m) = self.entries.lock() {
            m.retain(|_, (_, resolved)| resolved.0.id != key_id);
        }
    }

    async fn resolve_at<T>(
        &self,
        store: &StateStore,
        digest: &KeyDigest,
        now: Instant,
        read: impl Fn(&ResolvedKey) -> T,
    ) -> Result<Option<T>, StateError> {
        let hit = self.entries.lock().ok().and_then(|m| {
            let (at, resolved) = m.get(digest)?;
            (now.duration_since(*at) < self.ttl).then(|| read(resolved))
        });
        if hit.is_some() {
            return Ok(hit);
        }
        // Boxed: held inline, the store's futures would enlarge every request's future (cache
        // hits included) by their size.
        let found = Box::pin(self.load(store, digest, now)).await?;
        Ok(found.as_ref().map(read))
    }

    /// A miss: the key from the store, remembered while live, its use recorded.
    async fn load(
        &self,
        store: &StateStore,
        digest: &KeyDigest,
        now: Instant,
    ) -> Result<Option<ResolvedKey>, StateError> {
        let found = store.live_key(&hex::encode(digest)).await?;
        if let Ok(mut m) = self.entries.lock() {
            match &found {
                Some(resolved) if !self.ttl.is_zero() => {
                    if m.len() >= CAPACITY {
                        m.clear();
                    }
                    m.insert(*digest, (now, resolved.clone()));
                }
                _ => {
                    m.remove(digest);
                }
            }
        }
        if let Some(resolved) = &found {
            let key = &resolved.0;
            // Losing a lastUsedAt update is harmless; failing the request over it is not.
            if let Err(e) = store.touch_key(&key.id).await {
                tracing::warn!(error = %e, "could not record key use");
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{key_digest, NewKey, Plan};

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

        let resolved = cache.resolve_at(&store, &hash, t0, Clone::clone).await.unwrap().expect("live key");
        assert_eq!(resolved.0.id, key.record.id);
        let used = store.list_keys().await.unwrap()[0].0.last_used_at.clone();
        assert!(used.is_some(), "the first resolution records the use");

        // Revoked in the store: still served from memory inside the TTL, without touching the store.
        assert!(store.revoke_key(&key.record.id).await.unwrap());
        let cached =
            cache.resolve_at(&store, &hash, t0 + Duration::from_secs(4), Clone::clone).await.unwrap().expect("cached");
        assert_eq!(cached.1.status, "active");
        // Past the TTL the store is asked again and the revocation shows.
        assert!(cache.resolve_at(&store, &hash, t0 + Duration::from_secs(5), Clone::clone).await.unwrap().is_none());
        assert!(cache.entries.lock().unwrap().is_empty(), "a revoked key is forgotten");
    }

    #[tokio::test]
    async fn a_zero_ttl_always_reads_the_store() {
        let (store, account_id, _, hash) = store_with_key().await;
        let cache = KeyCache::new(Duration::ZERO);
        assert!(cache.resolve(&store, &hash, Clone::clone).await.unwrap().is_some());
        store.set_account_status(&account_id, "suspended").await.unwrap();
        let resolved = cache.resolve(&store, &hash, Clone::clone).await.unwrap().unwrap();
        assert_eq!(resolved.1.status, "suspended");
        assert!(cache.resolve(&store, &key_digest("di_unknown"), Clone::clone).await.unwrap().is_none());
    }
}
