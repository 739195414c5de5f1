//! An event's body as sent (Standard Webhooks' recommended shape: `type`, `timestamp`, `data`),
//! rendered from the outbox's data at each attempt: the same bytes every time, since the data
//! and the event's time do not change.

use serde_json::{json, Value};
use sitrep_webhooks::{store::OutboxEvent, EventType};

use crate::company_monitoring::records::{impact, iso};

/// The body of `event`; `site` is the public origin links are made from.
pub fn body(event: &OutboxEvent, site: &str) -> Result<Vec<u8>, String> {
    let data = match event.event_type {
        EventType::CompanyImpactChanged => {
            let stored: sitrep_cm::impacts::Impact =
                serde_json::from_value(event.data.clone()).map_err(|e| format!("outbox impact: {e}"))?;
            let link =
                format!("{site}/api/company-monitoring/v1/get-company-material-event?impact_id={}", stored.impact_id);
            json!({ "impact": impact(stored), "materialEventUrl": link })
        }
        EventType::DatasetVersionPublished | EventType::Test => event.data.clone(),
    };
    let body: Value = json!({ "type": event.event_type.as_str(), "timestamp": iso(event.created_at), "data": data });
    serde_json::to_vec(&body).map_err(|e| e.to_string())
}
