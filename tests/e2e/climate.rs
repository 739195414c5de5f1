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

const AIR: &str = "/api/climate/v1/list-air-quality-data";

#[tokio::test]
async fn air_quality_over_two_pages_of_each_endpoint() {
    let app = TestApp::start().await;
    let (status, body) = app.json(AIR).await;
    assert_eq!(status, 200);
    assert_eq!(body["fetchedAt"], 1_795_154_400_000i64, "the ingest (recording) time");
    let stations = body["stations"].as_array().unwrap();
    // 120 fresh locations (two pages of latest values, joined over two pages of locations) plus
    // 1135's; the stale (1120–1129) and future (1130–1133) readings and the unknown location drop out.
    assert_eq!(stations.len(), 122, "1134's reading 3 minutes ahead is kept");
    let aqis: Vec<i64> = stations.iter().map(|s| s["aqi"].as_i64().unwrap()).collect();
    assert!(aqis.windows(2).all(|w| w[0] >= w[1]), "AQI descending");
    assert_eq!(aqis[0], 500, "520 µg/m³ clamps to 500");
    assert!(stations.iter().all(|s| {
        let aqi = s["aqi"].as_i64().unwrap();
        s["riskLevel"]
            == if aqi <= 50 {
                "good"
            } else if aqi <= 100 {
                "moderate"
            } else if aqi <= 300 {
                "unhealthy"
            } else {
                "hazardous"
            }
    }));
    let station = |city: &str| stations.iter().find(|s| s["city"] == city).unwrap_or_else(|| panic!("{city}"));
    assert_eq!(station("Lagos station 7")["countryCode"], "NG", "no locality: the name");
    assert_eq!(station("ID")["countryCode"], "ID", "no locality, no name: the country code");
    let delhi = stations.iter().find(|s| s["pm25"] == 31.0).unwrap();
    assert_eq!(
        (delhi["aqi"].as_i64(), delhi["city"].as_str()),
        (Some(91), Some("Delhi")),
        "the freshest, the higher on a tie"
    );
    insta::assert_json_snapshot!("list_air_quality_data_top3", stations[..3]);
}

#[tokio::test]
async fn air_quality_unavailable_empty_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::AIR_QUALITY];
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    assert_eq!(app.json(AIR).await.1, json!({"stations": [], "fetchedAt": 0}));
    let report = replay_runner(lake.clone(), &[("openaq", "empty")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "no stations is a legitimate, empty version");
    let report = replay_runner(lake.clone(), &[("openaq", "normal"), ("openaq", "unauthorized")])
        .await
        .run(&only)
        .await
        .unwrap();
    assert!(report.datasets[0].error.as_deref().unwrap_or("").contains("401"), "{report:?}");
    let app = TestApp::serve(dir, lake).await;
    let (_, body) = app.json(AIR).await;
    assert_eq!(
        (body["stations"].as_array().map(Vec::len), body["fetchedAt"].as_i64()),
        (Some(0), Some(1_795_154_400_000))
    );
}

const NEWS: &str = "/api/climate/v1/list-climate-news";

#[tokio::test]
async fn climate_news_from_the_feeds_and_reliefweb() {
    let app = TestApp::start().await;
    let (status, body) = app.json(NEWS).await;
    assert_eq!(status, 200);
    assert_eq!((body["dataAvailable"].as_bool(), body["fetchedAt"].as_i64()), (Some(true), Some(1_795_154_400_000)));
    let items = body["items"].as_array().unwrap();
    let titles: Vec<&str> = items.iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(titles.len(), 10, "{titles:?}");
    assert!(
        !titles.iter().any(|t| t.starts_with("Undated") || *t == "Broken"),
        "undated items and the invalid feed drop out"
    );
    let times: Vec<i64> = items.iter().map(|i| i["publishedAt"].as_i64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
    let coal: Vec<&Value> =
        items.iter().filter(|i| i["title"].as_str().unwrap().starts_with("Analysis: Global coal")).collect();
    assert_eq!(coal.len(), 1, "one item per URL");
    assert_eq!(coal[0]["sourceName"], "The Guardian Environment", "the newer of the two");
    let relief = items.iter().find(|i| i["sourceName"] == "ReliefWeb Disasters").unwrap();
    assert_eq!(relief["summary"], "");
    assert!(relief["url"].as_str().unwrap().starts_with("https://reliefweb.int/report/"));
    let long = items.iter().find(|i| i["sourceName"] == "Inside Climate News").unwrap();
    assert_eq!(long["summary"].as_str().unwrap().chars().count(), 300, "content:encoded, plain, cut to 300");
    let unep = items.iter().find(|i| i["sourceName"] == "UNEP").unwrap();
    assert_eq!(unep["publishedAt"], 1_794_823_200_000i64, "dc:date 2026-11-16T10:00Z");
    insta::assert_json_snapshot!("list_climate_news", body);
}

#[tokio::test]
async fn climate_news_before_any_and_when_every_source_fails() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    assert_eq!(app.json(NEWS).await.1, json!({"items": [], "fetchedAt": 0, "dataAvailable": false}));
    let report = replay_runner(lake, &[("climate-news", "down")]).await.run(&[DatasetId::CLIMATE_NEWS]).await.unwrap();
    assert!(!report.datasets[0].ok, "every feed and ReliefWeb failed: nothing is published");
}

const OCEAN: &str = "/api/climate/v1/get-ocean-ice-data";

#[tokio::test]
async fn ocean_and_ice_from_four_sources() {
    let app = TestApp::start().await;
    let (status, body) = app.json(OCEAN).await;
    assert_eq!(status, 200);
    let d = &body["data"];
    assert_eq!(d["arcticTrend"], "record_low", "below every earlier 18 November (three years)");
    let (extent, anomaly) = (d["arcticExtentMkm2"].as_f64().unwrap(), d["arcticExtentAnomalyMkm2"].as_f64().unwrap());
    assert!((7.0..8.0).contains(&extent) && (-1.0..-0.8).contains(&anomaly), "{extent} {anomaly}");
    assert_eq!((d["seaLevelMmAbove1993"].as_f64(), d["seaLevelAnnualRiseMm"].as_f64()), (Some(111.6), Some(4.4)));
    assert_eq!(d["ohc0700mZj"], 293.0, "2025's WO of 29.3 × 10");
    assert_eq!(d["sstAnomalyC"], 0.873679, "October 2026 of the newest ocean file");
    assert_eq!(d["measuredAt"], 1_795_478_400_000i64 - 6 * 86_400_000, "the sea-ice day, 2026-11-18, is the latest");
    let months = d["iceTrend12m"].as_array().unwrap();
    assert_eq!((months.len(), months[11]["month"].as_str()), (12, Some("2026-11")));
    insta::assert_json_snapshot!("get_ocean_ice_data", body);
}

#[tokio::test]
async fn one_failed_source_keeps_its_previous_values_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::OCEAN_ICE];
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    assert_eq!(app.json(OCEAN).await.1, json!({}));
    replay_runner(lake.clone(), &[("ocean-ice", "normal")]).await.run(&only).await.unwrap();
    let report = replay_runner(lake.clone(), &[("ocean-ice", "normal"), ("ocean-ice", "nasa-down")])
        .await
        .run(&only)
        .await
        .unwrap();
    assert!(report.datasets[0].ok);
    let commit = lake.latest_commit().await.unwrap();
    let error = commit.dataset(DatasetId::OCEAN_ICE).unwrap().freshness.last_error.clone().unwrap_or_default();
    assert_eq!(error, "kept from the previous version: nasa-sea-level: HTTP 503");
    let report = replay_runner(lake.clone(), &[("ocean-ice", "down")]).await.run(&only).await.unwrap();
    assert!(!report.datasets[0].ok, "every source failed");
    let app = TestApp::serve(dir, lake).await;
    let (_, body) = app.json(OCEAN).await;
    assert_eq!(body["data"]["seaLevelMmAbove1993"], 111.6, "NASA's value from the first run");
}
