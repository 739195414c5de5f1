//! ListAirportFlights and GetCarrierOps end to end (SUPPLEMENT 2.1.5, 2.1.6, 1.8): watched
//! airports from the `airport-flights` dataset (no upstream call, snapshot headers), the others
//! live through the read-through cache with the live budget, and the degraded shapes.

use serde_json::{json, Value};
use sitrep_tests::TestApp;

const FLIGHTS: &str = "/api/aviation/v1/list-airport-flights";
const CARRIERS: &str = "/api/aviation/v1/get-carrier-ops";

async fn live_used(app: &TestApp) -> i64 {
    let now = chrono::DateTime::from_timestamp(app.state.clock.now(), 0).unwrap();
    let cycle = sitrep_api::read_through::cycle_start(now, 1);
    app.state.store.budget_used("aviationstack-live", &cycle).await.unwrap()
}

fn times(body: &Value, field: &str) -> Vec<i64> {
    body["flights"].as_array().unwrap().iter().map(|f| f[field].as_i64().unwrap()).collect()
}

fn ascending(v: &[i64]) -> bool {
    v.windows(2).all(|w| w[0] <= w[1])
}

#[tokio::test]
async fn watched_airports_answer_from_the_lake() {
    let app = TestApp::start().await;
    let r = app.get(&format!("{FLIGHTS}?airport=ist&limit=3")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().contains_key("x-snapshot-generation"), "answered from a generation");
    assert_eq!(r.headers()["x-data-mode"], "replay");
    let body: Value = r.json().await.unwrap();
    assert_eq!((body["source"].as_str(), body["totalAvailable"].as_i64()), (Some("aviationstack"), Some(24)));
    assert_eq!(body["flights"].as_array().unwrap().len(), 3, "cut to limit");
    assert!(body["flights"].as_array().unwrap().iter().all(|f| f["origin"]["iata"] == "IST"));
    insta::assert_json_snapshot!("list_airport_flights", body);
    let (_, all) = app.json(&format!("{FLIGHTS}?airport=IST&limit=100")).await;
    assert!(ascending(&times(&all, "scheduledDeparture")));
    let (_, arrivals) = app.json(&format!("{FLIGHTS}?airport=IST&direction=FLIGHT_DIRECTION_ARRIVAL&limit=100")).await;
    assert!(arrivals["flights"].as_array().unwrap().iter().all(|f| f["destination"]["iata"] == "IST"));
    assert!(ascending(&times(&arrivals, "scheduledArrival")));
    let (_, both) = app.json(&format!("{FLIGHTS}?airport=IST&direction=BOTH&limit=100")).await;
    assert_eq!(both["totalAvailable"], 48);
    let merged: Vec<i64> = both["flights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            f[if f["origin"]["iata"] == "IST" { "scheduledDeparture" } else { "scheduledArrival" }].as_i64().unwrap()
        })
        .collect();
    assert!(ascending(&merged), "departures by departure time and arrivals by arrival time, merged");
    assert_eq!(live_used(&app).await, 0, "no live call for a watched airport");
    assert_eq!(app.read_through().upstream_calls(), 0);
}

#[tokio::test]
async fn other_airports_are_read_through() {
    let app = TestApp::start().await;
    let r = app.get(&format!("{FLIGHTS}?airport=JFK&direction=BOTH&limit=5")).send().await.unwrap();
    assert!(!r.headers().contains_key("x-snapshot-generation"), "a live answer");
    let body: Value = r.json().await.unwrap();
    assert_eq!((body["source"].as_str(), body["totalAvailable"].as_i64()), (Some("aviationstack"), Some(48)));
    assert_eq!(live_used(&app).await, 2, "one live call per direction");
    let (_, departures) = app.json(&format!("{FLIGHTS}?airport=jfk")).await;
    assert_eq!(departures["flights"].as_array().unwrap().len(), 24, "the default limit is 30");
    assert_eq!(app.read_through().upstream_calls(), 2, "the departures page was cached");
    for (airport, source) in [("AAA", "error"), ("AB1", "invalid"), ("ABCD", "invalid")] {
        let r = app.get(&format!("{FLIGHTS}?airport={airport}")).send().await.unwrap();
        assert_eq!(r.headers()["cache-control"], "no-store", "{airport}");
        let body: Value = r.json().await.unwrap();
        assert_eq!((body["source"].as_str(), body["totalAvailable"].as_i64()), (Some(source), Some(0)), "{airport}");
    }
    let (status, body) = app.json(&format!("{FLIGHTS}?direction=SIDEWAYS&limit=101")).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["violations"],
        json!([
            {"field": "airport", "description": "value is required"},
            {"field": "direction", "description": "enum value must be defined"},
            {"field": "limit", "description": "number must be less than or equal to 100"},
        ])
    );
}

#[tokio::test]
async fn carrier_ops_group_sort_and_degrade() {
    let app = TestApp::start().await;
    let (status, body) = app.json(CARRIERS).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["source"], "aviationstack");
    insta::assert_json_snapshot!("get_carrier_ops", body);
    let carriers = body["carriers"].as_array().unwrap();
    assert!(carriers.iter().all(|c| c["totalFlights"].as_i64().unwrap() >= 3), "min_flights defaults to 3");
    let keys: Vec<(f64, f64)> =
        carriers.iter().map(|c| (c["cancellationRate"].as_f64().unwrap(), c["delayPct"].as_f64().unwrap())).collect();
    assert!(keys.windows(2).all(|w| w[0].0 > w[1].0 || (w[0].0 == w[1].0 && w[0].1 >= w[1].1)));
    // One group recomputed by hand from the same departures.
    let (_, saw) = app.json(&format!("{FLIGHTS}?airport=SAW&limit=100")).await;
    let pc: Vec<&Value> =
        saw["flights"].as_array().unwrap().iter().filter(|f| f["operatingCarrier"]["iataCode"] == "PC").collect();
    let delays: Vec<i64> = pc.iter().map(|f| f["delayMinutes"].as_i64().unwrap()).filter(|d| *d > 0).collect();
    let cancelled = pc.iter().filter(|f| f["cancelled"] == true).count();
    let group = carriers.iter().find(|c| c["airport"] == "SAW" && c["carrier"]["iataCode"] == "PC").unwrap();
    assert_eq!(group["totalFlights"], pc.len());
    assert_eq!(
        (group["delayedCount"].as_u64(), group["cancelledCount"].as_u64()),
        (Some(delays.len() as u64), Some(cancelled as u64))
    );
    let avg = (delays.iter().sum::<i64>() as f64 / delays.len() as f64).round() as i64;
    assert_eq!(group["avgDelayMinutes"], avg);
    let rate = (cancelled as f64 * 1000.0 / pc.len() as f64).round() / 10.0;
    assert_eq!(group["cancellationRate"].as_f64(), Some(rate));

    let (_, partial) = app.json(&format!("{CARRIERS}?airports=dxb&airports=AAA")).await;
    assert_eq!(partial["source"], "partial");
    assert!(partial["carriers"].as_array().unwrap().iter().all(|c| c["airport"] == "DXB"));
    let (_, failed) = app.json(&format!("{CARRIERS}?airports=AAA")).await;
    assert_eq!((failed["source"].as_str(), failed["carriers"].as_array().unwrap().len()), (Some("error"), 0));
    let (_, invalid) = app.json(&format!("{CARRIERS}?airports=IST&airports=I5T")).await;
    assert_eq!(invalid["source"], "invalid");
    let (_, few) = app.json(&format!("{CARRIERS}?min_flights=1000")).await;
    assert_eq!((few["source"].as_str(), few["carriers"].as_array().unwrap().len()), (Some("aviationstack"), 0));
}

#[tokio::test]
async fn both_are_pro_operations_gated_before_validation() {
    let app = TestApp::start().await;
    let account = app.state.store.create_account("free-account", sitrep_platform::state::Plan::Free).await.unwrap();
    let free = app.state.store.create_key(&account.id, "free", "di", &["mcp"], false).await.unwrap().secret;
    for path in [format!("{FLIGHTS}?limit=500"), format!("{CARRIERS}?min_flights=-1")] {
        let r = app.http.get(format!("{}{path}", app.base)).header("x-service-key", &free).send().await.unwrap();
        assert_eq!(r.status(), 403, "{path}");
        assert_eq!(r.json::<Value>().await.unwrap()["error"], "Pro subscription required");
    }
}
