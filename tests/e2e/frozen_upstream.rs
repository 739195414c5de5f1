//! Frozen upstreams (issue 31): NOAA GML keeps answering the same files six days later, so the
//! fetches succeed while the newest daily mean stops advancing past co2-monitoring's 7 days. The
//! dataset is then stale for that reason on every surface, and no longer once content advances.

use serde_json::{json, Value};
use sitrep_schemas::{DatasetId, RunOutcome};
use sitrep_tests::{replay_runner, TestApp};

/// 2026-11-18T00:00Z, the newest valid daily mean of both scenarios.
const NEWEST_MEAN_MS: i64 = 1_794_960_000_000;

async fn health_of(app: &TestApp) -> (Value, Value, Value, String) {
    let (_, status) = app.json("/status?format=json").await;
    let row = status["datasets"].as_array().unwrap().iter().find(|d| d["dataset"] == "co2-monitoring").unwrap().clone();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "get_sources", "arguments": {"query": "co2"}}});
    let r =
        app.http.post(format!("{}/mcp", app.base)).header("content-type", "application/json").body(call.to_string());
    let sources: Value = r.send().await.unwrap().json().await.unwrap();
    let source = sources["result"]["structuredContent"]["sources"][0].clone();
    let (_, health) = app.json("/api/health").await;
    let metrics = app.metrics().await;
    (row, source, health["datasets"]["co2-monitoring"].clone(), metrics)
}

#[tokio::test]
async fn an_upstream_answering_the_same_content_past_its_allowance_is_stale_as_frozen_until_it_advances() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::CO2_MONITORING];
    let first = replay_runner(lake.clone(), &[("noaa-gml", "normal")]).await.run(&only).await.unwrap();
    let version = first.commit.dataset(DatasetId::CO2_MONITORING).unwrap().version;

    let later =
        replay_runner(lake.clone(), &[("noaa-gml", "normal"), ("noaa-gml", "frozen")]).await.run(&only).await.unwrap();
    let entry = later.commit.dataset(DatasetId::CO2_MONITORING).unwrap();
    assert_eq!(entry.last_run.as_ref().unwrap().outcome, RunOutcome::Unchanged, "the same content: no new version");
    assert_eq!(entry.version, version);
    assert_eq!(entry.freshness.fetched_at.unwrap().to_rfc3339(), "2026-11-26T06:00:00+00:00");
    assert_eq!(entry.freshness.content_at.unwrap().timestamp_millis(), NEWEST_MEAN_MS);
    assert_eq!(entry.freshness.content_changed_at.unwrap().to_rfc3339(), "2026-11-20T06:00:00+00:00");

    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    let r = app.get("/api/climate/v1/get-co2-monitoring").send().await.unwrap();
    assert_eq!(r.headers()["x-data-state"], "stale");
    let (row, source, health, metrics) = health_of(&app).await;
    let content_age = (chrono::Utc::now().timestamp_millis() - NEWEST_MEAN_MS) / 1000;
    assert_eq!((&row["state"], &row["staleReason"]), (&json!("stale"), &json!("frozen_upstream")), "{row}");
    assert_eq!(row["contentAt"], "2026-11-18T00:00:00Z");
    assert!((row["contentAgeSeconds"].as_i64().unwrap() - content_age).abs() <= 5, "{row}");
    assert_eq!(
        (&source["freshness"]["state"], &source["freshness"]["staleReason"]),
        (&json!("stale"), &json!("frozen_upstream"))
    );
    assert!((source["freshness"]["contentAgeSeconds"].as_i64().unwrap() - content_age).abs() <= 5, "{source}");
    assert_eq!(health["staleReason"], "frozen_upstream");
    assert!(metrics.contains("sitrep_dataset_frozen_upstream{dataset=\"co2-monitoring\"} 1"), "{metrics}");
    assert!(metrics.contains("sitrep_dataset_frozen_upstream{dataset=\"ocean-ice\"} 0"));
    let age_line = metrics
        .lines()
        .find(|l| l.starts_with("sitrep_dataset_content_age_seconds{dataset=\"co2-monitoring\"}"))
        .unwrap();
    let age: i64 = age_line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!((age - content_age).abs() <= 5, "{age_line}");
    let page = app.get("/status").send().await.unwrap().text().await.unwrap();
    assert!(page.contains("stale (frozen upstream)"), "the status page says why");

    // The upstream's answer judged at its own time again: two days old, not frozen; still stale,
    // since that fetch is days behind the clock.
    replay_runner(lake.clone(), &[("noaa-gml", "normal")]).await.run(&only).await.unwrap();
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake).await;
    let (row, source, _, metrics) = health_of(&app).await;
    assert_eq!((&row["state"], &row["staleReason"]), (&json!("stale"), &json!("overdue")), "{row}");
    assert_eq!(source["freshness"]["staleReason"], "overdue");
    assert!(metrics.contains("sitrep_dataset_frozen_upstream{dataset=\"co2-monitoring\"} 0"));
}
