//! The OpenAPI document is generated from the code; pin it and one response body with insta.

use sitrep_tests::TestApp;

#[tokio::test]
async fn openapi_document_and_a_response_are_pinned() {
    let app = TestApp::start().await;
    let doc: serde_json::Value =
        app.http.get(format!("{}/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let paths: Vec<&String> = doc["paths"].as_object().unwrap().keys().collect();
    assert_eq!(paths.len(), app.registry.operations().count());
    let mut doc = doc;
    doc["servers"] = serde_json::json!([]); // the port differs per run
    insta::assert_json_snapshot!("openapi", doc);
    let yaml = app.http.get(format!("{}/openapi.yaml", app.base)).send().await.unwrap();
    assert_eq!(yaml.status(), 200);
    let (_, body) = app.json("/api/conflict/v1/list-armed-events?country=YE&page_size=2").await;
    let mut body = body;
    body["pagination"]["nextCursor"] = serde_json::json!("<cursor>");
    insta::assert_json_snapshot!("list_armed_events_ye_2", body);
    let (_, hum) = app.json("/api/conflict/v1/get-humanitarian-summary?country_code=YE").await;
    insta::assert_json_snapshot!("humanitarian_ye", hum);
    let docs = app.http.get(format!("{}/docs", app.base)).send().await.unwrap();
    assert_eq!(docs.status(), 200);
    // The Swagger UI page shows our document (generated from the registry), not an empty one.
    let page = docs.text().await.unwrap();
    assert!(page.contains("SwaggerUIBundle") && page.contains("\"operationId\": \"ListArmedEvents\""));
    let slash = app.http.get(format!("{}/docs/", app.base)).send().await.unwrap();
    assert_eq!(slash.status(), 200, "/docs/ is the same page");
    assert_eq!(slash.text().await.unwrap(), page);
}

/// Issue 60: a field whose description names a closed set's type (`MaterialImpactDirection.`,
/// `CompanyClaimAllowedUse values …`) or lists its values in prose (`"good", "moderate" or
/// "hazardous"`, `alert, ongoing or past`) is declared an enum — in place, or by a reference to a
/// named enum — so a generated client types it, and a schemathesis run checks every answer's value
/// against it. The named enums' values come from the Rust enums that write them (`WireName`).
#[tokio::test]
async fn every_closed_set_a_field_names_is_a_declared_enum() {
    let app = TestApp::start().await;
    let doc: serde_json::Value =
        app.http.get(format!("{}/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    // A description that opens with a type's name: a CamelCase word of two parts or more, then
    // `.`, ` values` or ` (`.
    let names_a_type = |d: &str| {
        let word: String = d.chars().take_while(char::is_ascii_alphanumeric).collect();
        let rest = &d[word.len()..];
        word.starts_with(|c: char| c.is_ascii_uppercase())
            && word.chars().filter(char::is_ascii_uppercase).count() >= 2
            && word.chars().any(|c| c.is_ascii_lowercase())
            && (rest.starts_with('.') || rest.starts_with(" values") || rest.starts_with(" ("))
    };
    // A description whose first clause lists values: `a, b or c` (each a word, `quoted` or
    // "quoted"); a parenthesis, `.` or `;` ends the clause.
    let lists_values = |d: &str| {
        let end = [". ", ".\n", ";", " ("].iter().filter_map(|e| d.find(e)).min().unwrap_or(d.len());
        let clause = d[..end].trim_end_matches('.');
        let is_value = |v: &str| {
            let bare = v.trim_matches(|c| c == '"' || c == '`');
            let quoted = bare.len() + 2 == v.len() && v.starts_with(['"', '`']);
            (quoted || !bare.is_empty()) && bare.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        let joined = clause.replace(", or ", ", ").replace(" or ", ", ");
        let items: Vec<&str> = joined.split(", ").collect();
        clause.contains(" or ") && items.len() >= 2 && items.iter().all(|v| is_value(v))
    };
    // A property's own schema, or the one it refers to (`$ref`).
    let resolved = |p: &serde_json::Value| -> serde_json::Value {
        let reference = p["$ref"].as_str();
        match reference.and_then(|r| r.strip_prefix("#/components/schemas/")) {
            Some(name) => schemas[name].clone(),
            None => p.clone(),
        }
    };
    let (mut undeclared, mut declared) = (Vec::new(), 0);
    for (name, schema) in schemas {
        for (field, p) in schema["properties"].as_object().into_iter().flatten() {
            let description = p["description"].as_str().unwrap_or_default();
            let value = match p["type"].as_str() {
                Some("array") => resolved(&p["items"]),
                _ => resolved(p),
            };
            if value["enum"].is_array() {
                declared += 1;
                let values = value["enum"].as_array().unwrap();
                assert!(!values.is_empty() && values.iter().all(|v| v.is_string()), "{name}.{field}: {value}");
            } else if names_a_type(description) || lists_values(description) {
                undeclared.push(format!("{name}.{field} ({description})"));
            }
        }
    }
    for (path, item) in doc["paths"].as_object().unwrap() {
        for p in item.as_object().unwrap().values().flat_map(|op| op["parameters"].as_array().into_iter().flatten()) {
            let description = p["description"].as_str().unwrap_or_default();
            let value = match p["schema"]["type"].as_str() {
                Some("array") => resolved(&p["schema"]["items"]),
                _ => resolved(&p["schema"]),
            };
            if value["enum"].is_null() && (names_a_type(description) || lists_values(description)) {
                undeclared.push(format!("{path} {} ({description})", p["name"]));
            }
        }
    }
    assert!(undeclared.is_empty(), "fields naming a closed set without declaring it: {undeclared:#?}");
    assert!(declared >= 65, "{declared} enum fields: the walk sees fewer than were declared");
    for (named, values) in [
        (
            "MaterialImpactDirection",
            &[
                "MATERIAL_IMPACT_DIRECTION_POSITIVE",
                "MATERIAL_IMPACT_DIRECTION_NEGATIVE",
                "MATERIAL_IMPACT_DIRECTION_MIXED",
            ][..],
        ),
        (
            "FlightInstanceStatus",
            &[
                "FLIGHT_INSTANCE_STATUS_SCHEDULED",
                "FLIGHT_INSTANCE_STATUS_AIRBORNE",
                "FLIGHT_INSTANCE_STATUS_LANDED",
                "FLIGHT_INSTANCE_STATUS_CANCELLED",
                "FLIGHT_INSTANCE_STATUS_DIVERTED",
                "FLIGHT_INSTANCE_STATUS_UNKNOWN",
            ],
        ),
        ("DomicileCountry", &["DOMICILE_COUNTRY_US", "DOMICILE_COUNTRY_GB"]),
        ("ClimateDisasterSeverity", &["red", "orange", "green", "high", "medium"]),
        ("CompanyClaimProvenance", &["customer", "independent_provider"]),
        ("DataMode", &["live", "replay"]),
        ("GasDataSource", &["gie_daily", "jodi_monthly", ""]),
        (
            "BatchCallError",
            &["", "invalid_path", "nested_batch", "timeout", "fetch_failed", "response_too_large", "invalid_json"],
        ),
    ] {
        assert_eq!(schemas[named]["enum"], serde_json::json!(values), "{named}");
    }
}
