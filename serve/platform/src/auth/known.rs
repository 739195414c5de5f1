//! The credentials that exist, as the first 64 bits of their digests: what decides whether a
//! credential not in memory is read from the store once its address has spent its attempts.
//!
//! An address that sent too many wrong credentials is refused unread (`edge::address_may_look_up`),
//! so guessing keys costs the store nothing. But an address is shared — a NAT, a proxy the
//! deployment does not trust — and a guesser behind it would then lock every other user of the
//! address out. The gate therefore also admits a credential whose digest is in this set: a
//! guesser cannot put one there (it would need a key whose SHA-256 begins with 64 given bits), so
//! it fills nothing for others. A credential created since the set was last read (by another
//! replica, the `keys` CLI, a token just issued) is found by reading on from where the last read
//! ended before the request is answered: one read at a time per replica, which every request
//! waiting meanwhile shares, each an index range that is empty unless something was created.

use std::{
    collections::HashSet,
    sync::RwLock,
    time::{Duration, Instant},
};

use crate::state::{StateError, StateStore};

/// How often the set is read whole (dropping revoked keys and expired tokens); between, only
/// what was created since is read.
const REBUILD_EVERY: Duration = Duration::from_secs(3_600);
/// How far back each read reaches before the last one's newest item: replicas' clocks (a key's
/// `created_at`) differ by a little.
const OVERLAP_SECONDS: i64 = 60;

#[derive(Default)]
pub struct KnownCredentials {
    set: RwLock<Known>,
    /// One read at a time; it holds when the last finished read started.
    reading: tokio::sync::Mutex<Option<Instant>>,
}

#[derive(Default)]
struct Known {
    prefixes: HashSet<u64>,
    /// Read on from here (`None`: read whole).
    keys_from: Option<String>,
    tokens_after: i64,
    rebuilt: Option<Instant>,
}

fn prefix(digest: &[u8; 32]) -> u64 {
    u64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
}

impl KnownCredentials {
    /// Whether a credential with this digest exists as of a read of the store that started
    /// after `arrived` (the set as it is, when it already holds the digest).
    pub async fn exists(&self, store: &StateStore, digest: &[u8; 32], arrived: Instant) -> Result<bool, StateError> {
        if self.holds(digest) {
            return Ok(true);
        }
        let mut last = self.reading.lock().await;
        // A read that started after this request arrived has ended while it waited: its answer
        // is as fresh as one of its own.
        if !last.is_some_and(|started| started >= arrived) {
            let started = Instant::now();
            self.read(store).await?;
            *last = Some(started);
        }
        Ok(self.holds(digest))
    }

    fn holds(&self, digest: &[u8; 32]) -> bool {
        self.set.read().map(|k| k.prefixes.contains(&prefix(digest))).unwrap_or(false)
    }

    /// Reads what was created since the last read, or everything once an hour.
    async fn read(&self, store: &StateStore) -> Result<(), StateError> {
        let started = chrono::Utc::now();
        let (whole, keys_from, tokens_after) = {
            let k = self.set.read().map_err(|_| StateError::Invalid("credential set poisoned".into()))?;
            if k.rebuilt.is_none_or(|t| t.elapsed() >= REBUILD_EVERY) {
                (true, None, started.timestamp() - OVERLAP_SECONDS)
            } else {
                (false, k.keys_from.clone(), k.tokens_after)
            }
        };
        let read = store.credential_digests(keys_from.as_deref(), tokens_after).await?;
        let mut k = self.set.write().map_err(|_| StateError::Invalid("credential set poisoned".into()))?;
        if whole {
            k.prefixes.clear();
            k.rebuilt = Some(Instant::now());
            // Read on from what this read covered, even where it found nothing.
            k.tokens_after = tokens_after;
            k.keys_from = Some(millis(started - chrono::Duration::seconds(OVERLAP_SECONDS)));
        }
        for hash in &read.hashes {
            let mut digest = [0u8; 32];
            if hex::decode_to_slice(hash, &mut digest).is_ok() {
                k.prefixes.insert(prefix(&digest));
            }
        }
        if let Some(newest) = read.keys_to.as_deref().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok()) {
            let from = millis(newest.with_timezone(&chrono::Utc) - chrono::Duration::seconds(OVERLAP_SECONDS));
            if k.keys_from.as_ref().is_none_or(|known| &from > known) {
                k.keys_from = Some(from);
            }
        }
        if let Some(latest) = read.tokens_to {
            k.tokens_after = k.tokens_after.max(latest - OVERLAP_SECONDS);
        }
        Ok(())
    }
}

/// A time as the store writes a key's `created_at` (so that strings compare as times).
fn millis(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{key_digest, Family, Plan};

    #[tokio::test]
    async fn what_exists_is_found_and_what_was_guessed_is_not() {
        let store = StateStore::open("sqlite::memory:").await.unwrap();
        let account = store.create_account("known", Plan::Pro).await.unwrap();
        let first = store.create_key(&account.id, "first", "di", &["mcp"], false).await.unwrap().secret;
        let known = KnownCredentials::default();
        let guessed = key_digest("di_0000000000000000000000000000000000000000");
        assert!(known.exists(&store, &key_digest(&first), Instant::now()).await.unwrap());
        assert!(!known.exists(&store, &guessed, Instant::now()).await.unwrap());
        // Created after the set was read: found by reading on, as of the request's arrival.
        let second = store.create_key(&account.id, "second", "di", &["mcp"], false).await.unwrap().secret;
        assert!(known.exists(&store, &key_digest(&second), Instant::now()).await.unwrap());
        // A request that arrived before the last read started is answered from the set as read.
        let early = Instant::now();
        assert!(!known.exists(&store, &guessed, Instant::now()).await.unwrap());
        let third = store.create_key(&account.id, "third", "di", &["mcp"], false).await.unwrap().secret;
        assert!(!known.exists(&store, &key_digest(&third), early).await.unwrap());
        assert!(known.exists(&store, &key_digest(&third), Instant::now()).await.unwrap());
        // An access token issued since (every MCP agent's credential), and one already expired.
        let record = store.create_key(&account.id, "agent", "di", &["mcp"], false).await.unwrap().record;
        let family = Family {
            id: "family-1".into(),
            client_id: None,
            account_id: account.id.clone(),
            key_id: record.id.clone(),
            scope: "mcp".into(),
        };
        let now = chrono::Utc::now().timestamp();
        store.create_family(&family, now).await.unwrap();
        store.store_token(&hex::encode(key_digest("live-token")), "access", &family.id, now + 3_600).await.unwrap();
        store.store_token(&hex::encode(key_digest("old-token")), "access", &family.id, now - 3_600).await.unwrap();
        assert!(known.exists(&store, &key_digest("live-token"), Instant::now()).await.unwrap());
        assert!(!known.exists(&store, &key_digest("old-token"), Instant::now()).await.unwrap());
    }
}
