//! What the deployment gives webhooks: the store, and how receivers may be reached (kept in the
//! API's context).

use sitrep_webhooks::WebhookStore;

#[derive(Debug, Clone)]
pub struct Webhooks {
    pub store: WebhookStore,
    pub settings: WebhookSettings,
}

#[derive(Debug, Clone, Default)]
pub struct WebhookSettings {
    /// Plain http to a loopback receiver (`WEBHOOKS_ALLOW_LOOPBACK=on`: `make run` and the tests).
    pub allow_loopback: bool,
    /// A test CA receivers' certificates may chain to (the tests' https receivers).
    pub extra_root_pem: Option<Vec<u8>>,
}
