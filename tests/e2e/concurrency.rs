//! Readers during publishes: one request, one generation; cursors pinned across generations.

use std::sync::{
    atomic::{AtomicBool, AtomicUsize, Ordering},
    Arc,
};

use sitrep_schemas::DatasetId;
use sitrep_tests::{changing_runner, TestApp, NORMAL};

const ALL_ARMED: &str = "/api/conflict/v1/list-armed-events?start=0&end=1800000000000&page_size=100";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_readers_never_see_torn_answers_while_generations_with_new_content_are_published() {
    // Thousands of requests a minute from one key: lift the rate limit, this test is about generations.
    let limits = sitrep_serve::edge::rate_limit::Limits::parse("default=1000000").unwrap();
    let app = Arc::new(TestApp::start_with(sitrep_tests::Options { rate_limits: limits, ..Default::default() }).await);
    let stop = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    let generations_seen = Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
    let readers: Vec<_> = (0..16)
        .map(|i| {
            let (app, stop, served, seen) = (app.clone(), stop.clone(), served.clone(), generations_seen.clone());
            tokio::spawn(async move {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) && n < 400 {
                    let url = if i % 2 == 0 {
                        ALL_ARMED.to_string()
                    } else {
                        format!("{ALL_ARMED}&country=UA&page_size={}", 1 + i)
                    };
                    let r = app.get(&url).send().await.unwrap();
                    assert_eq!(r.status(), 200);
                    let generation: u64 = r.headers()["x-snapshot-generation"].to_str().unwrap().parse().unwrap();
                    let body: serde_json::Value = r.json().await.unwrap();
                    let events = body["events"].as_array().expect("events");
                    assert!(!events.is_empty(), "never an empty answer");
                    if i % 2 == 0 {
                        // Generation g holds 444 − (g − 1) events: a count from one version under
                        // the header of another is a torn answer.
                        let expected = 444 - (generation as i64 - 1);
                        assert_eq!(body["pagination"]["totalCount"], expected, "generation {generation}");
                        assert_eq!(events.len(), 100);
                        seen.lock().unwrap().insert(generation);
                    }
                    n += 1;
                    served.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let runner = changing_runner(app.lake.clone(), NORMAL).await;
    for _ in 0..4 {
        runner.run(&[DatasetId::ArmedEvents, DatasetId::Humanitarian]).await.unwrap();
        app.snapshots.refresh().await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.await.unwrap();
    }
    assert_eq!(app.snapshots.current().unwrap().number, 5);
    assert!(served.load(Ordering::Relaxed) >= 16);
    assert!(generations_seen.lock().unwrap().len() >= 2, "readers saw the content change");
}

#[tokio::test]
async fn a_cursor_keeps_paging_its_dataset_version_after_a_new_generation() {
    let app = TestApp::start().await;
    let r = app.get("/api/conflict/v1/list-armed-events?start=0&page_size=100").send().await.unwrap();
    assert_eq!(r.headers()["x-snapshot-generation"], "1");
    let first: serde_json::Value = r.json().await.unwrap();
    let cursor = first["pagination"]["nextCursor"].as_str().unwrap().to_string();

    changing_runner(app.lake.clone(), NORMAL).await.run(&[DatasetId::ArmedEvents]).await.unwrap();
    app.snapshots.refresh().await.unwrap();
    let fresh = app.get("/api/conflict/v1/list-armed-events?start=0&page_size=100").send().await.unwrap();
    assert_eq!(fresh.headers()["x-snapshot-generation"], "2");
    assert_eq!(fresh.json::<serde_json::Value>().await.unwrap()["pagination"]["totalCount"], 443, "new content");

    let r = app
        .get(&format!("/api/conflict/v1/list-armed-events?start=0&page_size=100&cursor={cursor}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-snapshot-generation"], "1", "answered from the pinned version");
    // …and described as that version: the publish time of generation 1, not of the current one.
    let published = app.lake.read_commit(1).await.unwrap().unwrap().committed_at;
    assert_eq!(r.headers()["x-data-as-of"], published.to_rfc3339_opts(chrono::SecondsFormat::Secs, true).as_str());
    let second: serde_json::Value = r.json().await.unwrap();
    assert_eq!(second["pagination"]["totalCount"], 444);
    let ids = |v: &serde_json::Value| {
        v["events"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert!(ids(&first).iter().all(|id| !ids(&second).contains(id)));
}
