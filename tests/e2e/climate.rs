//! The Climate group end to end (SUPPLEMENT 2.2): NOAA GML's text files replayed into
//! `co2-monitoring` and served by GetCo2Monitoring; a failed file keeps the last version.

use serde_json::{json, Value};
use sitrep_schemas::DatasetId;
use sitrep_tests::{replay_runner, TestApp};

const CO2: &str = "/api/climate/v1/get-co2-monitoring";

#[tokio::test]
async fn co2_monitoring_from_the_five_files() {
    let app = TestApp::start().await;
    let r = app.get(CO2).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("x-snapshot-generation"));
    let body: Value = r.json().await.unwrap();
    let m = &body["monitoring"];
    assert_eq!(m["currentPpm"], 427.67, "2026-11-18, the latest valid day (the 17th is a gap)");
    assert_eq!(m["measuredAt"], "1794960000000", "UTC midnight of 2026-11-18, as a string");
    assert_eq!(m["yearAgoPpm"], 425.45, "2025-11-18 is a gap: the closest day, the earlier one on a tie");
    assert_eq!(m["monthlyAverage"], 426.4, "no November mean yet: October's");
    assert_eq!((m["preIndustrialBaseline"].as_f64(), m["station"].as_str()), (Some(280.0), Some("Mauna Loa, Hawaii")));
    let trend = m["trend12m"].as_array().unwrap();
    assert_eq!(trend.len(), 12);
    assert_eq!((trend[0]["month"].as_str(), trend[11]["month"].as_str()), (Some("2025-11"), Some("2026-10")));
    let methane = m["methanePpb"].as_f64().unwrap();
    assert!((1900.0..2000.0).contains(&methane), "July 2026's global mean, the August gap skipped: {methane}");
    insta::assert_json_snapshot!("get_co2_monitoring", body);
}

#[tokio::test]
async fn a_failed_file_keeps_the_last_version_and_nothing_is_published_before() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::CO2_MONITORING];
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    let r = app.get(CO2).send().await.unwrap();
    assert_eq!(r.headers()["x-data-state"], "unavailable");
    assert_eq!(r.json::<Value>().await.unwrap(), json!({}), "no `monitoring` before the first publication");
    // A scenario directory holds only the files that differ from `normal`; later directories win.
    replay_runner(lake.clone(), &[("noaa-gml", "normal"), ("noaa-gml", "gap")]).await.run(&only).await.unwrap();
    let report =
        replay_runner(lake.clone(), &[("noaa-gml", "normal"), ("noaa-gml", "down")]).await.run(&only).await.unwrap();
    assert!(!report.datasets[0].ok, "the monthly file answered 503");
    let app = TestApp::serve(dir, lake).await;
    let (_, body) = app.json(CO2).await;
    assert_eq!(body["monitoring"]["measuredAt"], "1794268800000", "the gap scenario's version: 2026-11-10");
}
