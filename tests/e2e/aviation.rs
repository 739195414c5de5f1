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

const NEWS: &str = "/api/aviation/v1/list-aviation-news";

#[tokio::test]
async fn aviation_news_from_the_dataset_and_live_for_entities() {
    let app = TestApp::start().await;
    let r = app.get(NEWS).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("x-snapshot-generation"), "answered from the dataset");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["source"], "rss");
    assert_eq!(body["updatedAt"], 1_795_154_400_000i64, "the window ends at the version's as-of");
    insta::assert_json_snapshot!("list_aviation_news", body);
    let titles: Vec<&str> = body["items"].as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(titles.len(), 9, "{titles:?}");
    assert_eq!(titles[0], "Undated: a look at ATR's order book", "undated items carry the fetch time");
    assert_eq!(titles[1], "Lufthansa Group trims winter schedule at FRA");
    assert!(!titles.iter().any(|t| t.contains("Embraer") || t.contains("Review:")), "outside the window");
    let jfk: Vec<&Value> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["url"] == "https://www.flightglobal.com/safety/faa-ground-stop-jfk/160205.article")
        .collect();
    assert_eq!(jfk.len(), 1, "one item per link");
    let a350 = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["title"] == "Turkish Airlines & Airbus agree A350 deal")
        .unwrap();
    assert_eq!(a350["imageUrl"], "https://www.flightglobal.com/img/a350.jpg");
    assert_eq!(
        a350["snippet"],
        "Turkish Airlines (TK) has agreed to take 10 more A350-1000s for IST long-haul growth."
    );
    assert_eq!(a350["sourceName"], "FlightGlobal");
    assert_eq!(a350["id"].as_str().unwrap().len(), 32);
    // Entities, with a dataset older than 15 minutes: the feeds are read live.
    let r = app.get(&format!("{NEWS}?entities=tk&entities=LHR&max_items=5")).send().await.unwrap();
    assert!(r.headers().get("x-snapshot-generation").is_none(), "a live answer");
    let body: Value = r.json().await.unwrap();
    let matched: Vec<(&str, Value)> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["title"].as_str().unwrap(), i["matchedEntities"].clone()))
        .collect();
    assert_eq!(
        matched,
        [
            ("Turkish Airlines & Airbus agree A350 deal", json!(["TK"])),
            ("Emirates adds fifth daily LHR frequency", json!(["LHR"])),
            ("Ground handling contract renewed at LHR", json!(["LHR"])),
        ]
    );
    // Parameters.
    let many: String = (0..11).map(|i| format!("entities=E{i}&")).collect();
    let (status, body) = app.json(&format!("{NEWS}?{many}window_hours=500")).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["violations"],
        json!([
            {"field": "entities", "description": "array must contain at most 10 item(s)"},
            {"field": "windowHours", "description": "number must be less than or equal to 168"},
        ])
    );
    let (_, two) = app.json(&format!("{NEWS}?max_items=2&window_hours=168")).await;
    assert_eq!(two["items"].as_array().unwrap().len(), 2);
}
