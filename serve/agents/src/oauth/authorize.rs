//! The authorization endpoint (SUPPLEMENT 5.5): GET validates the request and shows the consent
//! page; POST signs the person in with an API key of their account and answers the client.
//! Errors before the redirect target is trusted are HTML pages; after, they go to the client with
//! `state` and `iss` (RFC 9207).

use poem::{http::StatusCode, Request, Response};

use super::{
    client_metadata::MetadataError, find_client, page, resource_allowed, secrets, ClientLookup, NONCE_SECONDS,
};
use sitrep_platform::{
    app_state::AppState,
    state::{hash_secret, ClientRecord, Family, PendingConsent, Standing},
};

const CODE_SECONDS: i64 = 600;
const DEFAULT_SCOPE: &str = "mcp";
/// The consent form's answer to a key of a suspended account (SUPPLEMENT 1.10's words).
const SUSPENDED: &str = "API access requires an active subscription";

fn pairs(query: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.as_bytes()).into_owned().collect()
}

fn first<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
}

/// `redirect_uri` with the answer's parameters and `iss` appended.
fn redirect(redirect_uri: &str, params: &[(&str, &str)], issuer: &str) -> Response {
    let mut url = match url::Url::parse(redirect_uri) {
        Ok(u) => u,
        Err(_) => {
            return page::error(StatusCode::BAD_REQUEST, "Redirect URI Mismatch", "The redirect URI is not valid.")
        }
    };
    {
        let mut q = url.query_pairs_mut();
        for (k, v) in params {
            q.append_pair(k, v);
        }
        q.append_pair("iss", issuer);
    }
    Response::builder()
        .status(StatusCode::FOUND)
        .header("location", url.as_str())
        .header("cache-control", "no-store")
        .finish()
}

fn redirect_error(consent: &PendingConsent, error: &str, issuer: &str) -> Response {
    let mut params = vec![("error", error)];
    if let Some(s) = &consent.state {
        params.push(("state", s));
    }
    redirect(&consent.redirect_uri, &params, issuer)
}

/// The scopes a person is asked for: known ones only, `mcp` always.
fn requested_scopes(scope: Option<&str>) -> String {
    let mut scopes = vec![DEFAULT_SCOPE];
    for s in scope.unwrap_or(DEFAULT_SCOPE).split_whitespace() {
        if super::discovery::SCOPES.contains(&s) && !scopes.contains(&s) {
            scopes.push(s);
        }
    }
    scopes.join(" ")
}

fn host_of(uri: &str) -> String {
    url::Url::parse(uri).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default()
}

/// The client a consent is for, and (for a metadata-document client) its document's host.
type Asking = (ClientRecord, Option<String>);

/// The one thing the consent page says of a metadata document that was not accepted.
pub const METADATA_REFUSED: &str =
    "The client's metadata document could not be fetched, or is not valid client metadata.";

fn unknown_client() -> Response {
    page::error(StatusCode::BAD_REQUEST, "Unknown Client", "This application is not registered here.")
}

fn try_again() -> Response {
    page::error(StatusCode::SERVICE_UNAVAILABLE, "Try Again", "Authorization is temporarily unavailable.")
}

/// The client behind `client_id`, or the page that says why there is none.
async fn asking(state: &AppState, client_id: &str, now: i64) -> Result<Asking, Response> {
    match find_client(state, client_id, now).await {
        Ok(ClientLookup::Registered(c)) => Ok((c, None)),
        Ok(ClientLookup::Document { client, host }) => Ok((client, Some(host))),
        Ok(ClientLookup::Unknown) => Err(unknown_client()),
        // Why is for the operator's log only (find_client logs it): told to the caller, which
        // hosts resolve, refuse or answer would make this page a probe of networks the fetch may
        // not reach.
        Ok(ClientLookup::BadDocument(MetadataError::Busy)) => Err(try_again()),
        Ok(ClientLookup::BadDocument(_)) => {
            Err(page::error(StatusCode::BAD_REQUEST, "Invalid Client Metadata", METADATA_REFUSED))
        }
        Err(e) => {
            tracing::error!(error = %e, "state store unavailable at /oauth/authorize");
            Err(try_again())
        }
    }
}

async fn consent_page(state: &AppState, asking: &Asking, consent: &PendingConsent, error: Option<&str>) -> Response {
    let (client, client_host) = asking;
    let nonce = secrets::new_secret();
    if let Err(e) = state.store.create_nonce(&hash_secret(&nonce), consent, state.clock.now() + NONCE_SECONDS).await {
        tracing::error!(error = %e, "could not store a consent nonce");
        return try_again();
    }
    let scopes: Vec<&str> = consent.scope.split_whitespace().collect();
    page::consent(&page::Consent {
        client_name: &client.client_name,
        client_host: client_host.as_deref(),
        redirect_host: &host_of(&consent.redirect_uri),
        scopes: &scopes,
        nonce: &nonce,
        error,
    })
}

/// GET /oauth/authorize.
pub async fn show(state: &AppState, req: &Request) -> Response {
    let q = pairs(req.uri().query().unwrap_or(""));
    let issuer = state.settings.origin_for(req);
    let Some(client_id) = first(&q, "client_id") else { return unknown_client() };
    let asking = match asking(state, client_id, state.clock.now()).await {
        Ok(a) => a,
        Err(page) => return page,
    };
    let client = &asking.0;
    let redirect_uri = match first(&q, "redirect_uri") {
        Some(uri) if client.redirect_uris.iter().any(|r| r == uri) => uri.to_string(),
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        _ => {
            return page::error(
                StatusCode::BAD_REQUEST,
                "Redirect URI Mismatch",
                "The redirect URI does not match the application's registration.",
            )
        }
    };
    // From here the client's redirect target is trusted: errors go back to it.
    let consent = PendingConsent {
        client_id: client.client_id.clone(),
        redirect_uri,
        code_challenge: first(&q, "code_challenge").unwrap_or_default().to_string(),
        scope: requested_scopes(first(&q, "scope")),
        state: first(&q, "state").map(str::to_string),
    };
    if first(&q, "response_type") != Some("code") {
        return redirect_error(&consent, "unsupported_response_type", &issuer);
    }
    if !secrets::is_challenge(&consent.code_challenge) || first(&q, "code_challenge_method") != Some("S256") {
        return redirect_error(&consent, "invalid_request", &issuer);
    }
    if !q.iter().filter(|(k, _)| k == "resource").all(|(_, v)| resource_allowed(state, req, v)) {
        return redirect_error(&consent, "invalid_target", &issuer);
    }
    consent_page(state, &asking, &consent, None).await
}

/// POST /oauth/authorize: the consent form.
pub async fn decide(state: &AppState, req: &Request, body: &[u8]) -> Response {
    let form = pairs(std::str::from_utf8(body).unwrap_or(""));
    let issuer = state.settings.origin_for(req);
    let expired = || {
        page::error(
            StatusCode::BAD_REQUEST,
            "Invalid Authorization Request",
            "This consent page has expired or was already used. Start again from the application.",
        )
    };
    let Some(nonce) = first(&form, "nonce") else { return expired() };
    let now = state.clock.now();
    let consent = match state.store.take_nonce(&hash_secret(nonce), now).await {
        Ok(Some(c)) => c,
        Ok(None) => return expired(),
        Err(e) => {
            tracing::error!(error = %e, "state store unavailable at /oauth/authorize");
            return page::error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try Again",
                "Authorization is temporarily unavailable.",
            );
        }
    };
    if first(&form, "decision") != Some("approve") {
        return redirect_error(&consent, "access_denied", &issuer);
    }
    let asking = match asking(state, &consent.client_id, now).await {
        Ok(a) => a,
        Err(page) => return page,
    };
    let key = match first(&form, "api_key").map(str::trim) {
        Some(k) if sitrep_platform::state::looks_like_api_key(k) => {
            state.store.live_key(&hash_secret(k)).await.ok().flatten()
        }
        _ => None,
    };
    let Some((key, account)) = key else {
        return consent_page(state, &asking, &consent, Some("Invalid API key")).await;
    };
    // A suspended account authorises nothing (SUPPLEMENT 1.10: everything refused).
    if account.standing(chrono::Utc::now()) == Standing::Suspended {
        return consent_page(state, &asking, &consent, Some(SUSPENDED)).await;
    }
    // Granted: what was asked and the key may do; `mcp` always.
    let granted: Vec<&str> =
        consent.scope.split_whitespace().filter(|s| *s == DEFAULT_SCOPE || key.scopes.iter().any(|k| k == s)).collect();
    let family = Family {
        id: format!("fam_{}", ulid::Ulid::new().to_string().to_lowercase()),
        client_id: Some(consent.client_id.clone()),
        account_id: account.id.clone(),
        key_id: key.id.clone(),
        scope: granted.join(" "),
    };
    let code = secrets::new_secret();
    let stored = async {
        state.store.create_family(&family, now).await?;
        state.store.create_code(&hash_secret(&code), &family.id, &consent, now + CODE_SECONDS).await
    };
    if let Err(e) = stored.await {
        tracing::error!(error = %e, "could not store an authorization code");
        return try_again();
    }
    let mut params = vec![("code", code.as_str())];
    if let Some(s) = &consent.state {
        params.push(("state", s));
    }
    redirect(&consent.redirect_uri, &params, &issuer)
}
