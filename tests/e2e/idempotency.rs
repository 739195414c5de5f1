//! The Idempotency-Key layer on GetHumanitarianSummaryBatch (SUPPLEMENT 1.13).

use serde_json::json;
use sitrep_tests::TestApp;

const BATCH: &str = "/api/conflict/v1/get-humanitarian-summary-batch";

#[tokio::test]
async fn first_use_replay_reuse_and_malformed_keys() {
    let app = TestApp::start().await;
    let body = json!({"countryCodes": ["SD", "YE"]});
    let first = app.post(BATCH).header("idempotency-key", "k-1").json(&body).send().await.unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["idempotency-key"], "k-1");
    assert_eq!(first.headers()["idempotent-replayed"], "false");
    let first_body = first.bytes().await.unwrap();

    let again = app.post(BATCH).header("idempotency-key", "k-1").json(&body).send().await.unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.headers()["cache-control"], "no-store");
    assert_eq!(again.bytes().await.unwrap(), first_body);

    let other =
        app.post(BATCH).header("idempotency-key", "k-1").json(&json!({"countryCodes": ["UA"]})).send().await.unwrap();
    assert_eq!(other.status(), 422);
    assert_eq!(other.headers()["idempotency-key"], "k-1");
    assert_eq!(
        other.json::<serde_json::Value>().await.unwrap(),
        json!({"error": "idempotency_key_reused", "message": "This Idempotency-Key was already used with a different request body."})
    );

    let long = "x".repeat(256);
    for bad in [long.as_str(), "has space"] {
        let r = app.post(BATCH).header("idempotency-key", bad).json(&body).send().await.unwrap();
        assert_eq!(r.status(), 400, "{bad}");
        assert_eq!(r.json::<serde_json::Value>().await.unwrap()["error"], "invalid_idempotency_key");
    }
    // Without the header nothing is stored and no idempotency headers are sent.
    let plain = app.post(BATCH).json(&body).send().await.unwrap();
    assert!(!plain.headers().contains_key("idempotent-replayed"));
}

#[tokio::test]
async fn in_flight_key_answers_409_and_validation_errors_are_stored() {
    let app = TestApp::start().await;
    let key_scope = {
        let keys = app.store.list_keys().await.unwrap();
        format!("{}|{BATCH}|busy", keys[0].1.id)
    };
    // Another request holds the lock.
    let body = serde_json::to_vec(&json!({"countryCodes": ["SD"]})).unwrap();
    let hash = {
        use sha2_shim::hex_sha256;
        hex_sha256(&body)
    };
    app.store.idempotency_claim(&key_scope, &hash, chrono::Utc::now().timestamp_millis()).await.unwrap();
    let r = app
        .post(BATCH)
        .header("idempotency-key", "busy")
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    assert_eq!(r.headers()["retry-after"], "2");
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["error"], "idempotency_conflict");

    // A 400 is stored and replayed like any other 4xx.
    let bad = json!({"countryCodes": []});
    let r1 = app.post(BATCH).header("idempotency-key", "v-1").json(&bad).send().await.unwrap();
    assert_eq!(r1.status(), 400);
    let r2 = app.post(BATCH).header("idempotency-key", "v-1").json(&bad).send().await.unwrap();
    assert_eq!(r2.status(), 400);
    assert_eq!(r2.headers()["idempotent-replayed"], "true");
}

mod sha2_shim {
    /// SHA-256 hex via the server's own helper (the same function hashes API keys).
    pub fn hex_sha256(bytes: &[u8]) -> String {
        sitrep_serve::state::hash_key(std::str::from_utf8(bytes).expect("utf8 body"))
    }
}
