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
