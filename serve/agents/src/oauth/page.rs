//! The authorization server's HTML: the consent page and the error pages shown before a redirect
//! target is trusted. Server-rendered, no external assets, not frameable.

use poem::{http::StatusCode, Response};

use crate::html::{document as html, escape};

/// An error shown to the person, not sent to the client (the redirect target is not trusted).
pub fn error(status: StatusCode, title: &str, detail: &str) -> Response {
    html(status, title, &format!("<h1>{}</h1><p>{}</p>", escape(title), escape(detail)))
}

/// The words a person reads for a scope.
fn scope_words(scope: &str) -> &'static str {
    match scope {
        "mcp" => "Read situational data through the API and the MCP tool server",
        "company_monitoring:read" => "Read your monitored companies and their material events",
        "company_monitoring:write" => "Add, change and remove your monitored companies",
        _ => "An unrecognised permission",
    }
}

pub struct Consent<'a> {
    pub client_name: &'a str,
    /// The host of a metadata-document client's `client_id`: who is asking.
    pub client_host: Option<&'a str>,
    pub redirect_host: &'a str,
    pub scopes: &'a [&'a str],
    pub nonce: &'a str,
    pub error: Option<&'a str>,
}

/// The consent page: who asks, where the answer goes, what it may do; sign in with an API key.
pub fn consent(c: &Consent) -> Response {
    let scopes: String = c.scopes.iter().map(|s| format!("<li>{}</li>", escape(scope_words(s)))).collect();
    let error = c.error.map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>", escape(e))).unwrap_or_default();
    let body = format!(
        "<h1>Allow {name}{from} to use your sitrep account?</h1>\
<p class=\"host\">It will return to <strong>{host}</strong>.</p>\
<p>It asks to:</p><ul>{scopes}</ul>{error}\
<form method=\"post\" action=\"/oauth/authorize\">\
<input type=\"hidden\" name=\"nonce\" value=\"{nonce}\">\
<label for=\"api_key\">Sign in with an API key of your account</label>\
<input id=\"api_key\" name=\"api_key\" type=\"password\" autocomplete=\"off\" required>\
<div class=\"actions\"><button type=\"submit\" name=\"decision\" value=\"approve\">Approve</button>\
<button type=\"submit\" name=\"decision\" value=\"deny\" formnovalidate>Deny</button></div></form>",
        name = escape(c.client_name),
        from = c.client_host.map(|h| format!(" <span class=\"host\">({})</span>", escape(h))).unwrap_or_default(),
        host = escape(c.redirect_host),
        nonce = escape(c.nonce),
    );
    html(StatusCode::OK, "Authorize access", &body)
}
