//! The state store going away and coming back under a running server (issue 29): PostgreSQL
//! stopped, then started again, with no restart of sitrep.

use std::time::Duration;

use serde_json::{json, Value};
use sitrep_platform::state::Plan;
use sitrep_tests::{postgres_server::PostgresServer, Options, TestApp};

const ARMED: &str = "/api/conflict/v1/list-armed-events?page_size=1";

#[tokio::test]
async fn a_postgres_restarted_under_load_keeps_cached_keys_answering_refuses_new_ones_with_503_then_recovers() {
    let pg = PostgresServer::start();
    let app = TestApp::start_with(Options {
        state_url: Some(pg.url()),
        key_cache_ttl: Duration::from_secs(600),
        rate_limits: sitrep_platform::edge::rate_limit::Limits::parse("default=1000000").unwrap(),
        ..Options::default()
    })
    .await;
    assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200, "the test key is now cached");
    let account = app.store.create_account("second", Plan::Pro).await.unwrap();
    let fresh = app.store.create_key(&account.id, "fresh", "di", &[], false).await.unwrap().secret;
    let with_fresh = || app.http.get(format!("{}{ARMED}", app.base)).header("x-service-key", &fresh);

    // Load through the outage: a cached key's requests, back to back, from before the stop until
    // after the restart.
    let load = {
        let (http, url, key) = (app.http.clone(), format!("{}{ARMED}", app.base), app.key.clone());
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let task = tokio::spawn({
            let done = done.clone();
            async move {
                let mut statuses = std::collections::BTreeMap::new();
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let status = http.get(&url).header("x-service-key", &key).send().await.unwrap().status().as_u16();
                    *statuses.entry(status).or_insert(0u32) += 1;
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                statuses
            }
        });
        (done, task)
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    pg.stop();
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
    load.0.store(true, std::sync::atomic::Ordering::Relaxed);
    let statuses = load.1.await.unwrap();
    assert_eq!(
        statuses.keys().copied().collect::<Vec<_>>(),
        [200],
        "a cached key's requests all answered: {statuses:?}"
    );
    assert!(statuses[&200] > 20, "the load ran through the outage: {statuses:?}");
}
