//! Dynamic client registration (SUPPLEMENT 5.4) and the redirect allowlist it shares with the
//! authorization endpoint.

use poem::{http::StatusCode, Response};
use serde_json::{json, Value};

use super::error_json;
use sitrep_platform::app_state::AppState;

const MAX_REDIRECT_URIS: usize = 3;
const MAX_NAME_CHARS: usize = 100;

/// Exactly an assistant callback, or an `http:` URL on the host `localhost` or `127.0.0.1`.
pub fn redirect_allowed(uri: &str, assistant_callbacks: &[String]) -> bool {
    if assistant_callbacks.iter().any(|c| c == uri) {
        return true;
    }
    url::Url::parse(uri).is_ok_and(|u| {
        u.scheme() == "http" && matches!(u.host_str(), Some("localhost") | Some("127.0.0.1")) && u.fragment().is_none()
    })
}

fn is_loopback(uri: &str) -> bool {
    url::Url::parse(uri).is_ok_and(|u| u.scheme() == "http")
}

pub async fn register(state: &AppState, body: &[u8]) -> Response {
    let invalid = |error: &str, description: &str| error_json(StatusCode::BAD_REQUEST, error, description);
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(body) else {
        return invalid("invalid_request", "Invalid JSON body");
    };
    let uris: Vec<String> = match body.get("redirect_uris") {
        Some(Value::Array(items)) if !items.is_empty() => {
            match items.iter().map(|v| v.as_str().map(str::to_string)).collect::<Option<Vec<_>>>() {
                Some(uris) => uris,
                None => return invalid("invalid_request", "redirect_uris is required"),
            }
        }
        _ => return invalid("invalid_request", "redirect_uris is required"),
    };
    if uris.len() > MAX_REDIRECT_URIS {
        return invalid("invalid_request", "Maximum 3 redirect_uris allowed");
    }
    if let Some(bad) =
        uris.iter().find(|u| !redirect_allowed(u, &crate::context(state).settings.oauth_assistant_callbacks))
    {
        return invalid("invalid_redirect_uri", &format!("Redirect URI not allowed: {bad}"));
    }
    let name: String = body
        .get("client_name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or("Unknown Client")
        .chars()
        .take(MAX_NAME_CHARS)
        .collect();
    let application_type = match body.get("application_type").and_then(Value::as_str) {
        Some(t @ ("native" | "web")) => t.to_string(),
        _ if uris.iter().all(|u| is_loopback(u)) => "native".into(),
        _ => "web".into(),
    };
    let client_id = uuid::Uuid::new_v4().to_string();
    let issued = state.clock.now();
    if let Err(e) = state.store.register_client(&client_id, &name, &uris, &application_type, issued).await {
        tracing::error!(error = %e, "could not store a client registration");
        return super::unavailable();
    }
    Response::builder()
        .status(StatusCode::CREATED)
        .content_type("application/json")
        .header("cache-control", "no-store")
        .body(
            json!({
                "client_id": client_id,
                "client_name": name,
                "redirect_uris": uris,
                "application_type": application_type,
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
                "client_id_issued_at": issued,
            })
            .to_string(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_redirect_allowlist() {
        let callbacks = vec!["https://claude.ai/api/mcp/auth_callback".to_string()];
        for ok in [
            "https://claude.ai/api/mcp/auth_callback",
            "http://localhost:6274/oauth/callback",
            "http://127.0.0.1/cb",
            "http://localhost/",
        ] {
            assert!(redirect_allowed(ok, &callbacks), "{ok}");
        }
        for bad in [
            "https://claude.ai/api/mcp/auth_callback/x",
            "https://localhost:6274/cb",
            "http://[::1]:8080/cb",
            "http://localhost.evil.example/cb",
            "http://127.0.0.2/cb",
            "https://evil.example/cb",
            "not a url",
        ] {
            assert!(!redirect_allowed(bad, &callbacks), "{bad}");
        }
    }
}
