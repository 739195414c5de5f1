//! What the agents' surfaces need from the deployment beyond the platform: their settings and the
//! cache of Client ID Metadata Documents. The assembly keeps one [`AgentContext`] in the state.

use sitrep_platform::AppState;

use crate::{oauth::client_metadata::MetadataCache, settings::AgentSettings};

pub struct AgentContext {
    pub settings: AgentSettings,
    /// Client ID Metadata Documents fetched lately.
    pub client_metadata: MetadataCache,
}

impl AgentContext {
    pub fn new(settings: AgentSettings) -> Self {
        AgentContext { settings, client_metadata: MetadataCache::default() }
    }
}

/// The deployment's [`AgentContext`]. The assembly keeps one in every state it serves
/// (`sitrep_serve::build` refuses a state without it), so its absence is a bug in assembly.
pub fn context(state: &AppState) -> &AgentContext {
    state
        .extension::<AgentContext>()
        .expect("the assembly keeps an AgentContext in the state (sitrep_serve::build checks)")
}
