//! Read-through operations (SUPPLEMENT 1.8) end to end: GetVideoLiveStreamInfo answered by the
//! YouTube connector over the recordings, through the read-through cache (hit, TTL, failures for
//! 60 s), with the live-answer headers.

use serde_json::{json, Value};
use sitrep_tests::TestApp;

const VIDEO: &str = "/api/aviation/v1/get-video-live-stream-info";

async fn video(app: &TestApp, query: &str) -> (reqwest::header::HeaderMap, Value) {
    let r = app.get(&format!("{VIDEO}?{query}")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let headers = r.headers().clone();
    (headers, r.json().await.unwrap())
}

#[tokio::test]
async fn video_info_and_its_error_vocabulary() {
    let app = TestApp::start().await;
    let (headers, found) = video(&app, "video_id=Wq2Qk0Fv0cE").await;
    assert_eq!(
        found,
        json!({"videoId": "Wq2Qk0Fv0cE", "title": "JFK Airport Live: Runway 31L departures and ATC", "channelName": "Airport Webcams Live",
               "channelExists": true, "isLive": false, "hlsUrl": "", "error": ""})
    );
    assert!(headers.get("x-snapshot-generation").is_none(), "live answers carry no snapshot generation");
    assert_eq!(headers["x-data-mode"], "replay");
    assert_eq!(headers["cache-control"], "private, max-age=60");
    for (query, id, error) in [
        ("video_id=AAAAAAAAAAA", "AAAAAAAAAAA", "video_not_found"),
        ("video_id=Prv8Xk2LmQ0", "Prv8Xk2LmQ0", "video_not_found"),
        ("video_id=Err5xx00000", "Err5xx00000", "upstream_error"),
        ("video_id=nope", "nope", "invalid_video_id"),
        ("channel=SomeChannel", "", "channel_live_detection_retired"),
        ("", "", "missing_video_id"),
    ] {
        let (headers, body) = video(&app, query).await;
        assert_eq!((body["videoId"].as_str(), body["error"].as_str()), (Some(id), Some(error)), "{query}");
        assert_eq!(body["channelExists"], false);
        let no_store = headers["cache-control"] == "no-store";
        assert_eq!(no_store, error == "upstream_error", "{query}: only a degraded answer is not to be stored");
    }
}

#[tokio::test]
async fn answers_are_cached_for_their_ttl_and_failures_for_a_minute() {
    let app = TestApp::start().await;
    let rt = &app.read_through();
    let calls = rt.upstream_calls();
    let path = format!("{VIDEO}?video_id=Wq2Qk0Fv0cE");
    let (_, fetched) = video(&app, "video_id=Wq2Qk0Fv0cE").await;
    let now = std::time::Instant::now();
    assert!(
        app.state.cache.remembered(&path, app.state.epoch(), now).is_none(),
        "a fetched answer is made per request"
    );
    let (headers, hit) = video(&app, "video_id=Wq2Qk0Fv0cE").await;
    assert_eq!(rt.upstream_calls(), calls + 1, "the second answer is a cache hit");
    // A hit is held for the edge to repeat until its entry expires (600 s), like a dataset answer.
    let held = |after: u64| {
        let at = now + std::time::Duration::from_secs(after);
        app.state.cache.remembered(&path, app.state.epoch(), at).is_some()
    };
    assert!(held(590) && !held(601), "held exactly while the entry is fresh");
    let (repeated_headers, repeated) = video(&app, "video_id=Wq2Qk0Fv0cE").await;
    assert_eq!((&repeated, &fetched), (&hit, &hit));
    assert_eq!(repeated_headers["etag"], headers["etag"]);
    assert_eq!(repeated_headers["x-data-mode"], "replay");
    assert_eq!(rt.upstream_calls(), calls + 1);
    app.state.clock.advance(601);
    video(&app, "video_id=Wq2Qk0Fv0cE").await;
    assert_eq!(rt.upstream_calls(), calls + 2, "after 600 s the upstream is asked again");
    video(&app, "video_id=Err5xx00000").await;
    app.state.clock.advance(59);
    video(&app, "video_id=Err5xx00000").await;
    assert_eq!(rt.upstream_calls(), calls + 3, "a failure is reused within 60 s");
    app.state.clock.advance(2);
    video(&app, "video_id=Err5xx00000").await;
    assert_eq!(rt.upstream_calls(), calls + 4, "and retried after");
}

#[tokio::test]
async fn concurrent_identical_cold_requests_make_one_upstream_call() {
    let app = TestApp::start().await;
    let calls = app.read_through().upstream_calls();
    let answers = futures::future::join_all((0..100).map(|_| video(&app, "video_id=Wq2Qk0Fv0cE"))).await;
    assert!(answers.iter().all(|(_, b)| b["channelExists"] == true));
    assert_eq!(app.read_through().upstream_calls(), calls + 1);
}

const STATUS: &str = "/api/aviation/v1/get-flight-status";

#[tokio::test]
async fn flight_status_for_pro_accounts_cached_and_budgeted() {
    let app = TestApp::start().await;
    let (status, body) = app.json(&format!("{STATUS}?flight_number=tk2120&date=2026-11-20")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["source"].as_str(), body["cacheHit"].as_bool()), (Some("aviationstack"), Some(false)));
    let f = &body["flights"][0];
    assert_eq!(
        (f["flightNumber"].as_str(), f["status"].as_str()),
        (Some("TK2120"), Some("FLIGHT_INSTANCE_STATUS_AIRBORNE"))
    );
    assert_eq!(f["estimatedDeparture"].as_i64().unwrap() - f["scheduledDeparture"].as_i64().unwrap(), 25 * 60_000);
    assert_eq!(f["operatingCarrier"], json!({"iataCode": "TK", "icaoCode": "THY", "name": "Turkish Airlines"}));
    let mut pinned = body.clone();
    pinned["flights"][0]["updatedAt"] = json!("<fetch time>");
    insta::assert_json_snapshot!("get_flight_status", pinned);
    let (_, again) = app.json(&format!("{STATUS}?flight_number=TK2120&date=2026-11-20")).await;
    assert_eq!(again["cacheHit"], true, "the same normalised query is a cache hit");
    // EK003 from DXB is EK3 with dep_iata.
    let (_, ek) = app.json(&format!("{STATUS}?flight_number=EK003&date=2026-11-20&origin=dxb")).await;
    assert_eq!(ek["flights"][0]["codeshareFlightNumbers"], json!(["qf8003"]));
    let (_, none) = app.json(&format!("{STATUS}?flight_number=XX999&date=2026-11-20")).await;
    assert_eq!((none["source"].as_str(), none["flights"].as_array().unwrap().len()), (Some("aviationstack"), 0));
    // An upstream error body: degraded, not stored by clients.
    let r = app.get(&format!("{STATUS}?flight_number=ZZ1&date=2026-11-20")).send().await.unwrap();
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(r.json::<Value>().await.unwrap()["source"], "error");
    // Validation before any call.
    let (status, body) = app.json(&format!("{STATUS}?flight_number=T&date=20261120")).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["violations"],
        json!([
            {"field": "flightNumber", "description": "string length must be at least 3"},
            {"field": "date", "description": r"string must match pattern ^\d{4}-\d{2}-\d{2}$"},
        ])
    );
    // Four distinct live calls so far, each counted in both budgets of this cycle.
    let cycle =
        sitrep_api::read_through::cycle_start(chrono::DateTime::from_timestamp(app.state.clock.now(), 0).unwrap(), 1);
    assert_eq!(app.state.store.budget_used("aviationstack-live", &cycle).await.unwrap(), 4);
    assert_eq!(app.state.store.budget_used("aviationstack", &cycle).await.unwrap(), 4);
}

#[tokio::test]
async fn an_exhausted_budget_answers_budget_and_survives_a_restart() {
    let budget =
        sitrep_api::read_through::AviationStackBudget { monthly: 100, live: 1, reset_day: 1, ..Default::default() };
    let options = sitrep_tests::Options { aviationstack_budget: budget, ..Default::default() };
    let app = TestApp::start_with(options).await;
    let (_, first) = app.json(&format!("{STATUS}?flight_number=TK2120&date=2026-11-20")).await;
    assert_eq!(first["source"], "aviationstack");
    let r = app.get(&format!("{STATUS}?flight_number=EK3&date=2026-11-20&origin=DXB")).send().await.unwrap();
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"flights": [], "source": "budget", "cacheHit": false}));
    // The count lives in the state store: a new server on the same store sees it spent.
    let cycle =
        sitrep_api::read_through::cycle_start(chrono::DateTime::from_timestamp(app.state.clock.now(), 0).unwrap(), 1);
    assert!(!app.state.store.reserve_budget("aviationstack-live", &cycle, 1).await.unwrap());
}

/// The live budget is everyone's: one account spends its daily share of it, not the others'
/// (issue 55: one Pro account spent the month's 7,000 in minutes for every customer).
#[tokio::test]
async fn one_account_spends_only_its_share_of_the_live_budget() {
    let budget = sitrep_api::read_through::AviationStackBudget { account_daily: 2, ..Default::default() };
    let app = TestApp::start_with(sitrep_tests::Options { aviationstack_budget: budget, ..Default::default() }).await;
    let status = |key: String, flight: &'static str| {
        let r = app.http.get(format!("{}{STATUS}?date=2026-11-20&flight_number={flight}", app.base));
        async move { r.header("x-service-key", key).send().await.unwrap().json::<Value>().await.unwrap()["source"].clone() }
    };
    for flight in ["TK2120", "XX999"] {
        assert_eq!(status(app.key.clone(), flight).await, "aviationstack");
    }
    assert_eq!(status(app.key.clone(), "EK3&origin=DXB").await, "budget", "the account's share of the day is spent");
    let account = app.state.store.create_account("another", sitrep_platform::state::Plan::Pro).await.unwrap();
    let other = app.state.store.create_key(&account.id, "other", "di", &["mcp"], false).await.unwrap().secret;
    assert_eq!(status(other, "EK3&origin=DXB").await, "aviationstack", "another account's share is its own");
    let cycle =
        sitrep_api::read_through::cycle_start(chrono::DateTime::from_timestamp(app.state.clock.now(), 0).unwrap(), 1);
    assert_eq!(
        app.state.store.budget_used("aviationstack-live", &cycle).await.unwrap(),
        3,
        "no shared unit was spent past the share"
    );
}

#[tokio::test]
async fn pro_gating_of_a_read_through_operation() {
    let app = TestApp::start().await;
    let account = app.state.store.create_account("free-account", sitrep_platform::state::Plan::Free).await.unwrap();
    let free = app.state.store.create_key(&account.id, "free", "di", &["mcp"], false).await.unwrap().secret;
    let r = app
        .http
        .get(format!("{}{STATUS}?flight_number=TK2120&date=2026-11-20", app.base))
        .header("x-service-key", &free)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"error": "Pro subscription required", "requiredTier": 1, "currentTier": 0, "planKey": "free"})
    );
    // The same over MCP: -32002 with the tiers.
    let reply: Value = app
        .http
        .post(format!("{}/mcp", app.base))
        .header("x-service-key", &free)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_flight_status", "arguments": {"flight_number": "TK2120", "date": "2026-11-20"}}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(reply["error"]["code"], -32002);
    assert_eq!(reply["error"]["data"], json!({"requiredTier": 1, "currentTier": 0, "planKey": "free"}));
    // And inside a batch: the PRO sub-operation is refused, the others answer.
    let batch: Value = app
        .http
        .post(format!("{}/api/batch/v1/execute", app.base))
        .header("x-service-key", &free)
        .json(&json!({"operations": [
            {"id": "pro", "path": format!("{STATUS}?flight_number=TK2120&date=2026-11-20")},
            {"id": "open", "path": "/api/aviation/v1/list-aircraft-emergencies"},
        ]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(batch["results"][0]["status"], 403);
    assert_eq!(batch["results"][0]["body"]["error"], "Pro subscription required");
    assert_eq!(batch["results"][1]["status"], 200);
    assert_eq!((batch["succeeded"].as_i64(), batch["failed"].as_i64()), (Some(1), Some(1)));
}
