//! The Webhooks group's response shapes. Times are RFC 3339 (UTC, milliseconds).

use poem_openapi::Object;
use serde::Serialize;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_webhooks::{
    schedule::AttemptOutcome,
    store::{Attempt, Delivery, DeliveryState, Endpoint},
    EventType,
};

use crate::company_monitoring::records::iso;

/// An endpoint as its owner sees it (never its secret: that is shown once, by create and rotate).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct WebhookEndpoint {
    pub endpoint_id: String,
    pub url: String,
    pub description: String,
    pub event_types: Vec<WireName<EventType>>,
    /// The datasets whose new versions it receives; empty: every dataset the plan may read.
    pub datasets: Vec<String>,
    pub enabled: bool,
    /// Why the service disabled it (every attempt failed for 5 days); empty otherwise.
    pub disabled_reason: String,
    /// Since when every attempt has failed; absent while it is not failing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[oai(skip_serializing_if_is_none)]
    pub failing_since: Option<String>,
    /// Until when the secret a rotation replaced still signs beside the new one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[oai(skip_serializing_if_is_none)]
    pub previous_secret_valid_until: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl WebhookEndpoint {
    pub fn of(e: Endpoint, now: i64) -> Self {
        WebhookEndpoint {
            endpoint_id: e.endpoint_id,
            url: e.url,
            description: e.description,
            event_types: e.event_types.into_iter().map(WireName).collect(),
            datasets: e.datasets,
            enabled: e.enabled,
            disabled_reason: e.disabled_reason,
            failing_since: e.failing_since.map(iso),
            previous_secret_valid_until: e
                .previous_secret
                .filter(|(_, until)| *until > now)
                .map(|(_, until)| iso(until)),
            created_at: iso(e.created_at),
            updated_at: iso(e.updated_at),
        }
    }
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct WebhookEndpointResponse {
    pub endpoint: WebhookEndpoint,
}

/// Create's and rotate's answer: the endpoint and its new signing secret (`whsec_…`), shown only here.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct WebhookEndpointSecretResponse {
    pub endpoint: WebhookEndpoint,
    pub secret: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListWebhookEndpointsResponse {
    pub endpoints: Vec<WebhookEndpoint>,
    /// How many endpoints the account's plan allows.
    pub endpoint_limit: i32,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct DeleteWebhookEndpointResponse {
    pub endpoint_id: String,
    pub deleted: bool,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct WebhookAttempt {
    pub attempt: i32,
    pub started_at: String,
    pub duration_ms: i32,
    /// The receiver's HTTP status, when it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[oai(skip_serializing_if_is_none)]
    pub status_code: Option<i32>,
    pub outcome: WireName<AttemptOutcome>,
    /// What failed, or the start of the receiver's answer.
    pub detail: String,
}

/// A delivery: one event to one endpoint; its id is the `webhook-id` of every attempt.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct WebhookDelivery {
    pub delivery_id: String,
    pub endpoint_id: String,
    pub event_type: WireName<EventType>,
    /// What deliveries are ordered by: the company or the dataset (the endpoint for a test event).
    pub subject: String,
    pub state: WireName<DeliveryState>,
    pub attempt_count: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[oai(skip_serializing_if_is_none)]
    pub next_attempt_at: Option<String>,
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[oai(skip_serializing_if_is_none)]
    pub finished_at: Option<String>,
    pub attempts: Vec<WebhookAttempt>,
}

impl WebhookDelivery {
    pub fn of(d: Delivery) -> Self {
        let int = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
        WebhookDelivery {
            delivery_id: d.delivery_id,
            endpoint_id: d.endpoint_id,
            event_type: WireName(d.event_type),
            subject: d.subject,
            state: WireName(d.state),
            attempt_count: int(d.attempt_count),
            next_attempt_at: d.next_attempt_at.map(iso),
            created_at: iso(d.created_at),
            finished_at: d.finished_at.map(iso),
            attempts: d
                .attempts
                .into_iter()
                .map(|a: Attempt| WebhookAttempt {
                    attempt: int(a.attempt),
                    started_at: iso(a.started_at),
                    duration_ms: int(a.duration_ms),
                    status_code: a.status_code.map(i32::from),
                    outcome: WireName(a.outcome),
                    detail: a.detail,
                })
                .collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListWebhookDeliveriesResponse {
    pub deliveries: Vec<WebhookDelivery>,
    /// The next page's cursor; empty on the last page.
    pub next_cursor: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct WebhookDeliveryResponse {
    pub delivery: WebhookDelivery,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct RedeliverWebhookDeliveriesResponse {
    pub redelivered_count: i32,
}
