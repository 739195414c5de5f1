//! The Aviation group end to end: the adsb.lol connector over recorded squawk pages, the lake,
//! and ListAircraftEmergencies as SUPPLEMENT 2.1.1 says, including partial and failed runs.

use serde_json::{json, Value};
use sitrep_schemas::DatasetId;
use sitrep_tests::{replay_runner, TestApp};

const EMERGENCIES: &str = "/api/aviation/v1/list-aircraft-emergencies";

#[tokio::test]
async fn emergencies_from_the_three_squawk_feeds() {
    let app = TestApp::start().await;
    let r = app.get(EMERGENCIES).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-data-mode"], "replay");
    let body: Value = r.json().await.unwrap();
    let feeds: Vec<(&str, &str, &str)> = body["feeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["squawk"].as_str().unwrap(), f["status"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        feeds,
        [("7500", "available", "0 aircraft"), ("7600", "available", "1 aircraft"), ("7700", "available", "3 aircraft")]
    );
    let recorded_ms = 1_795_154_400_000i64; // the recordings' `now` and capture time, 2026-11-20T06:00:00Z
    assert!(body["feeds"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["fetchedAt"] == recorded_ms && f["source"] == "adsb.lol"));
    let obs = body["observations"].as_array().unwrap();
    let order: Vec<(&str, &str)> =
        obs.iter().map(|o| (o["squawk"].as_str().unwrap(), o["callsign"].as_str().unwrap())).collect();
    // Squawk ascending, then newest first.
    assert_eq!(order, [("7600", "RYR4RT"), ("7700", "BAW2KA"), ("7700", "RCH285"), ("7700", "N512TX")]);
    let cessna = &obs[3];
    assert_eq!(cessna["address"], "a3f2c1", "~ stripped, lower case");
    assert_eq!(cessna["description"], "C172", "no desc: the type code");
    assert_eq!(cessna["observedAt"], recorded_ms - 12_600);
    assert_eq!(cessna["militaryFlag"], "unknown");
    assert_eq!((obs[2]["address"].as_str(), obs[2]["militaryFlag"].as_str()), (Some("ae07e5"), Some("military")));
    let mut pinned = body.clone();
    pinned["feeds"].as_array_mut().unwrap().iter_mut().for_each(|f| f["fetchedAt"] = json!("<recorded>"));
    insta::assert_json_snapshot!("list_aircraft_emergencies", pinned);
    // jmespath, as on every GET.
    let (_, military) =
        app.json(&format!("{EMERGENCIES}?jmespath=observations[?militaryFlag=='military'].callsign")).await;
    assert_eq!(military, json!(["RCH285"]));
}

#[tokio::test]
async fn a_failed_feed_is_marked_and_a_dead_upstream_keeps_the_last_version() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::AIRCRAFT_EMERGENCIES];
    replay_runner(lake.clone(), &[("adsb", "partial")]).await.run(&only).await.unwrap();
    // Every feed down: the run fails and publishes nothing.
    let report = replay_runner(lake.clone(), &[("adsb", "down")]).await.run(&only).await.unwrap();
    assert!(format!("{report:?}").contains("http_status"), "{report:?}");
    let app = TestApp::serve(dir, lake).await;
    let (_, body) = app.json(EMERGENCIES).await;
    assert_eq!(
        body["feeds"][2],
        json!({"squawk": "7700", "source": "adsb.lol", "status": "unavailable", "message": "HTTP 503", "fetchedAt": 1_795_154_400_000i64})
    );
    assert_eq!(body["feeds"][1]["status"], "available");
    assert!(
        body["observations"].as_array().unwrap().iter().all(|o| o["squawk"] == "7600"),
        "a failed feed contributes no observations"
    );
}

#[tokio::test]
async fn before_the_first_publication() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let app = TestApp::serve(dir, lake).await;
    let r = app.get(EMERGENCIES).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-data-state"], "unavailable");
    assert_eq!(r.headers()["cache-control"], "no-store");
    let body: Value = r.json().await.unwrap();
    let unavailable = |s: &str| json!({"squawk": s, "source": "adsb.lol", "status": "unavailable", "message": "no data yet", "fetchedAt": 0});
    assert_eq!(
        body,
        json!({"feeds": [unavailable("7500"), unavailable("7600"), unavailable("7700")], "observations": []})
    );
}
