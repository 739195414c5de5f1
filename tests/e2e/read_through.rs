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
    let rt = &app.state.read_through;
    let calls = rt.upstream_calls();
    video(&app, "video_id=Wq2Qk0Fv0cE").await;
    video(&app, "video_id=Wq2Qk0Fv0cE").await;
    assert_eq!(rt.upstream_calls(), calls + 1, "the second answer is a cache hit");
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
    let calls = app.state.read_through.upstream_calls();
    let answers = futures::future::join_all((0..100).map(|_| video(&app, "video_id=Wq2Qk0Fv0cE"))).await;
    assert!(answers.iter().all(|(_, b)| b["channelExists"] == true));
    assert_eq!(app.state.read_through.upstream_calls(), calls + 1);
}
