//! The group's request bodies: their JSON Schemas (for the OpenAPI document) and their parsing
//! into SUPPLEMENT 1.4's violations (4.4's rules, through `sitrep-cm`).

use serde_json::{json, Value};
use sitrep_cm::{
    company_input::{CompanyInput, DOMAIN_PATTERN},
    violations::{TextRule, Violations},
};
use sitrep_platform::kit::error::{ApiError, Violation};

const CLIENT_REQUEST_ID: TextRule = TextRule { max_bytes: 64, required: true };

fn company_schema() -> Value {
    let text =
        |max: u32| json!({"type": "string", "description": format!("at most {max} UTF-8 bytes once normalised")});
    let list = |max_items: u32, item: Value| json!({"type": "array", "maxItems": max_items, "items": item});
    json!({
        "type": "object",
        "required": ["name", "domicileCountry"],
        "properties": {
            "name": text(256),
            "domicileCountry": {"type": "string", "description": "DOMICILE_COUNTRY_US or DOMICILE_COUNTRY_GB (or US, GB)"},
            "aliases": list(20, text(256)),
            "domains": list(10, json!({"type": "string", "description": format!("a domain name, not a URL: {DOMAIN_PATTERN} once normalised")})),
            "identifiers": list(20, text(512)),
            "locations": list(20, text(256)),
            "customerReference": text(128),
        },
    })
}

/// CreateMonitoredCompany's body.
pub fn create() -> Value {
    json!({
        "type": "object",
        "required": ["clientRequestId", "company"],
        "properties": {
            "clientRequestId": {"type": "string", "description": "1–64 UTF-8 bytes once normalised; replays the create"},
            "company": company_schema(),
        },
    })
}

/// 4.4's violations as the edge's.
fn refused(v: Violations) -> ApiError {
    ApiError::Validation(v.0.into_iter().map(|x| Violation { field: x.field, description: x.description }).collect())
}

/// CreateMonitoredCompany's clientRequestId and company, or every violation.
pub fn parse_create(body: &Value) -> Result<(String, CompanyInput), ApiError> {
    let mut v = Violations::default();
    let Some(object) = body.as_object() else {
        v.push("$request", "value must be an object");
        return Err(refused(v));
    };
    let client_request_id = v.text("clientRequestId", object.get("clientRequestId"), CLIENT_REQUEST_ID);
    let company = CompanyInput::parse("company", object.get("company"), &mut v);
    match (client_request_id, company) {
        (Some(id), Some(company)) if v.is_empty() => Ok((id, company)),
        _ => Err(refused(v)),
    }
}
