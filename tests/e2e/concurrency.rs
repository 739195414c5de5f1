//! Readers during publishes: one request, one generation; cursors pinned across generations.

use std::sync::{
    atomic::{AtomicBool, AtomicUsize, Ordering},
    Arc,
};

use sitrep_schemas::DatasetId;
use sitrep_tests::{changing_runner, normal, TestApp};

const ALL_ARMED: &str = "/api/conflict/v1/list-armed-events?start=0&end=1800000000000&page_size=100";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_readers_never_see_torn_answers_while_generations_with_new_content_are_published() {
    // Thousands of requests a minute from one key: lift the rate limit, this test is about generations.
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("default=1000000").unwrap();
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
    let runner = changing_runner(app.lake.clone(), &normal()).await;
    for _ in 0..4 {
        runner.run(&[DatasetId::ARMED_EVENTS, DatasetId::HUMANITARIAN]).await.unwrap();
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

    changing_runner(app.lake.clone(), &normal()).await.run(&[DatasetId::ARMED_EVENTS]).await.unwrap();
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

const FIRST_PAGE: &str = "/api/conflict/v1/list-armed-events?start=0&page_size=100";

/// The first page's cursor, then `versions` new versions of armed-events.
async fn cursor_then_new_versions(app: &TestApp, versions: usize) -> String {
    let (_, first) = app.json(FIRST_PAGE).await;
    let cursor = first["pagination"]["nextCursor"].as_str().unwrap().to_string();
    let runner = changing_runner(app.lake.clone(), &normal()).await;
    for _ in 0..versions {
        runner.run(&[DatasetId::ARMED_EVENTS]).await.unwrap();
    }
    app.snapshots.refresh().await.unwrap();
    cursor
}

#[tokio::test]
async fn cursors_survive_a_restart_and_work_on_another_server_sharing_the_secret() {
    let a = TestApp::start().await;
    let cursor = cursor_then_new_versions(&a, 1).await;
    // Another server (or this one restarted) over the same lake, with its own empty cache: it
    // has loaded only generation 2, and loads version 1 from the lake when the cursor names it.
    let b = TestApp::serve(tempfile::tempdir().unwrap(), a.lake.clone()).await;
    assert_eq!(b.snapshots.current().unwrap().number, 2);
    let r = b.get(&format!("{FIRST_PAGE}&cursor={cursor}")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-snapshot-generation"], "1");
    let page: serde_json::Value = r.json().await.unwrap();
    assert_eq!(page["pagination"]["totalCount"], 444, "the pinned version, not the current 443");
    assert_eq!(page["events"].as_array().unwrap().len(), 100);
}

#[tokio::test]
async fn a_cursor_past_retention_is_refused_and_one_within_is_loaded() {
    // No window: only the newest three versions (and today's last, the newest) stay readable.
    let options = sitrep_tests::Options { retention: sitrep_lake::Retention::of(0, 0), ..Default::default() };
    let a = TestApp::start_with(options).await;
    let old = cursor_then_new_versions(&a, 4).await; // versions 1..5; 3, 4, 5 retained
    let (status, body) = a.json(&format!("{FIRST_PAGE}&cursor={old}")).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["violations"][0]["description"],
        "cursor refers to a dataset version that is no longer available; restart from the first page"
    );
    // Version 3 is among the newest three: a server that never loaded it loads it for the cursor.
    let v3 = sitrep_platform::kit::cursor::encode(
        b"test-secret",
        &sitrep_platform::kit::cursor::CursorPayload {
            op: "list-armed-events".into(),
            gen: 3,
            off: 100,
            fh: sitrep_platform::kit::canonical::Canonical::new(vec![
                ("country", String::new()),
                ("end", String::new()),
                ("start", "0".into()),
            ])
            .filter_hash(),
            s: Some(0),
            e: Some(1_800_000_000_000),
        },
    );
    let b = TestApp::serve(tempfile::tempdir().unwrap(), a.lake.clone()).await;
    let r = b.get(&format!("{FIRST_PAGE}&cursor={v3}")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-snapshot-generation"], "3");
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["pagination"]["totalCount"], 442);
}

#[tokio::test]
async fn a_restart_reattaches_the_serving_databases_instead_of_rebuilding() {
    let app = TestApp::start().await;
    let cache = app._dir.path().join("cache");
    let first = app.snapshots.current().unwrap();
    assert!(first.datasets.values().all(|db| !db.reopened), "built on the first load");
    let restarted = sitrep_platform::snapshot::Snapshots::new(app.lake.clone(), cache, "256MB".into()).unwrap();
    let generation = restarted.refresh().await.unwrap().unwrap();
    assert_eq!(generation.datasets.len(), first.datasets.len());
    assert!(generation.datasets.values().all(|db| db.reopened), "re-attached from the cache");
    let db = generation.dataset(DatasetId::ARMED_EVENTS).unwrap();
    assert_eq!(
        {
            let sql = format!("SELECT count(*) FROM {}", db.table());
            db.query(move |c| c.query_row(&sql, [], |r| r.get::<_, i64>(0))).await.unwrap()
        },
        444
    );
    assert!(db.positions("UA", 0, i64::MAX).is_some(), "the position index came back with it");
}

/// Answers with their paging cursors taken out (each server signs its own).
fn without_cursors(mut body: serde_json::Value) -> serde_json::Value {
    if let Some(p) = body.get_mut("pagination").and_then(|p| p.as_object_mut()) {
        p.remove("nextCursor");
    }
    body
}

#[tokio::test]
async fn a_starting_server_answers_from_the_parquet_files_then_from_its_built_files_the_same() {
    use sitrep_platform::snapshot::Backing;
    let built = TestApp::start().await;
    let options = sitrep_tests::Options { start_early: true, ..Default::default() };
    let early = TestApp::serve_with(tempfile::tempdir().unwrap(), built.lake.clone(), options, |app| app).await;
    let first = early.snapshots.current().unwrap();
    let armed = first.dataset(DatasetId::ARMED_EVENTS).unwrap();
    assert_eq!(armed.backing(), Backing::Parquet);
    assert!(armed.positions("UA", 0, i64::MAX).is_none(), "no position index before the build");
    assert_eq!(
        first.dataset(DatasetId::CONSUMER_PRICES).unwrap().backing(),
        Backing::File,
        "load-time tables exist only in a built file"
    );
    let pending = early.snapshots.pending_builds();
    assert!(pending >= 4, "{pending} versions read from Parquet");
    let metrics = early.metrics().await;
    assert!(metrics.contains(&format!("sitrep_serving_builds_pending {pending}")), "{metrics}");

    // Every dataset group's answers, from the Parquet files, equal a built server's.
    let paths = [
        format!("{ALL_ARMED}&country=UA&page_size=7"),
        ALL_ARMED.to_string(),
        "/api/conflict/v1/list-violence-events?start=0&country=SD&page_size=5".to_string(),
        "/api/conflict/v1/get-humanitarian-summary?country_code=YE".to_string(),
        "/api/aviation/v1/list-aircraft-emergencies".to_string(),
        "/api/climate/v1/get-co2-monitoring".to_string(),
        "/api/climate/v1/list-air-quality-data?page_size=5".to_string(),
        "/api/consumer-prices/v1/get-consumer-price-overview?market_code=ae".to_string(),
        "/api/climate/v1/list-climate-disasters?page_size=8".to_string(),
        "/api/intelligence/v1/compute-energy-shock?country_code=JP&chokepoint_id=hormuz_strait&disruption_pct=50"
            .to_string(),
    ];
    for path in &paths {
        let ((s1, a), (s2, b)) = (early.json(path).await, built.json(path).await);
        assert_eq!((s1, s2), (200, 200), "{path}: {a} / {b}");
        assert_eq!(without_cursors(a), without_cursors(b), "{path}");
    }
    let page = format!("{ALL_ARMED}&country=UA&page_size=7");
    let (_, from_parquet) = early.json(&page).await;
    let cursor = from_parquet["pagination"]["nextCursor"].as_str().unwrap().to_string();

    early.snapshots.build_pending().await.unwrap();
    assert_eq!(early.snapshots.pending_builds(), 0);
    let now = early.snapshots.current().unwrap();
    assert_eq!(now.number, first.number, "the same generation, now from built files");
    let armed = now.dataset(DatasetId::ARMED_EVENTS).unwrap();
    assert_eq!(armed.backing(), Backing::File);
    assert!(armed.positions("UA", 0, i64::MAX).is_some(), "the position index is there");
    assert!(now.datasets.values().all(|db| db.backing() == Backing::File));
    // A cursor minted on a Parquet answer pages through the built file.
    let (status, second) = early.json(&format!("{page}&cursor={cursor}")).await;
    assert_eq!(status, 200, "{second}");
    let (_, built_first) = built.json(&page).await;
    let built_cursor = built_first["pagination"]["nextCursor"].as_str().unwrap();
    let (_, built_second) = built.json(&format!("{page}&cursor={built_cursor}")).await;
    assert_eq!(without_cursors(second), without_cursors(built_second));
    let metrics = early.metrics().await;
    assert!(metrics.contains("sitrep_serving_builds_pending 0"), "{metrics}");
}
