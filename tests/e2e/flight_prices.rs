//! SearchFlightPrices end to end (SUPPLEMENT 2.1.10): Travelpayouts v3 over recorded answers, the
//! month-matrix fallback, every degraded state, demo mode only without a token, and validation.

use serde_json::{json, Value};
use sitrep_tests::{Options, TestApp};

const PRICES: &str = "/api/aviation/v1/search-flight-prices";

#[tokio::test]
async fn fares_from_prices_for_dates() {
    let app = TestApp::start().await;
    // A watched route (AVIATION_WATCH_ROUTES), one way, economy, USD, default market: the lake.
    let r = app.get(&format!("{PRICES}?origin=ist&destination=lhr&departure_date=2026-12-10")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-data-mode"], "replay");
    assert!(r.headers().contains_key("x-snapshot-generation"), "answered from a generation");
    assert_eq!(app.read_through().upstream_calls(), 0);
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        (body["provider"].as_str(), body["degraded"].as_bool(), body["error"].as_str()),
        (Some("travelpayouts_data"), Some(false), Some(""))
    );
    let q = &body["quotes"][0];
    assert_eq!(q["id"], "tp-v3-IST-LHR-2026-12-10-0");
    assert_eq!(q["carrier"], json!({"iataCode": "PC", "icaoCode": "", "name": "PC"}));
    assert_eq!((q["currency"].as_str(), q["cabin"].as_str()), (Some("USD"), Some("CABIN_CLASS_ECONOMY")));
    assert!(q["bookingUrl"].as_str().unwrap().starts_with("https://www.aviasales.com/search/IST1012LHR1"));
    assert_eq!(body["quotes"][3]["bookingUrl"], "", "no link, no booking URL");
    assert_eq!(q["expiresAt"], 1_795_176_000_000i64);
    assert_eq!(body["updatedAt"], 1_795_154_400_000i64, "the watch list's fetch time");
    insta::assert_json_snapshot!("search_flight_prices", body);
    // Dates outside the 60-day window, and other markets, are asked live.
    let (_, outside) = app.json(&format!("{PRICES}?origin=IST&destination=LHR&departure_date=2027-01-25")).await;
    assert_eq!(outside["error"], "upstream_error", "no recording for that live call");
    let r = app
        .get(&format!("{PRICES}?origin=IST&destination=LHR&departure_date=2026-12-10&market=gb"))
        .send()
        .await
        .unwrap();
    assert!(!r.headers().contains_key("x-snapshot-generation"), "a live answer");
    let live: Value = r.json().await.unwrap();
    assert_eq!(live["quotes"].as_array().unwrap().len(), 4);
    assert_eq!(live["quotes"][1]["id"], body["quotes"][1]["id"], "the same fares, the same ids");
    assert!(live["quotes"].as_array().unwrap().iter().all(|q| q["observedAt"].as_i64().unwrap() > 1_795_154_400_000));
}

#[tokio::test]
async fn the_month_matrix_and_the_degraded_states() {
    let app = TestApp::start().await;
    let (_, nonstop) =
        app.json(&format!("{PRICES}?origin=JFK&destination=CDG&departure_date=2026-12-10&nonstop_only=1")).await;
    let prices: Vec<f64> =
        nonstop["quotes"].as_array().unwrap().iter().map(|q| q["priceAmount"].as_f64().unwrap()).collect();
    assert_eq!(prices, [356.0, 389.0], "v3 (direct=true) had nothing; the matrix filtered to no changes");
    let (_, matrix) = app.json(&format!("{PRICES}?origin=JFK&destination=CDG&departure_date=2026-12-10")).await;
    let quotes = matrix["quotes"].as_array().unwrap();
    let prices: Vec<f64> = quotes.iter().map(|q| q["priceAmount"].as_f64().unwrap()).collect();
    assert_eq!(prices, [356.0, 371.0, 389.0, 402.0], "sorted by price");
    assert_eq!(
        (quotes[0]["id"].as_str(), quotes[0]["carrier"]["iataCode"].as_str()),
        (Some("tp-month-JFK-CDG-2026-12-12-0"), Some(""))
    );
    assert_eq!((quotes[0]["stops"].as_i64(), quotes[0]["durationMinutes"].as_i64()), (Some(0), Some(455)));
    for (route, error) in
        [("origin=ESB&destination=AMS", "upstream_error"), ("origin=SAW&destination=BCN", "no_results")]
    {
        let r = app.get(&format!("{PRICES}?{route}&departure_date=2026-12-10")).send().await.unwrap();
        assert_eq!(r.headers()["cache-control"], "no-store", "{route}");
        let body: Value = r.json().await.unwrap();
        assert_eq!((body["degraded"].as_bool(), body["error"].as_str()), (Some(true), Some(error)), "{route}");
    }
    let (status, body) = app.json(&format!("{PRICES}?origin=IS&departure_date=10-12-2026&cabin=COACH&nonstop_only=maybe&currency=dollars&max_results=51")).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["violations"],
        json!([
            {"field": "origin", "description": "string length must be at least 3"},
            {"field": "destination", "description": "value is required"},
            {"field": "departureDate", "description": r"string must match pattern ^\d{4}-\d{2}-\d{2}$"},
            {"field": "cabin", "description": "enum value must be defined"},
            {"field": "nonstopOnly", "description": "value must be a boolean"},
            {"field": "maxResults", "description": "number must be less than or equal to 50"},
            {"field": "currency", "description": "string must match pattern ^[A-Za-z]{3}$"},
        ])
    );
}

#[tokio::test]
async fn without_a_token_missing_credentials_or_labelled_demo_quotes() {
    let no_token = Options {
        upstream: |c| sitrep_pipelines::UpstreamConfig { travelpayouts_token: None, ..c },
        ..Default::default()
    };
    let app = TestApp::start_with(no_token).await;
    // A route outside the watch list (which answers whatever the token): no token, no answer.
    let (_, body) = app.json(&format!("{PRICES}?origin=JFK&destination=CDG&departure_date=2026-12-10")).await;
    assert_eq!(
        (
            body["provider"].as_str(),
            body["error"].as_str(),
            body["degraded"].as_bool(),
            body["quotes"].as_array().unwrap().len()
        ),
        (Some("none"), Some("missing_credentials"), Some(true), 0)
    );
    let demo = Options {
        upstream: |c| sitrep_pipelines::UpstreamConfig { travelpayouts_token: None, demo_prices: true, ..c },
        ..Default::default()
    };
    let app = TestApp::start_with(demo).await;
    let url = format!("{PRICES}?origin=JFK&destination=CDG&departure_date=2026-12-10");
    let (_, a) = app.json(&url).await;
    let (_, b) = app.json(&url).await;
    assert_eq!(
        (a["provider"].as_str(), a["isDemoMode"].as_bool(), a["degraded"].as_bool()),
        (Some("demo"), Some(true), Some(true))
    );
    assert!(a["quotes"].as_array().unwrap().iter().all(|q| q["provider"] == "demo"));
    assert_eq!(a["quotes"][0]["priceAmount"], b["quotes"][0]["priceAmount"], "deterministic");
}
