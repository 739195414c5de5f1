//! ListClimateDisasters end to end (SUPPLEMENT 2.2.2): ReliefWeb, NASA EONET and GDACS replayed
//! into `climate-disasters`, merged, placed by point-in-polygon, served as a paged list. The
//! expected rows are worked out by `data/fixtures/climate-disasters/make_recordings.py`'s author
//! from the recordings and 2.2.2's rules.

use serde_json::json;
use sitrep_pipelines::admin0::Admin0;
use sitrep_schemas::DatasetId;
use sitrep_tests::{replay_runner, TestApp};

const DISASTERS: &str = "/api/climate/v1/list-climate-disasters";

#[tokio::test]
async fn three_upstreams_merged_newest_first() {
    let app = TestApp::start().await;
    let (status, body) = app.json(DISASTERS).await;
    assert_eq!(status, 200);
    assert_eq!(body["pagination"], json!({"nextCursor": "", "totalCount": 20}));
    let rows = body["disasters"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "eonet-EONET_6531",
            "eonet-EONET_6529",
            "eonet-EONET_6534",
            "reliefweb-FL-2026-000134-IND",
            "gdacs-VO-1000069",
            "reliefweb-TC-2026-000131-PHL",
            "eonet-EONET_6521",
            "gdacs-TC-1001234",
            "reliefweb-52360",
            "eonet-EONET_6519",
            "reliefweb-HT-2026-000127-AUS",
            "gdacs-WF-1020345",
            "reliefweb-FL-2026-000123-BGD",
            "gdacs-FL-1103470",
            "gdacs-FL-1103456",
            "gdacs-FL-1103401",
            "eonet-EONET_6490",
            "eonet-EONET_6509",
            "gdacs-DR-1016802",
            "reliefweb-DR-2026-000098-SOM",
        ],
        "dropped: an epidemic, a past ReliefWeb row, Green and EQ features, an earthquake, a storm that is not \
         tropical, a wildfire 50 h old, GDACS's second episode, and EONET's Etna (GDACS wins on type, country, \
         name and day)"
    );
    let row = |id: &str| rows.iter().find(|d| d["id"] == id).unwrap_or_else(|| panic!("{id}"));

    let nalu = row("eonet-EONET_6521");
    assert_eq!(
        (nalu["lat"].as_f64(), nalu["lng"].as_f64(), nalu["countryCode"].as_str(), nalu["country"].as_str()),
        (Some(15.6), Some(121.0), Some("PH"), Some("Philippines")),
        "the newest point (listed before an older one), placed in Luzon"
    );
    assert_eq!(nalu["startedAt"], 1_794_852_000_000i64, "the first point's time");
    assert_eq!(nalu["type"], "cyclone");
    let sean = row("eonet-EONET_6534");
    assert_eq!((sean["country"].as_str(), sean["countryCode"].as_str()), (Some(""), Some("")), "at sea");
    let dixie = row("eonet-EONET_6531");
    assert_eq!((dixie["name"].as_str(), dixie["countryCode"].as_str()), (Some("Dixie Creek Fire"), Some("US")));
    assert_eq!(row("gdacs-DR-1016802")["name"], "Drought in Madagascar", "the leading ⚠️ goes");
    let etna = row("gdacs-VO-1000069");
    assert_eq!(
        (etna["severity"].as_str(), etna["status"].as_str(), etna["countryCode"].as_str(), etna["source"].as_str()),
        (Some("orange"), Some("alert"), Some("IT"), Some("GDACS"))
    );
    assert_eq!(row("gdacs-FL-1103456")["severity"], "red");
    assert_eq!(row("gdacs-FL-1103470")["severity"], "orange", "the first of the two episodes");
    assert_eq!(row("gdacs-FL-1103401")["status"], "past", "iscurrent false");
    assert_eq!(row("eonet-EONET_6490")["status"], "past", "closed");
    assert_eq!(
        (row("eonet-EONET_6519")["status"].as_str(), row("eonet-EONET_6519")["severity"].as_str()),
        (Some("ongoing"), Some("green"))
    );

    let bangladesh = row("reliefweb-FL-2026-000123-BGD");
    let label = Admin0::get().by_iso2("BD").unwrap().label;
    assert_eq!(
        (bangladesh["lng"].as_f64(), bangladesh["lat"].as_f64()),
        (Some(label.0), Some(label.1)),
        "ReliefWeb's country-level disasters sit at the country's label point"
    );
    assert_eq!(
        (bangladesh["severity"].as_str(), bangladesh["status"].as_str(), bangladesh["country"].as_str()),
        (Some("high"), Some("alert"), Some("Bangladesh"))
    );
    assert_eq!(row("reliefweb-HT-2026-000127-AUS")["severity"], "medium", "current → ongoing, medium");
    assert_eq!(row("reliefweb-FL-2026-000134-IND")["startedAt"], 1_795_002_300_000i64, "no date.event: date.created");
    assert_eq!(row("reliefweb-52360")["sourceUrl"], "https://reliefweb.int/disaster/usa-wildfires-nov-2026");
    assert!(rows.iter().all(|d| d["affectedPopulation"] == 0));
    insta::assert_json_snapshot!("list_climate_disasters_first3", rows[..3]);

    // Paging with dataset cursors: 8 + 8 + 4.
    let (_, first) = app.json(&format!("{DISASTERS}?page_size=8")).await;
    let cursor = first["pagination"]["nextCursor"].as_str().unwrap().to_string();
    let (_, second) = app.json(&format!("{DISASTERS}?page_size=8&cursor={cursor}")).await;
    assert_eq!(second["disasters"][0]["id"], ids[8]);
    let cursor = second["pagination"]["nextCursor"].as_str().unwrap().to_string();
    let (_, third) = app.json(&format!("{DISASTERS}?page_size=8&cursor={cursor}")).await;
    assert_eq!(third["disasters"].as_array().map(Vec::len), Some(4));
    assert_eq!(third["pagination"]["nextCursor"], "");
}

#[tokio::test]
async fn a_failed_upstream_keeps_its_previous_events_and_all_down_publishes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::CLIMATE_DISASTERS];
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    assert_eq!(
        app.json(DISASTERS).await.1,
        json!({"disasters": [], "pagination": {"nextCursor": "", "totalCount": 0}})
    );

    let report = replay_runner(lake.clone(), &[("climate-disasters", "down")]).await.run(&only).await.unwrap();
    assert!(!report.datasets[0].ok, "every upstream failed: nothing to publish");
    let report = replay_runner(lake.clone(), &[("climate-disasters", "empty")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok && report.datasets[0].rows == 0, "no disasters is a legitimate, empty version");
    replay_runner(lake.clone(), &[("climate-disasters", "normal")]).await.run(&only).await.unwrap();
    let report = replay_runner(lake.clone(), &[("climate-disasters", "gdacs-down")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    let entry = lake.latest_commit().await.unwrap();
    let entry = entry.dataset(DatasetId::CLIMATE_DISASTERS).unwrap();
    assert_eq!(entry.freshness.last_error.as_deref(), Some("GDACS: HTTP 503"), "the failed upstream is named");

    let app = TestApp::serve(dir, lake).await;
    let (_, body) = app.json(DISASTERS).await;
    let ids: Vec<&str> = body["disasters"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 20, "GDACS's events of the previous version are kept");
    assert!(ids.contains(&"gdacs-VO-1000069") && !ids.contains(&"eonet-EONET_6515"), "and still win the duplicate");
}
