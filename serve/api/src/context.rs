//! What the API's handlers need from the deployment beyond the platform: their settings and the
//! read-through layer. The assembly keeps one [`ApiContext`] in the state (`with_extension`).

use sitrep_platform::{state::StateStore, AppState};

use crate::{
    company_monitoring::service::CompanyMonitoring,
    history::diff_cache::DiffCache,
    read_through::{AviationStackBudget, LiveCall, ReadThrough},
    webhooks::service::Webhooks,
};

#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// The consumer-prices market of a request without `market_code` (`CONSUMER_PRICES_DEFAULT_MARKET`, `ae`).
    pub consumer_prices_default_market: String,
    pub aviationstack_budget: AviationStackBudget,
    /// Uncached flight-search provider calls one account may cause a minute
    /// (`FLIGHT_SEARCH_ACCOUNT_PER_MINUTE`).
    pub flight_search_account_per_minute: u32,
}

pub struct ApiContext {
    pub settings: ApiSettings,
    pub company_monitoring: CompanyMonitoring,
    /// The read-through layer of on-demand operations (live with the deployment's credentials, or replay).
    pub read_through: ReadThrough,
    /// ListDatasetChanges' diffs of version pairs, computed once and paged from.
    pub diffs: DiffCache,
    /// Webhook endpoints and deliveries.
    pub webhooks: Webhooks,
}

impl ApiContext {
    /// Spends one unit of `caller`'s daily share and of the live and the monthly AviationStack
    /// budgets; which was spent when one is (nothing shared is spent past a spent share), or the
    /// store cannot say. `caller` is the account ([`caller`]).
    pub async fn reserve_aviationstack_call(&self, store: &StateStore, caller: &str, now: i64) -> LiveCall {
        let now = chrono::DateTime::from_timestamp(now, 0).unwrap_or_default();
        self.settings.aviationstack_budget.reserve_live(store, caller, now).await
    }
}

/// Who a request spends shared upstream budgets for: the owner the edge and `Dispatch::handler`
/// already named around the handler for its queries' shares (its account, else its address), so
/// both shares follow one rule; the address when called outside them.
pub fn caller(state: &AppState, req: &poem::Request) -> String {
    sitrep_platform::snapshot::QUERY_OWNER
        .try_with(|owner| owner.to_string())
        .unwrap_or_else(|_| sitrep_platform::edge::client_ip(state, req))
}

/// The deployment's [`ApiContext`]. The assembly keeps one in every state it serves
/// (`sitrep_serve::build` refuses a state without it), so its absence is a bug in assembly.
pub fn context(state: &AppState) -> &ApiContext {
    state.extension::<ApiContext>().expect("the assembly keeps an ApiContext in the state (sitrep_serve::build checks)")
}
