//! The Idempotency-Key layer on GetHumanitarianSummaryBatch (SUPPLEMENT 1.13).

use poem::Endpoint;
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
        assert!(r.headers().contains_key("ratelimit-remaining"), "RateLimit headers on every /api/* answer");
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
        sitrep_platform::state::hash_secret(std::str::from_utf8(bytes).expect("utf8 body"))
    }
}

/// Holds every pooled connection of the server's DuckDB engine for `for_ms`, so a request that
/// needs one waits: the window in which a second request with the same key really is concurrent.
fn occupy_engine_pool(app: &TestApp, for_ms: u64) -> Vec<tokio::task::JoinHandle<()>> {
    let db = app.snapshots.current().unwrap().dataset(sitrep_schemas::DatasetId::HUMANITARIAN).unwrap().clone();
    (0..app.snapshots.engine().idle_connections())
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move {
                db.query(move |_| {
                    std::thread::sleep(std::time::Duration::from_millis(for_ms));
                    Ok(())
                })
                .await
                .unwrap();
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn truly_concurrent_requests_with_one_key_run_once() {
    let app = std::sync::Arc::new(TestApp::start().await);
    let blockers = occupy_engine_pool(&app, 800);
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let body = json!({"countryCodes": ["SD"]});
    let first = {
        let (app, body) = (app.clone(), body.clone());
        tokio::spawn(async move { app.post(BATCH).header("idempotency-key", "race").json(&body).send().await.unwrap() })
    };
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    // The first request holds the key while it waits for a connection.
    let second = app.post(BATCH).header("idempotency-key", "race").json(&body).send().await.unwrap();
    assert_eq!(second.status(), 409);
    assert_eq!(second.headers()["idempotency-key"], "race");
    assert_eq!(second.headers()["retry-after"], "2");
    let first = first.await.unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["idempotent-replayed"], "false");
    for b in blockers {
        b.await.unwrap();
    }
    let third = app.post(BATCH).header("idempotency-key", "race").json(&body).send().await.unwrap();
    assert_eq!(third.headers()["idempotent-replayed"], "true");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_request_releases_its_key() {
    let app = TestApp::start().await;
    let endpoint = app.endpoint();
    let blockers = occupy_engine_pool(&app, 400);
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let body = serde_json::to_vec(&json!({"countryCodes": ["YE"]})).unwrap();
    let request = || {
        poem::Request::builder()
            .method(poem::http::Method::POST)
            .uri(format!("{}{BATCH}", app.base).parse().unwrap())
            .header("x-service-key", &app.key)
            .header("idempotency-key", "abandoned")
            .content_type("application/json")
            .body(body.clone())
    };
    // The caller gives up while the handler waits: the request's future is dropped mid-flight.
    let gave_up = tokio::time::timeout(std::time::Duration::from_millis(100), endpoint.call(request())).await;
    assert!(gave_up.is_err(), "the request was still in flight when dropped");
    for b in blockers {
        b.await.unwrap();
    }
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    // Not 409 for the 180 s lock: the claim was released and the retry runs.
    let retry = endpoint.call(request()).await.unwrap();
    assert_eq!(retry.status(), 200);
    assert_eq!(retry.headers()["idempotent-replayed"], "false");
}

#[tokio::test]
async fn a_replay_survives_a_server_restart_on_the_durable_store() {
    let state_dir = tempfile::tempdir().unwrap();
    let state_url = sitrep_tests::fresh_state_url(Some(state_dir.path())).await;
    let options = || sitrep_tests::Options { state_url: Some(state_url.clone()), ..Default::default() };
    let body = json!({"countryCodes": ["SD", "UA"]});
    let first_body = {
        let app = TestApp::start_with(options()).await;
        let r = app.post(BATCH).header("idempotency-key", "restart-1").json(&body).send().await.unwrap();
        assert_eq!(r.headers()["idempotent-replayed"], "false");
        r.bytes().await.unwrap()
    };
    let app = TestApp::start_with(options()).await;
    let r = app.post(BATCH).header("idempotency-key", "restart-1").json(&body).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["idempotent-replayed"], "true");
    assert_eq!(r.bytes().await.unwrap(), first_body);
}
