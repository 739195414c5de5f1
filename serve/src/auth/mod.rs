//! Authentication of data operations: an API key in `X-Service-Key`, `X-Api-Key` or
//! `X-WorldMonitor-Key` (or sent as `Authorization: Bearer <key>`), resolved to its account.
//! Bearer access tokens arrive with OAuth in a later version: `credential_of` is the seam.

mod key_cache;

pub use key_cache::KeyCache;

use poem::Request;

use crate::{api::error::ApiError, app::AppState, state::Plan};

/// The account a credential resolved to; placed in the request extensions.
#[derive(Debug, Clone)]
pub struct Principal {
    pub account_id: String,
    pub key_id: String,
    pub plan: Plan,
    pub scopes: Vec<String>,
}

enum Credential {
    ApiKey(String),
    /// A bearer value that is not an API key: an OAuth access token (not issued yet).
    AccessToken,
}

fn credential_of(req: &Request) -> Option<Credential> {
    for h in ["x-service-key", "x-api-key", "x-worldmonitor-key"] {
        if let Some(v) = req.headers().get(h).and_then(|v| v.to_str().ok()).filter(|v| !v.trim().is_empty()) {
            return Some(Credential::ApiKey(v.trim().to_string()));
        }
    }
    let bearer = req.headers().get("authorization").and_then(|v| v.to_str().ok())?.strip_prefix("Bearer ")?.trim();
    if bearer.is_empty() {
        return None;
    }
    if crate::state::looks_like_api_key(bearer) {
        Some(Credential::ApiKey(bearer.to_string()))
    } else {
        Some(Credential::AccessToken)
    }
}

fn challenge(state: &AppState, req: &Request, rejected: bool) -> String {
    let origin = state.settings.origin_for(req);
    let mut c = format!(
        "Bearer realm=\"{}\", resource_metadata=\"{origin}/.well-known/oauth-protected-resource\"",
        state.settings.realm
    );
    if rejected {
        c.push_str(", error=\"invalid_token\"");
    }
    c
}

pub async fn authenticate(state: &AppState, mut req: Request) -> Result<Request, ApiError> {
    let secret = match credential_of(&req) {
        None => return Err(ApiError::MissingCredential { challenge: challenge(state, &req, false) }),
        Some(Credential::AccessToken) => {
            return Err(ApiError::InvalidApiKey { challenge: challenge(state, &req, true) })
        }
        Some(Credential::ApiKey(k)) => k,
    };
    let found = if crate::state::looks_like_api_key(&secret) {
        state.keys.resolve(&state.store, &crate::state::hash_key(&secret)).await?
    } else {
        None
    };
    let Some(resolved) = found else {
        return Err(ApiError::InvalidApiKey { challenge: challenge(state, &req, true) });
    };
    let (key, account) = &*resolved;
    if account.status == "suspended" {
        return Err(ApiError::Suspended);
    }
    req.extensions_mut().insert(Principal {
        account_id: account.id.clone(),
        key_id: key.id.clone(),
        plan: account.plan,
        scopes: key.scopes.clone(),
    });
    Ok(req)
}
