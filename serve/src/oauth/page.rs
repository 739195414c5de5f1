//! The authorization server's HTML: the consent page and the error pages shown before a redirect
//! target is trusted. Server-rendered, no external assets, not frameable.

use poem::{http::StatusCode, Response};

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}\
h1{font-size:1.4rem}ul{padding-left:1.2rem}label{display:block;margin:1rem 0 .3rem;font-weight:600}\
input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}\
.actions{display:flex;gap:.75rem;margin-top:1rem}button{padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}\
.error{color:#a4000f;font-weight:600}.host{color:#555}";

fn html(status: StatusCode, title: &str, body: &str) -> Response {
    let page = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{title}</title><style>{STYLE}</style></head><body>{body}</body></html>\n",
        title = escape(title)
    );
    Response::builder()
        .status(status)
        .content_type("text/html; charset=utf-8")
        .header("x-frame-options", "DENY")
        .header("cache-control", "no-store")
        .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        .header("referrer-policy", "no-referrer")
        .body(page)
}

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
        "<h1>Allow {name} to use your sitrep account?</h1>\
<p class=\"host\">It will return to <strong>{host}</strong>.</p>\
<p>It asks to:</p><ul>{scopes}</ul>{error}\
<form method=\"post\" action=\"/oauth/authorize\">\
<input type=\"hidden\" name=\"nonce\" value=\"{nonce}\">\
<label for=\"api_key\">Sign in with an API key of your account</label>\
<input id=\"api_key\" name=\"api_key\" type=\"password\" autocomplete=\"off\" required>\
<div class=\"actions\"><button type=\"submit\" name=\"decision\" value=\"approve\">Approve</button>\
<button type=\"submit\" name=\"decision\" value=\"deny\" formnovalidate>Deny</button></div></form>",
        name = escape(c.client_name),
        host = escape(c.redirect_host),
        nonce = escape(c.nonce),
    );
    html(StatusCode::OK, "Authorize access", &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_client_names_itself() {
        assert_eq!(escape("<script>\"x\"&'"), "&lt;script&gt;&quot;x&quot;&amp;&#39;");
    }
}
