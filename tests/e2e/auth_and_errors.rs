//! Authentication, the 401 challenge, and clean JSON for routing errors.

use serde_json::json;
use sitrep_tests::TestApp;

#[tokio::test]
async fn missing_and_invalid_credentials() {
    // Suspension and revocation below must show on the very next request: no key cache.
    let app = TestApp::start_with_key_ttl(std::time::Duration::ZERO).await;
    let url = format!("{}/api/conflict/v1/list-armed-events", app.base);
    let r = app.http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"].to_str().unwrap().to_string();
    assert_eq!(
        challenge,
        format!(
            "Bearer realm=\"data-intelligence\", resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
            app.base
        )
    );
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(r.json::<serde_json::Value>().await.unwrap(), json!({"error": "API key or bearer token required"}));

    let bad = format!("di_{}", "0".repeat(40));
    for (h, v) in [
        ("x-service-key", bad.as_str()),
        ("x-api-key", "nonsense"),
        ("authorization", "Bearer di_0000000000000000000000000000000000000000"),
    ] {
        let r = app.http.get(&url).header(h, v).send().await.unwrap();
        assert_eq!(r.status(), 401, "{h}");
        assert!(r.headers()["www-authenticate"].to_str().unwrap().ends_with(", error=\"invalid_token\""));
        assert_eq!(r.json::<serde_json::Value>().await.unwrap(), json!({"error": "Invalid API key"}));
    }
    // The aliases and the bearer form of a valid key all work.
    for h in ["x-service-key", "x-api-key", "x-worldmonitor-key"] {
        let r = app.http.get(&url).header(h, &app.key).send().await.unwrap();
        assert_eq!(r.status(), 200, "{h}");
    }
    let r = app.http.get(&url).bearer_auth(&app.key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    // Suspended accounts are refused with 403.
    let keys = app.store.list_keys().await.unwrap();
    app.store.set_account_status(&keys[0].1.id, "suspended").await.unwrap();
    let r = app.http.get(&url).header("x-service-key", &app.key).send().await.unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(
        r.json::<serde_json::Value>().await.unwrap(),
        json!({"error": "API access requires an active subscription"})
    );
    app.store.set_account_status(&keys[0].1.id, "active").await.unwrap();
    // Revoked keys are rejected.
    let keys = app.store.list_keys().await.unwrap();
    assert!(app.store.revoke_key(&keys[0].0.id).await.unwrap());
    let r = app.http.get(&url).header("x-service-key", &app.key).send().await.unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn routing_errors_are_json_and_come_before_auth() {
    let app = TestApp::start().await;
    let r = app.http.get(format!("{}/api/conflict/v1/nope", app.base)).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap(), json!({"error": "Not found"}));
    let r = app.http.post(format!("{}/api/conflict/v1/list-armed-events", app.base)).send().await.unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(r.headers()["allow"], "GET");
    assert_eq!(r.json::<serde_json::Value>().await.unwrap(), json!({"error": "Method not allowed"}));
    let big = vec![b' '; 262_145];
    let r = app
        .post("/api/conflict/v1/get-humanitarian-summary-batch")
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap(), json!({"message": "Request body too large"}));
}

#[tokio::test]
async fn discovery_health_and_readiness() {
    let app = TestApp::start().await;
    let r: serde_json::Value = app
        .http
        .get(format!("{}/.well-known/oauth-protected-resource", app.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["resource"], app.base.as_str());
    assert_eq!(r["scopes_supported"], json!(["mcp", "company_monitoring:read", "company_monitoring:write"]));
    let ready: serde_json::Value =
        app.http.get(format!("{}/readyz", app.base)).send().await.unwrap().json().await.unwrap();
    assert_eq!(ready["ready"], true);
    assert_eq!(ready["generation"], 1);
    assert_eq!(ready["datasets"]["armed-events"]["rows"], 444);
    assert_eq!(ready["datasets"]["armed-events"]["status"], "ok");
    let health = app.http.get(format!("{}/healthz", app.base)).send().await.unwrap();
    assert_eq!(health.status(), 200);
}
