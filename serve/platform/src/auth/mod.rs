//! Authentication of operations: an API key in `X-Service-Key`, `X-Api-Key` or
//! `X-WorldMonitor-Key` (or sent as `Authorization: Bearer <key>`), or an OAuth access token as
//! the bearer, resolved to its account; then the operation's access rule ([`gate`]).

mod gate;
pub mod key_cache;
mod known;

pub use gate::{admit, gate};
pub use key_cache::KeyCache;

use std::{future::Future, sync::Arc, time::Instant};

use poem::{
    http::{header, HeaderName},
    Request,
};

use crate::{
    app_state::AppState,
    kit::error::ApiError,
    state::{Plan, Standing},
};

/// The account a credential resolved to; placed in the request extensions.
#[derive(Debug, Clone)]
pub struct Principal {
    pub account_id: String,
    pub key_id: String,
    pub plan: Plan,
    pub standing: Standing,
    pub scopes: Vec<String>,
}

impl Principal {
    /// The principal the edge admitted `req` with (an operation that needs a credential is
    /// reached only with one).
    pub fn of(req: &Request) -> Result<&Principal, crate::kit::error::ApiError> {
        req.extensions().get::<Principal>().ok_or_else(|| {
            crate::kit::error::ApiError::internal("an operation that needs a credential reached without a principal")
        })
    }
}

enum Credential<'r> {
    ApiKey(&'r str),
    /// A bearer value that is not an API key: an OAuth access token.
    AccessToken(&'r str),
}

/// The headers an API key may come in, in order of precedence (built once: a lookup by `&str`
/// parses the name on every request).
pub const KEY_HEADERS: [HeaderName; 3] = [
    HeaderName::from_static("x-service-key"),
    HeaderName::from_static("x-api-key"),
    HeaderName::from_static("x-worldmonitor-key"),
];

fn credential_of(req: &Request) -> Option<Credential<'_>> {
    for h in &KEY_HEADERS {
        if let Some(v) = req.headers().get(h).and_then(|v| v.to_str().ok()).filter(|v| !v.trim().is_empty()) {
            return Some(Credential::ApiKey(v.trim()));
        }
    }
    let bearer =
        req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok())?.strip_prefix("Bearer ")?.trim();
    if bearer.is_empty() {
        return None;
    }
    if crate::state::looks_like_api_key(bearer) {
        Some(Credential::ApiKey(bearer))
    } else {
        Some(Credential::AccessToken(bearer))
    }
}

/// The `WWW-Authenticate` challenge of SUPPLEMENT 5.2.
pub fn challenge(state: &AppState, req: &Request, rejected: bool) -> String {
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

/// An OAuth access token: live, of a live family authorised through a live key.
async fn access_token<Fut: Future<Output = bool>>(
    state: &AppState,
    req: &Request,
    token: &str,
    now: Instant,
    may_look_up: impl FnOnce() -> Fut,
) -> Result<Arc<Principal>, ApiError> {
    let digest = crate::state::key_digest(token);
    let found =
        state.keys.resolve_token(&state.store, &digest, now, state.clock.now(), may_look_up).await.map_err(|e| {
            tracing::error!(error = %e, "state store unavailable while resolving an access token");
            ApiError::EntitlementUnavailable
        })?;
    found.ok_or_else(|| ApiError::InvalidAccessToken { challenge: challenge(state, req, true) })
}

/// Resolves the request's credential at `now`. `Ok(None)` = no credential was sent (the caller
/// decides whether that is allowed); a credential that was sent and is not live is always refused.
/// `may_look_up` is asked before a credential not in memory is read from the state store; `false`
/// refuses it unread (the caller's address spent its attempts, `edge::address_may_look_up`).
pub async fn authenticate<Fut: Future<Output = bool>>(
    state: &AppState,
    req: &Request,
    now: Instant,
    may_look_up: impl FnOnce() -> Fut,
) -> Result<Option<Arc<Principal>>, ApiError> {
    let secret = match credential_of(req) {
        None => return Ok(None),
        // Boxed, like the key cache's store lookup: API-key requests need not carry its future.
        Some(Credential::AccessToken(token)) => {
            return Box::pin(access_token(state, req, token, now, may_look_up)).await.map(Some)
        }
        Some(Credential::ApiKey(k)) => k,
    };
    let found = if crate::state::looks_like_api_key(secret) {
        state.keys.resolve(&state.store, &crate::state::key_digest(secret), now, may_look_up).await.map_err(|e| {
            tracing::error!(error = %e, "state store unavailable while resolving a credential");
            ApiError::EntitlementUnavailable
        })?
    } else {
        None
    };
    match found {
        Some(p) => Ok(Some(p)),
        None => Err(ApiError::InvalidApiKey { challenge: challenge(state, req, true) }),
    }
}
