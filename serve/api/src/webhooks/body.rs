//! The group's request bodies: their JSON Schemas (for the OpenAPI document) and their parsing
//! into SUPPLEMENT 1.4's violations.

use serde_json::{json, Map, Value};
use sitrep_cm::violations::{TextRule, Violations};
use sitrep_platform::kit::error::{ApiError, Violation};
use sitrep_schemas::DatasetId;
use sitrep_webhooks::{
    ids::Kind,
    store::{EndpointChange, EndpointInput, Redelivery},
    EventType,
};

use super::endpoint_url;

const ID: TextRule = TextRule { max_bytes: 64, required: true };
const DESCRIPTION: TextRule = TextRule { max_bytes: 256, required: false };
const URL: TextRule = TextRule { max_bytes: endpoint_url::MAX_BYTES, required: true };
const MAX_DATASETS: usize = 64;

fn event_types_schema() -> Value {
    let values: Vec<&str> = EventType::SUBSCRIBABLE.iter().map(|t| t.as_str()).collect();
    json!({"type": "array", "minItems": 1, "maxItems": values.len(), "items": {"type": "string", "enum": values}})
}

fn datasets_schema() -> Value {
    let ids: Vec<String> = DatasetId::ALL.iter().map(|d| d.to_string()).collect();
    json!({
        "type": "array", "maxItems": MAX_DATASETS, "items": {"type": "string", "enum": ids},
        "description": "the datasets whose new versions it receives (dataset.version.published); empty or absent: every dataset the plan may read"
    })
}

fn url_schema() -> Value {
    json!({"type": "string", "maxLength": endpoint_url::MAX_BYTES, "description": "an https URL whose host resolves to a public address (checked again at each delivery; redirects are not followed)"})
}

fn endpoint_id_schema() -> Value {
    json!({"type": "string", "pattern": Kind::Endpoint.pattern(), "description": "an endpointId"})
}

/// An identifier of `kind` at `field`, or a violation.
fn checked_id(v: &mut Violations, field: &str, value: Option<&Value>, kind: Kind) -> Option<String> {
    let text = v.text(field, value, ID)?;
    if kind.matches(&text) {
        Some(text)
    } else {
        v.push(field, format!("string must match pattern {}", kind.pattern()));
        None
    }
}

/// CreateWebhookEndpoint's body.
pub fn create() -> Value {
    json!({
        "type": "object",
        "required": ["url", "eventTypes"],
        "properties": {
            "url": url_schema(),
            "description": {"type": "string", "description": "at most 256 UTF-8 bytes once normalised"},
            "eventTypes": event_types_schema(),
            "datasets": datasets_schema(),
        },
    })
}

/// UpdateWebhookEndpoint's body: each field present is replaced.
pub fn update() -> Value {
    json!({
        "type": "object",
        "required": ["endpointId"],
        "properties": {
            "endpointId": endpoint_id_schema(),
            "url": url_schema(),
            "description": {"type": "string", "description": "at most 256 UTF-8 bytes once normalised"},
            "eventTypes": event_types_schema(),
            "datasets": datasets_schema(),
            "enabled": {"type": "boolean", "description": "false stops deliveries (they wait); true resumes them and clears a failure record"},
        },
    })
}

/// The body of the operations that name one endpoint.
pub fn endpoint_only() -> Value {
    json!({"type": "object", "required": ["endpointId"], "properties": {"endpointId": endpoint_id_schema()}})
}

/// RedeliverWebhookDeliveries's body.
pub fn redeliver() -> Value {
    json!({
        "type": "object",
        "required": ["endpointId"],
        "properties": {
            "endpointId": endpoint_id_schema(),
            "deliveryId": {"type": "string", "pattern": Kind::Delivery.pattern(), "description": "one delivery (its webhook-id), whatever its state"},
            "failedSince": {"type": "string", "format": "date-time", "description": "every failed delivery created at or after this instant (RFC 3339)"},
        },
        "description": "exactly one of deliveryId and failedSince",
    })
}

fn refused(v: Violations) -> ApiError {
    ApiError::Validation(v.0.into_iter().map(|x| Violation { field: x.field, description: x.description }).collect())
}

fn event_types(v: &mut Violations, value: Option<&Value>) -> Option<Vec<EventType>> {
    let Some(Value::Array(items)) = value else {
        v.push(
            "eventTypes",
            if value.is_none_or(Value::is_null) { "value is required" } else { "value must be an array" },
        );
        return None;
    };
    if items.is_empty() || items.len() > EventType::SUBSCRIBABLE.len() {
        v.push("eventTypes", format!("array must contain 1 to {} item(s)", EventType::SUBSCRIBABLE.len()));
        return None;
    }
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str().and_then(EventType::parse).filter(|t| EventType::SUBSCRIBABLE.contains(t)) {
            Some(t) if !out.contains(&t) => out.push(t),
            Some(_) => {}
            None => v.push(format!("eventTypes[{i}]"), "enum value must be defined"),
        }
    }
    Some(out)
}

fn datasets(v: &mut Violations, value: Option<&Value>) -> Vec<String> {
    v.text_list("datasets", value, MAX_DATASETS, TextRule { max_bytes: 64, required: true }, |s| {
        s.parse::<DatasetId>().map(|_| s.clone()).map_err(|_| "enum value must be defined".to_string())
    })
}

fn url(v: &mut Violations, value: Option<&Value>, allow_loopback: bool) -> Option<String> {
    let raw = v.text("url", value, URL)?;
    match endpoint_url::check(&raw, allow_loopback) {
        Ok(url) => Some(url),
        Err(why) => {
            v.push("url", why);
            None
        }
    }
}

fn object<'a>(v: &mut Violations, body: &'a Value) -> Result<&'a Map<String, Value>, ApiError> {
    match v.object("$request", Some(body)) {
        Some(o) => Ok(o),
        None => Err(refused(std::mem::take(v))),
    }
}

pub fn parse_create(body: &Value, allow_loopback: bool) -> Result<EndpointInput, ApiError> {
    let mut v = Violations::default();
    let o = object(&mut v, body)?;
    let url = url(&mut v, o.get("url"), allow_loopback);
    let description = v.text("description", o.get("description"), DESCRIPTION);
    let event_types = event_types(&mut v, o.get("eventTypes"));
    let datasets = datasets(&mut v, o.get("datasets"));
    match (url, description, event_types) {
        (Some(url), Some(description), Some(event_types)) if v.is_empty() => {
            Ok(EndpointInput { url, description, event_types, datasets })
        }
        _ => Err(refused(v)),
    }
}

pub fn parse_update(body: &Value, allow_loopback: bool) -> Result<(String, EndpointChange), ApiError> {
    let mut v = Violations::default();
    let o = object(&mut v, body)?;
    let id = checked_id(&mut v, "endpointId", o.get("endpointId"), Kind::Endpoint);
    let present = |k: &str| o.get(k).filter(|x| !x.is_null());
    let change = EndpointChange {
        url: present("url").and_then(|x| url(&mut v, Some(x), allow_loopback)),
        description: present("description").and_then(|x| v.text("description", Some(x), DESCRIPTION)),
        event_types: present("eventTypes").and_then(|x| event_types(&mut v, Some(x))),
        datasets: present("datasets").map(|x| datasets(&mut v, Some(x))),
        enabled: match present("enabled") {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                v.push("enabled", "value must be a boolean");
                None
            }
        },
    };
    match id {
        Some(id) if v.is_empty() => Ok((id, change)),
        _ => Err(refused(v)),
    }
}

pub fn parse_endpoint_id(body: &Value) -> Result<String, ApiError> {
    let mut v = Violations::default();
    let o = object(&mut v, body)?;
    match checked_id(&mut v, "endpointId", o.get("endpointId"), Kind::Endpoint) {
        Some(id) if v.is_empty() => Ok(id),
        _ => Err(refused(v)),
    }
}

pub fn parse_redeliver(body: &Value) -> Result<(String, Redelivery), ApiError> {
    let mut v = Violations::default();
    let o = object(&mut v, body)?;
    let id = checked_id(&mut v, "endpointId", o.get("endpointId"), Kind::Endpoint);
    let present = |k: &str| o.get(k).filter(|x| !x.is_null());
    let which = match (present("deliveryId"), present("failedSince")) {
        (Some(d), None) => checked_id(&mut v, "deliveryId", Some(d), Kind::Delivery).map(Redelivery::One),
        (None, Some(Value::String(since))) => match chrono::DateTime::parse_from_rfc3339(since) {
            Ok(t) => Some(Redelivery::FailedSince(t.timestamp_millis())),
            Err(_) => {
                v.push("failedSince", "value must be an RFC 3339 date-time");
                None
            }
        },
        (None, Some(_)) => {
            v.push("failedSince", "value must be a string");
            None
        }
        _ => {
            v.push("$request", "exactly one of deliveryId and failedSince is required");
            None
        }
    };
    match (id, which) {
        (Some(id), Some(which)) if v.is_empty() => Ok((id, which)),
        _ => Err(refused(v)),
    }
}
