//! The OAuth 2.1 authorization server (SUPPLEMENT Part 5): discovery documents, dynamic client
//! registration, authorization with consent, and the token endpoint. Tokens it issues are opaque;
//! `auth` resolves them on REST and `/mcp`.

pub mod authorize;
pub mod client_metadata;
mod discovery;
mod page;
mod register;
pub mod secrets;
mod token;

use std::sync::Arc;

use poem::{
    endpoint::make,
    http::{Method, StatusCode},
    Request, Response, Route,
};
use serde_json::json;

use sitrep_platform::{
    app_state::AppState,
    edge,
    edge::rate_limit::Policy,
    state::{hash_secret, ClientRecord, StateError},
};

pub use client_metadata::{MetadataCache, MetadataError};
pub use discovery::protected_resource;
pub use token::{ACCESS_SECONDS, REFRESH_SECONDS};

/// A consent nonce lives this long.
const NONCE_SECONDS: i64 = 600;
/// Largest accepted form or JSON body.
const MAX_BODY: usize = 64 << 10;

/// `{"error", "error_description"}` (RFC 6749 5.2).
pub fn error_json(status: StatusCode, error: &str, description: &str) -> Response {
    Response::builder()
        .status(status)
        .content_type("application/json")
        .header("cache-control", "no-store")
        .body(json!({"error": error, "error_description": description}).to_string())
}

fn unavailable() -> Response {
    error_json(StatusCode::SERVICE_UNAVAILABLE, "server_error", "Auth service temporarily unavailable. Please retry.")
}

/// What a `client_id` names.
pub enum ClientLookup {
    /// A client registered here (dynamic client registration).
    Registered(ClientRecord),
    /// A client described by its metadata document; the document's host is shown on consent.
    Document {
        client: ClientRecord,
        host: String,
    },
    Unknown,
    /// A metadata-document `client_id` whose document was refused.
    BadDocument(MetadataError),
}

/// Resolves a `client_id`: a registration, or a Client ID Metadata Document (5.4a).
pub async fn find_client(state: &AppState, client_id: &str, now: i64) -> Result<ClientLookup, StateError> {
    if let Some(url) = client_metadata::metadata_url(client_id) {
        let agents = crate::context(state);
        return Ok(match agents.client_metadata.resolve(&agents.settings, &url, now).await {
            Ok(client) => {
                state.store.remember_client(&client, now).await?;
                ClientLookup::Document { client, host: url.host_str().unwrap_or_default().to_string() }
            }
            Err(e) => {
                tracing::info!(%client_id, error = %e, "client metadata document refused");
                ClientLookup::BadDocument(e)
            }
        });
    }
    Ok(match state.store.client(client_id, now).await? {
        Some(c) => ClientLookup::Registered(c),
        None => ClientLookup::Unknown,
    })
}

/// RFC 8707 `resource` values this deployment serves (5.4b).
pub fn resource_allowed(state: &AppState, req: &Request, resource: &str) -> bool {
    let site = state.settings.site_origin();
    let base = discovery::base_url(state);
    let origin = state.settings.origin_for(req);
    let allowed = [format!("{site}/mcp"), site.to_string(), base.to_string(), format!("{base}/api"), origin];
    !resource.contains('#') && allowed.iter().any(|a| a == resource.trim_end_matches('/') || a == resource)
}

fn method_not_allowed(allow: &'static str) -> Response {
    Response::builder()
        .status(StatusCode::METHOD_NOT_ALLOWED)
        .header("allow", allow)
        .content_type("application/json")
        .body(json!({"error": "method_not_allowed"}).to_string())
}

/// A request counted against an oauth-* policy in `window`: or the refusal, a 429 in that
/// endpoint's own words (SUPPLEMENT 1.12) with the limiter's headers.
async fn limited(state: &AppState, policy: Policy, window: &str) -> Result<(), Response> {
    match edge::limit(state, policy, window, std::time::Instant::now()).await {
        Ok(_) => Ok(()),
        Err(mut refusal) if refusal.status() == StatusCode::TOO_MANY_REQUESTS => {
            let (content_type, body) = match policy {
                Policy::OauthRegister => ("application/json", oauth_429("Too many registration requests.")),
                Policy::OauthToken | Policy::OauthTokenAddress => {
                    ("application/json", oauth_429("Too many token requests. Try again later."))
                }
                _ => ("text/plain; charset=utf-8", "Too Many Requests".to_string()),
            };
            refusal
                .headers_mut()
                .insert(poem::http::header::CONTENT_TYPE, poem::http::HeaderValue::from_static(content_type));
            refusal.set_body(body);
            Err(refusal)
        }
        Err(unavailable) => Err(unavailable),
    }
}

fn oauth_429(description: &str) -> String {
    json!({"error": "rate_limit_exceeded", "error_description": description}).to_string()
}

/// A POST counted against its oauth-* policy (per client IP), then its body: or the refusal.
async fn limited_body(state: &AppState, policy: Policy, req: &mut Request) -> Result<Vec<u8>, Response> {
    limited(state, policy, &edge::client_ip(state, req)).await?;
    body(req).await
}

async fn body(req: &mut Request) -> Result<Vec<u8>, Response> {
    req.take_body()
        .into_bytes_limit(MAX_BODY)
        .await
        .map(|b| b.to_vec())
        .map_err(|_| error_json(StatusCode::PAYLOAD_TOO_LARGE, "invalid_request", "Request body too large"))
}

/// A token request's body, counted against `oauth-token` per `client_id` (per client IP when the
/// form names none), SUPPLEMENT 1.12: read first (at most 256 KB), since the client is in it.
/// Counted first against `oauth-token-address` per client IP: a caller naming a fresh client id
/// each time has a window per id, and each unknown id costs a read of the state store.
async fn token_body(state: &AppState, req: &mut Request) -> Result<Vec<u8>, Response> {
    limited(state, Policy::OauthTokenAddress, &edge::client_ip(state, req)).await?;
    let body = body(req).await?;
    let client = url::form_urlencoded::parse(&body).find(|(k, v)| k == "client_id" && !v.is_empty()).map(|(_, v)| v);
    // The window's key is a digest: a client id is the caller's text, of any length.
    let window = match client {
        Some(id) => format!("client:{}", &hash_secret(&id)[..32]),
        None => edge::client_ip(state, req),
    };
    limited(state, Policy::OauthToken, &window).await?;
    Ok(body)
}

/// The window of GET /oauth/authorize: the address's, apart from its consent form's.
fn authorize_page_window(state: &AppState, req: &Request) -> String {
    format!("page:{}", edge::client_ip(state, req))
}

/// Adds the authorization server's routes to `route`.
pub fn mount(route: Route, state: Arc<AppState>) -> Route {
    let doc = |f: fn(&AppState, &Request) -> Response, state: &Arc<AppState>| {
        let state = state.clone();
        make(move |req: Request| {
            let state = state.clone();
            async move { f(&state, &req) }
        })
    };
    let (s1, s2, s3) = (state.clone(), state.clone(), state.clone());
    route
        .at("/.well-known/oauth-authorization-server", doc(discovery::authorization_server, &state))
        .at("/.well-known/api-catalog", doc(discovery::api_catalog, &state))
        .at("/auth.md", doc(discovery::auth_md, &state))
        .at("/.well-known/oauth-protected-resource", doc(|s, r| protected_resource(s, r, false), &state))
        .at("/.well-known/oauth-protected-resource/mcp", doc(|s, r| protected_resource(s, r, true), &state))
        .at(
            "/oauth/register",
            make(move |mut req: Request| {
                let state = s1.clone();
                async move {
                    if req.method() != Method::POST {
                        return method_not_allowed("POST");
                    }
                    match limited_body(&state, Policy::OauthRegister, &mut req).await {
                        Ok(body) => register::register(&state, &body).await,
                        Err(r) => r,
                    }
                }
            }),
        )
        .at(
            "/oauth/authorize",
            make(move |mut req: Request| {
                let state = s2.clone();
                async move {
                    match *req.method() {
                        // The page writes a nonce and may fetch a metadata document: limited
                        // per address like the form, in a window of its own (a person's one
                        // page and one post never share a budget).
                        Method::GET => {
                            match limited(&state, Policy::OauthAuthorize, &authorize_page_window(&state, &req)).await {
                                Ok(()) => authorize::show(&state, &req).await,
                                Err(r) => r,
                            }
                        }
                        Method::POST => {
                            if !state.settings.is_own_origin(&req) {
                                return page::error(
                                    StatusCode::FORBIDDEN,
                                    "Forbidden",
                                    "Cross-origin form posts are refused.",
                                );
                            }
                            match limited_body(&state, Policy::OauthAuthorize, &mut req).await {
                                Ok(body) => authorize::decide(&state, &req, &body).await,
                                Err(r) => r,
                            }
                        }
                        _ => method_not_allowed("GET, POST"),
                    }
                }
            }),
        )
        .at(
            "/oauth/token",
            make(move |mut req: Request| {
                let state = s3.clone();
                async move {
                    if req.method() != Method::POST {
                        return method_not_allowed("POST");
                    }
                    match token_body(&state, &mut req).await {
                        Ok(body) => token::token(&state, &req, &body).await,
                        Err(r) => r,
                    }
                }
            }),
        )
}
