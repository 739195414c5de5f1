//! The OpenAPI document: poem-openapi contributes the paths and the response schemas of the
//! handlers; the operation registry contributes, for every operation, its query parameters, its
//! request body schema, its security requirements (API.md 5.2, SUPPLEMENT 1.10) and its documented
//! error responses (API.md 7, SUPPLEMENT 1.5). One document, generated from the declarations.

use serde_json::{json, Map, Value};

use super::params::JMESPATH;
use crate::registry::{Access, Method, Operation, OPERATIONS};

fn security_schemes() -> Value {
    json!({
        "WorldMonitorKey": {"type": "apiKey", "in": "header", "name": "X-Service-Key",
            "description": "API key (ServiceKey)."},
        "ApiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-Api-Key",
            "description": "API key, alias header."},
        "BearerAuth": {"type": "http", "scheme": "bearer",
            "description": "OAuth 2.1 access token (an API key sent as a bearer value is accepted too)."},
    })
}

/// Any of the error bodies of SUPPLEMENT 1.5 (`error`, `message`, `code` and their details).
fn error_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "error": {"type": "string"},
            "message": {"type": "string"},
            "code": {"type": "string"},
            "requiredTier": {"type": "integer"},
            "currentTier": {"type": "integer"},
            "planKey": {"type": "string"},
        },
    })
}

/// SUPPLEMENT 1.4's ValidationError.
fn validation_error_schema() -> Value {
    json!({
        "type": "object",
        "required": ["violations"],
        "properties": {
            "violations": {"type": "array", "items": {
                "type": "object",
                "required": ["field", "description"],
                "properties": {"field": {"type": "string"}, "description": {"type": "string"}},
            }},
        },
    })
}

fn jmespath_error_schema() -> Value {
    json!({
        "type": "object",
        "required": ["_jmespath_error", "original_keys"],
        "properties": {
            "_jmespath_error": {"type": "string"},
            "original_keys": {"type": "array", "items": {"type": "string"}},
        },
    })
}

fn security(op: &Operation) -> Value {
    match op.access {
        Access::Public => json!([]),
        Access::Pro => json!([{"WorldMonitorKey": []}, {"ApiKeyHeader": []}, {"BearerAuth": []}]),
        _ => json!([{"WorldMonitorKey": []}, {"ApiKeyHeader": []}]),
    }
}

fn error_response(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": {"application/json; charset=utf-8": {"schema": schema}}})
}

fn error_ref() -> Value {
    json!({"$ref": "#/components/schemas/Error"})
}

/// The documented responses besides 200 and 304.
fn error_responses(op: &Operation) -> Vec<(&'static str, Value)> {
    let mut out = vec![(
        "400",
        error_response(
            "ValidationError, a jmespath error, or a malformed request body",
            json!({"anyOf": [
                {"$ref": "#/components/schemas/ValidationError"},
                {"$ref": "#/components/schemas/JmespathError"},
                error_ref(),
            ]}),
        ),
    )];
    if op.access.needs_credential() {
        out.push(("401", error_response("Missing, expired or invalid credential", error_ref())));
    }
    let mut forbidden = error_response(
        "Forbidden (suspended account, plan, scope; or the edge User-Agent filter's HTML page when enabled)",
        error_ref(),
    );
    forbidden["content"]["text/html; charset=utf-8"] = json!({"schema": {"type": "string"}});
    out.push(("403", forbidden));
    if op.idempotent {
        out.push(("409", error_response("Idempotency-Key still in flight", error_ref())));
        out.push(("422", error_response("Idempotency-Key reused with another body", error_ref())));
    }
    if op.method == Method::Post {
        out.push(("413", error_response("Request body over 262,144 bytes", error_ref())));
    }
    out.push(("429", error_response("Rate limited", error_ref())));
    out.push(("503", error_response("Rate-limit or entitlement store unavailable", error_ref())));
    out.push(("default", error_response("Any other error (404, 405, 500)", error_ref())));
    out
}

fn parameters(op: &Operation) -> Vec<Value> {
    let mut params: Vec<Value> = op.params.iter().map(|p| p.openapi()).collect();
    if op.method == Method::Get {
        params.push(JMESPATH.openapi());
    }
    if op.idempotent {
        params.push(json!({
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": "Optional idempotency key (1–255 printable ASCII characters).",
            "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x21-\\x7E]{1,255}$"},
        }));
    }
    params
}

/// Completes poem-openapi's document with what the registry declares.
pub fn complete(spec_json: &str) -> Value {
    let mut doc: Value = serde_json::from_str(spec_json).unwrap_or_else(|_| json!({}));
    let components = doc.as_object_mut().map(|d| d.entry("components").or_insert_with(|| json!({})));
    if let Some(Value::Object(components)) = components {
        components.insert("securitySchemes".into(), security_schemes());
        let schemas = components.entry("schemas").or_insert_with(|| json!({}));
        if let Value::Object(schemas) = schemas {
            schemas.insert("Error".into(), error_schema());
            schemas.insert("JmespathError".into(), jmespath_error_schema());
            schemas.insert("ValidationError".into(), validation_error_schema());
        }
    }
    for op in OPERATIONS {
        let method = op.method.as_str().to_ascii_lowercase();
        let Some(Value::Object(entry)) = doc.pointer_mut(&format!("/paths/{}/{method}", escape(op.path))) else {
            continue; // the registry-versus-document test names what is missing
        };
        entry.insert("parameters".into(), Value::Array(parameters(op)));
        entry.insert("security".into(), security(op));
        if let Some(body) = op.body {
            entry.insert(
                "requestBody".into(),
                json!({"required": true, "content": {"application/json": {"schema": body()}}}),
            );
        }
        let responses = entry.entry("responses").or_insert_with(|| json!({}));
        if let Value::Object(responses) = responses {
            if op.method == crate::registry::Method::Get {
                document_projection(responses);
            }
            for (status, response) in error_responses(op) {
                responses.insert(status.into(), response);
            }
        }
    }
    doc
}

/// With `jmespath` the 200 body may be any JSON value (API.md 1 rule 4): say so beside the shape.
fn document_projection(responses: &mut Map<String, Value>) {
    let Some(Value::Object(content)) = responses.get_mut("200").and_then(|r| r.get_mut("content")) else { return };
    for media in content.values_mut() {
        if let Some(schema) = media.get_mut("schema") {
            let shape = schema.take();
            *schema = json!({"anyOf": [shape, {"description": "a jmespath projection: any JSON value"}]});
        }
    }
}

/// JSON Pointer escaping of a path used as a key.
fn escape(path: &str) -> String {
    path.replace('~', "~0").replace('/', "~1")
}
