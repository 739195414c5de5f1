//! The group's request bodies: their JSON Schemas (for the OpenAPI document) and their parsing
//! into SUPPLEMENT 1.4's violations (4.4's rules, through `sitrep-cm`).

use serde_json::{json, Value};
use sitrep_cm::{
    company_input::{fingerprint_of, CompanyInput, DOMAIN_PATTERN},
    ids::Kind,
    patch::{Patch, MAX_CLAIMS},
    records::{ClaimType, Lifecycle, WireEnum},
    store::ImportRow,
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
    let Some(object) = v.object("$request", Some(body)) else { return Err(refused(v)) };
    let client_request_id = v.text("clientRequestId", object.get("clientRequestId"), CLIENT_REQUEST_ID);
    let company = CompanyInput::parse("company", object.get("company"), &mut v);
    match (client_request_id, company) {
        (Some(id), Some(company)) if v.is_empty() => Ok((id, company)),
        _ => Err(refused(v)),
    }
}

const CLIENT_IMPORT_ID: TextRule = TextRule { max_bytes: 64, required: true };
pub const CONTRACT_VERSION: &str = "cm-import-v1";
const MAX_ROWS: usize = 100;
const MAX_ROW_BYTES: usize = 8_192;
const MAX_BATCH_BYTES: usize = 262_144;

/// ImportMonitoredCompanyBatch's body.
pub fn import() -> Value {
    json!({
        "type": "object",
        "required": ["contractVersion", "clientImportId", "rows"],
        "properties": {
            "contractVersion": {"type": "string", "enum": [CONTRACT_VERSION]},
            "clientImportId": {"type": "string", "description": "1–64 UTF-8 bytes once normalised; with each row's ordinal, replays the row"},
            "rows": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_ROWS,
                "description": "ordinals 0 … n−1, each normalised row at most 8,192 bytes",
                "items": {
                    "type": "object",
                    "required": ["ordinal", "company"],
                    "properties": {
                        "ordinal": {"type": "integer", "minimum": 0, "maximum": MAX_ROWS - 1},
                        "company": company_schema(),
                    },
                },
            },
        },
    })
}

/// An import, validated: its id and its rows with their fingerprints.
pub struct Import {
    pub client_import_id: String,
    pub rows: Vec<ImportRow>,
}

fn ordinal(field: &str, value: Option<&Value>, v: &mut Violations) -> Option<i64> {
    let n = match value {
        None | Some(Value::Null) => {
            v.push(field, "value is required");
            return None;
        }
        Some(Value::Number(n)) => n,
        Some(_) => {
            v.push(field, "value must be an integer");
            return None;
        }
    };
    let Some(n) = n.as_i64().filter(|_| n.is_i64() || n.is_u64()) else {
        v.push(field, "value must be an integer");
        return None;
    };
    if n < 0 {
        v.push(field, "number must be greater than or equal to 0");
    } else if n >= MAX_ROWS as i64 {
        v.push(field, format!("number must be less than or equal to {}", MAX_ROWS - 1));
    } else {
        return Some(n);
    }
    None
}

/// ImportMonitoredCompanyBatch's body (4.4): every violation, or the import. An invalid row fails
/// the whole request.
pub fn parse_import(body: &Value) -> Result<Import, ApiError> {
    let mut v = Violations::default();
    let Some(object) = v.object("$request", Some(body)) else { return Err(refused(v)) };
    match object.get("contractVersion") {
        Some(Value::String(s)) if s == CONTRACT_VERSION => {}
        Some(Value::String(_)) => v.push("contractVersion", format!("string must equal {CONTRACT_VERSION}")),
        None | Some(Value::Null) => v.push("contractVersion", "value is required"),
        Some(_) => v.push("contractVersion", "value must be a string"),
    }
    let client_import_id = v.text("clientImportId", object.get("clientImportId"), CLIENT_IMPORT_ID);
    let rows = match object.get("rows") {
        None | Some(Value::Null) => {
            v.push("rows", "value is required");
            &[][..]
        }
        Some(Value::Array(rows)) if rows.is_empty() => {
            v.push("rows", "array must contain at least 1 item(s)");
            &[][..]
        }
        Some(Value::Array(rows)) if rows.len() > MAX_ROWS => {
            v.push("rows", format!("array must contain at most {MAX_ROWS} item(s)"));
            &[][..]
        }
        Some(Value::Array(rows)) => rows.as_slice(),
        Some(_) => {
            v.push("rows", "value must be an array");
            &[][..]
        }
    };
    let mut parsed = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let path = format!("rows[{i}]");
        let Some(fields) = row.as_object() else {
            v.push(&path, "value must be an object");
            continue;
        };
        let before = v.0.len();
        let n = ordinal(&format!("{path}.ordinal"), fields.get("ordinal"), &mut v);
        let company = CompanyInput::parse(&format!("{path}.company"), fields.get("company"), &mut v);
        if let (Some(n), Some(company)) = (n, company) {
            let normalised = json!({"company": company.canonical(), "ordinal": n});
            if normalised.to_string().len() > MAX_ROW_BYTES {
                v.push(&path, format!("normalised row exceeds {MAX_ROW_BYTES} bytes"));
            } else if v.0.len() == before {
                parsed.push((n, company));
            }
        }
    }
    if v.is_empty() {
        let mut ordinals: Vec<i64> = parsed.iter().map(|(n, _)| *n).collect();
        ordinals.sort_unstable();
        if ordinals.iter().enumerate().any(|(i, n)| *n != i as i64) {
            v.push("rows", "batch ordinals must be contiguous from 0");
        }
    }
    let Some(client_import_id) = client_import_id.filter(|_| v.is_empty()) else { return Err(refused(v)) };
    let rows: Vec<ImportRow> = parsed
        .into_iter()
        .map(|(ordinal, input)| {
            let fingerprint = fingerprint_of(&json!({
                "clientImportId": client_import_id,
                "company": input.canonical(),
                "contractVersion": CONTRACT_VERSION,
                "ordinal": ordinal,
            }));
            ImportRow { ordinal, input, fingerprint }
        })
        .collect();
    let batch = json!({"clientImportId": client_import_id, "contractVersion": CONTRACT_VERSION,
        "rows": rows.iter().map(|r| json!({"company": r.input.canonical(), "ordinal": r.ordinal})).collect::<Vec<_>>()});
    if batch.to_string().len() > MAX_BATCH_BYTES {
        v.push("rows", format!("normalised import batch exceeds {MAX_BATCH_BYTES} bytes"));
        return Err(refused(v));
    }
    Ok(Import { client_import_id, rows })
}

/// UpdateMonitoredCompany's body.
pub fn update() -> Value {
    let claim_types: Vec<String> =
        ClaimType::VALUES.iter().filter(|t| **t != ClaimType::CustomerReference).map(|t| t.full_name()).collect();
    json!({
        "type": "object",
        "required": ["companyId", "patch"],
        "properties": {
            "companyId": {"type": "string", "pattern": Kind::Company.pattern()},
            "patch": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "1–256 UTF-8 bytes once normalised; also added as an alias"},
                    "customerReference": {"type": "string", "description": "at most 128 UTF-8 bytes; \"\" removes it"},
                    "domicileCountry": {"type": "string", "description": "DOMICILE_COUNTRY_US or DOMICILE_COUNTRY_GB (or US, GB)"},
                    "addClaims": {"type": "array", "maxItems": MAX_CLAIMS, "items": {
                        "type": "object",
                        "required": ["type", "value"],
                        "properties": {"type": {"type": "string", "enum": claim_types}, "value": {"type": "string", "description": "1–512 UTF-8 bytes"}},
                    }},
                    "removeClaimIds": {"type": "array", "maxItems": MAX_CLAIMS, "items": {"type": "string", "pattern": Kind::Claim.pattern()}},
                },
            },
        },
    })
}

/// UpdateMonitoredCompany's companyId and patch, or every violation.
pub fn parse_update(body: &Value) -> Result<(String, Patch), ApiError> {
    let mut v = Violations::default();
    let Some(object) = v.object("$request", Some(body)) else { return Err(refused(v)) };
    let company_id = identifier("companyId", object.get("companyId"), Kind::Company, &mut v);
    let patch = Patch::parse("patch", object.get("patch"), &mut v);
    match (company_id, patch) {
        (Some(id), Some(patch)) => Ok((id, patch)),
        _ => Err(refused(v)),
    }
}

/// SetMonitoredCompanyState's body.
pub fn set_state() -> Value {
    json!({
        "type": "object",
        "required": ["companyId", "targetLifecycle"],
        "properties": {
            "companyId": {"type": "string", "pattern": Kind::Company.pattern()},
            "targetLifecycle": {"type": "string", "enum": Lifecycle::VALUES.iter().map(|l| l.full_name()).collect::<Vec<_>>()},
        },
    })
}

/// A required identifier of `kind` at `field`.
fn identifier(field: &str, value: Option<&Value>, kind: Kind, v: &mut Violations) -> Option<String> {
    match value {
        None | Some(Value::Null) => v.push(field, "value is required"),
        Some(Value::String(s)) if s.is_empty() => v.push(field, "value is required"),
        Some(Value::String(s)) if kind.matches(s) => return Some(s.clone()),
        Some(Value::String(_)) => v.push(field, format!("string must match pattern {}", kind.pattern())),
        Some(_) => v.push(field, "value must be a string"),
    }
    None
}

/// SetMonitoredCompanyState's companyId and targetLifecycle, or every violation.
pub fn parse_set_state(body: &Value) -> Result<(String, Lifecycle), ApiError> {
    let mut v = Violations::default();
    let Some(object) = v.object("$request", Some(body)) else { return Err(refused(v)) };
    let company_id = identifier("companyId", object.get("companyId"), Kind::Company, &mut v);
    let target = v.request_enum::<Lifecycle>("targetLifecycle", object.get("targetLifecycle"));
    match (company_id, target) {
        (Some(id), Some(target)) => Ok((id, target)),
        _ => Err(refused(v)),
    }
}
