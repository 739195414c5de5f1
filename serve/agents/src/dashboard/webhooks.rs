//! The dashboard's webhooks page (issue 59): the account's endpoints, each with its state — one
//! the service disabled says so first, with why — and its latest deliveries with their last
//! attempt. Read through the operations as the signed-in key (`reads`); endpoints are managed
//! with the REST operations.

use poem::{http::StatusCode, Response};
use serde_json::Value;
use sitrep_platform::{app_state::AppState, dispatch::Dispatch, state::Session};

use super::reads::{principal_of, read};
use crate::html::{cell, document, escape};

/// Deliveries shown per endpoint.
const LATEST: usize = 5;

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

fn deliveries_table(deliveries: &Value) -> String {
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
            format!(
                "<tr>{}{}{}{}{}{}</tr>",
                cell("Delivery", &format!("<code>{}</code>", text(&d["deliveryId"]))),
                cell("Event", &text(&d["eventType"])),
                cell("State", &text(&d["state"])),
                cell("Attempts", &d["attemptCount"].to_string()),
                cell("Last attempt", &outcome),
                cell("Created", &format!("<span class=\"nowrap\">{}</span>", when(&d["createdAt"]))),
            )
        })
        .collect();
    if rows.is_empty() {
        return "<p>No deliveries yet.</p>".into();
    }
    format!(
        "<div class=\"table\"><table><thead><tr><th>Delivery (webhook-id)</th><th>Event</th><th>State</th>\
<th>Attempts</th><th>Last attempt</th><th>Created</th></tr></thead><tbody>{rows}</tbody></table></div>"
    )
}

/// The page for `session`.
pub async fn page(dispatch: &Dispatch, state: &AppState, session: &Session) -> Response {
    let principal = principal_of(state, session).await;
    let endpoints = match read(dispatch, state, &principal, "ListWebhookEndpoints", "").await {
        Ok(Some(endpoints)) => endpoints,
        Ok(None) => {
            let body = "<h1>Webhooks</h1><p>Webhooks are not available to this key.</p><p><a href=\"/dashboard\">Dashboard</a></p>";
            return document(StatusCode::NOT_FOUND, "Webhooks — sitrep", body);
        }
        Err(too_many) => return too_many,
    };
    let mut warnings = String::new();
    let mut sections = String::new();
    for e in endpoints["endpoints"].as_array().into_iter().flatten() {
        let id = e["endpointId"].as_str().unwrap_or_default();
        let reason = e["disabledReason"].as_str().unwrap_or_default();
        let enabled = e["enabled"].as_bool().unwrap_or(false);
        let state_text = match (enabled, reason.is_empty()) {
            (true, _) => "enabled".to_string(),
            (false, true) => "disabled by its owner".to_string(),
            (false, false) => format!("<strong>disabled by the service</strong>: {}", escape(reason)),
        };
        if !enabled && !reason.is_empty() {
            warnings.push_str(&format!(
                "<p class=\"note error\" role=\"alert\">Endpoint <code>{}</code> ({}) was disabled: {}</p>",
                escape(id),
                text(&e["url"]),
                escape(reason)
            ));
        }
        let failing = match e["failingSince"].as_str() {
            Some(_) => format!(" · failing since <span class=\"nowrap\">{}</span>", when(&e["failingSince"])),
            None => String::new(),
        };
        let deliveries = match read(
            dispatch,
            state,
            &principal,
            "ListWebhookDeliveries",
            &format!("endpoint_id={id}&page_size={LATEST}"),
        )
        .await
        {
            Ok(d) => d.unwrap_or_default(),
            Err(too_many) => return too_many,
        };
        sections.push_str(&format!(
            "<section><h2><code>{url}</code></h2><p>{description}Events: {types}{datasets} · {state_text}{failing}</p>{table}</section>",
            url = text(&e["url"]),
            description = match e["description"].as_str() {
                Some(d) if !d.is_empty() => format!("{} · ", escape(d)),
                _ => String::new(),
            },
            types = list(&e["eventTypes"]),
            // Which datasets, only where it receives their versions.
            datasets = if e["eventTypes"].as_array().into_iter().flatten().any(|t| t == "dataset.version.published") {
                format!(" · datasets: {}", list(&e["datasets"]))
            } else {
                String::new()
            },
            table = deliveries_table(&deliveries),
        ));
    }
    if sections.is_empty() {
        sections = "<p>No endpoints yet: create one with CreateWebhookEndpoint (README, \"Webhooks\").</p>".into();
    }
    let body = format!(
        "<header><h1>Webhooks</h1><a href=\"/dashboard\">Dashboard</a></header>{warnings}\
<p>{count} of {limit} endpoints.</p>{sections}",
        count = endpoints["endpoints"].as_array().map(Vec::len).unwrap_or(0),
        limit = endpoints["endpointLimit"],
    );
    document(StatusCode::OK, "Webhooks — sitrep", &body)
}
