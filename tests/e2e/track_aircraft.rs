//! TrackAircraft end to end (SUPPLEMENT 2.1.8): Wingbits over recorded answers, the viewport clip
//! and the antimeridian split, the callsign and icao24 strategies, OpenSky as the fallback only
//! when enabled, the degraded shape, and the read-through TTLs on a controllable clock.

use serde_json::{json, Value};
use sitrep_tests::{Options, TestApp};

const TRACK: &str = "/api/aviation/v1/track-aircraft";

fn hexes(body: &Value) -> Vec<&str> {
    body["positions"].as_array().unwrap().iter().map(|p| p["icao24"].as_str().unwrap()).collect()
}

fn with_opensky() -> Options {
    Options {
        upstream: |c| sitrep_pipelines::UpstreamConfig { opensky: Some(("replay".into(), "REDACTED".into())), ..c },
        ..Default::default()
    }
}

#[tokio::test]
async fn a_viewport_from_wingbits_clipped_and_sorted() {
    let app = TestApp::start().await;
    let r = app.get(&format!("{TRACK}?sw_lat=38&sw_lon=26&ne_lat=43&ne_lon=35")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(!r.headers().contains_key("x-snapshot-generation"), "a live answer");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["source"], "wingbits");
    assert_eq!(hexes(&body), ["4b1805", "4ba9c6", "4bb1c4"], "Turkey only, icao24 ascending");
    let thy = &body["positions"][0];
    assert_eq!(
        (thy["lon"].as_f64(), thy["callsign"].as_str()),
        (Some(28.8012), Some("THY7CX")),
        "the newest report wins"
    );
    assert_eq!((thy["source"].as_str(), thy["verticalRate"].as_f64()), (Some("POSITION_SOURCE_WINGBITS"), Some(0.0)));
    assert!((thy["altitudeM"].as_f64().unwrap() - 10_668.0).abs() < 0.01);
    assert_eq!(thy["observedAt"], 1_795_154_398_000i64);
    // The watched box (AVIATION_WATCH_BBOXES) answers from the lake, with the same post-filters.
    let calls = app.read_through().upstream_calls();
    let r = app.get(&format!("{TRACK}?sw_lat=38.0&sw_lon=26&ne_lat=43&ne_lon=34&callsign=thy")).send().await.unwrap();
    assert!(r.headers().contains_key("x-snapshot-generation"), "answered from a generation");
    let watched: Value = r.json().await.unwrap();
    assert_eq!((watched["source"].as_str(), hexes(&watched)), (Some("wingbits"), vec!["4b1805", "4ba9c6", "4bb1c4"]));
    assert_eq!(watched["updatedAt"], 1_795_154_400_000i64, "the watch list's fetch time");
    insta::assert_json_snapshot!("track_aircraft", watched);
    assert_eq!(app.read_through().upstream_calls(), calls, "no live call");
    // sw_lon > ne_lon: the box crosses the antimeridian.
    let (_, pacific) = app.json(&format!("{TRACK}?sw_lat=-25&sw_lon=175&ne_lat=-15&ne_lon=-175")).await;
    assert_eq!(hexes(&pacific), ["c81e2f", "c8a012"]);
    // An empty viewport is an answer, not a failure (Wingbits is authoritative).
    let (_, empty) = app.json(&format!("{TRACK}?sw_lat=-60&sw_lon=-60&ne_lat=-50&ne_lon=-50")).await;
    assert_eq!((empty["source"].as_str(), hexes(&empty).len()), (Some("wingbits"), 0));
}

#[tokio::test]
async fn callsigns_and_addresses_search_the_regional_boxes() {
    let app = TestApp::start().await;
    let (_, thy) = app.json(&format!("{TRACK}?callsign=thy")).await;
    assert_eq!(hexes(&thy), ["4b1805", "4ba9c6", "4bb1c4"], "callsign substring, any case");
    let (_, one) = app.json(&format!("{TRACK}?icao24=406A3B")).await;
    assert_eq!((hexes(&one), one["source"].as_str()), (vec!["406a3b"], Some("wingbits")), "OpenSky is off: Wingbits");
    // No query at all, and a degenerate box: the degraded shape.
    for q in ["", "?sw_lat=10&sw_lon=10&ne_lat=10&ne_lon=10"] {
        let r = app.get(&format!("{TRACK}{q}")).send().await.unwrap();
        assert_eq!(r.headers()["cache-control"], "no-store", "{q}");
        let body: Value = r.json().await.unwrap();
        assert_eq!((body["source"].as_str(), hexes(&body).len()), (Some("none"), 0), "{q}");
    }
    let (status, body) = app.json(&format!("{TRACK}?sw_lat=91&sw_lon=-181&ne_lat=abc")).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["violations"],
        json!([
            {"field": "swLat", "description": "number must be less than or equal to 90"},
            {"field": "swLon", "description": "number must be greater than or equal to -180"},
            {"field": "neLat", "description": "value must be a finite number"},
        ])
    );
}

#[tokio::test]
async fn opensky_only_when_enabled_and_wingbits_fails() {
    let options = Options { read_through_scenarios: vec![("wingbits", "down")], ..with_opensky() };
    let app = TestApp::start_with(options).await;
    let (_, body) = app.json(&format!("{TRACK}?sw_lat=40&sw_lon=25&ne_lat=45&ne_lon=35")).await;
    assert_eq!(body["source"], "opensky");
    assert_eq!(hexes(&body), ["4b1805", "4ba9c6"], "the row without a position is dropped");
    let p = &body["positions"][1];
    assert_eq!((p["source"].as_str(), p["verticalRate"].as_f64()), (Some("POSITION_SOURCE_OPENSKY"), Some(5.2)));
    assert!((p["groundSpeedKts"].as_f64().unwrap() - 159.5 * 1.943844).abs() < 1e-9);
    // icao24 alone goes to OpenSky when it is enabled.
    let (_, one) = app.json(&format!("{TRACK}?icao24=4B1805")).await;
    assert_eq!((one["source"].as_str(), hexes(&one)), (Some("opensky"), vec!["4b1805"]));
    // Without OpenSky, a failed Wingbits is the degraded shape.
    let app =
        TestApp::start_with(Options { read_through_scenarios: vec![("wingbits", "down")], ..Default::default() }).await;
    let r = app.get(&format!("{TRACK}?sw_lat=40&sw_lon=25&ne_lat=45&ne_lon=35")).send().await.unwrap();
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(r.json::<Value>().await.unwrap()["source"], "none");
}

#[tokio::test]
async fn ttls_per_kind_of_answer() {
    let app = TestApp::start().await;
    let rt = &app.read_through();
    let calls = rt.upstream_calls();
    let ask = |q: &'static str| {
        let app = &app;
        async move { app.json(&format!("{TRACK}?{q}")).await }
    };
    ask("callsign=BAW").await;
    ask("sw_lat=38&sw_lon=26&ne_lat=43&ne_lon=35").await;
    ask("sw_lat=-60&sw_lon=-60&ne_lat=-50&ne_lon=-50").await;
    assert_eq!(rt.upstream_calls(), calls + 3);
    app.state.clock.advance(11);
    ask("sw_lat=-60&sw_lon=-60&ne_lat=-50&ne_lon=-50").await;
    assert_eq!(rt.upstream_calls(), calls + 4, "an empty answer lives 10 s");
    app.state.clock.advance(50);
    ask("callsign=BAW").await;
    ask("sw_lat=38&sw_lon=26&ne_lat=43&ne_lon=35").await;
    assert_eq!(rt.upstream_calls(), calls + 5, "a callsign answer lives 60 s, a box answer 120 s");
    app.state.clock.advance(60);
    ask("sw_lat=38&sw_lon=26&ne_lat=43&ne_lon=35").await;
    assert_eq!(rt.upstream_calls(), calls + 6);
}
