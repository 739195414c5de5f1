//! ExecuteBatch (SUPPLEMENT Part 3) against the real server: each sub-operation answers exactly as
//! the same GET would over REST, and the batch's own validation, nesting refusal, path checks,
//! idempotency and rate limit. Also the edge User-Agent filter (1.15).

use serde_json::{json, Value};
use sitrep_platform::edge::rate_limit::Limits;
use sitrep_tests::{Options, TestApp};

const EXECUTE: &str = "/api/batch/v1/execute";
const ARMED: &str = "/api/conflict/v1/list-armed-events";

async fn batch(app: &TestApp, body: Value) -> (u16, Value) {
    let r = app.post(EXECUTE).json(&body).send().await.expect("batch");
    let status = r.status().as_u16();
    (status, r.json().await.expect("json"))
}

#[tokio::test]
async fn twenty_mixed_operations_answer_as_rest_in_request_order() {
    let app = TestApp::start().await;
    let mut ops = vec![
        json!({"id": "armed", "path": format!("{ARMED}?country=UA&page_size=2")}),
        json!({"id": "projected", "path": format!("{ARMED}?country=UA&jmespath=pagination.totalCount")}),
        json!({"id": "bad-param", "path": format!("{ARMED}?page_size=500")}),
        json!({"id": "bad-jmes", "path": format!("{ARMED}?jmespath=events[")}),
        json!({"id": "nested", "path": EXECUTE}),
        json!({"id": "scheme", "path": "https://evil.example/api/conflict/v1/list-armed-events"}),
        json!({"id": "not-api", "path": "/healthz"}),
        json!({"id": "unknown", "path": "/api/conflict/v1/list-nothing"}),
        json!({"id": "post-only", "path": "/api/conflict/v1/get-humanitarian-summary-batch"}),
        json!({"id": "", "path": "/api/conflict/v1/list-iran-events"}),
    ];
    for i in 0..10 {
        ops.push(json!({"id": format!("v{i}"), "path": format!("/api/conflict/v1/list-violence-events?page_size={}", i + 1)}));
    }
    let (status, body) = batch(&app, json!({ "operations": ops })).await;
    assert_eq!(status, 200, "{body}");
    let results = body["results"].as_array().unwrap();
    assert_eq!(results.len(), 20);
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        &ids[..10],
        ["armed", "projected", "bad-param", "bad-jmes", "nested", "scheme", "not-api", "unknown", "post-only", "9"]
    );
    let by_id = |id: &str| results.iter().find(|r| r["id"] == id).unwrap().clone();

    // A sub-result is the body the same GET answers over REST (same key, same pipeline).
    let (rest_status, rest_body) = app.json(&format!("{ARMED}?country=UA&page_size=2")).await;
    assert_eq!(by_id("armed"), json!({"id": "armed", "status": rest_status, "body": rest_body, "error": ""}));
    let (_, total) = app.json(&format!("{ARMED}?country=UA&jmespath=pagination.totalCount")).await;
    assert_eq!(by_id("projected")["body"], total);
    assert!(total.is_number());
    assert_eq!(by_id("bad-param")["status"], 400);
    assert_eq!(
        by_id("bad-param")["body"]["violations"][0],
        json!({"field": "pageSize", "description": "number must be less than or equal to 100"})
    );
    assert_eq!(by_id("bad-jmes")["status"], 400);
    assert!(by_id("bad-jmes")["body"]["_jmespath_error"].as_str().unwrap().starts_with("invalid_expression"));
    assert_eq!(by_id("nested"), json!({"id": "nested", "status": 0, "body": null, "error": "nested_batch"}));
    assert_eq!(by_id("scheme")["error"], "invalid_path");
    assert_eq!(by_id("not-api")["error"], "invalid_path");
    assert_eq!(by_id("unknown")["status"], 404);
    assert_eq!(by_id("unknown")["body"], json!({"error": "Not found"}));
    assert_eq!(by_id("post-only")["status"], 405);
    assert_eq!(by_id("9")["status"], 200);
    for i in 0..10 {
        let r = by_id(&format!("v{i}"));
        assert_eq!(r["status"], 200, "{r}");
        assert!(r["body"]["events"].as_array().unwrap().len() <= i + 1);
    }
    // succeeded: 2xx with no error; failed: the rest.
    assert_eq!(body["succeeded"], 13);
    assert_eq!(body["failed"], 7);
}

#[tokio::test]
async fn sub_requests_carry_the_batch_callers_credential_and_limits() {
    // default policy 5 per minute: the sub-requests count against the caller's own window.
    let limits = Limits::parse("default=5").unwrap();
    let app = TestApp::start_with(Options { rate_limits: limits, ..Default::default() }).await;
    let ops: Vec<Value> = (0..7).map(|i| json!({"id": format!("o{i}"), "path": ARMED})).collect();
    let (status, body) = batch(&app, json!({ "operations": ops })).await;
    assert_eq!(status, 200);
    let statuses: Vec<i64> =
        body["results"].as_array().unwrap().iter().map(|r| r["status"].as_i64().unwrap()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 5, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 2, "{statuses:?}");
    assert_eq!(body["failed"], 2);

    // Without a credential: 401 before any fan-out.
    let r = app
        .http
        .post(format!("{}{EXECUTE}", app.base))
        .json(&json!({"operations": [{"path": ARMED}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // A bad key in the batch is refused for the batch itself.
    let r = app
        .http
        .post(format!("{}{EXECUTE}", app.base))
        .header("x-service-key", "di_0000000000000000000000000000000000000000")
        .json(&json!({"operations": [{"path": ARMED}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn batch_validation_nesting_and_idempotency() {
    let app = TestApp::start().await;
    let (status, body) = batch(
        &app,
        json!({"operations": [{"id": "a", "path": ARMED}, {"id": "a", "path": ARMED}, {"id": "x".repeat(65), "path": ARMED}, {"id": "z"}]}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"violations": [
            {"field": "operations[1].id", "description": "duplicate id \"a\" — results would be ambiguous"},
            {"field": "operations[2].id", "description": "string length must be at most 64"},
            {"field": "operations[3].path", "description": "value is required"},
        ]})
    );
    let (status, body) = batch(&app, json!({"operations": []})).await;
    assert_eq!((status, &body["violations"][0]["description"]), (400, &json!("array must contain at least 1 item(s)")));

    // A request that is itself a sub-request may not batch.
    let r = app
        .post(EXECUTE)
        .header("x-batch-request", "1")
        .json(&json!({"operations": [{"path": ARMED}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"message": "Nested batch requests are not allowed"}));

    // The idempotency layer: a replay returns the stored result.
    let body = json!({"operations": [{"id": "one", "path": format!("{ARMED}?page_size=1")}]});
    let first = app.post(EXECUTE).header("idempotency-key", "batch-key-1").json(&body).send().await.unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["idempotency-key"], "batch-key-1");
    let first: Value = first.json().await.unwrap();
    let again = app.post(EXECUTE).header("idempotency-key", "batch-key-1").json(&body).send().await.unwrap();
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.json::<Value>().await.unwrap(), first);
    // RateLimit headers of the batch policy.
    let r = app.post(EXECUTE).json(&body).send().await.unwrap();
    assert_eq!(r.headers()["ratelimit-policy"], "\"batch\";q=30;w=60");
}

#[tokio::test]
async fn the_edge_user_agent_filter() {
    let app = TestApp::start_with(Options { edge_ua_filter: true, ..Default::default() }).await;
    let url = format!("{}{ARMED}", app.base);
    // A generic tool without an API key: the HTML page.
    let r = app.http.get(&url).header("user-agent", "curl/8.5.0").send().await.unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(r.headers()["content-type"], "text/html; charset=utf-8");
    assert!(r.text().await.unwrap().contains("<title>403 Forbidden</title>"));
    // The same tool with its API key passes; so does a descriptive agent (which then needs a credential).
    let r =
        app.http.get(&url).header("user-agent", "curl/8.5.0").header("x-service-key", &app.key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = app.http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 401, "the test client's agent is descriptive");
    // Never outside /api/*.
    let r = app.http.get(format!("{}/readyz", app.base)).header("user-agent", "curl/8").send().await.unwrap();
    assert_ne!(r.status(), 403);
    // Off by default.
    let plain = TestApp::start().await;
    let r = plain.http.get(format!("{}{ARMED}", plain.base)).header("user-agent", "curl/8.5.0").send().await.unwrap();
    assert_eq!(r.status(), 401);
}
