//! The edge User-Agent filter (SUPPLEMENT 1.15): when enabled, anonymous-looking automation on
//! `/api/*` is asked to identify itself. A caller presenting an API-key-shaped credential is never
//! filtered (the key identifies it; whether the key is valid is authentication's business).

use poem::{
    http::{header, HeaderName},
    Request,
};

use crate::{auth::KEY_HEADERS, state::looks_like_api_key};

/// Substrings (lower case) of the User-Agents of generic HTTP tools.
const GENERIC_CLIENTS: [&str; 8] =
    ["curl/", "python-requests", "wget", "go-http", "java/", "libwww", "scrapy", "httpclient"];
const MIN_LENGTH: usize = 10;

fn has_api_key(req: &Request) -> bool {
    let header = |name: &HeaderName| req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    // SUPPLEMENT 1.15 names X-Service-Key and X-Api-Key (not the X-WorldMonitor-Key alias).
    KEY_HEADERS[..2].iter().any(|h| header(h).is_some_and(looks_like_api_key))
        || header(&header::AUTHORIZATION)
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|v| looks_like_api_key(v.trim()))
}

/// Whether the request is refused (403 HTML page).
pub fn refused(req: &Request) -> bool {
    if !req.uri().path().starts_with("/api/") || has_api_key(req) {
        return false;
    }
    let agent = req.headers().get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("").trim();
    let lower = agent.to_ascii_lowercase();
    agent.chars().count() < MIN_LENGTH || GENERIC_CLIENTS.iter().any(|g| lower.contains(g))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(path: &str, headers: &[(&str, &str)]) -> Request {
        let mut b = Request::builder().uri(path.parse().unwrap());
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.finish()
    }

    #[test]
    fn generic_and_short_agents_are_refused_unless_a_key_is_shown() {
        let key = "di_0123456789abcdef0123456789abcdef01234567";
        let path = "/api/conflict/v1/list-iran-events";
        for agent in ["", "short", "curl/8.5.0", "python-requests/2.32", "Go-http-client/1.1", "Apache-HttpClient/4.5"]
        {
            assert!(refused(&req(path, &[("user-agent", agent)])), "{agent:?}");
            assert!(!refused(&req(path, &[("user-agent", agent), ("x-service-key", key)])), "{agent:?} with a key");
        }
        assert!(!refused(&req(path, &[("user-agent", "curl/8"), ("authorization", &format!("Bearer {key}"))])));
        // An opaque bearer (an OAuth token) is not an API key: still filtered.
        assert!(refused(&req(path, &[("user-agent", "curl/8"), ("authorization", "Bearer opaque-token-value")])));
        assert!(!refused(&req(path, &[("user-agent", "acme-agent/1.4 (+https://acme.example/contact)")])));
        // Only /api/*.
        assert!(!refused(&req("/mcp", &[("user-agent", "curl/8")])));
    }
}
