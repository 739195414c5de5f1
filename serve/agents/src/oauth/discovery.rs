//! Discovery (SUPPLEMENT 5.3): the protected-resource and authorization-server metadata, the RFC
//! 9727 API catalog and `/auth.md`. Each document describes the origin that was asked (5.2).

use poem::{http::Method, Request, Response};
use serde_json::{json, Value};

use sitrep_platform::app_state::AppState;

pub const SCOPES: [&str; 3] = ["mcp", "company_monitoring:read", "company_monitoring:write"];

/// GET and HEAD answer; OPTIONS is 204; anything else 405.
pub fn respond(req: &Request, content_type: &str, body: impl FnOnce() -> Vec<u8>) -> Response {
    let mut r = match *req.method() {
        Method::GET | Method::HEAD => Response::builder()
            .content_type(content_type)
            .header("cache-control", "public, max-age=3600")
            .body(if req.method() == Method::HEAD { Vec::new() } else { body() }),
        Method::OPTIONS => Response::builder().status(poem::http::StatusCode::NO_CONTENT).finish(),
        _ => Response::builder()
            .status(poem::http::StatusCode::METHOD_NOT_ALLOWED)
            .header("allow", "GET, HEAD, OPTIONS")
            .content_type("application/json")
            .body(json!({"error": "method_not_allowed"}).to_string()),
    };
    let h = r.headers_mut();
    h.insert("access-control-allow-origin", poem::http::HeaderValue::from_static("*"));
    h.insert("vary", poem::http::HeaderValue::from_static("Host"));
    r
}

fn json_doc(req: &Request, doc: Value) -> Response {
    respond(req, "application/json", || serde_json::to_vec(&doc).unwrap_or_default())
}

/// The API origin (`{base_url}`): the second public origin when there is one.
pub fn base_url(state: &AppState) -> &str {
    state.settings.public_origins.get(1).map(String::as_str).unwrap_or(state.settings.site_origin())
}

/// `/.well-known/oauth-protected-resource` (`for_mcp`: the `/mcp` variant, whose resource is `{site_url}/mcp`).
pub fn protected_resource(state: &AppState, req: &Request, for_mcp: bool) -> Response {
    let origin = state.settings.origin_for(req);
    let resource = if for_mcp { format!("{}/mcp", state.settings.site_origin()) } else { origin.clone() };
    json_doc(
        req,
        json!({
            "resource": resource,
            "authorization_servers": [origin],
            "bearer_methods_supported": ["header"],
            "scopes_supported": SCOPES,
            "resource_name": "sitrep",
            "resource_documentation": format!("{}/docs", state.settings.site_origin()),
        }),
    )
}

pub fn authorization_server(state: &AppState, req: &Request) -> Response {
    let o = state.settings.origin_for(req);
    json_doc(
        req,
        json!({
            "issuer": o,
            "authorization_endpoint": format!("{o}/oauth/authorize"),
            "token_endpoint": format!("{o}/oauth/token"),
            "registration_endpoint": format!("{o}/oauth/register"),
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
            "scopes_supported": SCOPES,
            "authorization_response_iss_parameter_supported": true,
            "client_id_metadata_document_supported": true,
            "service_documentation": format!("{}/docs", state.settings.site_origin()),
            "agent_auth": {
                "skill": format!("{o}/auth.md"),
                "register_uri": format!("{o}/oauth/register"),
                "claim_uri": format!("{o}/oauth/authorize"),
                "identity_types_supported": ["anonymous"],
                "anonymous": {"credential_types_supported": ["access_token"], "claim_uri": format!("{o}/oauth/authorize")},
            },
        }),
    )
}

pub fn api_catalog(state: &AppState, req: &Request) -> Response {
    let (site, base, origin) = (state.settings.site_origin(), base_url(state), state.settings.origin_for(req));
    let doc = json!({"linkset": [
        {"anchor": format!("{site}/.well-known/api-catalog"),
         "item": [{"href": format!("{base}/api")}, {"href": format!("{site}/mcp")}]},
        {"anchor": format!("{base}/api"),
         "service-desc": [
            {"href": format!("{base}/openapi.json"), "type": "application/vnd.oai.openapi+json"},
            {"href": format!("{base}/openapi.yaml"), "type": "application/vnd.oai.openapi"}],
         "service-doc": [{"href": format!("{site}/docs"), "type": "text/html"}],
         "service-meta": [{"href": format!("{origin}/auth.md"), "type": "text/markdown"}],
         "status": [{"href": format!("{base}/api/health"), "type": "application/json"}]},
        {"anchor": format!("{site}/mcp"),
         "service-doc": [{"href": format!("{site}/docs/mcp")}],
         "service-meta": [{"href": format!("{site}/.well-known/oauth-protected-resource")}],
         "status": [{"href": format!("{base}/api/health")}]},
    ]});
    respond(req, "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"", || {
        serde_json::to_vec(&doc).unwrap_or_default()
    })
}

/// `/auth.md`: how an agent finds, registers with and calls this deployment.
pub fn auth_md(state: &AppState, req: &Request) -> Response {
    let o = state.settings.origin_for(req);
    let text = format!(
        "# Signing in to sitrep\n\n\
sitrep serves situational data over REST (`{base}/api/...`) and an MCP tool server (`{site}/mcp`). \
Both accept the same credentials.\n\n\
## API keys\n\nSend `X-Service-Key: <key>` (or `Authorization: Bearer <key>`). A key belongs to the account that \
created it in the dashboard.\n\n\
## OAuth 2.1 for agents\n\n\
1. Discover: a 401 carries `WWW-Authenticate: Bearer resource_metadata=\"{o}/.well-known/oauth-protected-resource\"`; \
that document names the authorization server, whose metadata is at `{o}/.well-known/oauth-authorization-server`.\n\
2. Register: `POST {o}/oauth/register` with `{{\"client_name\", \"redirect_uris\"}}` (assistant callbacks or \
`http://localhost` / `http://127.0.0.1` loopback URLs).\n\
3. Authorize with PKCE (S256): `GET {o}/oauth/authorize?response_type=code&client_id=...&code_challenge=...&\
code_challenge_method=S256&scope=mcp&state=...`. The person signs in with an API key of their account and approves.\n\
4. Exchange the code: `POST {o}/oauth/token` (form-encoded) with `grant_type=authorization_code`, `code`, \
`code_verifier`, `client_id`. Access tokens last 1 hour; refresh tokens 7 days and rotate on every use \
(replaying a used refresh token revokes the whole grant).\n\
5. Call REST or `POST {site}/mcp` with `Authorization: Bearer <access token>`.\n\n\
Operators may use `grant_type=client_credentials` with an operator API key as `client_secret`.\n\n\
A person revokes keys and connected clients in the dashboard.\n",
        base = base_url(state),
        site = state.settings.site_origin(),
    );
    respond(req, "text/markdown; charset=utf-8", || text.into_bytes())
}
