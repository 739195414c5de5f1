//! Time per owner on the server's heavy work: a version pair's diff and a past version's load
//! each take one place the whole server shares (one diff computation, one load at a time), for
//! seconds. Each owner (the running request's account, else its address) has a balance of such
//! seconds that refills with the clock: work starts only while its owner's balance is positive,
//! and the seconds it took are taken from it when it ends (into debt, when it ran long). An owner
//! that spent its balance is refused at once (`retry_after`: when it is positive again), so one
//! account asking for diff after diff takes a bounded fraction of the places, not all of them.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::shares::QUERY_OWNER;

/// Seconds of heavy work an owner may spend at once (a diff of two million changes took about
/// 19 s on two cores, so three of those).
pub const BURST: Duration = Duration::from_secs(60);

/// Seconds of heavy work an owner regains per second of the clock: one tenth of the shared places
/// over time, a minute's debt repaid in ten.
pub const REFILL: f64 = 0.1;

/// Owners kept at most; past it the ones with a full balance are forgotten (a full balance is
/// what a forgotten owner starts with).
const OWNERS: usize = 10_000;

#[derive(Clone, Copy)]
struct Balance {
    seconds: f64,
    at: Instant,
}

pub struct WorkTime {
    burst: f64,
    refill: f64,
    owners: Mutex<HashMap<Arc<str>, Balance>>,
}

impl Default for WorkTime {
    fn default() -> Self {
        WorkTime::new(BURST, REFILL)
    }
}

/// The running request's owner may not start heavy work before `retry_after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this caller's time for diffs and past versions is spent; retry after {retry_after:?}")]
pub struct TimeSpent {
    pub retry_after: Duration,
}

/// Whom heavy work is charged to: the owner admitted ([`WorkTime::admit`]), none for the server's
/// own work.
#[derive(Debug, Clone, Default)]
pub struct Payer(Option<Arc<str>>);

impl Payer {
    pub fn owner(&self) -> Option<&Arc<str>> {
        self.0.as_ref()
    }
}

impl WorkTime {
    pub fn new(burst: Duration, refill: f64) -> Self {
        WorkTime { burst: burst.as_secs_f64(), refill: refill.max(1e-6), owners: Mutex::new(HashMap::new()) }
    }

    fn balances(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Balance>> {
        self.owners.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `b` refilled to `now`.
    fn refilled(&self, b: Balance, now: Instant) -> Balance {
        let seconds = (b.seconds + now.saturating_duration_since(b.at).as_secs_f64() * self.refill).min(self.burst);
        Balance { seconds, at: now }
    }

    /// The running request's owner, if its balance lets it start heavy work now (outside a request
    /// the server's own work always starts, charged to no one).
    pub fn admit(&self) -> Result<Payer, TimeSpent> {
        let Ok(owner) = QUERY_OWNER.try_with(|o| o.clone()) else { return Ok(Payer(None)) };
        self.admit_owner(owner, Instant::now())
    }

    fn admit_owner(&self, owner: Arc<str>, now: Instant) -> Result<Payer, TimeSpent> {
        let balance = self.balances().get(&owner).map(|b| self.refilled(*b, now));
        match balance {
            Some(b) if b.seconds <= 0.0 => {
                let retry_after = Duration::from_secs_f64(-b.seconds / self.refill).max(Duration::from_secs(1));
                Err(TimeSpent { retry_after })
            }
            _ => Ok(Payer(Some(owner))),
        }
    }

    /// What is left of `owner`'s balance now (nothing for the server's own work, which no one
    /// pays for).
    pub fn remaining(&self, owner: Option<&Arc<str>>) -> Duration {
        let Some(owner) = owner else { return Duration::ZERO };
        let now = Instant::now();
        let balance = self.balances().get(owner).map_or(self.burst, |b| self.refilled(*b, now).seconds);
        Duration::from_secs_f64(balance.max(0.0))
    }

    /// Takes `used` from the payer's balance.
    pub fn charge(&self, payer: &Payer, used: Duration) {
        let Some(owner) = payer.owner() else { return };
        self.charge_owner(owner, used, Instant::now());
    }

    fn charge_owner(&self, owner: &Arc<str>, used: Duration, now: Instant) {
        let mut balances = self.balances();
        if balances.len() >= OWNERS && !balances.contains_key(owner) {
            let full = self.burst;
            balances.retain(|_, b| self.refilled(*b, now).seconds < full);
        }
        let start = Balance { seconds: self.burst, at: now };
        let b = self.refilled(balances.get(owner).copied().unwrap_or(start), now);
        balances.insert(owner.clone(), Balance { seconds: b.seconds - used.as_secs_f64(), at: now });
    }
}

/// Charges the work's time to its payer when dropped: however the work ends (finished, failed,
/// cancelled), the seconds it held a shared place are paid.
pub struct Charged<'a> {
    time: &'a WorkTime,
    payer: Payer,
    started: Instant,
}

impl<'a> Charged<'a> {
    pub fn start(time: &'a WorkTime, payer: Payer) -> Self {
        Charged { time, payer, started: Instant::now() }
    }
}

impl Drop for Charged<'_> {
    fn drop(&mut self) {
        self.time.charge(&self.payer, self.started.elapsed());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(name: &str) -> Arc<str> {
        Arc::from(name)
    }

    /// An owner runs while its balance is positive, goes into debt by what its last work took,
    /// is refused until the clock has repaid it (and told when), and another owner is unaffected.
    #[test]
    fn an_owner_that_spent_its_time_is_refused_until_it_refills_and_no_one_else_is() {
        let time = WorkTime::new(Duration::from_secs(10), 0.5);
        let (heavy, other) = (owner("acct:1"), owner("acct:2"));
        let t0 = Instant::now();
        assert!(time.admit_owner(heavy.clone(), t0).is_ok());
        time.charge_owner(&heavy, Duration::from_secs(9), t0);
        assert!(time.admit_owner(heavy.clone(), t0).is_ok(), "one second left");
        time.charge_owner(&heavy, Duration::from_secs(5), t0);
        let refused = time.admit_owner(heavy.clone(), t0).unwrap_err();
        assert_eq!(refused.retry_after, Duration::from_secs(8), "four seconds of debt at half a second a second");
        assert!(time.admit_owner(other.clone(), t0).is_ok(), "another owner's balance is its own");
        assert_eq!(time.remaining(Some(&other)), Duration::from_secs(10));
        assert_eq!(time.remaining(Some(&heavy)), Duration::ZERO);
        assert_eq!(time.remaining(None), Duration::ZERO, "the server's own work has no one to pay");
        assert!(time.admit_owner(heavy.clone(), t0 + Duration::from_secs(7)).is_err());
        assert!(time.admit_owner(heavy.clone(), t0 + Duration::from_secs(9)).is_ok());
        // Refilled, never past the burst.
        time.charge_owner(&heavy, Duration::ZERO, t0 + Duration::from_secs(3600));
        time.charge_owner(&heavy, Duration::from_secs(10), t0 + Duration::from_secs(3600));
        assert!(time.admit_owner(heavy, t0 + Duration::from_secs(3600)).is_err());
    }

    /// Work outside a request is the server's own: admitted, charged to no one.
    #[test]
    fn the_servers_own_work_is_charged_to_no_one() {
        let time = WorkTime::new(Duration::from_secs(1), 0.01);
        let payer = time.admit().unwrap();
        assert!(payer.owner().is_none());
        drop(Charged::start(&time, payer));
        assert!(time.balances().is_empty());
    }

    /// A request's work is charged to its owner when the guard goes, however it ended.
    #[tokio::test]
    async fn a_requests_work_is_charged_to_its_owner() {
        let time = WorkTime::new(Duration::from_millis(1), 0.000_001);
        QUERY_OWNER
            .scope(owner("acct:7"), async {
                let charged = Charged::start(&time, time.admit().unwrap());
                std::thread::sleep(Duration::from_millis(5));
                drop(charged);
                assert!(time.admit().is_err(), "five milliseconds spent of one");
            })
            .await;
        assert!(time.admit().is_ok());
    }
}
