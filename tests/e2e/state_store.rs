//! The state store going away and coming back under a running server (issue 29): PostgreSQL
//! stopped, then started again, with no restart of sitrep.

use std::time::Duration;

use serde_json::{json, Value};
use sitrep_platform::state::Plan;
use sitrep_tests::{postgres_server::PostgresServer, Options, TestApp};

const ARMED: &str = "/api/conflict/v1/list-armed-events?page_size=1";

#[tokio::test]
async fn a_restarted_postgres_keeps_cached_keys_answering_refuses_new_ones_with_503_then_recovers() {
    let pg = PostgresServer::start();
    let app = TestApp::start_with(Options {
        state_url: Some(pg.url()),
        key_cache_ttl: Duration::from_secs(600),
        ..Options::default()
    })
    .await;
    assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200, "the test key is now cached");
    let account = app.store.create_account("second", Plan::Pro).await.unwrap();
    let fresh = app.store.create_key(&account.id, "fresh", "di", &[], false).await.unwrap().secret;
    let with_fresh = || app.http.get(format!("{}{ARMED}", app.base)).header("x-service-key", &fresh);

    pg.stop();
    for _ in 0..3 {
        assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200, "a cached key needs no database");
    }
    let asked = std::time::Instant::now();
    let r = with_fresh().send().await.unwrap();
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "5");
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"error": "Entitlement verification unavailable", "code": "entitlement_verification_unavailable"})
    );
    assert!(asked.elapsed() < Duration::from_secs(10), "refused within the pool's wait: {:?}", asked.elapsed());

    pg.resume();
    pg.ready().await;
    let mut status = 0;
    for _ in 0..40 {
        status = with_fresh().send().await.unwrap().status().as_u16();
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(status, 200, "the same server authenticates again once the database is back");
}
