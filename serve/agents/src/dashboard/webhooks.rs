//! The dashboard's webhooks page (issue 59): the account's endpoints, each with its state — one
//! the service disabled says so first, with why — and its latest deliveries with their last
//! attempt; and forms for everything the REST operations do (add, edit, enable or disable,
//! rotate the secret, send a test event, redeliver, delete). The page reads and acts through the
//! operations themselves as the signed-in key (`reads`), so a form is refused exactly as the
//! same call over REST would be, and its refusal is shown as the operation words it.

use poem::{http::StatusCode, Response};
use serde_json::{json, Value};
use sitrep_platform::{app_state::AppState, auth::Principal, dispatch::Dispatch, state::Session};
use sitrep_webhooks::EventType;

use super::{
    field,
    reads::{principal_of, read, write},
};
use crate::html::{cell, document, escape};

/// Deliveries shown per endpoint.
const LATEST: usize = 5;

/// The page's form actions (POST), each one operation.
pub const FORMS: [&str; 7] = [
    "/dashboard/webhooks/create",
    "/dashboard/webhooks/update",
    "/dashboard/webhooks/enable",
    "/dashboard/webhooks/rotate",
    "/dashboard/webhooks/test",
    "/dashboard/webhooks/redeliver",
    "/dashboard/webhooks/delete",
];

/// What the page says above the endpoints after a form.
pub enum Flash {
    Done(String),
    /// A new signing secret (create, rotate): shown once, here.
    Secret(String, String),
    Refused(String),
}

fn text(v: &Value) -> String {
    escape(v.as_str().unwrap_or_default())
}

fn list(v: &Value) -> String {
    let items: Vec<String> = v.as_array().into_iter().flatten().map(text).collect();
    if items.is_empty() {
        "every dataset the plan reads".into()
    } else {
        items.join(", ")
    }
}

/// An instant to the second, as the tables show times.
fn when(v: &Value) -> String {
    escape(v.as_str().unwrap_or_default().get(..19).unwrap_or_default()).replace('T', " ")
}

/// A form of hidden fields and one button.
fn button(action: &str, csrf: &str, fields: &[(&str, &str)], label: &str) -> String {
    let hidden: String = fields
        .iter()
        .map(|(name, value)| format!("<input type=\"hidden\" name=\"{name}\" value=\"{}\">", escape(value)))
        .collect();
    format!(
        "<form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"csrf\" value=\"{}\">{hidden}\
<button type=\"submit\">{label}</button></form>",
        escape(csrf)
    )
}

/// The fields an endpoint is described by, filled with `endpoint`'s values (empty for a new
/// one); `prefix` keeps their ids apart on the page.
fn endpoint_fields(prefix: &str, endpoint: &Value) -> String {
    let types: String = EventType::SUBSCRIBABLE
        .iter()
        .map(|t| {
            let name = t.as_str();
            let checked = endpoint["eventTypes"].as_array().into_iter().flatten().any(|v| v == name);
            format!(
                "<label class=\"check\"><input type=\"checkbox\" name=\"event_type\" value=\"{name}\"{}> {name}</label>",
                if checked { " checked" } else { "" }
            )
        })
        .collect();
    let datasets: Vec<&str> = endpoint["datasets"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    format!(
        "<label for=\"{prefix}-url\">URL (https)</label>\
<input id=\"{prefix}-url\" name=\"url\" type=\"url\" required value=\"{url}\">\
<label for=\"{prefix}-description\">Description</label>\
<input id=\"{prefix}-description\" name=\"description\" type=\"text\" maxlength=\"256\" value=\"{description}\">\
<fieldset><legend>Event types</legend>{types}</fieldset>\
<label for=\"{prefix}-datasets\">Datasets (for dataset.version.published; comma-separated, empty: every one the plan reads)</label>\
<input id=\"{prefix}-datasets\" name=\"datasets\" type=\"text\" value=\"{datasets}\">",
        url = text(&endpoint["url"]),
        description = text(&endpoint["description"]),
        datasets = escape(&datasets.join(", ")),
    )
}

fn deliveries_table(csrf: &str, endpoint_id: &str, deliveries: &Value) -> String {
    let rows: String = deliveries["deliveries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            let last = d["attempts"].as_array().and_then(|a| a.last()).cloned().unwrap_or(Value::Null);
            let outcome = match (last["outcome"].as_str(), last["statusCode"].as_i64()) {
                (Some(o), Some(code)) => format!("{} ({code})", escape(&o.replace('_', " "))),
                (Some(o), None) => escape(&o.replace('_', " ")),
                (None, _) => "not tried yet".into(),
            };
            let id = d["deliveryId"].as_str().unwrap_or_default();
            let again = button(
                "/dashboard/webhooks/redeliver",
                csrf,
                &[("endpoint_id", endpoint_id), ("delivery_id", id)],
                "Redeliver",
            );
            format!(
                "<tr>{}{}{}{}{}{}{}</tr>",
                cell("Delivery", &format!("<code>{}</code>", escape(id))),
                cell("Event", &text(&d["eventType"])),
                cell("State", &text(&d["state"])),
                cell("Attempts", &d["attemptCount"].to_string()),
                cell("Last attempt", &outcome),
                cell("Created", &format!("<span class=\"nowrap\">{}</span>", when(&d["createdAt"]))),
                cell("", &again),
            )
        })
        .collect();
    if rows.is_empty() {
        return "<p>No deliveries yet.</p>".into();
    }
    format!(
        "<div class=\"table\"><table><thead><tr><th>Delivery (webhook-id)</th><th>Event</th><th>State</th>\
<th>Attempts</th><th>Last attempt</th><th>Created</th><th></th></tr></thead>\
<tbody>{rows}</tbody></table></div>"
    )
}

/// One endpoint's section: its state, its actions, its edit form and its latest deliveries.
fn endpoint_section(csrf: &str, e: &Value, deliveries: &Value) -> String {
    let id = e["endpointId"].as_str().unwrap_or_default();
    let reason = e["disabledReason"].as_str().unwrap_or_default();
    let enabled = e["enabled"].as_bool().unwrap_or(false);
    let state_text = match (enabled, reason.is_empty()) {
        (true, _) => "enabled".to_string(),
        (false, true) => "disabled by its owner".to_string(),
        (false, false) => format!("<strong>disabled by the service</strong>: {}", escape(reason)),
    };
    let failing = match e["failingSince"].as_str() {
        Some(_) => format!(" · failing since <span class=\"nowrap\">{}</span>", when(&e["failingSince"])),
        None => String::new(),
    };
    let description = match e["description"].as_str() {
        Some(d) if !d.is_empty() => format!("{} · ", escape(d)),
        _ => String::new(),
    };
    // Which datasets, only where it receives their versions.
    let datasets = if e["eventTypes"].as_array().into_iter().flatten().any(|t| t == "dataset.version.published") {
        format!(" · datasets: {}", list(&e["datasets"]))
    } else {
        String::new()
    };
    let of = [("endpoint_id", id)];
    let toggle = if enabled {
        button("/dashboard/webhooks/enable", csrf, &[("endpoint_id", id), ("enabled", "false")], "Disable")
    } else {
        button("/dashboard/webhooks/enable", csrf, &[("endpoint_id", id), ("enabled", "true")], "Enable")
    };
    let prefix = format!("edit-{id}");
    format!(
        "<section><h2><code>{url}</code></h2><p>{description}Events: {types}{datasets} · {state_text}{failing}</p>\
<div class=\"actions\">{test}{toggle}{rotate}{delete}</div>\
<details><summary>Edit this endpoint</summary><form method=\"post\" action=\"/dashboard/webhooks/update\">\
<input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><input type=\"hidden\" name=\"endpoint_id\" value=\"{id}\">{fields}\
<div class=\"actions\"><button type=\"submit\">Save</button></div></form></details>\
<form method=\"post\" action=\"/dashboard/webhooks/redeliver\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
<input type=\"hidden\" name=\"endpoint_id\" value=\"{id}\">\
<label for=\"{prefix}-since\">Redeliver every failed delivery created since (UTC)</label>\
<input id=\"{prefix}-since\" name=\"failed_since\" type=\"datetime-local\" required>\
<div class=\"actions\"><button type=\"submit\">Redeliver failed</button></div></form>{table}</section>",
        url = text(&e["url"]),
        types = list(&e["eventTypes"]),
        test = button("/dashboard/webhooks/test", csrf, &of, "Send a test event"),
        rotate = button("/dashboard/webhooks/rotate", csrf, &of, "Rotate the secret"),
        delete = button("/dashboard/webhooks/delete", csrf, &of, "Delete"),
        csrf = escape(csrf),
        id = escape(id),
        fields = endpoint_fields(&prefix, e),
        table = deliveries_table(csrf, id, deliveries),
    )
}

fn flash_html(flash: Option<&Flash>) -> String {
    match flash {
        None => String::new(),
        Some(Flash::Done(message)) => format!("<p class=\"note\" role=\"status\">{}</p>", escape(message)),
        Some(Flash::Secret(message, secret)) => format!(
            "<div class=\"note\" role=\"status\"><p>{}</p><p>Its signing secret, shown only now: \
<code id=\"new-secret\">{}</code></p></div>",
            escape(message),
            escape(secret)
        ),
        Some(Flash::Refused(message)) => format!("<p class=\"note error\" role=\"alert\">{}</p>", escape(message)),
    }
}

/// The page for `session`.
pub async fn page(dispatch: &Dispatch, state: &AppState, session: &Session) -> Response {
    let principal = principal_of(state, session).await;
    page_after(dispatch, state, session, &principal, None).await
}

/// The page as `principal` (the session's key) reads it, after a form's `flash`.
async fn page_after(
    dispatch: &Dispatch,
    state: &AppState,
    session: &Session,
    principal: &Principal,
    flash: Option<&Flash>,
) -> Response {
    let endpoints = match read(dispatch, state, principal, "ListWebhookEndpoints", "").await {
        Ok(Some(endpoints)) => endpoints,
        Ok(None) => {
            let body = "<h1>Webhooks</h1><p>Webhooks are not available to this key.</p><p><a href=\"/dashboard\">Dashboard</a></p>";
            return document(StatusCode::NOT_FOUND, "Webhooks — sitrep", body);
        }
        Err(too_many) => return too_many,
    };
    let csrf = &session.csrf;
    let mut warnings = String::new();
    let mut sections = String::new();
    for e in endpoints["endpoints"].as_array().into_iter().flatten() {
        let id = e["endpointId"].as_str().unwrap_or_default();
        let reason = e["disabledReason"].as_str().unwrap_or_default();
        if !e["enabled"].as_bool().unwrap_or(false) && !reason.is_empty() {
            warnings.push_str(&format!(
                "<p class=\"note error\" role=\"alert\">Endpoint <code>{}</code> ({}) was disabled: {}</p>",
                escape(id),
                text(&e["url"]),
                escape(reason)
            ));
        }
        let query = format!("endpoint_id={id}&page_size={LATEST}");
        let deliveries = match read(dispatch, state, principal, "ListWebhookDeliveries", &query).await {
            Ok(d) => d.unwrap_or_default(),
            Err(too_many) => return too_many,
        };
        sections.push_str(&endpoint_section(csrf, e, &deliveries));
    }
    let count = endpoints["endpoints"].as_array().map(Vec::len).unwrap_or(0);
    let body = format!(
        "<header><h1>Webhooks</h1><a href=\"/dashboard\">Dashboard</a></header>{flash}{warnings}\
<p>{count} of {limit} endpoints. Each delivery is signed to the Standard Webhooks specification \
(README, \"Webhooks\", shows how to verify one).</p>{sections}\
<section><h2>Add an endpoint</h2><form method=\"post\" action=\"/dashboard/webhooks/create\">\
<input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">{fields}\
<div class=\"actions\"><button type=\"submit\">Add the endpoint</button></div></form></section>",
        flash = flash_html(flash),
        limit = endpoints["endpointLimit"],
        csrf = escape(csrf),
        fields = endpoint_fields("new", &Value::Null),
    );
    document(StatusCode::OK, "Webhooks — sitrep", &body)
}

/// An endpoint's description from a form: URL, description, event types, datasets.
fn endpoint_body(form: &[(String, String)]) -> serde_json::Map<String, Value> {
    let types: Vec<&str> = form.iter().filter(|(k, _)| k == "event_type").map(|(_, v)| v.as_str()).collect();
    let datasets: Vec<&str> = field(form, "datasets")
        .unwrap_or_default()
        .split([',', ' ', '\n'])
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    let mut body = serde_json::Map::new();
    body.insert("url".into(), json!(field(form, "url").unwrap_or_default().trim()));
    body.insert("description".into(), json!(field(form, "description").unwrap_or_default()));
    body.insert("eventTypes".into(), json!(types));
    body.insert("datasets".into(), json!(datasets));
    body
}

/// A `datetime-local` value (UTC, as the label says) in RFC 3339; what does not parse is passed
/// on as written, for the operation to refuse in its words.
fn instant(local: &str) -> String {
    ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(local, f).ok())
        .map(|t| t.and_utc().to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_else(|| local.to_string())
}

/// What one of the operation's refusals says, for a person.
fn refusal(status: StatusCode, body: &Value) -> String {
    if let Some(violations) = body["violations"].as_array() {
        let said: Vec<String> = violations
            .iter()
            .map(|v| {
                format!(
                    "{}: {}",
                    v["field"].as_str().unwrap_or_default(),
                    v["description"].as_str().unwrap_or_default()
                )
            })
            .collect();
        return format!("Not saved — {}", said.join("; "));
    }
    match body["message"].as_str() {
        Some(m) => format!("Not done — {m}"),
        None => format!("Not done — the operation answered {}", status.as_u16()),
    }
}

/// A form of the page, done through its operation, then the page with what happened.
pub async fn act(
    dispatch: &Dispatch,
    state: &AppState,
    session: &Session,
    path: &str,
    form: &[(String, String)],
) -> Response {
    let endpoint_id = json!(field(form, "endpoint_id").unwrap_or_default());
    let (operation, body, done) = match path {
        "/dashboard/webhooks/create" => {
            ("CreateWebhookEndpoint", Value::Object(endpoint_body(form)), "Endpoint added.")
        }
        "/dashboard/webhooks/update" => {
            let mut body = endpoint_body(form);
            body.insert("endpointId".into(), endpoint_id);
            ("UpdateWebhookEndpoint", Value::Object(body), "Endpoint saved.")
        }
        "/dashboard/webhooks/enable" => {
            let enabled = field(form, "enabled") == Some("true");
            let done = if enabled { "Endpoint enabled." } else { "Endpoint disabled: its deliveries wait." };
            ("UpdateWebhookEndpoint", json!({"endpointId": endpoint_id, "enabled": enabled}), done)
        }
        "/dashboard/webhooks/rotate" => (
            "RotateWebhookEndpointSecret",
            json!({"endpointId": endpoint_id}),
            "Secret rotated: the old one signs beside it for 24 hours.",
        ),
        "/dashboard/webhooks/test" => {
            ("SendWebhookTestEvent", json!({"endpointId": endpoint_id}), "Test event queued: its delivery is below.")
        }
        "/dashboard/webhooks/redeliver" => {
            let body = match (field(form, "delivery_id"), field(form, "failed_since")) {
                (Some(one), _) => json!({"endpointId": endpoint_id, "deliveryId": one}),
                (None, since) => json!({"endpointId": endpoint_id, "failedSince": instant(since.unwrap_or_default())}),
            };
            ("RedeliverWebhookDeliveries", body, "queued again with the same webhook-id.")
        }
        "/dashboard/webhooks/delete" => {
            ("DeleteWebhookEndpoint", json!({"endpointId": endpoint_id}), "Endpoint deleted.")
        }
        _ => return document(StatusCode::NOT_FOUND, "Not found", "<h1>Not found</h1>"),
    };
    let principal = principal_of(state, session).await;
    let flash = match write(dispatch, state, &principal, operation, body).await {
        Err(too_many) => return too_many,
        Ok(None) => Flash::Refused("Webhooks are not available to this key.".into()),
        Ok(Some((StatusCode::OK, answer))) => match (answer["secret"].as_str(), answer["redeliveredCount"].as_i64()) {
            (Some(secret), _) => Flash::Secret(done.into(), secret.into()),
            (None, Some(n)) => Flash::Done(format!("{n} {} {done}", if n == 1 { "delivery" } else { "deliveries" })),
            (None, None) => Flash::Done(done.into()),
        },
        Ok(Some((status, answer))) => Flash::Refused(refusal(status, &answer)),
    };
    page_after(dispatch, state, session, &principal, Some(&flash)).await
}
