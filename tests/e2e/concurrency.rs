//! Readers during publishes: one request, one generation; cursors pinned across generations.

use std::sync::{
    atomic::{AtomicBool, AtomicUsize, Ordering},
    Arc,
};

use sitrep_schemas::DatasetId;
use sitrep_tests::{replay_runner, TestApp, NORMAL};

const ALL_ARMED: &str = "/api/conflict/v1/list-armed-events?start=0&end=1800000000000&page_size=100";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_readers_never_see_errors_or_partial_answers_while_generations_change() {
    // Thousands of requests a minute from one key: lift the rate limit, this test is about generations.
    let limits = sitrep_serve::edge::rate_limit::Limits::parse("default=1000000").unwrap();
    let app = Arc::new(TestApp::start_with(sitrep_tests::Options { rate_limits: limits, ..Default::default() }).await);
    let stop = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    let readers: Vec<_> = (0..16)
        .map(|i| {
            let (app, stop, served) = (app.clone(), stop.clone(), served.clone());
            tokio::spawn(async move {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) && n < 400 {
                    let url = if i % 2 == 0 {
                        ALL_ARMED.to_string()
                    } else {
                        format!("{ALL_ARMED}&country=UA&page_size={}", 1 + i)
                    };
                    let (status, body) = app.json(&url).await;
                    assert_eq!(status, 200, "{body}");
                    let events = body["events"].as_array().expect("events");
                    assert!(!events.is_empty(), "never an empty answer");
                    if i % 2 == 0 {
                        assert_eq!(body["pagination"]["totalCount"], 444, "never a mixed answer");
                    }
                    n += 1;
                    served.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let runner = replay_runner(app.lake.clone(), NORMAL).await;
    for _ in 0..4 {
        runner.run(&[DatasetId::ArmedEvents, DatasetId::Humanitarian]).await.unwrap();
        app.snapshots.refresh().await.unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.await.unwrap();
    }
    assert_eq!(app.snapshots.current().unwrap().number, 5);
    assert!(served.load(Ordering::Relaxed) >= 16);
}

#[tokio::test]
async fn a_cursor_keeps_paging_its_dataset_version_after_a_new_generation() {
    let app = TestApp::start().await;
    let r = app.get("/api/conflict/v1/list-armed-events?start=0&page_size=100").send().await.unwrap();
    assert_eq!(r.headers()["x-snapshot-generation"], "1");
    let first: serde_json::Value = r.json().await.unwrap();
    let cursor = first["pagination"]["nextCursor"].as_str().unwrap().to_string();

    replay_runner(app.lake.clone(), NORMAL).await.run(&[DatasetId::ArmedEvents]).await.unwrap();
    app.snapshots.refresh().await.unwrap();
    let fresh = app.get("/api/conflict/v1/list-armed-events?start=0&page_size=100").send().await.unwrap();
    assert_eq!(fresh.headers()["x-snapshot-generation"], "2");

    let r = app
        .get(&format!("/api/conflict/v1/list-armed-events?start=0&page_size=100&cursor={cursor}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-snapshot-generation"], "1", "answered from the pinned version");
    let second: serde_json::Value = r.json().await.unwrap();
    assert_eq!(second["pagination"]["totalCount"], 444);
    let ids = |v: &serde_json::Value| {
        v["events"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert!(ids(&first).iter().all(|id| !ids(&second).contains(id)));
}
