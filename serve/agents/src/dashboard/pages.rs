//! The dashboard's pages: sign-in, the account page (API keys, connected clients) and the data
//! status page. Plain forms, no scripts; every signed-in form carries the session's CSRF token.

use poem::{http::StatusCode, Response};

use crate::html::{cell, document, escape};
use sitrep_platform::state::{ApiKeyRecord, ConnectedClient, Session};

pub const SCOPE_CHOICES: [(&str, &str); 2] = [
    ("company_monitoring:read", "Read monitored companies"),
    ("company_monitoring:write", "Change monitored companies"),
];

pub fn sign_in(error: Option<&str>) -> Response {
    let error = error.map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>", escape(e))).unwrap_or_default();
    document(
        if error.is_empty() { StatusCode::OK } else { StatusCode::UNAUTHORIZED },
        "Sign in — sitrep",
        &format!(
            "<h1>Sign in to your sitrep account</h1>\
<p>Paste an API key of your account. You can then manage its keys and the assistants you connected.</p>{error}\
<form method=\"post\" action=\"/dashboard/sign-in\"><label for=\"api_key\">API key</label>\
<input id=\"api_key\" name=\"api_key\" type=\"password\" autocomplete=\"off\" required>\
<div class=\"actions\"><button type=\"submit\">Sign in</button></div></form>\
<p><a href=\"/status\">Data status</a></p>"
        ),
    )
}

fn when(epoch_seconds: Option<i64>) -> String {
    epoch_seconds
        .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| "never".into())
}

fn when_rfc3339(t: Option<&str>) -> String {
    t.and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc).format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| "never".into())
}

fn button_form(action: &str, csrf: &str, field: &str, value: &str, label: &str) -> String {
    format!(
        "<form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"csrf\" value=\"{}\">\
<input type=\"hidden\" name=\"{field}\" value=\"{}\"><button type=\"submit\">{label}</button></form>",
        escape(csrf),
        escape(value)
    )
}

/// The host of a metadata-document client's id (an https URL), shown beside its self-declared name.
fn document_host(client_id: Option<&str>) -> Option<String> {
    let url = url::Url::parse(client_id?).ok()?;
    (url.scheme() == "https").then(|| url.host_str().map(str::to_string)).flatten()
}

pub struct Account<'a> {
    pub session: &'a Session,
    pub keys: &'a [ApiKeyRecord],
    pub clients: &'a [ConnectedClient],
    /// A key just created: its secret, shown this once.
    pub new_secret: Option<&'a str>,
    pub message: Option<&'a str>,
}

pub fn account(a: &Account) -> Response {
    let csrf = &a.session.csrf;
    let live: Vec<&ApiKeyRecord> = a.keys.iter().filter(|k| k.revoked_at.is_none()).collect();
    let rows: String = live
        .iter()
        .map(|k| {
            format!(
                "<tr>{}{}{}{}{}{}</tr>",
                cell("Key", &format!("<code>{}…</code>", escape(&k.display_prefix))),
                cell("Name", &escape(&k.name)),
                cell("Scopes", &escape(&k.scopes.join(" "))),
                cell("Created", &when_rfc3339(Some(&k.created_at))),
                cell("Last used", &when_rfc3339(k.last_used_at.as_deref())),
                cell("", &button_form("/dashboard/keys/revoke", csrf, "key_id", &k.id, "Revoke")),
            )
        })
        .collect();
    let clients: String = if a.clients.is_empty() {
        "<p>No assistant is connected.</p>".into()
    } else {
        let rows: String = a
            .clients
            .iter()
            .map(|c| {
                let host = document_host(c.client_id.as_deref())
                    .map(|h| format!(" <span class=\"host\">({})</span>", escape(&h)))
                    .unwrap_or_default();
                format!(
                    "<tr>{}{}{}{}{}</tr>",
                    cell("Client", &format!("{}{host}", escape(&c.client_name))),
                    cell("Scopes", &escape(&c.scope)),
                    cell("Connected", &when(Some(c.created_at))),
                    cell("Last used", &when(c.last_used_at)),
                    cell("", &button_form("/dashboard/clients/revoke", csrf, "family_id", &c.family_id, "Revoke")),
                )
            })
            .collect();
        format!("<div class=\"table\"><table><thead><tr><th>Client</th><th>Scopes</th><th>Connected</th><th>Last used</th><th></th></tr></thead><tbody>{rows}</tbody></table></div>")
    };
    let secret = a
        .new_secret
        .map(|s| {
            format!(
                "<p class=\"note\" role=\"status\">Your new API key — copy it now, it is not shown again:<br><code id=\"new-key\">{}</code></p>",
                escape(s)
            )
        })
        .unwrap_or_default();
    let message = a.message.map(|m| format!("<p class=\"error\" role=\"alert\">{}</p>", escape(m))).unwrap_or_default();
    let allowed = super::mintable_scopes(a.session);
    let scopes: String = SCOPE_CHOICES
        .iter()
        .filter(|(s, _)| allowed.contains(s))
        .map(|(s, words)| {
            format!("<label><input type=\"checkbox\" name=\"scope\" value=\"{s}\"> {}</label>", escape(words))
        })
        .collect();
    let body = format!(
        "<header><h1>{name}</h1><form method=\"post\" action=\"/dashboard/sign-out\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
<button type=\"submit\">Sign out</button></form></header>\
<p>Plan: <strong>{plan}</strong> · <a href=\"/status\">Data status</a> · <a href=\"/dashboard/webhooks\">Webhooks</a>{monitoring}</p>{secret}{message}\
<h2>API Keys</h2>\
<div class=\"table\"><table><thead><tr><th>Key</th><th>Name</th><th>Scopes</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>{rows}</tbody></table></div>\
<form method=\"post\" action=\"/dashboard/keys\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
<label for=\"key-name\">New key name</label><input id=\"key-name\" name=\"name\" type=\"text\" maxlength=\"64\" required>{scopes}\
<div class=\"actions\"><button type=\"submit\">Create key</button></div></form>\
<h2>Connected MCP Clients</h2>{clients}",
        name = escape(&a.session.account.name),
        csrf = escape(csrf),
        plan = escape(a.session.account.plan.as_str()),
        monitoring = if a.session.account.plan.has_company_monitoring() {
            " · <a href=\"/dashboard/companies\">Company monitoring</a>"
        } else {
            ""
        },
    );
    document(StatusCode::OK, "Dashboard — sitrep", &body)
}
