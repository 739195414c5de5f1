//! What one caller does never becomes another's answer or refusal (issue 55): a projection or a
//! value spelled to look like another request cannot plant the body every caller of a request
//! gets (REST, batch and MCP read one body cache), and behind a trusted proxy each caller is
//! limited by its own forwarded address — an IPv6 caller by its /64 — while a caller's own
//! `X-Forwarded-For` is believed about nothing.

use serde_json::{json, Value};
use sitrep_platform::{edge::rate_limit::Limits, state::Plan};
use sitrep_tests::{Options, TestApp};

const TRACK: &str = "/api/aviation/v1/track-aircraft";
/// The watched box of the replay lake (AVIATION_WATCH_BBOXES): answered from the lake and cached.
const WATCHED_BOX: &str = "sw_lat=38&sw_lon=26&ne_lat=43&ne_lon=34";
const OPS: &str = "/api/aviation/v1/get-airport-ops-summary";

/// A key of an account of its own on `plan`.
async fn key_of(app: &TestApp, name: &str, plan: Plan) -> String {
    let account = app.store.create_account(name, plan).await.unwrap();
    app.store.create_key(&account.id, name, "di", &["mcp"], false).await.unwrap().secret
}

fn encoded(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

async fn rest(app: &TestApp, key: &str, path_and_query: &str) -> (u16, Value) {
    let r = app.http.get(format!("{}{path_and_query}", app.base)).header("x-service-key", key).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn batch(app: &TestApp, key: &str, path_and_query: &str) -> Value {
    let body = json!({"operations": [{"id": "one", "path": path_and_query}]});
    let r = app.http.post(format!("{}/api/batch/v1/execute", app.base)).header("x-service-key", key).json(&body);
    let answer: Value = r.send().await.unwrap().json().await.unwrap();
    answer["results"][0]["body"].clone()
}

async fn mcp(app: &TestApp, key: &str, tool: &str, arguments: Value) -> Value {
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let r = app.http.post(format!("{}/mcp", app.base)).header("x-service-key", key).json(&body);
    let answer: Value = r.send().await.unwrap().json().await.unwrap();
    answer["result"]["structuredContent"].clone()
}

fn hexes(body: &Value) -> Vec<String> {
    body["positions"].as_array().unwrap().iter().map(|p| p["icao24"].as_str().unwrap().to_string()).collect()
}

/// Issue 55's reproduction: a Free key's projection that is a literal was the body every later
/// caller of the box got, until the next version.
#[tokio::test]
async fn a_projection_never_becomes_anyone_elses_answer() {
    let app = TestApp::start().await;
    let attacker = key_of(&app, "attacker", Plan::Free).await;
    let literal = r#"{positions:`[{"icao24":"abcdef","callsign":"POISON"}]`,source:'wingbits'}"#;
    let planted = format!("{TRACK}?{WATCHED_BOX}&jmespath={}", encoded(literal));
    let (status, mine) = rest(&app, &attacker, &planted).await;
    assert_eq!((status, hexes(&mine)), (200, vec!["abcdef".to_string()]), "the caller gets its own projection");
    // Planted through batch and MCP as well: each reads and fills the same body cache.
    let in_batch = batch(&app, &attacker, &planted).await;
    assert_eq!(hexes(&in_batch), ["abcdef"]);

    let (status, plain) = rest(&app, &app.key, &format!("{TRACK}?{WATCHED_BOX}")).await;
    assert_eq!(status, 200);
    assert!(!plain.to_string().contains("POISON"), "{plain}");
    let watched = hexes(&plain);
    assert!(watched.len() >= 3 && !watched.contains(&"abcdef".to_string()), "{watched:?}");
    assert_eq!(hexes(&batch(&app, &app.key, &format!("{TRACK}?{WATCHED_BOX}")).await), watched);
    let args = json!({"sw_lat": 38, "sw_lon": 26, "ne_lat": 43, "ne_lon": 34});
    assert_eq!(hexes(&mcp(&app, &app.key, "track_aircraft", args.clone()).await), watched);

    // And the other way round: a projection asked after the plain answer is the caller's own.
    let mut projected = args;
    projected["jmespath"] = json!("{first: positions[0].icao24}");
    assert_eq!(mcp(&app, &attacker, "track_aircraft", projected).await, json!({"first": watched[0]}));
    let (_, again) = rest(&app, &app.key, &format!("{TRACK}?{WATCHED_BOX}")).await;
    assert_eq!(again, plain);
}

/// Issue 55's second reproduction: one item spelled as the default list's codes joined by commas
/// had the default request's key, and its one "unknown" summary became the default answer.
#[tokio::test]
async fn one_item_never_answers_for_a_list() {
    let app = TestApp::start().await;
    let (status, one) = rest(&app, &app.key, &format!("{OPS}?airports=IST,ESB,SAW,LHR,FRA,CDG")).await;
    assert_eq!(status, 200);
    assert_eq!(one["summaries"].as_array().unwrap().len(), 1, "a comma is no separator (SUPPLEMENT 1.2)");
    assert_eq!(one["summaries"][0]["source"], "unknown");
    let (_, default) = rest(&app, &app.key, OPS).await;
    let codes: Vec<&str> =
        default["summaries"].as_array().unwrap().iter().map(|s| s["iata"].as_str().unwrap()).collect();
    assert_eq!(codes, ["IST", "ESB", "SAW", "LHR", "FRA", "CDG"]);
    let (_, listed) = rest(&app, &app.key, &format!("{OPS}?airports=IST&airports=ESB,SAW")).await;
    assert_eq!(listed["summaries"].as_array().unwrap().len(), 2);
}

/// A server behind a load balancer at 127.0.0.1 (the test client), with the refused-credential
/// window of five a minute.
async fn behind_a_proxy(trusted_proxies: &'static str) -> TestApp {
    TestApp::start_with(Options {
        rate_limits: Limits::parse("default=5").unwrap(),
        trusted_proxies,
        ..Default::default()
    })
    .await
}

static GUESSES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0xbad_0000);

/// A random key's answer, sent through the proxy for `forwarded`.
async fn guess_key(app: &TestApp, forwarded: &str) -> u16 {
    let r = app
        .http
        .get(format!("{}/api/conflict/v1/list-armed-events", app.base))
        .header("x-service-key", format!("di_{:040x}", GUESSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)))
        .header("x-forwarded-for", forwarded)
        .send()
        .await
        .unwrap();
    r.status().as_u16()
}

/// Six random keys from `forwarded` (the last is refused by the full window).
async fn guess_keys(app: &TestApp, forwarded: &str) -> Vec<u16> {
    let mut statuses = Vec::new();
    for _ in 0..6 {
        statuses.push(guess_key(app, forwarded).await);
    }
    statuses
}

async fn with_key_from(app: &TestApp, key: &str, forwarded: &str) -> u16 {
    let r = app
        .http
        .get(format!("{}/api/conflict/v1/list-armed-events?page_size=1", app.base))
        .header("x-service-key", key)
        .header("x-forwarded-for", forwarded)
        .send()
        .await
        .unwrap();
    r.status().as_u16()
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_caller_has_its_own_window() {
    let app = behind_a_proxy("127.0.0.1/32").await;
    // The attacker's own spoofed entry stays to the left of what the proxy appended.
    assert_eq!(guess_keys(&app, "198.51.100.7, 203.0.113.66").await, [401, 401, 401, 401, 401, 429]);
    assert_eq!(with_key_from(&app, "di_0000000000000000000000000000000000000bad", "203.0.113.66").await, 429);
    // A key that exists is read whatever its address's window says (a NAT's other users).
    let same_address = key_of(&app, "behind-the-same-address", Plan::Pro).await;
    assert_eq!(with_key_from(&app, &same_address, "203.0.113.66").await, 200);
    // Another user behind the same proxy, with a key this server has never seen: answered.
    let fresh = key_of(&app, "behind-the-proxy", Plan::Pro).await;
    assert_eq!(with_key_from(&app, &fresh, "198.51.100.7").await, 200);
    // An IPv6 caller is one caller across its /64, and a neighbour's /64 is another.
    for host in 1..=5 {
        assert_eq!(guess_key(&app, &format!("2001:db8:1:2::{host}")).await, 401);
    }
    assert_eq!(guess_key(&app, "2001:db8:1:2:ffff::99").await, 429, "the /64's window is full");
    let neighbour = key_of(&app, "neighbour", Plan::Pro).await;
    assert_eq!(with_key_from(&app, &neighbour, "2001:db8:1:3::1").await, 200);
}

#[tokio::test]
async fn an_untrusted_peer_is_believed_about_nothing() {
    let app = behind_a_proxy("").await;
    assert_eq!(guess_keys(&app, "203.0.113.66").await, [401, 401, 401, 401, 401, 429]);
    // Another forwarded address from the same peer is the same caller.
    assert_eq!(guess_key(&app, "198.51.100.7").await, 429);
    let fresh = key_of(&app, "behind-the-nat", Plan::Pro).await;
    assert_eq!(with_key_from(&app, &fresh, "198.51.100.7").await, 200);
}
