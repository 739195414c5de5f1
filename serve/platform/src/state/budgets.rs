//! Upstream call budgets: one unit reserved per call, atomically, per budget and cycle.

use super::{StateError, StateStore};

#[async_trait::async_trait]
impl sitrep_pipelines::budget::CallBudget for StateStore {
    async fn reserve(&self, name: &str, cycle: &str, limit: i64) -> Result<bool, String> {
        self.reserve_budget(name, cycle, limit).await.map_err(|e| e.to_string())
    }
}

impl StateStore {
    /// Reserves one unit of `name` in `cycle` if fewer than `limit` are used; whether it was.
    pub async fn reserve_budget(&self, name: &str, cycle: &str, limit: i64) -> Result<bool, StateError> {
        Ok(sitrep_pipelines::budget::reserve_in(&self.pool, name, cycle, limit).await?)
    }

    /// Units of `name` used in `cycle`.
    pub async fn budget_used(&self, name: &str, cycle: &str) -> Result<i64, StateError> {
        let used: Option<i64> = sqlx::query_scalar("SELECT used FROM upstream_budgets WHERE name = $1 AND cycle = $2")
            .bind(name)
            .bind(cycle)
            .fetch_optional(&self.pool)
            .await?;
        Ok(used.unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use crate::state::StateStore;

    #[tokio::test]
    async fn a_budget_is_never_exceeded() {
        let store = StateStore::open("sqlite::memory:").await.unwrap();
        for _ in 0..3 {
            assert!(store.reserve_budget("b", "2026-11-01", 3).await.unwrap());
        }
        assert!(!store.reserve_budget("b", "2026-11-01", 3).await.unwrap());
        assert_eq!(store.budget_used("b", "2026-11-01").await.unwrap(), 3);
        assert!(store.reserve_budget("b", "2026-12-01", 3).await.unwrap(), "a new cycle starts at zero");
        assert!(!store.reserve_budget("b", "2026-12-01", 0).await.unwrap());
    }
}
