//! Fair shares of an expensive resource between the callers of the server: each owner (the
//! running request's account, else its address) holds at most `per_owner` places at once, so an
//! owner with many slow requests waits behind itself while the rest of the resource serves the
//! others. Used for DuckDB's pool (half of it per owner), the loads of past versions and the
//! computation of a version pair's changes (one at a time per owner).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

tokio::task_local! {
    /// Whom the running request's work is for (its account, else its address): the edge and the
    /// batch dispatcher set it around a handler. Work outside any (loads at a new generation,
    /// upkeep) takes no share.
    pub static QUERY_OWNER: Arc<str>;
}

/// Owners kept at most; past it those holding no place are forgotten.
const OWNERS: usize = 10_000;

pub struct OwnerShares {
    per_owner: usize,
    owners: Mutex<HashMap<Arc<str>, Arc<Semaphore>>>,
}

impl OwnerShares {
    pub fn new(per_owner: usize) -> Self {
        OwnerShares { per_owner: per_owner.max(1), owners: Mutex::new(HashMap::new()) }
    }

    fn of(&self, owner: &Arc<str>) -> Arc<Semaphore> {
        let mut owners = self.owners.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if owners.len() >= OWNERS && !owners.contains_key(owner) {
            let idle = self.per_owner;
            owners.retain(|_, share| share.available_permits() < idle);
        }
        owners.entry(owner.clone()).or_insert_with(|| Arc::new(Semaphore::new(self.per_owner))).clone()
    }

    /// A place in the running request's owner's share, waited for (none outside a request). The
    /// semaphores are never closed, so the wait ends only with a place.
    pub async fn enter(&self) -> Option<OwnedSemaphorePermit> {
        let share = QUERY_OWNER.try_with(|owner| self.of(owner)).ok()?;
        share.acquire_owned().await.ok()
    }

    /// A place in `owner`'s share (none for the server's own work): for work that runs outside
    /// the request it is for, which named its owner before it left.
    pub async fn enter_as(&self, owner: Option<&Arc<str>>) -> Option<OwnedSemaphorePermit> {
        self.of(owner?).acquire_owned().await.ok()
    }
}
