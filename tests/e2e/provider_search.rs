//! SearchProviderFlights and SearchProviderDates end to end (SUPPLEMENT 2.1.12): the provider
//! contract over recorded answers, the 429 cool-down on a controllable clock, the 61-day chunks
//! with a failing chunk, and every degraded message.

use serde_json::{json, Value};
use sitrep_tests::{Options, TestApp};

const FLIGHTS: &str = "/api/aviation/v1/search-provider-flights";
const DATES: &str = "/api/aviation/v1/search-provider-dates";

#[tokio::test]
async fn itineraries_and_the_cool_down() {
    let app = TestApp::start().await;
    let (status, body) = app.json(&format!("{FLIGHTS}?origin=jfk&destination=LHR&departure_date=2026-12-05")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["degraded"].as_bool(), body["error"].as_str()), (Some(false), Some("")));
    insta::assert_json_snapshot!("search_provider_flights", body);
    assert_eq!(body["flights"][1]["stops"], 1, "legs − 1");
    // A 429: the answer says cool-down, and for 120 s no call is made for any search.
    let (_, limited) = app.json(&format!("{FLIGHTS}?origin=IST&destination=JFK&departure_date=2026-12-05")).await;
    assert_eq!(limited["error"], "provider_cooldown");
    let calls = app.read_through().upstream_calls();
    let (_, other) =
        app.json(&format!("{FLIGHTS}?origin=JFK&destination=LHR&departure_date=2026-12-05&sort_by=CHEAPEST")).await;
    assert_eq!((other["error"].as_str(), other["degraded"].as_bool()), (Some("provider_cooldown"), Some(true)));
    assert_eq!(app.read_through().upstream_calls(), calls, "no call while cooling down");
    app.state.clock.advance(121);
    let (_, after) = app.json(&format!("{FLIGHTS}?origin=JFK&destination=LHR&departure_date=2026-12-05")).await;
    assert_eq!(after["error"], "", "cached from before the cool-down");
    let r = app.get(&format!("{FLIGHTS}?origin=JFK&departure_date=2026-12-05")).send().await.unwrap();
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"flights": [], "degraded": true, "error": "origin, destination, and departure_date are required"})
    );
    let (status, body) = app
        .json(&format!(
            "{FLIGHTS}?origin=JF1&cabin_class=COACH&max_stops=2&departure_window=20-6&airlines=BAW&passengers=10"
        ))
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["violations"],
        json!([
            {"field": "origin", "description": "string must match pattern ^[A-Za-z]{3}$"},
            {"field": "cabinClass", "description": "value must be one of ECONOMY, PREMIUM_ECONOMY, BUSINESS, FIRST"},
            {"field": "maxStops", "description": "value must be one of ANY, NON_STOP, ONE_STOP, TWO_PLUS_STOPS"},
            {"field": "departureWindow", "description": "string must match pattern ^([01]?[0-9]|2[0-3])-([01]?[0-9]|2[0-4])$"},
            {"field": "airlines[0]", "description": "string length must be exactly 2"},
            {"field": "passengers", "description": "number must be less than or equal to 9"},
        ])
    );
}

#[tokio::test]
async fn dates_in_chunks_sorted_and_partial() {
    let app = TestApp::start().await;
    let (_, body) =
        app.json(&format!("{DATES}?origin=IST&destination=LHR&start_date=2026-12-01&end_date=2027-03-01")).await;
    assert_eq!(
        (body["degraded"].as_bool(), body["error"].as_str()),
        (Some(true), Some("partial results: one or more date chunks failed"))
    );
    insta::assert_json_snapshot!("search_provider_dates", body);
    let dates: Vec<&str> = body["dates"].as_array().unwrap().iter().map(|d| d["date"].as_str().unwrap()).collect();
    assert_eq!(dates, ["2026-12-01", "2026-12-03", "2027-01-12"], "date order; the row without a price dropped");
    let (_, cheap) = app
        .json(&format!(
            "{DATES}?origin=IST&destination=LHR&start_date=2026-12-01&end_date=2027-03-01&sort_by_price=true"
        ))
        .await;
    let prices: Vec<f64> = cheap["dates"].as_array().unwrap().iter().map(|d| d["price"].as_f64().unwrap()).collect();
    assert_eq!(prices, [96.0, 118.0, 131.0]);
    let round = format!(
        "{DATES}?origin=IST&destination=LHR&start_date=2026-12-01&end_date=2026-12-10&is_round_trip=1&trip_duration=7&cabin_class=BUSINESS&max_stops=NON_STOP&passengers=2"
    );
    let (_, rt) = app.json(&round).await;
    assert_eq!(rt["dates"][1], json!({"date": "2026-12-04", "returnDate": "2026-12-11", "price": 980.0}));
    for (query, error) in [
        (
            "origin=IST&destination=LHR&start_date=2026-12-01",
            "origin, destination, start_date, and end_date are required",
        ),
        (
            "origin=IST&destination=LHR&start_date=2026-12-01&end_date=2026-12-10&is_round_trip=true",
            "trip_duration is required for round-trip date searches",
        ),
        ("origin=IST&destination=LHR&start_date=2026-01-01&end_date=2027-01-02", "date range exceeds 366 days"),
    ] {
        let (_, body) = app.json(&format!("{DATES}?{query}")).await;
        assert_eq!((body["degraded"].as_bool(), body["error"].as_str()), (Some(true), Some(error)), "{query}");
    }
}

#[tokio::test]
async fn without_a_provider() {
    let options = Options {
        upstream: |c| sitrep_pipelines::UpstreamConfig { flight_search_provider: None, ..c },
        ..Default::default()
    };
    let app = TestApp::start_with(options).await;
    let (_, flights) = app.json(&format!("{FLIGHTS}?origin=JFK&destination=LHR&departure_date=2026-12-05")).await;
    assert_eq!(flights, json!({"flights": [], "degraded": true, "error": "provider_unavailable"}));
    let (_, dates) =
        app.json(&format!("{DATES}?origin=IST&destination=LHR&start_date=2026-12-01&end_date=2026-12-10")).await;
    assert_eq!(dates["error"], "provider_unavailable");
}

/// The provider's rate is everyone's: an account past its share of uncached calls a minute is
/// answered `provider_cooldown` alone, without a call, and no one else is cooled down (issue 55:
/// a Free key's distinct searches could put the provider into its process-wide cool-down).
#[tokio::test]
async fn one_account_spends_only_its_share_of_the_provider() {
    let app = TestApp::start_with(Options { flight_search_account_per_minute: 2, ..Default::default() }).await;
    let account = app.store.create_account("searcher", sitrep_platform::state::Plan::Free).await.unwrap();
    let free = app.store.create_key(&account.id, "free", "di", &["mcp"], false).await.unwrap().secret;
    let search = |key: String, sort: &'static str| {
        let url = format!("{}{FLIGHTS}?origin=JFK&destination=LHR&departure_date=2026-12-05{sort}", app.base);
        let r = app.http.get(url).header("x-service-key", key);
        async move { r.send().await.unwrap().json::<Value>().await.unwrap()["error"].as_str().unwrap().to_string() }
    };
    assert_eq!(search(free.clone(), "").await, "");
    assert_ne!(search(free.clone(), "&sort_by=CHEAPEST").await, "provider_cooldown");
    // Unrecorded, the provider would answer `upstream_error`: this is the share's refusal.
    assert_eq!(search(free.clone(), "&sort_by=DURATION").await, "provider_cooldown", "its share is spent");
    // Another caller asks the same search: answered by the provider, not the other's refusal.
    assert_ne!(search(app.key.clone(), "&sort_by=DURATION").await, "provider_cooldown");
    // What was cached stays everyone's.
    assert_eq!(search(free, "").await, "");
}
