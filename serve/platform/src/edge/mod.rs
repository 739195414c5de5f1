//! The per-operation pipeline in the processing order of SUPPLEMENT 1.1, driven by the operation
//! registry: routing (404, 405) → authentication (401) → entitlement and scope (403) →
//! idempotency lookup → rate limit (429/503) → idempotency claim → handler. The handler itself
//! does validation, rendering, jmespath and the ETag.

pub mod client_addr;
pub mod idempotency;
pub mod load_shedding;
pub mod rate_limit;
pub mod redis_limiter;
mod user_agent;

use std::time::Instant;

use poem::{
    http::{HeaderName, HeaderValue},
    Request, Response,
};

use self::{
    idempotency::Keyed,
    rate_limit::{Decision, Policy},
};
use crate::{
    app_state::AppState,
    auth,
    kit::{answer, answer::Remembered, error::ApiError, params::RawQuery},
    registry::{Method, Operation},
};

pub const MAX_BODY: usize = 262_144;

/// The rate-limit key of the caller's address (`client_addr`): the TCP peer, or behind trusted
/// proxies the address they forwarded; an IPv6 address by its /64.
pub fn client_ip(state: &AppState, req: &Request) -> String {
    match req.remote_addr().as_socket_addr() {
        Some(peer) => client_addr::address_key(state.settings.trusted_proxies.caller(peer.ip(), req.headers())),
        None => "unknown".into(),
    }
}

/// Runs one `/api/*` request through the pipeline; `op` is the registry's declaration at its path
/// (looked up once, by the caller); `arrived` is when the request came in (read once, by the
/// caller); the operation's handler is called if the request gets that far. The request is
/// borrowed rather than moved: at 472 bytes, each layer holding its own copy made every request's
/// future larger and was a copy per layer.
pub async fn run(state: &AppState, op: Option<&'static Operation>, req: &mut Request, arrived: Instant) -> Response {
    // Formatted only when needed: an authenticated caller is limited by account.
    let ip = || client_ip(state, req);
    if state.settings.edge_ua_filter && user_agent::refused(req) {
        return refused(state, Policy::Default, &ip(), arrived, ApiError::UserAgentRefused).await;
    }
    let Some(op) = op else {
        // Not declared: never reaches a handler, whatever the route tree holds.
        return refused(state, Policy::Default, &ip(), arrived, ApiError::NotFound).await;
    };
    if req.method().as_str() != op.method.as_str() {
        let e = ApiError::MethodNotAllowed { allow: op.method.as_str() };
        return refused(state, Policy::Default, &ip(), arrived, e).await;
    }
    // The key cache and the remembered answers are checked at the request's arrival.
    let principal = match auth::authenticate(state, req, arrived, || address_may_look_up(state, req, arrived)).await {
        Ok(p) => p,
        Err(e) => return refused_credential(state, &ip(), arrived, e).await,
    };
    let missing = || ApiError::MissingCredential { challenge: auth::challenge(state, req, false) };
    let principal = principal.as_deref();
    let by_ip;
    let id = match principal {
        Some(p) => p.account_id.as_str(),
        None => {
            by_ip = ip();
            by_ip.as_str()
        }
    };
    // A refusal from here on shows the caller's window of this operation: the account's once it
    // is known (an anonymous caller's is its address's).
    let window = window_key(op, id);
    let refuse = |e| refused(state, op.rate, &window, arrived, e);
    // A missing credential is answered first; then the group's availability, then the access rule.
    let asked = principal.is_some() || !op.access.needs_credential();
    if let Some(Err(e)) = op.guard.filter(|_| asked).map(|g| (g.available)(state)) {
        return refuse(e).await;
    }
    // A dataset named by a parameter asks what its own operations ask.
    let query = op.dataset_param.map(|_| RawQuery::of(req));
    let named = op.dataset_param.zip(query.as_ref()).and_then(|(p, q)| q.first(p.name));
    if let Err(e) = auth::admit(op, |d| state.dataset_access(d), named, principal, missing) {
        return refuse(e).await;
    }
    if let Some(Err(e)) = op.guard.map(|g| (g.admitted)(state)) {
        return refuse(e).await;
    }
    match authorised(state, op, Caller { id, principal, now: arrived }, req).await {
        Ok(r) => r,
        Err(e) => refused(state, op.rate, id, arrived, e).await,
    }
}

/// Who is calling, as authenticated at `now`: `id` is the rate-limit key (the account, else the
/// client IP).
struct Caller<'a> {
    id: &'a str,
    principal: Option<&'a auth::Principal>,
    now: Instant,
}

/// From the idempotency lookup on, for a caller allowed to call `op`.
async fn authorised(
    state: &AppState,
    op: &'static Operation,
    Caller { id: caller, principal, now }: Caller<'_>,
    req: &mut Request,
) -> Result<Response, ApiError> {
    // Whose queries the handler runs (allocated only if it runs).
    let owner = caller;
    // The body read and the state store's futures are boxed: held inline they would make every
    // request's future (GETs included) several kilobytes larger, and each layer moves it.
    let keyed = if op.method == Method::Post {
        let body = Box::pin(req.take_body().into_bytes_limit(MAX_BODY)).await.map_err(|e| match e {
            poem::error::ReadBodyError::PayloadTooLarge => ApiError::TooLarge,
            // Cut off, or late past the listener's body deadline.
            _ => ApiError::InvalidBody,
        })?;
        let keyed = if op.idempotent {
            Keyed::from_header(req.headers().get("idempotency-key"), caller, op.path, &body)?
        } else {
            None
        };
        req.set_body(body);
        keyed
    } else {
        None
    };
    let caller = window_key(op, caller);
    let caller = caller.as_ref();
    if let Some(k) = &keyed {
        if let Some(mut replay) = Box::pin(idempotency::lookup(state, k)).await? {
            if let Ok(d) = peek(state, op.rate, caller, now).await {
                rate_headers(&mut replay, state, op.rate, &d);
            }
            return Ok(replay);
        }
    }
    let decision = match limit(state, op.rate, caller, now).await {
        Ok(d) => d,
        Err(refusal) => return Ok(refusal),
    };
    let with_rate = |mut r: Response| {
        match &decision {
            Some(d) => rate_headers(&mut r, state, op.rate, d),
            None => degraded_rate_headers(&mut r, state, op.rate),
        }
        r
    };
    let guard = match &keyed {
        Some(k) => match Box::pin(idempotency::claim(state, k)).await {
            Ok(Ok(guard)) => guard,
            Ok(Err(settled)) => return Ok(with_rate(settled)),
            Err(e) => return Ok(with_rate(e.into_response())),
        },
        None => None,
    };
    // A GET answered before from the current generation goes out again as it was, without routing,
    // parameters or handler (`Remembered`); a new answer that may be repeated is kept.
    let remember_as = if op.method == Method::Get {
        let raw = req.uri().path_and_query().map_or("", |p| p.as_str());
        if let Some(r) = state.cache.remembered(raw, state.epoch(), now) {
            return Ok(with_rate(answer::repeat(req, &r)));
        }
        Some(raw.to_owned())
    } else {
        None
    };
    // For the handler only: a repeated answer above needs no extension map.
    if let Some(p) = principal {
        req.extensions_mut().insert(p.clone());
    }
    // The handler's future is boxed (`Answered`) for the same reason: it is held only while it runs.
    // The handler's DuckDB queries take its caller's share of the pool (`Engine::query`).
    let mut r = crate::snapshot::QUERY_OWNER.scope(owner.into(), op.handle(state, req)).await;
    if let (Some(raw), Some(answer)) = (remember_as, r.extensions_mut().remove::<Remembered>()) {
        state.cache.remember(raw, answer, state.clock.offset());
    }
    let r = match guard {
        Some(g) => Box::pin(g.finish(r)).await,
        None => r,
    };
    let mut r = with_rate(r);
    if let Some(k) = &keyed {
        idempotency::set_headers(&mut r, &k.key, false);
    }
    Ok(r)
}

/// Counts the request, arrived `at`. `Ok(None)`: the limiter failed on a fail-open policy; `Err`:
/// the 429 or 503.
pub async fn limit(state: &AppState, policy: Policy, caller: &str, at: Instant) -> Result<Option<Decision>, Response> {
    let max = state.settings.rate_limits.of(policy);
    match rate_limit::hit(state.limiter.as_ref(), policy, max, caller, at).await {
        Ok(d) if d.allowed => Ok(Some(d)),
        Ok(d) => {
            state.metrics.refused(policy);
            let mut r = ApiError::RateLimited { retry_after: d.reset_secs }.into_response();
            rate_headers(&mut r, state, policy, &d);
            Err(r)
        }
        Err(e) if policy.fails_open() => {
            if limiter_warning_due() {
                tracing::warn!(error = %e, policy = policy.name(), "rate limiter unavailable; failing open");
            }
            Ok(None)
        }
        Err(e) => {
            if limiter_warning_due() {
                tracing::warn!(error = %e, policy = policy.name(), "rate limiter unavailable; failing closed");
            }
            Err(ApiError::LimiterUnavailable.into_response())
        }
    }
}

/// Whether to log that the limiter is unavailable: at most once every 10 s, since every request
/// meets it while a shared limiter (Redis) is away.
fn limiter_warning_due() -> bool {
    use std::sync::atomic::{AtomicI64, Ordering};
    static LAST: AtomicI64 = AtomicI64::new(i64::MIN);
    let now = chrono::Utc::now().timestamp();
    let last = LAST.load(Ordering::Relaxed);
    now.saturating_sub(last) >= 10 && LAST.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok()
}

/// The rate-limit key of `caller`'s window for `op`: a policy counted per operation keys each
/// operation's window apart (SUPPLEMENT 1.12).
fn window_key<'a>(op: &Operation, caller: &'a str) -> std::borrow::Cow<'a, str> {
    if op.rate.per_operation() {
        std::borrow::Cow::Owned(format!("{caller} {}", op.id))
    } else {
        std::borrow::Cow::Borrowed(caller)
    }
}

async fn peek(
    state: &AppState,
    policy: Policy,
    caller: &str,
    at: Instant,
) -> Result<Decision, rate_limit::LimiterUnavailable> {
    state.limiter.peek(policy, state.settings.rate_limits.of(policy), caller, at).await
}

/// Whether a credential this request sent may be looked up in the state store: not once failed
/// attempts from its address filled the address's window (`Policy::Default`). Asked only when the
/// credential is not in memory, so a caller with a live key never waits on it.
pub async fn address_may_look_up(state: &AppState, req: &Request, at: Instant) -> bool {
    peek(state, Policy::Default, &client_ip(state, req), at).await.map_or(true, |d| d.remaining > 0)
}

/// Counts a refused credential against its address's window (`Policy::Default`): the answer to a
/// caller guessing keys, once the window is full, is 429 (and no store read, see
/// [`address_may_look_up`]). `None` while the window still has room.
pub async fn count_refused_credential(state: &AppState, ip: &str, at: Instant) -> Result<Option<Decision>, Response> {
    limit(state, Policy::Default, ip, at).await
}

/// A request refused during authentication: a wrong credential is counted against its address's
/// window (429 once that is full); a missing one, or a store that could not be asked, is not.
async fn refused_credential(state: &AppState, ip: &str, at: Instant, e: ApiError) -> Response {
    if !matches!(e, ApiError::InvalidApiKey { .. } | ApiError::InvalidAccessToken { .. }) {
        return refused(state, Policy::Default, ip, at, e).await;
    }
    match count_refused_credential(state, ip, at).await {
        Err(too_many) => too_many,
        Ok(decision) => {
            let mut r = e.into_response();
            match decision {
                Some(d) => rate_headers(&mut r, state, Policy::Default, &d),
                None => degraded_rate_headers(&mut r, state, Policy::Default),
            }
            r
        }
    }
}

/// An answer refused before the limiter counted the request (arrived `at`): it still carries the
/// caller's current window of `policy` (RateLimit headers are on every `/api/*` response).
async fn refused(state: &AppState, policy: Policy, caller: &str, at: Instant, e: ApiError) -> Response {
    let mut r = e.into_response();
    if let Ok(d) = peek(state, policy, caller, at).await {
        rate_headers(&mut r, state, policy, &d);
    }
    r
}

// Names built once, not parsed from a string on every request.
const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

pub fn rate_headers(r: &mut Response, state: &AppState, policy: Policy, d: &Decision) {
    // Header values without a String in between (this runs on every request).
    let limits = &state.settings.rate_limits;
    let h = r.headers_mut();
    h.insert(RATELIMIT_POLICY, limits.header(policy).clone());
    let limit =
        if d.limit == limits.of(policy) { limits.limit_header(policy).clone() } else { HeaderValue::from(d.limit) };
    h.insert(RATELIMIT_LIMIT, limit);
    h.insert(RATELIMIT_REMAINING, HeaderValue::from(d.remaining));
    h.insert(RATELIMIT_RESET, rate_limit::reset_header(d.reset_secs));
}

/// The limiter could not be asked and the policy failed open: what is known, and that it is degraded.
fn degraded_rate_headers(r: &mut Response, state: &AppState, policy: Policy) {
    let limits = &state.settings.rate_limits;
    let h = r.headers_mut();
    h.insert(RATELIMIT_POLICY, limits.header(policy).clone());
    h.insert(RATELIMIT_LIMIT, limits.limit_header(policy).clone());
    h.insert("x-ratelimit-mode", HeaderValue::from_static("degraded"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of what `f` returns, from its type alone (`f` is never called).
    fn returned_size<A, B, C, R>(_: impl Fn(A, B, C) -> R) -> usize {
        std::mem::size_of::<R>()
    }

    /// Every request's future holds these inline, and each layer that moves one copies it: a
    /// cold path's future (the state store, an OAuth token, an idempotency claim) is boxed so that
    /// a cached answer does not pay for it. (Before that, 3,136 and 712 bytes.)
    #[test]
    fn the_pipelines_futures_stay_small() {
        let run = |state: &'static AppState, req: &'static mut Request, now: Instant| run(state, None, req, now);
        let authenticate = |state: &'static AppState, req: &'static Request, now: Instant| {
            auth::authenticate(state, req, now, move || address_may_look_up(state, req, now))
        };
        let (run, authenticate) = (returned_size(run), returned_size(authenticate));
        eprintln!("edge::run {run} bytes, authenticate {authenticate} bytes");
        assert!(run <= 2048, "edge::run: {run} bytes");
        assert!(authenticate <= 512, "authenticate: {authenticate} bytes");
    }
}
