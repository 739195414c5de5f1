//! Upstream call budgets (SUPPLEMENT 2.1.2, 2.1.5): AviationStack's monthly budget covers every
//! call, scheduled or live; the live budget caps read-through calls inside it. The counters live in
//! the state store, so a restart does not reset them; connectors see them through [`CallBudget`].

use chrono::{DateTime, Datelike, Utc};

/// A durable counter of units per budget and cycle.
#[async_trait::async_trait]
pub trait CallBudget: Send + Sync {
    /// Reserves one unit of `name` in `cycle` if fewer than `limit` are used; whether it was.
    async fn reserve(&self, name: &str, cycle: &str, limit: i64) -> Result<bool, String>;
}

/// AviationStack's budgets and cycle.
#[derive(Debug, Clone, PartialEq)]
pub struct AviationStackBudget {
    /// Every call per cycle (`AVIATIONSTACK_MONTHLY_BUDGET`).
    pub monthly: i64,
    /// Live (read-through) calls per cycle, inside the monthly budget (`AVIATIONSTACK_LIVE_BUDGET`).
    pub live: i64,
    /// The UTC day of the month a cycle starts (`AVIATIONSTACK_CYCLE_RESET_DAY`, 1–28).
    pub reset_day: u32,
    /// Live calls one account may cause per UTC day (`AVIATIONSTACK_ACCOUNT_DAILY_LIVE`): the live
    /// budget is everyone's, so no account may spend it for the others.
    pub account_daily: i64,
}

impl Default for AviationStackBudget {
    fn default() -> Self {
        AviationStackBudget { monthly: 48_000, live: 7_000, reset_day: 1, account_daily: 100 }
    }
}

const MONTHLY: &str = "aviationstack";
const LIVE: &str = "aviationstack-live";

impl AviationStackBudget {
    /// The budgets from the environment; a value that is not a whole number is an error.
    pub fn from_env() -> Result<Self, String> {
        let defaults = Self::default();
        let number = |name: &str, default: i64| -> Result<i64, String> {
            match std::env::var(name).ok().filter(|v| !v.trim().is_empty()) {
                Some(v) => v.trim().parse().map_err(|_| format!("{name} must be a whole number")),
                None => Ok(default),
            }
        };
        Ok(AviationStackBudget {
            monthly: number("AVIATIONSTACK_MONTHLY_BUDGET", defaults.monthly)?,
            live: number("AVIATIONSTACK_LIVE_BUDGET", defaults.live)?,
            reset_day: number("AVIATIONSTACK_CYCLE_RESET_DAY", defaults.reset_day as i64)?.clamp(1, 28) as u32,
            account_daily: number("AVIATIONSTACK_ACCOUNT_DAILY_LIVE", defaults.account_daily)?,
        })
    }

    /// One scheduled call: a unit of the monthly budget. False when exhausted or uncountable.
    pub async fn reserve_scheduled(&self, store: &dyn CallBudget, now: DateTime<Utc>) -> bool {
        let cycle = cycle_start(now, self.reset_day);
        counted(store.reserve(MONTHLY, &cycle, self.monthly).await)
    }

    /// One live call caused by `account`: a unit of its daily share, then of the monthly and of
    /// the live budget (nothing is taken from the shared budgets once the account's share is
    /// spent, nor from the live one when the monthly one is exhausted).
    pub async fn reserve_live(&self, store: &dyn CallBudget, account: &str, now: DateTime<Utc>) -> LiveCall {
        let (cycle, day) = (cycle_start(now, self.reset_day), now.format("%Y-%m-%d").to_string());
        if !counted(store.reserve(&format!("{LIVE}:{account}"), &day, self.account_daily).await) {
            return LiveCall::ShareSpent;
        }
        if counted(store.reserve(MONTHLY, &cycle, self.monthly).await)
            && counted(store.reserve(LIVE, &cycle, self.live).await)
        {
            LiveCall::Reserved
        } else {
            LiveCall::BudgetSpent
        }
    }
}

/// Whether a live call may be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveCall {
    Reserved,
    /// The caller's daily share is spent: an answer about that caller alone (never kept for others).
    ShareSpent,
    /// A budget of everyone's is spent (or cannot be counted).
    BudgetSpent,
}

impl LiveCall {
    /// How long a refusal may be kept for everyone who asks the same (`None`: the call may be
    /// made): a spent budget for `shared_ttl`, a spent share not at all (it is the caller's alone).
    pub fn refusal_kept_for(self, shared_ttl: i64) -> Option<i64> {
        match self {
            LiveCall::Reserved => None,
            LiveCall::ShareSpent => Some(0),
            LiveCall::BudgetSpent => Some(shared_ttl),
        }
    }
}

/// A budget that cannot be counted is treated as exhausted: never call an upstream uncounted.
fn counted(result: Result<bool, String>) -> bool {
    result.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "could not count an AviationStack call; treating the budget as exhausted");
        false
    })
}

/// The first day (`YYYY-MM-DD`) of the budget cycle containing `now`.
pub fn cycle_start(now: DateTime<Utc>, reset_day: u32) -> String {
    let today = now.date_naive();
    let day = reset_day.clamp(1, 28);
    let (y, m) = if today.day() >= day {
        (today.year(), today.month())
    } else if today.month() == 1 {
        (today.year() - 1, 12)
    } else {
        (today.year(), today.month() - 1)
    };
    format!("{y:04}-{m:02}-{day:02}")
}

/// The state store's `upstream_budgets` table (created by the server's migrations): the one
/// statement that reserves a unit, atomically on either backend, shared by the server and the
/// standalone ingest (several workers count one budget once).
pub async fn reserve_in(pool: &sqlx::AnyPool, name: &str, cycle: &str, limit: i64) -> Result<bool, sqlx::Error> {
    if limit <= 0 {
        return Ok(false);
    }
    let used: Option<i64> = sqlx::query_scalar(
        "INSERT INTO upstream_budgets (name, cycle, used) VALUES ($1, $2, 1)
         ON CONFLICT (name, cycle) DO UPDATE SET used = upstream_budgets.used + 1 WHERE upstream_budgets.used < $3
         RETURNING used",
    )
    .bind(name)
    .bind(cycle)
    .bind(limit)
    .fetch_optional(pool)
    .await?;
    Ok(used.is_some())
}

/// The state store opened by a standalone `sitrep-ingest` (`SITREP_STATE`).
pub struct StoreBudget(pub sitrep_db::Db);

impl StoreBudget {
    /// Opens an existing state store (SQLite or PostgreSQL); the server creates and migrates it.
    pub async fn open(url: &str) -> Result<Self, String> {
        let db = sitrep_db::Db::connect(url, 2).await.map_err(|e| e.to_string())?;
        sqlx::query("SELECT 1 FROM upstream_budgets LIMIT 1")
            .fetch_optional(db.pool())
            .await
            .map_err(|e| format!("{e} (the server creates the state store: run `sitrep-serve dev-key` once)"))?;
        Ok(StoreBudget(db))
    }
}

#[async_trait::async_trait]
impl CallBudget for StoreBudget {
    async fn reserve(&self, name: &str, cycle: &str, limit: i64) -> Result<bool, String> {
        reserve_in(self.0.pool(), name, cycle, limit).await.map_err(|e| e.to_string())
    }
}

/// An in-process counter: for tests and for runs that were given no state store.
#[derive(Debug, Default)]
pub struct MemoryBudget(std::sync::Mutex<std::collections::HashMap<(String, String), i64>>);

impl MemoryBudget {
    /// Units of `name` used in `cycle`.
    pub fn used(&self, name: &str, cycle: &str) -> i64 {
        self.0.lock().map(|m| m.get(&(name.to_string(), cycle.to_string())).copied().unwrap_or(0)).unwrap_or(0)
    }
}

#[async_trait::async_trait]
impl CallBudget for MemoryBudget {
    async fn reserve(&self, name: &str, cycle: &str, limit: i64) -> Result<bool, String> {
        let mut used = self.0.lock().map_err(|_| "budget lock poisoned".to_string())?;
        let n = used.entry((name.to_string(), cycle.to_string())).or_insert(0);
        if *n >= limit {
            return Ok(false);
        }
        *n += 1;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn cycles_start_on_the_reset_day() {
        assert_eq!(cycle_start(at("2026-11-20T06:00:00Z"), 1), "2026-11-01");
        assert_eq!(cycle_start(at("2026-11-14T23:59:59Z"), 15), "2026-10-15");
        assert_eq!(cycle_start(at("2026-11-15T00:00:00Z"), 15), "2026-11-15");
        assert_eq!(cycle_start(at("2026-01-03T00:00:00Z"), 5), "2025-12-05");
    }

    #[tokio::test]
    async fn live_calls_spend_both_budgets_and_scheduled_calls_only_the_monthly_one() {
        let store = MemoryBudget::default();
        let budget = AviationStackBudget { monthly: 3, live: 1, reset_day: 1, account_daily: 5 };
        let now = at("2026-11-20T06:00:00Z");
        assert_eq!(budget.reserve_live(&store, "a", now).await, LiveCall::Reserved);
        assert_eq!(budget.reserve_live(&store, "b", now).await, LiveCall::BudgetSpent, "the live budget is spent");
        assert!(budget.reserve_scheduled(&store, now).await, "one monthly unit is left");
        assert!(!budget.reserve_scheduled(&store, now).await, "the monthly budget is spent");
        assert!(budget.reserve_scheduled(&store, at("2026-12-01T00:00:00Z")).await, "a new cycle");
    }

    #[tokio::test]
    async fn an_account_spends_only_its_daily_share_of_the_live_budget() {
        let store = MemoryBudget::default();
        let budget = AviationStackBudget { monthly: 100, live: 10, reset_day: 1, account_daily: 2 };
        let now = at("2026-11-20T06:00:00Z");
        for _ in 0..2 {
            assert_eq!(budget.reserve_live(&store, "greedy", now).await, LiveCall::Reserved);
        }
        assert_eq!(budget.reserve_live(&store, "greedy", now).await, LiveCall::ShareSpent, "its share of the day");
        assert_eq!(store.used(LIVE, "2026-11-01"), 2, "a refused share spends nothing shared");
        assert_eq!(budget.reserve_live(&store, "other", now).await, LiveCall::Reserved, "another's share is its own");
        assert_eq!(budget.reserve_live(&store, "greedy", at("2026-11-21T00:00:00Z")).await, LiveCall::Reserved);
    }
}
