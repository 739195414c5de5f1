//! Answers as of a past time (issue 31): every operation that reads dataset versions takes
//! `as_of` over REST, batch and MCP; the answer is the one its datasets' versions then give, with
//! those versions' headers; cursors stay on that version; before the oldest retained version it is
//! a 400 naming that time, and in the future it is the current answer.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};
use sitrep_schemas::DatasetId;
use sitrep_tests::{changing_runner, normal, TestApp};

/// The query each operation needs besides `as_of` (its required parameters).
fn query_of(id: &str) -> &'static str {
    match id {
        "GetHumanitarianSummary" => "country_code=UA",
        "ListArmedEvents" | "ListViolenceEvents" => "start=0&page_size=5",
        _ => "",
    }
}

fn with(path: &str, query: &str, as_of: Option<&str>) -> String {
    let mut q: Vec<String> = [query].into_iter().filter(|q| !q.is_empty()).map(str::to_string).collect();
    if let Some(t) = as_of {
        q.push(format!("as_of={}", urlencoding(t)));
    }
    if q.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", q.join("&"))
    }
}

fn urlencoding(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

struct Seen {
    status: u16,
    generation: String,
    as_of: String,
    body: Value,
}

async fn seen(app: &TestApp, path_and_query: &str) -> Seen {
    let r = app.get(path_and_query).send().await.unwrap();
    let header = |name: &str| r.headers().get(name).map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let (generation, as_of) = (header("x-snapshot-generation"), header("x-data-as-of"));
    Seen { status: r.status().as_u16(), generation, as_of, body: r.json().await.unwrap() }
}

#[tokio::test]
async fn every_dataset_read_answers_as_of_a_past_time_over_rest_batch_and_mcp() {
    let app = TestApp::start().await;
    let first = app.lake.read_commit(1).await.unwrap().unwrap().committed_at;
    let reading: Vec<_> = app.registry.operations().filter(|op| op.reads_versions()).collect();
    assert!(reading.len() >= 19, "{} operations read versions", reading.len());
    // Every answer of generation 1, kept to compare with the answers as of then.
    let mut before = Vec::new();
    for op in &reading {
        let s = seen(&app, &with(op.path, query_of(op.id), None)).await;
        assert_eq!((s.status, s.generation.as_str()), (200, "1"), "{}: {}", op.id, s.body);
        before.push(s);
    }
    let between = Utc::now();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    changing_runner(app.lake.clone(), &normal()).await.run(&DatasetId::ALL).await.unwrap();
    app.snapshots.refresh().await.unwrap();
    assert_eq!(app.snapshots.current_number(), 2);

    let between_ms = between.timestamp_millis().to_string();
    let future = rfc3339(Utc::now() + chrono::Duration::days(1));
    let too_early = rfc3339(first - chrono::Duration::hours(1));
    let oldest = format!("as_of is before the oldest retained version ({})", rfc3339(first));
    for (op, then) in reading.iter().zip(&before) {
        let query = query_of(op.id);
        let now = seen(&app, &with(op.path, query, None)).await;
        assert_eq!(now.generation, "2", "{}", op.id);
        // As of a time between the two generations: generation 1's answer and headers, whichever
        // way the time is written.
        for t in [rfc3339(between), between_ms.clone()] {
            let past = seen(&app, &with(op.path, query, Some(&t))).await;
            assert_eq!((past.status, &past.generation, &past.as_of), (200, &then.generation, &then.as_of), "{}", op.id);
            assert_eq!(past.body, then.body, "{} as of {t}", op.id);
        }
        // In the future: the current answer.
        let later = seen(&app, &with(op.path, query, Some(&future))).await;
        assert_eq!((later.generation, later.body), (now.generation, now.body), "{}", op.id);
        // Before the oldest retained version, or not a time: 400, saying so.
        let early = seen(&app, &with(op.path, query, Some(&too_early))).await;
        assert_eq!(
            (early.status, &early.body["violations"]),
            (400, &json!([{"field": "asOf", "description": oldest}])),
            "{}",
            op.id
        );
        let bad = seen(&app, &with(op.path, query, Some("yesterday"))).await;
        assert_eq!(
            (bad.status, &bad.body["violations"][0]),
            (400, &json!({"field": "asOf", "description": "value must be an RFC 3339 time or epoch milliseconds"})),
            "{}",
            op.id
        );
    }

    // The changed content is really different, so the comparisons above could fail.
    let armed = reading.iter().position(|op| op.id == "ListArmedEvents").unwrap();
    let armed_now = seen(&app, &with(reading[armed].path, query_of("ListArmedEvents"), None)).await;
    assert_ne!(armed_now.body["pagination"]["totalCount"], before[armed].body["pagination"]["totalCount"]);

    // A version's own publish time in epoch ms (as ListDatasetVersions shows it) finds it.
    let own = seen(&app, &format!("/api/conflict/v1/list-armed-events?as_of={}", first.timestamp_millis())).await;
    assert_eq!((own.status, own.generation.as_str()), (200, "1"), "{}", own.body);

    // A cursor minted on an as-of answer pages that version.
    let list = "/api/conflict/v1/list-armed-events";
    let page1 = seen(&app, &format!("{list}?start=0&page_size=5&as_of={between_ms}")).await;
    let cursor = page1.body["pagination"]["nextCursor"].as_str().unwrap().to_string();
    let page2 = seen(&app, &format!("{list}?start=0&page_size=5&cursor={cursor}")).await;
    assert_eq!((page2.status, page2.generation.as_str()), (200, "1"));
    assert_eq!(page2.body["pagination"]["totalCount"], before[armed].body["pagination"]["totalCount"]);
    let ids = |v: &Value| v["events"].as_array().unwrap().iter().map(|e| e["id"].clone()).collect::<Vec<_>>();
    assert!(ids(&page2.body).iter().all(|id| !ids(&page1.body).contains(id)), "the next rows of that version");

    // ETagged like any answer.
    let url = format!("{list}?start=0&page_size=5&as_of={between_ms}");
    let r = app.get(&url).send().await.unwrap();
    let etag = r.headers()["etag"].clone();
    let r = app.get(&url).header("if-none-match", etag).send().await.unwrap();
    assert_eq!(r.status(), 304);

    // Batch: a sub-request's as_of answers as the same GET.
    let path = format!("{list}?start=0&page_size=5&as_of={between_ms}");
    let r = app.post("/api/batch/v1/execute").json(&json!({"operations": [{"id": "a", "path": path}]})).send().await;
    let batch: Value = r.unwrap().json().await.unwrap();
    assert_eq!(batch["results"][0]["body"], page1.body);

    // MCP: the argument is in the tool's schema, and the result names the version answered.
    let mcp = |body: Value| {
        app.http
            .post(format!("{}/mcp", app.base))
            .header("x-service-key", &app.key)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
    };
    let tools: Value =
        mcp(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await.unwrap().json().await.unwrap();
    let schema_of = |name: &str| {
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone()
    };
    assert!(schema_of("list_armed_events")["properties"].get("as_of").is_some());
    assert!(schema_of("track_aircraft")["properties"].get("as_of").is_none(), "a live tool has no versions");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "list_armed_events", "arguments": {"start": "0", "page_size": 5, "as_of": between.timestamp_millis()}}});
    let result: Value = mcp(call).await.unwrap().json().await.unwrap();
    assert_eq!(result["result"]["_meta"]["sitrep/snapshotGeneration"], "1", "{result}");
    assert_eq!(result["result"]["structuredContent"], page1.body);
}

#[tokio::test]
async fn read_through_and_company_monitoring_operations_ignore_as_of() {
    let app = TestApp::start().await;
    let doc: Value = app.http.get(format!("{}/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    for op in app.registry.operations() {
        let entry = &doc["paths"][op.path][op.method.as_str().to_ascii_lowercase()];
        let documented = entry["parameters"].as_array().is_some_and(|p| p.iter().any(|p| p["name"] == "as_of"));
        let live = op.mcp.is_some_and(|t| t.open_world);
        let expected = op.method.as_str() == "GET" && !op.datasets.is_empty() && !live;
        assert_eq!(documented, expected, "{}", op.id);
        if op.group_segment() == "company-monitoring" || live {
            assert!(!op.reads_versions(), "{}", op.id);
        }
    }
    // A live operation takes the parameter as any unknown one: ignored.
    let flights = "/api/aviation/v1/list-airport-flights?airport=IST";
    let (status, body) = app.json(flights).await;
    let (status_as_of, body_as_of) = app.json(&format!("{flights}&as_of=yesterday")).await;
    assert_eq!((status, status_as_of), (200, 200));
    assert_eq!(body["flights"], body_as_of["flights"]);
}

/// A load of a past version whose caller left (a request cancelled by its client or its
/// deadline) runs to its end: the version is then loaded for the next caller, and the load never
/// leaves a half-built file for the pruner (before issue 45 a cancelled load dropped its lock and
/// registered nothing).
#[tokio::test]
async fn a_past_version_load_whose_caller_left_still_completes() {
    let app = TestApp::start().await;
    // Three more generations: version 1 is no longer among the newest three kept loaded.
    let runner = changing_runner(app.lake.clone(), &normal()).await;
    for _ in 0..3 {
        runner.run(&DatasetId::ALL).await.unwrap();
        app.snapshots.refresh().await.unwrap();
    }
    let dataset = DatasetId::ARMED_EVENTS;
    let history = app.snapshots.history(dataset).await.unwrap();
    let older = history.iter().find(|v| v.version == 1).expect("version 1 is published").clone();
    assert!(app.snapshots.version(dataset, 1).is_none(), "version 1 is not loaded yet");
    let owner: std::sync::Arc<str> = "a caller".into();
    let load = sitrep_platform::snapshot::QUERY_OWNER.scope(owner, app.snapshots.load_published(dataset, &older));
    // Cancelled at its first wait: the load has been handed to its own task.
    assert!(tokio::time::timeout(std::time::Duration::ZERO, load).await.is_err());
    let waited = std::time::Instant::now();
    while app.snapshots.version(dataset, 1).is_none() {
        assert!(waited.elapsed() < std::time::Duration::from_secs(30), "the abandoned load never finished");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// The past versions loaded on demand are shared fairly (issue 55): one caller loading version
/// after version of every dataset (as an `as_of` sweep does) evicts its own, never the version
/// another caller loaded, and what it evicted leaves the cache directory at once.
#[tokio::test]
async fn one_callers_past_versions_never_evict_another_callers() {
    let app = TestApp::start().await;
    let runner = changing_runner(app.lake.clone(), &normal()).await;
    for _ in 0..3 {
        runner.run(&DatasetId::ALL).await.unwrap();
        app.snapshots.refresh().await.unwrap();
    }
    let load = |owner: &'static str, dataset: DatasetId| {
        let snapshots = app.snapshots.clone();
        sitrep_platform::snapshot::QUERY_OWNER.scope(owner.into(), async move {
            let history = snapshots.history(dataset).await.unwrap();
            let first = history.iter().find(|v| v.version == 1).expect("version 1 is published").clone();
            snapshots.load_published(dataset, &first).await.unwrap()
        })
    };
    let quiet = load("acct:quiet", DatasetId::ARMED_EVENTS).await;
    let quiet_file = quiet.path().to_path_buf();
    drop(quiet);
    let serving_files = || std::fs::read_dir(quiet_file.parent().unwrap()).unwrap().count();
    let files_before = serving_files();
    // Every other dataset whose version 1 is a past version now (published, no longer kept loaded).
    let mut sweep = Vec::new();
    for dataset in DatasetId::ALL.into_iter().filter(|d| *d != DatasetId::ARMED_EVENTS) {
        let history = app.snapshots.history(dataset).await.unwrap();
        if history.iter().any(|v| v.version == 1) && app.snapshots.version(dataset, 1).is_none() {
            sweep.push(dataset);
        }
    }
    assert!(sweep.len() >= 10, "{sweep:?}");
    for dataset in &sweep {
        load("acct:sweep", *dataset).await;
    }
    let loaded = app.snapshots.loaded_on_demand();
    assert!(
        loaded
            .iter()
            .any(|(d, v, owner)| (*d, *v, owner.as_deref()) == (DatasetId::ARMED_EVENTS, 1, Some("acct:quiet"))),
        "{loaded:?}"
    );
    let swept = loaded.iter().filter(|(.., owner)| owner.as_deref() == Some("acct:sweep")).count();
    assert_eq!((loaded.len(), swept), (8, 7), "the sweeper has the rest of the room: {loaded:?}");
    assert!(quiet_file.exists());
    // The sweeper's first versions were evicted, and their serving files pruned at once.
    assert!(app.snapshots.version(sweep[0], 1).is_none());
    assert_eq!(serving_files(), files_before + swept);
}
