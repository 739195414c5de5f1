//! The OpenAPI document, generated from the operation registry: for every operation its path,
//! tag, summary, query parameters, request body schema, security requirements (API.md 5.2,
//! SUPPLEMENT 1.10), its 200 body's schema (poem-openapi's types register themselves) and its
//! documented error responses (API.md 7, SUPPLEMENT 1.5).

use serde_json::{json, Map, Value};

use poem_openapi::registry::Registry as SchemaRegistry;

use crate::registry::{Access, Group, Method, Operation, Registry};

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
    let forbidden = if op.guard.is_some() {
        "Forbidden (suspended account, plan, scope, the group's access state or writes turned off (`code`); or the edge User-Agent filter's HTML page when enabled)"
    } else {
        "Forbidden (suspended account, plan, scope; or the edge User-Agent filter's HTML page when enabled)"
    };
    let mut forbidden = error_response(forbidden, error_ref());
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
    let unavailable = if op.guard.is_some() {
        "Rate-limit or entitlement store unavailable, or the operation's group not enabled on this deployment (`code`)"
    } else {
        "Rate-limit or entitlement store unavailable"
    };
    out.push(("503", error_response(unavailable, error_ref())));
    out.push(("default", error_response("Any other error (404, 405, 500)", error_ref())));
    out
}

fn parameters(op: &Operation) -> Vec<Value> {
    let mut params: Vec<Value> = op.params.iter().chain(op.pipeline_params()).map(|p| p.openapi()).collect();
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

/// The API's description in the document's `info`.
const TITLE: &str = "sitrep Data Intelligence API";
const DESCRIPTION: &str = "Situational data about aviation, climate, armed conflict, consumer prices and energy supply shocks, answered from versioned lake snapshots.";

fn media(schema: Value) -> Value {
    json!({"application/json; charset=utf-8": {"schema": schema}})
}

/// The 200 (its body's schema; with jmespath any JSON value) and the 304.
fn success_responses(op: &Operation, body: Value) -> Map<String, Value> {
    let body = if op.method == Method::Get {
        // With `jmespath` the 200 body may be any JSON value (API.md 1 rule 4): say so beside the shape.
        json!({"anyOf": [body, {"description": "a jmespath projection: any JSON value"}]})
    } else {
        body
    };
    let mut responses = Map::new();
    let mut ok =
        json!({"description": "OK (may be a jmespath projection when `jmespath` is given)", "content": media(body)});
    if !op.links.is_empty() {
        let links: Map<String, Value> = op
            .links
            .iter()
            .map(|l| {
                let link = json!({"operationId": l.operation_id, "parameters": {l.parameter: format!("$response.body#{}", l.pointer)}});
                (format!("{}By{}", l.operation_id, l.parameter), link)
            })
            .collect();
        ok["links"] = Value::Object(links);
    }
    responses.insert("200".into(), ok);
    responses.insert("304".into(), json!({"description": "Not modified (If-None-Match matched the ETag)"}));
    responses
}

/// One operation's entry under its path.
fn operation(group: &Group, op: &Operation, schemas: &mut SchemaRegistry) -> Value {
    let mut entry = Map::new();
    entry.insert("operationId".into(), json!(op.id));
    entry.insert("tags".into(), json!([group.tag]));
    entry.insert("summary".into(), json!(format!("{} — {}", op.id, op.summary)));
    entry.insert("parameters".into(), Value::Array(parameters(op)));
    if let Some(body) = op.body {
        entry.insert(
            "requestBody".into(),
            json!({"required": true, "content": {"application/json": {"schema": body()}}}),
        );
    }
    let mut responses = Map::new();
    if let Some(schema) = op.answer.schema {
        (schema.register)(schemas);
        let reference = serde_json::to_value((schema.reference)()).unwrap_or_default();
        responses = success_responses(op, reference);
    }
    for (status, response) in error_responses(op) {
        responses.insert(status.into(), response);
    }
    entry.insert("responses".into(), Value::Object(responses));
    entry.insert("security".into(), security(op));
    Value::Object(entry)
}

/// The whole OpenAPI document of the registry's operations: one path per operation, the schemas
/// of their bodies (registered by poem-openapi's types), the error bodies and security schemes.
pub fn document(registry: &Registry, server_url: &str) -> Value {
    let mut schemas = SchemaRegistry::new();
    let mut paths = Map::new();
    for group in registry.groups() {
        for op in group.operations {
            let method = op.method.as_str().to_ascii_lowercase();
            let entry = paths.entry(op.path).or_insert_with(|| json!({}));
            entry[method] = operation(group, op, &mut schemas);
        }
    }
    let mut tags: Vec<Value> =
        registry.groups().iter().map(|g| json!({"name": g.tag, "description": g.description})).collect();
    tags.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let mut components = serde_json::to_value(&schemas.schemas).unwrap_or_else(|_| json!({}));
    described_references(&mut components);
    if let Value::Object(components) = &mut components {
        components.insert("Error".into(), error_schema());
        components.insert("JmespathError".into(), jmespath_error_schema());
        components.insert("ValidationError".into(), validation_error_schema());
    }
    json!({
        "openapi": "3.0.0",
        "info": {"title": TITLE, "description": DESCRIPTION, "version": "1.0.0"},
        "servers": [{"url": server_url}],
        "tags": tags,
        "paths": paths,
        "components": {"schemas": components, "securitySchemes": security_schemes()},
    })
}

/// poem-openapi gives a documented field of a named type `allOf: [{$ref}, {description}]` (a 3.0
/// `$ref` ignores its siblings); generators that build classes (openapi-python-client) cannot
/// take `allOf` of an enum and drop the field's whole schema. A `$ref` with the description beside
/// it means the same to a validator (the sibling is ignored) and keeps the words for a reader.
fn described_references(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let reference = match map.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
                Some([target, words])
                    if target.as_object().is_some_and(|t| t.len() == 1 && t.contains_key("$ref"))
                        && words.as_object().is_some_and(|w| w.keys().all(|k| k == "description")) =>
                {
                    target.get("$ref").cloned()
                }
                _ => None,
            };
            if let Some(reference) = reference {
                map.remove("allOf");
                map.insert("$ref".into(), reference);
            }
            map.values_mut().for_each(described_references);
        }
        Value::Array(items) => items.iter_mut().for_each(described_references),
        _ => {}
    }
}

/// The Swagger UI page over `document`: poem-openapi's page, with our document in place of the
/// one it would generate from route tables (we have none; the registry is the declaration).
pub fn swagger_ui(document: &str) -> String {
    let service = poem_openapi::OpenApiService::new((), TITLE, "1.0.0");
    let (page, placeholder) = (service.swagger_ui_html(), service.spec());
    // The page embeds its document after the UI's script, so the last occurrence is the document.
    match page.rfind(&placeholder) {
        Some(at) => format!("{}{document}{}", &page[..at], &page[at + placeholder.len()..]),
        None => page,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_documented_reference_is_a_ref_with_its_description() {
        let mut schema = json!({"properties": {
            "direction": {"description": "MaterialImpactDirection.", "allOf": [
                {"$ref": "#/components/schemas/MaterialImpactDirection"}, {"description": "MaterialImpactDirection."}]},
            "both": {"allOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]},
        }});
        described_references(&mut schema);
        assert_eq!(
            schema["properties"]["direction"],
            json!({"$ref": "#/components/schemas/MaterialImpactDirection", "description": "MaterialImpactDirection."})
        );
        assert_eq!(schema["properties"]["both"]["allOf"].as_array().map(Vec::len), Some(2), "a real allOf stays");
    }
}
