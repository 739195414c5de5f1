//! What the API's handlers need from the deployment beyond the platform: their settings and the
//! read-through layer. The assembly keeps one [`ApiContext`] in the state (`with_extension`).

use sitrep_platform::{state::StateStore, AppState};

use crate::{
    company_monitoring::service::CompanyMonitoring,
    history::diff_cache::DiffCache,
    read_through::{AviationStackBudget, ReadThrough},
};

#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// The consumer-prices market of a request without `market_code` (`CONSUMER_PRICES_DEFAULT_MARKET`, `ae`).
    pub consumer_prices_default_market: String,
    pub aviationstack_budget: AviationStackBudget,
}

pub struct ApiContext {
    pub settings: ApiSettings,
    pub company_monitoring: CompanyMonitoring,
    /// The read-through layer of on-demand operations (live with the deployment's credentials, or replay).
    pub read_through: ReadThrough,
    /// ListDatasetChanges' diffs of version pairs, computed once and paged from.
    pub diffs: DiffCache,
}

impl ApiContext {
    /// Spends one unit of the live and the monthly AviationStack budgets; false (and nothing
    /// spent on the live one) when either is exhausted or the store cannot say.
    pub async fn reserve_aviationstack_call(&self, store: &StateStore, now: i64) -> bool {
        let now = chrono::DateTime::from_timestamp(now, 0).unwrap_or_default();
        self.settings.aviationstack_budget.reserve_live(store, now).await
    }
}

/// The deployment's [`ApiContext`]. The assembly keeps one in every state it serves
/// (`sitrep_serve::build` refuses a state without it), so its absence is a bug in assembly.
pub fn context(state: &AppState) -> &ApiContext {
    state.extension::<ApiContext>().expect("the assembly keeps an ApiContext in the state (sitrep_serve::build checks)")
}
