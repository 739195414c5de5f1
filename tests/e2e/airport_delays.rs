//! `airport-delays` end to end (SUPPLEMENT 2.1.2, 2.1.3): FAA NAS Status, AviationStack's 56 hubs
//! and ICAO NOTAM replayed, merged by the real pipeline, served by ListAirportDelays (paged with
//! dataset cursors) and GetAirportOpsSummary; components kept or reused as the spec says; the
//! monthly budget counted durably in the state store.

use std::{collections::HashSet, sync::Arc};

use serde_json::{json, Value};
use sitrep_pipelines::budget::{cycle_start, AviationStackBudget, MemoryBudget, StoreBudget};
use sitrep_platform::state::StateStore;
use sitrep_schemas::DatasetId;
use sitrep_tests::{replay_runner_with_budget, TestApp};

const DELAYS: &str = "/api/aviation/v1/list-airport-delays";
const SUMMARY: &str = "/api/aviation/v1/get-airport-ops-summary";
const ONLY: [DatasetId; 1] = [DatasetId::AIRPORT_DELAYS];
const NORMAL: [(&str, &str); 3] = [("faa", "normal"), ("aviationstack", "normal"), ("icao-notam", "normal")];
const RECORDED_MS: i64 = 1_795_154_400_000; // 2026-11-20T06:00:00Z

fn cycle() -> String {
    cycle_start("2026-11-20T06:00:00Z".parse().unwrap(), 1)
}

/// The `component` rows of the lake's current version: (name, status, message).
async fn components(lake: &sitrep_ingest::Lake) -> Vec<(String, String, String)> {
    let commit = lake.latest_commit().await.unwrap();
    let batch = lake.read_rows(DatasetId::AIRPORT_DELAYS, commit.dataset(DatasetId::AIRPORT_DELAYS).unwrap()).await;
    let batch = batch.unwrap().unwrap();
    let col = |name: &str| {
        let c = batch.column_by_name(name).unwrap();
        arrow::array::AsArray::as_string::<i32>(c.as_ref()).clone()
    };
    let (kind, component, status, message) = (col("row_kind"), col("component"), col("status"), col("message"));
    (0..batch.num_rows())
        .filter(|&i| kind.value(i) == "component")
        .map(|i| (component.value(i).to_string(), status.value(i).to_string(), message.value(i).to_string()))
        .collect()
}

fn alert<'a>(alerts: &'a [Value], iata: &str) -> &'a Value {
    alerts.iter().find(|a| a["iata"] == iata).unwrap_or_else(|| panic!("no alert for {iata}"))
}

async fn all_alerts(app: &TestApp) -> Vec<Value> {
    let mut alerts = Vec::new();
    let mut next = String::new();
    loop {
        let (status, page) = app.json(&format!("{DELAYS}?page_size=40&cursor={next}")).await;
        assert_eq!(status, 200, "{page}");
        alerts.extend(page["alerts"].as_array().unwrap().iter().cloned());
        next = page["pagination"]["nextCursor"].as_str().unwrap().to_string();
        assert_eq!(page["pagination"]["totalCount"], 115);
        if next.is_empty() {
            return alerts;
        }
    }
}

#[tokio::test]
async fn the_three_components_merged_and_paged() {
    let app = TestApp::start().await;
    let alerts = all_alerts(&app).await;
    assert_eq!(alerts.len(), 115, "one alert per registry airport over three pages");
    assert_eq!(alerts.iter().map(|a| a["id"].as_str().unwrap()).collect::<HashSet<_>>().len(), 115);
    let ids: Vec<&str> = alerts.iter().take(21).map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            // FAA in registry order (TEB, outside the registry, is dropped).
            "faa-ORD",
            "faa-ATL",
            "faa-DFW",
            "faa-SFO",
            "faa-BOS",
            "faa-EWR",
            "faa-LAS",
            // Hubs in registry order; IST and TLV replaced in place by their NOTAMs.
            "avstack-LHR",
            "avstack-CDG",
            "avstack-FRA",
            "notam-IST",
            "avstack-DXB",
            "avstack-DOH",
            "notam-TLV",
            "avstack-AMM",
            // NOTAM-only airports appended in registry order (OJAM's NOTAM expired; EGLL's
            // taxiway closure is neither).
            "notam-CAI",
            "notam-IKA",
            "notam-BGW",
            "notam-BEY",
            "notam-DAM",
            "notam-SAH",
        ]
    );
    let ewr = alert(&alerts, "EWR");
    assert_eq!(
        (&ewr["delayType"], &ewr["severity"], &ewr["avgDelayMinutes"]),
        (&json!("FLIGHT_DELAY_TYPE_GROUND_STOP"), &json!("FLIGHT_DELAY_SEVERITY_MAJOR"), &json!(60)),
        "a ground stop is never downgraded by EWR's ground delay and arrival delay"
    );
    assert_eq!(alert(&alerts, "SFO")["avgDelayMinutes"], 107, "\"1 hour and 47 minutes\"");
    assert_eq!(alert(&alerts, "BOS")["avgDelayMinutes"], 30, "unparseable Avg → the list's default");
    let las = alert(&alerts, "LAS");
    assert_eq!(
        (las["severity"].as_str(), las["delayType"].as_str()),
        (Some("FLIGHT_DELAY_SEVERITY_SEVERE"), Some("FLIGHT_DELAY_TYPE_CLOSURE"))
    );
    let reason = las["reason"].as_str().unwrap();
    assert_eq!((reason.chars().count(), reason.ends_with('…')), (200, true), "long reasons cut to 199 + …");
    let tlv = alert(&alerts, "TLV");
    assert_eq!(tlv["reason"], "NOTAM: AIRSPACE CLOSED FOR CIVIL TFC EXC FLT AUTH BY CAAI — 85% cxl");
    assert_eq!((tlv["totalFlights"].as_i64(), tlv["cancelledFlights"].as_i64()), (Some(20), Some(17)), "counts kept");
    assert_eq!(tlv["source"], "FLIGHT_DELAY_SOURCE_NOTAM");
    assert_eq!(alert(&alerts, "IKA")["reason"], "Airport closure (NOTAM)", "an empty NOTAM text");
    let cai = alert(&alerts, "CAI");
    assert_eq!(
        (cai["severity"].as_str(), cai["reason"].as_str()),
        (Some("FLIGHT_DELAY_SEVERITY_MAJOR"), Some("Airspace restriction (NOTAM)")),
        "a restriction by Q-code (RA + RT) without text"
    );
    assert_eq!(alert(&alerts, "DAM")["delayType"], "FLIGHT_DELAY_TYPE_CLOSURE", "a closure by text alone (AD CLSD)");
    let muc = alert(&alerts, "MUC");
    assert_eq!((muc["id"].as_str(), muc["reason"].as_str()), (Some("status-MUC"), Some("Normal operations")));
    for (iata, why) in [("CTU", "error body"), ("LOS", "HTTP 503"), ("URC", "zero rows"), ("LIM", "no coverage")] {
        let a = alert(&alerts, iata);
        assert_eq!(a["id"], format!("unknown-{iata}"), "{why}");
        assert_eq!(a["severity"], "FLIGHT_DELAY_SEVERITY_UNKNOWN", "{why}");
        assert_eq!(a["source"], "FLIGHT_DELAY_SOURCE_UNSPECIFIED", "{why}");
    }
    assert!(alerts.iter().all(|a| a["updatedAt"] == RECORDED_MS));
    let (_, first) = app.json(&format!("{DELAYS}?page_size=3&region=AIRPORT_REGION_APAC&min_severity=WHATEVER")).await;
    assert_eq!(first["alerts"][0]["id"], "faa-ORD", "region and min_severity are accepted and ignored");
    let mut pinned = first.clone();
    pinned["pagination"]["nextCursor"] = json!("<cursor>");
    insta::assert_json_snapshot!("list_airport_delays", pinned);
}

#[tokio::test]
async fn ops_summaries_per_airport() {
    let app = TestApp::start().await;
    let (status, body) = app.json(SUMMARY).await;
    assert_eq!(status, 200);
    assert_eq!(body["cacheHit"], true);
    let codes: Vec<&str> = body["summaries"].as_array().unwrap().iter().map(|s| s["iata"].as_str().unwrap()).collect();
    assert_eq!(codes, ["IST", "ESB", "SAW", "LHR", "FRA", "CDG"], "the default watch list");
    insta::assert_json_snapshot!("get_airport_ops_summary", body);
    let (_, body) =
        app.json(&format!("{SUMMARY}?airports=tlv&airports=TLV&airports=bey&airports=xyz&airports=ctu")).await;
    let s = body["summaries"].as_array().unwrap();
    assert_eq!(s.len(), 4, "duplicates removed after upper-casing");
    assert_eq!(s[0]["closureStatus"], true);
    assert_eq!(s[0]["notamFlags"], json!(["CLOSED", "NOTAM"]));
    assert_eq!(
        (s[0]["cancellationRate"].as_f64(), s[0]["severity"].as_str()),
        (Some(85.0), Some("FLIGHT_DELAY_SEVERITY_SEVERE"))
    );
    assert_eq!(
        (s[1]["severity"].as_str(), s[1]["source"].as_str()),
        (Some("FLIGHT_DELAY_SEVERITY_SEVERE"), Some("degraded")),
        "closed, no traffic"
    );
    assert_eq!(
        s[2],
        json!({"iata": "XYZ", "icao": "", "name": "XYZ", "timezone": "UTC", "delayPct": 0.0, "avgDelayMinutes": 0,
               "cancellationRate": 0.0, "totalFlights": 0, "closureStatus": false, "notamFlags": [],
               "severity": "FLIGHT_DELAY_SEVERITY_NORMAL", "topDelayReasons": [], "source": "unknown", "updatedAt": 0})
    );
    assert_eq!(
        (s[3]["severity"].as_str(), s[3]["source"].as_str()),
        (Some("FLIGHT_DELAY_SEVERITY_UNKNOWN"), Some("degraded"))
    );
    let many: String = (0..21).map(|i| format!("airports=A{i:02}&")).collect();
    let (status, body) = app.json(&format!("{SUMMARY}?{many}")).await;
    assert_eq!(status, 400);
    assert_eq!(body["violations"][0]["description"], "array must contain at most 20 item(s)");
}

#[tokio::test]
async fn failed_components_keep_what_the_spec_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let budget = Arc::new(MemoryBudget::default());
    let run = |scenarios: Vec<(&'static str, &'static str)>| {
        let (lake, budget) = (lake.clone(), budget.clone());
        async move {
            let runner = replay_runner_with_budget(lake, &scenarios, budget, AviationStackBudget::default()).await;
            runner.run(&ONLY).await.unwrap()
        }
    };
    run(NORMAL.to_vec()).await;
    assert_eq!(budget.used("aviationstack", &cycle()), 56, "one unit per hub call");
    // Half an hour later: FAA down, ICAO over quota, the hub component younger than an hour.
    let report = run(vec![("faa", "down"), ("aviationstack", "normal"), ("icao-notam", "quota")]).await;
    assert!(report.datasets[0].ok, "{report:?}");
    assert_eq!(budget.used("aviationstack", &cycle()), 56, "the hubs were not asked again");
    let states = components(&lake).await;
    assert_eq!(states[0], ("faa".into(), "failed".into(), "HTTP 503".into()));
    assert_eq!(
        states[1],
        ("aviationstack".into(), "ok".into(), "52 of 56 hubs answered".into()),
        "the 06:00 component, carried as it was while younger than an hour"
    );
    assert_eq!((states[2].0.as_str(), states[2].1.as_str()), ("notam", "reused"));
    let app = TestApp::serve(dir, lake).await;
    let alerts = all_alerts(&app).await;
    let jfk = alert(&alerts, "JFK");
    assert_eq!(
        (jfk["id"].as_str(), jfk["severity"].as_str()),
        (Some("unknown-JFK"), Some("FLIGHT_DELAY_SEVERITY_UNKNOWN"))
    );
    assert!(alerts.iter().all(|a| !a["id"].as_str().unwrap().starts_with("faa-")));
    let tlv = alert(&alerts, "TLV");
    assert_eq!(
        (tlv["id"].as_str(), tlv["updatedAt"].as_i64()),
        (Some("notam-TLV"), Some(RECORDED_MS)),
        "both kept from 06:00"
    );
    let (_, summary) = app.json(&format!("{SUMMARY}?airports=JFK&airports=LHR")).await;
    assert_eq!(summary["summaries"][0]["source"], "degraded");
    assert_eq!(summary["summaries"][1]["source"], "aviationstack");
}

#[tokio::test]
async fn a_quiet_faa_and_an_html_notam_answer() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let store = Arc::new(MemoryBudget::default());
    replay_runner_with_budget(lake.clone(), &NORMAL, store.clone(), AviationStackBudget::default())
        .await
        .run(&ONLY)
        .await
        .unwrap();
    let quiet = [("faa", "empty"), ("aviationstack", "normal"), ("icao-notam", "html")];
    replay_runner_with_budget(lake.clone(), &quiet, store, AviationStackBudget::default())
        .await
        .run(&ONLY)
        .await
        .unwrap();
    let states = components(&lake).await;
    assert_eq!(states[0], ("faa".into(), "ok".into(), "0 airports with delays".into()));
    assert_eq!((states[2].1.as_str(), states[2].2.as_str()), ("reused", "HTML answer"), "an HTML page is a failure");
    let app = TestApp::serve(dir, lake).await;
    let alerts = all_alerts(&app).await;
    let jfk = alert(&alerts, "JFK");
    assert_eq!((jfk["id"].as_str(), jfk["reason"].as_str()), (Some("status-JFK"), Some("Normal operations")));
    assert_eq!(alerts.iter().filter(|a| a["source"] == "FLIGHT_DELAY_SOURCE_FAA").count(), 14, "14 US fillers");
    assert_eq!(alert(&alerts, "BEY")["id"], "notam-BEY", "the previous NOTAMs are kept");
}

#[tokio::test]
async fn the_monthly_budget_is_durable_and_stops_the_hub_calls() {
    let dir = tempfile::tempdir().unwrap();
    let url = sitrep_tests::fresh_state_url(Some(dir.path())).await;
    drop(StateStore::open(&url).await.unwrap()); // the server creates and migrates the store
    let budget = AviationStackBudget { monthly: 60, ..Default::default() };
    let first = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(first.path().to_str().unwrap()).unwrap();
    let store = Arc::new(StoreBudget::open(&url).await.unwrap());
    replay_runner_with_budget(lake, &NORMAL, store, budget.clone()).await.run(&ONLY).await.unwrap();
    // A new process (new connection, new lake with nothing to reuse): 4 units are left of 60.
    let second = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(second.path().to_str().unwrap()).unwrap();
    let store = Arc::new(StoreBudget::open(&url).await.unwrap());
    replay_runner_with_budget(lake.clone(), &NORMAL, store, budget).await.run(&ONLY).await.unwrap();
    let states = components(&lake).await;
    assert_eq!((states[1].0.as_str(), states[1].1.as_str()), ("aviationstack", "failed"));
    assert!(states[1].2.contains("budget"), "{:?}", states[1]);
    let used = StateStore::open(&url).await.unwrap().budget_used("aviationstack", &cycle()).await.unwrap();
    assert_eq!(used, 60, "56 + 4 calls, then the budget refused the rest");
    let app = TestApp::serve(second, lake).await;
    let alerts = all_alerts(&app).await;
    assert_eq!(alert(&alerts, "LHR")["id"], "unknown-LHR", "the component was not published: too few hubs");
    assert_eq!(alert(&alerts, "TLV")["id"], "notam-TLV", "FAA and NOTAM still publish");
}
