//! The token endpoint (SUPPLEMENT 5.6): authorization_code with PKCE, refresh_token with rotation
//! and family revocation on replay, client_credentials for operator keys.

use poem::{http::StatusCode, Request, Response};
use serde_json::json;

use super::{error_json, find_client, resource_allowed, secrets, ClientLookup};
use sitrep_platform::{
    app_state::AppState,
    state::{hash_secret, looks_like_api_key, Family, Grant, Mismatch, Redemption, Standing, StateError},
};

pub const ACCESS_SECONDS: i64 = 3_600;
pub const REFRESH_SECONDS: i64 = 7 * 86_400;

fn no_store(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert("cache-control", poem::http::HeaderValue::from_static("no-store"));
    h.insert("pragma", poem::http::HeaderValue::from_static("no-cache"));
    r
}

fn invalid_request(description: &str) -> Response {
    error_json(StatusCode::BAD_REQUEST, "invalid_request", description)
}

fn invalid_grant(description: &str) -> Response {
    error_json(StatusCode::BAD_REQUEST, "invalid_grant", description)
}

const CODE_INVALID: &str = "Authorization code is invalid, expired, or already used";
const REFRESH_INVALID: &str = "Refresh token is invalid, expired, or already used";

/// POST /oauth/token.
pub async fn token(state: &AppState, req: &Request, body: &[u8]) -> Response {
    let form_encoded = req.content_type().is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"));
    if !form_encoded {
        return no_store(invalid_request("The request must be application/x-www-form-urlencoded"));
    }
    let form: Vec<(String, String)> = url::form_urlencoded::parse(body).into_owned().collect();
    let field = |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty());
    let missing = |names: &[&str]| -> Option<Response> {
        let absent: Vec<&str> = names.iter().copied().filter(|n| field(n).is_none()).collect();
        (!absent.is_empty()).then(|| invalid_request(&format!("Missing required parameters: {}", absent.join(", "))))
    };
    if !form.iter().filter(|(k, _)| k == "resource").all(|(_, v)| resource_allowed(state, req, v)) {
        return no_store(error_json(StatusCode::BAD_REQUEST, "invalid_target", "The resource is not served here"));
    }
    let answer = match field("grant_type") {
        None => Ok(invalid_request("Missing required parameters: grant_type")),
        Some("authorization_code") => match missing(&["code", "code_verifier", "client_id"]) {
            Some(r) => Ok(r),
            None => authorization_code(state, &field).await,
        },
        Some("refresh_token") => match missing(&["refresh_token", "client_id"]) {
            Some(r) => Ok(r),
            None => refresh(state, &field).await,
        },
        Some("client_credentials") => match missing(&["client_secret"]) {
            Some(r) => Ok(r),
            None => client_credentials(state, &field).await,
        },
        Some(_) => Ok(Response::builder()
            .status(StatusCode::BAD_REQUEST)
            .content_type("application/json")
            .body(json!({"error": "unsupported_grant_type"}).to_string())),
    };
    no_store(answer.unwrap_or_else(|e| {
        tracing::error!(error = %e, "state store unavailable at /oauth/token");
        error_json(
            StatusCode::SERVICE_UNAVAILABLE,
            "server_error",
            "Auth service temporarily unavailable. Please retry.",
        )
    }))
}

/// Why `client_id` may not redeem the grant whose hash is `grant_hash` before the grant itself is
/// tried, if it may not: it is neither a live registration nor a metadata document that checks
/// out. A document is fetched (and remembered in the store) only for a grant the store issued to
/// that very URL, so a request naming a fresh URL and a made-up grant costs one read — no fetch,
/// no write, no place among the fetches (`invalid`: the answer then; `other`: for another
/// client's grant).
async fn client_refused(
    state: &AppState,
    client_id: &str,
    (grant, grant_hash): (Grant, &str),
    (invalid, other): (&str, &str),
    now: i64,
) -> Result<Option<Response>, StateError> {
    if super::client_metadata::metadata_url(client_id).is_some() {
        match state.store.grant_client(grant, grant_hash).await? {
            None => return Ok(Some(invalid_grant(invalid))),
            Some(issued_to) if issued_to != client_id => return Ok(Some(invalid_grant(other))),
            Some(_) => {}
        }
    }
    let known = matches!(
        find_client(state, client_id, now).await?,
        ClientLookup::Registered(_) | ClientLookup::Document { .. }
    );
    Ok((!known).then(client_gone))
}

fn client_gone() -> Response {
    error_json(
        StatusCode::UNAUTHORIZED,
        "invalid_client",
        "Client registration not found or expired. Please re-register.",
    )
}

async fn authorization_code<'a>(
    state: &AppState,
    field: &impl Fn(&str) -> Option<&'a str>,
) -> Result<Response, StateError> {
    let (code, verifier, client_id) =
        (field("code").unwrap_or(""), field("code_verifier").unwrap_or(""), field("client_id").unwrap_or(""));
    if !secrets::is_verifier(verifier) {
        return Ok(invalid_request("code_verifier must be 43-128 characters of [A-Za-z0-9-._~]"));
    }
    let (now, code_hash) = (state.clock.now(), hash_secret(code));
    const OTHER_CLIENT: &str = "client_id does not match the authorization code";
    if let Some(refused) =
        client_refused(state, client_id, (Grant::Code, &code_hash), (CODE_INVALID, OTHER_CLIENT), now).await?
    {
        return Ok(refused);
    }
    // The verifier and the redirect URI are checked with the redemption: a code is used up only
    // by a request that proves it.
    let challenge = secrets::challenge_of(verifier);
    match state.store.redeem_code(&code_hash, client_id, &challenge, field("redirect_uri"), now).await? {
        Redemption::Fresh(redeemed) => issue(state, &redeemed.family, true, now).await,
        Redemption::OtherClient => Ok(invalid_grant(OTHER_CLIENT)),
        Redemption::Mismatch(Mismatch::Verifier) => Ok(invalid_grant("code_verifier does not match code_challenge")),
        Redemption::Mismatch(Mismatch::RedirectUri) => {
            Ok(invalid_grant("redirect_uri does not match the authorization request"))
        }
        Redemption::Replayed | Redemption::Invalid => Ok(invalid_grant(CODE_INVALID)),
    }
}

async fn refresh<'a>(state: &AppState, field: &impl Fn(&str) -> Option<&'a str>) -> Result<Response, StateError> {
    let (token, client_id) = (field("refresh_token").unwrap_or(""), field("client_id").unwrap_or(""));
    let (now, token_hash) = (state.clock.now(), hash_secret(token));
    let grant = (Grant::Refresh, token_hash.as_str());
    if let Some(refused) = client_refused(state, client_id, grant, (REFRESH_INVALID, REFRESH_INVALID), now).await? {
        return Ok(refused);
    }
    match state.store.rotate_refresh(&token_hash, client_id, now).await? {
        Redemption::Fresh(family) => issue(state, &family, true, now).await,
        Redemption::OtherClient | Redemption::Mismatch(_) | Redemption::Replayed | Redemption::Invalid => {
            Ok(invalid_grant(REFRESH_INVALID))
        }
    }
}

async fn client_credentials<'a>(
    state: &AppState,
    field: &impl Fn(&str) -> Option<&'a str>,
) -> Result<Response, StateError> {
    let secret = field("client_secret").unwrap_or("").trim();
    let refused = || error_json(StatusCode::UNAUTHORIZED, "invalid_client", "Invalid client credentials");
    if !looks_like_api_key(secret) {
        return Ok(refused());
    }
    let Some((key, account)) = state.store.live_key(&hash_secret(secret)).await? else { return Ok(refused()) };
    // An operator key of a suspended account is refused like any other credential of it.
    if !key.operator || account.standing(chrono::Utc::now()) == Standing::Suspended {
        return Ok(refused());
    }
    let mut scopes = vec!["mcp".to_string()];
    scopes.extend(key.scopes.iter().filter(|s| s.as_str() != "mcp").cloned());
    let family = Family {
        id: format!("fam_{}", ulid::Ulid::new().to_string().to_lowercase()),
        client_id: None,
        account_id: account.id,
        key_id: key.id,
        scope: scopes.join(" "),
    };
    let now = state.clock.now();
    state.store.create_family(&family, now).await?;
    issue(state, &family, false, now).await
}

/// A new access token (and refresh token) of `family`.
async fn issue(state: &AppState, family: &Family, with_refresh: bool, now: i64) -> Result<Response, StateError> {
    let access = secrets::new_secret();
    state.store.store_token(&hash_secret(&access), "access", &family.id, now + ACCESS_SECONDS).await?;
    let mut body = json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": ACCESS_SECONDS,
        "scope": family.scope,
    });
    if with_refresh {
        let refresh = secrets::new_secret();
        state.store.store_token(&hash_secret(&refresh), "refresh", &family.id, now + REFRESH_SECONDS).await?;
        body["refresh_token"] = json!(refresh);
    }
    Ok(Response::builder().content_type("application/json").body(body.to_string()))
}
