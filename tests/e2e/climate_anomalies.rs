//! ListClimateAnomalies end to end (SUPPLEMENT 2.2.1): Open-Meteo's archive replayed into
//! `climate-normals` and `climate-anomalies`, served as a paged list; the publish gate keeps the
//! previous version. Expected values are worked out by `data/fixtures/open-meteo/make_recordings.py`
//! (every normal is exactly its designed N; the last 7 valid days hit designed deltas).

use serde_json::{json, Value};
use sitrep_schemas::DatasetId;
use sitrep_tests::{replay_runner, TestApp};

const ANOMALIES: &str = "/api/climate/v1/list-climate-anomalies";

#[tokio::test]
async fn anomalies_of_24_zones_classified_in_zone_order() {
    let app = TestApp::start().await;
    let r = app.get(ANOMALIES).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("x-snapshot-generation"));
    let body: Value = r.json().await.unwrap();
    let anomalies = body["anomalies"].as_array().unwrap();
    assert_eq!(body["pagination"], json!({"nextCursor": "", "totalCount": 24}));
    let zones: Vec<&str> = anomalies.iter().map(|a| a["zone"].as_str().unwrap()).collect();
    assert_eq!(zones.len(), 24);
    assert_eq!(&zones[..3], ["Ukraine", "Europe", "East Asia"]);
    assert!(!zones.contains(&"Myanmar"), "6 valid days of 21: skipped");
    assert_eq!(zones[23], "North Atlantic", "the single-object answer of the fourth call");
    let zone = |name: &str| anomalies.iter().find(|a| a["zone"] == name).unwrap_or_else(|| panic!("{name}"));
    let facts = |name: &str| {
        let a = zone(name);
        (a["tempDelta"].as_f64().unwrap(), a["precipDelta"].as_f64().unwrap(), a["severity"].clone(), a["type"].clone())
    };
    let ukraine = zone("Ukraine");
    assert_eq!(ukraine["location"], json!({"latitude": 48.4, "longitude": 31.2}));
    assert_eq!(ukraine["period"], "2026-11-08 to 2026-11-15", "the null 12th is skipped: 7 valid days back to the 8th");
    for (name, t, p, severity, kind) in [
        ("Ukraine", 5.2, 1.0, "EXTREME", "WARM"),
        ("Europe", 1.0, -7.0, "MODERATE", "DRY"),
        ("East Asia", 2.0, -4.0, "NORMAL", "MIXED"),
        ("Middle East", -3.5, 0.5, "MODERATE", "COLD"),
        ("Sahel", 0.5, 12.5, "EXTREME", "WET"),
        ("Horn of Africa", -1.0, 0.0, "NORMAL", "COLD"),
        ("South Asia", 3.0, 0.0, "MODERATE", "WARM"),
        ("California", 4.9, 5.9, "MODERATE", "WARM"),
        ("Amazon", 0.2, -0.3, "NORMAL", "WARM"),
        ("Australia", -5.0, 0.0, "EXTREME", "COLD"),
        ("Mediterranean", 5.0, 0.4, "EXTREME", "WARM"),
        ("Greenland", -1.8, 0.1, "NORMAL", "COLD"),
    ] {
        assert_eq!(
            facts(name),
            (t, p, json!(format!("ANOMALY_SEVERITY_{severity}")), json!(format!("ANOMALY_TYPE_{kind}"))),
            "{name}"
        );
    }
    assert_eq!(zone("Amazon")["period"], "2026-11-09 to 2026-11-15", "trailing nulls (archive lag) skipped");
    insta::assert_json_snapshot!("list_climate_anomalies_first3", anomalies[..3]);

    // `min_severity` is accepted and ignored whatever its value (SUPPLEMENT 1.2): the same answer.
    let (_, unfiltered) = app.json(ANOMALIES).await;
    for value in ["ANOMALY_SEVERITY_EXTREME", "WHATEVER", "7", ""] {
        let (status, body) = app.json(&format!("{ANOMALIES}?min_severity={value}")).await;
        assert_eq!(status, 200, "min_severity={value}");
        assert_eq!(body, unfiltered, "min_severity={value} changes nothing");
    }
}

#[tokio::test]
async fn pages_of_ten_cover_every_zone_once() {
    let app = TestApp::start().await;
    let mut seen = Vec::new();
    let mut url = format!("{ANOMALIES}?page_size=10");
    loop {
        let (status, body) = app.json(&url).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["pagination"]["totalCount"], 24);
        seen.extend(body["anomalies"].as_array().unwrap().iter().map(|a| a["zone"].as_str().unwrap().to_string()));
        let next = body["pagination"]["nextCursor"].as_str().unwrap();
        if next.is_empty() {
            break;
        }
        url = format!("{ANOMALIES}?page_size=10&cursor={next}");
    }
    assert_eq!(seen.len(), 24);
    let (_, whole) = app.json(ANOMALIES).await;
    let order: Vec<String> =
        whole["anomalies"].as_array().unwrap().iter().map(|a| a["zone"].as_str().unwrap().to_string()).collect();
    assert_eq!(seen, order);
}

#[tokio::test]
async fn unavailable_then_the_gate_and_failures_keep_the_previous_version() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    let r = app.get(ANOMALIES).send().await.unwrap();
    assert_eq!(r.headers()["x-data-state"], "unavailable");
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"anomalies": [], "pagination": {"nextCursor": "", "totalCount": 0}})
    );

    let only = [DatasetId::CLIMATE_ANOMALIES];
    // The normals fail: the anomalies have no baseline and fail too; nothing is published.
    let report = replay_runner(lake.clone(), &[("open-meteo", "normal"), ("open-meteo", "empty")])
        .await
        .run(&only)
        .await
        .unwrap();
    let names: Vec<DatasetId> = report.datasets.iter().map(|d| d.dataset).collect();
    assert_eq!(
        names,
        [DatasetId::CLIMATE_NORMALS, DatasetId::CLIMATE_ANOMALIES],
        "never-published normals join the run first"
    );
    assert!(report.datasets.iter().all(|d| !d.ok), "{:?}", report.datasets);
    assert!(report.datasets[0].error.as_deref().unwrap().contains("400"), "{:?}", report.datasets[0]);
    assert!(report.datasets[1].error.as_deref().unwrap().contains("climate-normals has no version"));

    let report = replay_runner(lake.clone(), &[("open-meteo", "normal")]).await.run(&only).await.unwrap();
    assert!(report.datasets.iter().all(|d| d.ok), "{:?}", report.datasets);
    assert_eq!((report.datasets[0].rows, report.datasets[1].rows), (25 * 12, 24));
    let published = lake.latest_commit().await.unwrap().dataset(DatasetId::CLIMATE_ANOMALIES).unwrap().version;

    for (scenario, why) in [
        ("gate-too-few", "16 zones computed"),
        ("gate-required-missing", "required zones missing: [North Atlantic]"),
        ("rate-limited", "429"),
    ] {
        let runner = replay_runner(lake.clone(), &[("open-meteo", "normal"), ("open-meteo", scenario)]).await;
        let started = std::time::Instant::now();
        let report = runner.run(&only).await.unwrap();
        if scenario == "rate-limited" {
            // Two retries, each waiting for `Retry-After` (1 s, capped at 50 ms by the test policy).
            assert!(started.elapsed() >= std::time::Duration::from_millis(100), "{:?}", started.elapsed());
        }
        assert_eq!(report.datasets.len(), 1, "the normals have a version now: they stay out of the run");
        let error = report.datasets[0].error.as_deref().unwrap_or("");
        assert!(!report.datasets[0].ok && error.contains(why), "{scenario}: {error}");
        let entry = lake.latest_commit().await.unwrap();
        assert_eq!(entry.dataset(DatasetId::CLIMATE_ANOMALIES).unwrap().version, published, "{scenario}");
    }
    let app = TestApp::serve(dir, lake).await;
    let (_, body) = app.json(ANOMALIES).await;
    assert_eq!(body["pagination"]["totalCount"], 24, "the previous version keeps serving");
}
