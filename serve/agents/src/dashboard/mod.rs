//! The account dashboard (SUPPLEMENT 5.8) and the public data status page. A person signs in with
//! an API key of the account; the session is a cookie (`HttpOnly`, `SameSite=Lax`, `Secure` on
//! https, 12 h) whose hash is stored; every form carries the session's CSRF token and must come
//! from one of our origins.

mod companies;
mod pages;
mod reads;
mod status;
mod webhooks;

use std::sync::Arc;

use poem::{
    endpoint::make,
    http::{Method, StatusCode},
    Request, Response, Route,
};

use crate::{html::document, oauth::secrets};
use sitrep_platform::{
    app_state::AppState,
    dispatch::Dispatch,
    edge,
    edge::rate_limit::Policy,
    state::{hash_secret, looks_like_api_key, Session, Standing},
};

const COOKIE: &str = "sitrep_session";
const SESSION_SECONDS: i64 = 12 * 3_600;
const MAX_ACTIVE_KEYS: usize = 5;
const MAX_BODY: usize = 16 << 10;
/// The dashboard's form actions (POST).
const FORMS: [&str; 5] = [
    "/dashboard/sign-in",
    "/dashboard/sign-out",
    "/dashboard/keys",
    "/dashboard/keys/revoke",
    "/dashboard/clients/revoke",
];

fn form(body: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn field<'a>(form: &'a [(String, String)], name: &str) -> Option<&'a str> {
    form.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn session_id(req: &Request) -> Option<String> {
    let cookies = req.headers().get("cookie")?.to_str().ok()?;
    cookies.split(';').filter_map(|c| c.trim().split_once('=')).find(|(k, _)| *k == COOKIE).map(|(_, v)| v.to_string())
}

fn see_other(location: &str) -> Response {
    Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header("location", location)
        .header("cache-control", "no-store")
        .finish()
}

fn cookie(state: &AppState, value: &str, max_age: i64) -> String {
    let secure = if state.settings.site_origin().starts_with("https://") { "; Secure" } else { "" };
    format!("{COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}")
}

fn unavailable() -> Response {
    document(
        StatusCode::SERVICE_UNAVAILABLE,
        "Try again",
        "<h1>Try again</h1><p>The dashboard is temporarily unavailable.</p>",
    )
}

fn suspended() -> Response {
    document(
        StatusCode::FORBIDDEN,
        "Account suspended",
        "<h1>Account suspended</h1><p>API access requires an active subscription.</p>",
    )
}

fn forbidden() -> Response {
    document(StatusCode::FORBIDDEN, "Forbidden", "<h1>Forbidden</h1><p>This form did not come from this site.</p>")
}

/// The signed-in session, if any; a suspended account's sessions end with its suspension.
async fn current_session(state: &AppState, req: &Request) -> Result<Option<Session>, Response> {
    let Some(id) = session_id(req) else { return Ok(None) };
    let session = state.store.session(&hash_secret(&id), state.clock.now()).await.map_err(|e| {
        tracing::error!(error = %e, "state store unavailable at /dashboard");
        unavailable()
    })?;
    match session {
        Some(s) if s.account.standing(chrono::Utc::now()) == Standing::Suspended => Err(suspended()),
        other => Ok(other),
    }
}

/// The scopes a key minted in `session` may have: `mcp`, and of the company-monitoring scopes
/// those the signing key has, on a plan with company monitoring (SUPPLEMENT 1.10) — the same rule
/// as OAuth consent.
pub(crate) fn mintable_scopes(session: &Session) -> Vec<&'static str> {
    let plan_allows = session.account.plan.has_company_monitoring();
    pages::SCOPE_CHOICES
        .iter()
        .map(|(scope, _)| *scope)
        .filter(|scope| plan_allows && session.key_scopes.iter().any(|s| s == scope))
        .collect()
}

/// The account page, optionally with a new key's secret or a message.
async fn account_page(
    state: &AppState,
    session: &Session,
    new_secret: Option<&str>,
    message: Option<&str>,
) -> Response {
    let account_id = &session.account.id;
    let (keys, clients) = match (state.store.keys_of(account_id).await, state.store.connected_clients(account_id).await)
    {
        (Ok(k), Ok(c)) => (k, c),
        _ => return unavailable(),
    };
    pages::account(&pages::Account { session, keys: &keys, clients: &clients, new_secret, message })
}

async fn sign_in(state: &AppState, req: &Request, body: &[u8]) -> Response {
    // A sign-in form without our Origin is refused (login CSRF): browsers send Origin with every
    // POST, so only a forged or non-browser request lacks it.
    if !state.settings.is_own_origin(req) || req.headers().get("origin").is_none() {
        return forbidden();
    }
    if let Err(r) =
        edge::limit(state, Policy::OauthAuthorize, &edge::client_ip(state, req), std::time::Instant::now()).await
    {
        return r;
    }
    let form = form(body);
    let key = field(&form, "api_key").map(str::trim).unwrap_or("");
    let found = if looks_like_api_key(key) { state.store.live_key(&hash_secret(key)).await } else { Ok(None) };
    let (key, account) = match found {
        Ok(Some(found)) => found,
        Ok(None) => return pages::sign_in(Some("Invalid API key")),
        Err(_) => return unavailable(),
    };
    if account.standing(chrono::Utc::now()) == Standing::Suspended {
        return suspended();
    }
    let (id, csrf) = (secrets::new_secret(), secrets::new_secret());
    if state
        .store
        .create_session(&hash_secret(&id), &account.id, &key.id, &csrf, state.clock.now() + SESSION_SECONDS)
        .await
        .is_err()
    {
        return unavailable();
    }
    let mut r = see_other("/dashboard");
    if let Ok(v) = cookie(state, &id, SESSION_SECONDS).parse() {
        r.headers_mut().insert("set-cookie", v);
    }
    r
}

/// A signed-in form: the session and its CSRF token must check out.
async fn signed_in_form(
    state: &AppState,
    req: &Request,
    body: &[u8],
) -> Result<(Session, Vec<(String, String)>), Response> {
    let Some(session) = current_session(state, req).await? else { return Err(see_other("/dashboard")) };
    let form = form(body);
    let csrf = field(&form, "csrf").unwrap_or("");
    let matches = csrf.len() == session.csrf.len()
        && csrf.bytes().zip(session.csrf.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if !matches {
        return Err(forbidden());
    }
    Ok((session, form))
}

async fn post(state: &AppState, dispatch: &Dispatch, req: &Request, body: &[u8]) -> Response {
    let path = req.uri().path();
    if path == "/dashboard/sign-in" {
        return sign_in(state, req, body).await;
    }
    let (session, form) = match signed_in_form(state, req, body).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    if webhooks::FORMS.contains(&path) {
        return webhooks::act(dispatch, state, &session, path, &form).await;
    }
    let account_id = session.account.id.clone();
    match path {
        "/dashboard/sign-out" => {
            if let Some(id) = session_id(req) {
                let _ = state.store.end_session(&hash_secret(&id)).await;
            }
            let mut r = see_other("/dashboard");
            if let Ok(v) = cookie(state, "", 0).parse() {
                r.headers_mut().insert("set-cookie", v);
            }
            r
        }
        "/dashboard/keys" => {
            let name = field(&form, "name").map(str::trim).unwrap_or("");
            if name.is_empty() || name.chars().count() > 64 {
                return account_page(state, &session, None, Some("A key needs a name of at most 64 characters.")).await;
            }
            let allowed = mintable_scopes(&session);
            let mut scopes = vec!["mcp"];
            for (k, v) in form.iter().filter(|(k, _)| k == "scope") {
                match allowed.iter().find(|s| *s == v) {
                    Some(scope) if !scopes.contains(scope) => scopes.push(scope),
                    Some(_) => {}
                    None => {
                        let refusal = format!("This sign-in cannot grant the {k} `{v}`: a new key may have only the scopes of the key you signed in with, and company-monitoring scopes need a Business plan.");
                        return account_page(state, &session, None, Some(&refusal)).await;
                    }
                }
            }
            let prefix = &state.settings.api_key_prefix;
            match state.store.create_key_within(&account_id, name, prefix, &scopes, MAX_ACTIVE_KEYS).await {
                Ok(Some(key)) => account_page(state, &session, Some(&key.secret), None).await,
                Ok(None) => {
                    let full = "An account has at most 5 active keys: revoke one first.";
                    account_page(state, &session, None, Some(full)).await
                }
                Err(_) => unavailable(),
            }
        }
        "/dashboard/keys/revoke" => {
            let key_id = field(&form, "key_id").unwrap_or("");
            // Revoking the key this session signed in with also ends the session (it checks its key).
            match state.store.revoke_key_of(&account_id, key_id).await {
                Ok(revoked) => {
                    if revoked {
                        state.keys.forget(key_id);
                    }
                    see_other("/dashboard")
                }
                Err(_) => unavailable(),
            }
        }
        "/dashboard/clients/revoke" => {
            let family_id = field(&form, "family_id").unwrap_or("");
            match state.store.revoke_family_of(&account_id, family_id, state.clock.now()).await {
                Ok(_) => see_other("/dashboard"),
                Err(_) => unavailable(),
            }
        }
        _ => document(StatusCode::NOT_FOUND, "Not found", "<h1>Not found</h1>"),
    }
}

/// Adds `/dashboard`, its forms, its company-monitoring and webhooks pages (read through `dispatch`) and
/// `/status` to `route`.
pub fn mount(route: Route, state: Arc<AppState>, dispatch: Dispatch) -> Route {
    let (s1, s2, s3, s4, s5) = (state.clone(), state.clone(), state.clone(), state.clone(), state);
    let (d2, d5) = (dispatch.clone(), dispatch.clone());
    let forms = Arc::new(make(move |mut req: Request| {
        let (state, dispatch) = (s2.clone(), d2.clone());
        async move {
            if req.method() != Method::POST {
                return document(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed", "<h1>Method not allowed</h1>");
            }
            if !state.settings.is_own_origin(&req) {
                return forbidden();
            }
            match req.take_body().into_bytes_limit(MAX_BODY).await {
                Ok(body) => post(&state, &dispatch, &req, &body).await,
                Err(_) => document(StatusCode::PAYLOAD_TOO_LARGE, "Too large", "<h1>Request too large</h1>"),
            }
        }
    }));
    let route = FORMS.iter().chain(&webhooks::FORMS).fold(route, |route, path| route.at(*path, forms.clone()));
    route
        .at(
            "/dashboard",
            make(move |req: Request| {
                let state = s1.clone();
                async move {
                    match current_session(&state, &req).await {
                        Ok(Some(session)) => account_page(&state, &session, None, None).await,
                        Ok(None) => pages::sign_in(None),
                        Err(r) => r,
                    }
                }
            }),
        )
        .at(
            "/dashboard/companies",
            make(move |req: Request| {
                let (state, dispatch) = (s4.clone(), dispatch.clone());
                async move {
                    match current_session(&state, &req).await {
                        Ok(Some(session)) => companies::page(&dispatch, &state, &session).await,
                        Ok(None) => see_other("/dashboard"),
                        Err(r) => r,
                    }
                }
            }),
        )
        .at(
            "/dashboard/webhooks",
            make(move |req: Request| {
                let (state, dispatch) = (s5.clone(), d5.clone());
                async move {
                    match current_session(&state, &req).await {
                        Ok(Some(session)) => webhooks::page(&dispatch, &state, &session).await,
                        Ok(None) => see_other("/dashboard"),
                        Err(r) => r,
                    }
                }
            }),
        )
        .at(
            "/status",
            make(move |req: Request| {
                let state = s3.clone();
                async move { status::page(&state, &req).await }
            }),
        )
}
