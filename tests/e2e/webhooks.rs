//! Webhooks (issue 59) through the real server and its delivery worker, to receivers on
//! loopback: an impact change delivered signed, a 500 retried with the same webhook-id, a
//! redirect and a private address given nothing, a hanging receiver slowing no other, two
//! workers on one outbox delivering each event once, and the operations' refusals.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use poem::http::StatusCode;
use serde_json::{json, Value};
use sitrep_cm::{
    ids::Kind,
    records::Direction,
    settings::{CmSettings, Flags},
};
use sitrep_platform::state::Plan;
use sitrep_tests::{cm_data::admitted, Options, TestApp};
use sitrep_webhooks::signing::Secret;

const CREATE: &str = "/api/webhooks/v1/create-webhook-endpoint";
const UPDATE: &str = "/api/webhooks/v1/update-webhook-endpoint";
const ROTATE: &str = "/api/webhooks/v1/rotate-webhook-endpoint-secret";
const TEST: &str = "/api/webhooks/v1/send-webhook-test-event";
const DELIVERIES: &str = "/api/webhooks/v1/list-webhook-deliveries";
const REDELIVER: &str = "/api/webhooks/v1/redeliver-webhook-deliveries";

/// What a receiver was sent.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) id: String,
    timestamp: i64,
    signature: String,
    body: Vec<u8>,
}

impl Received {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// Whether one of the signatures is `secret`'s (the receivers' libraries' test, in Rust).
    pub(crate) fn signed_by(&self, secret: &str) -> bool {
        let expected = Secret::parse(secret).unwrap().sign(&self.id, self.timestamp, &self.body);
        self.signature.split(' ').any(|s| s == expected)
    }
}

/// A receiver on loopback answering from a script of statuses (then 200): 0 hangs for a minute,
/// [`HELD`] answers 200 once [`Receiver::release`] lets it, 302 redirects to another path of itself.
pub(crate) struct Receiver {
    pub(crate) url: String,
    got: Arc<Mutex<Vec<Received>>>,
    held: Arc<tokio::sync::Semaphore>,
    _server: tokio::task::JoinHandle<()>,
}

/// A script's step: hold the request until released, then answer 200.
pub(crate) const HELD: u16 = 1;

impl Receiver {
    pub(crate) async fn start(script: &[u16]) -> Receiver {
        let got: Arc<Mutex<Vec<Received>>> = Arc::default();
        let held = Arc::new(tokio::sync::Semaphore::new(0));
        let queue = Arc::new(Mutex::new(script.iter().copied().collect::<VecDeque<u16>>()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (sink, gate, redirect_to) = (got.clone(), held.clone(), format!("{base}/elsewhere"));
        let app = poem::endpoint::make(move |req: poem::Request| {
            let (sink, gate, queue, redirect_to) = (sink.clone(), gate.clone(), queue.clone(), redirect_to.clone());
            async move {
                let header = |name: &str| req.header(name).unwrap_or_default().to_string();
                let (id, timestamp, signature) =
                    (header("webhook-id"), header("webhook-timestamp"), header("webhook-signature"));
                let body = req.into_body().into_vec().await.unwrap_or_default();
                let timestamp = timestamp.parse().unwrap_or(-1);
                sink.lock().unwrap().push(Received { id, timestamp, signature, body });
                let status = queue.lock().unwrap().pop_front().unwrap_or(200);
                if status == 0 {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                }
                if status == HELD {
                    gate.acquire().await.unwrap().forget();
                }
                let mut answer = poem::Response::builder().status(StatusCode::from_u16(status.max(200)).unwrap());
                if status == 302 {
                    answer = answer.header("location", redirect_to);
                }
                answer.body("thanks")
            }
        });
        let acceptor = poem::listener::TcpAcceptor::from_tokio(listener).unwrap();
        let server = tokio::spawn(async move {
            let _ = poem::Server::new_with_acceptor(acceptor).run(app).await;
        });
        Receiver { url: format!("{base}/hook"), got, held, _server: server }
    }

    pub(crate) fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    /// Lets one held request answer.
    pub(crate) fn release(&self) {
        self.held.add_permits(1);
    }

    /// Waits (at most `secs`) until `n` requests arrived.
    pub(crate) async fn wait_for(&self, n: usize, secs: u64) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while self.got.lock().unwrap().len() < n && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let got = self.received();
        assert!(got.len() >= n, "{} of {n} deliveries arrived", got.len());
        got
    }
}

fn cm_open() -> CmSettings {
    CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some("http://127.0.0.1:9/search".into()),
        flags: Flags { publication: true, ..Flags::default() },
        ..CmSettings::default()
    }
}

pub(crate) struct Account {
    pub(crate) id: String,
    pub(crate) key: String,
}

pub(crate) async fn account(app: &TestApp, plan: Plan, scopes: &[&str]) -> Account {
    let account = app.state.store.create_account(&format!("wh-{}", Kind::Company.new_id()), plan).await.unwrap();
    let key = app.state.store.create_key(&account.id, "wh", "di", scopes, false).await.unwrap().secret;
    Account { id: account.id, key }
}

async fn post(app: &TestApp, key: &str, path: &str, body: Value) -> (u16, Value) {
    let r = app.http.post(format!("{}{path}", app.base)).header("X-Service-Key", key).json(&body).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn get(app: &TestApp, key: &str, path_and_query: &str) -> (u16, Value) {
    let r = app.http.get(format!("{}{path_and_query}", app.base)).header("X-Service-Key", key).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

/// A new endpoint of `key`'s account: its id and secret.
async fn endpoint(app: &TestApp, key: &str, url: &str, types: &[&str]) -> (String, String) {
    let (code, body) = post(app, key, CREATE, json!({"url": url, "eventTypes": types})).await;
    assert_eq!(code, 200, "{body}");
    (body["endpoint"]["endpointId"].as_str().unwrap().into(), body["secret"].as_str().unwrap().into())
}

async fn deliveries(app: &TestApp, key: &str, endpoint: &str) -> Vec<Value> {
    let (code, body) = get(app, key, &format!("{DELIVERIES}?endpoint_id={endpoint}")).await;
    assert_eq!(code, 200, "{body}");
    body["deliveries"].as_array().unwrap().clone()
}

/// Waits until the endpoint's newest delivery has `attempts` attempts recorded (a delivery is
/// under its worker's lease, and not redelivered, until its attempt is).
pub(crate) async fn recorded(app: &TestApp, key: &str, endpoint: &str, attempts: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let newest = deliveries(app, key, endpoint).await.first().cloned().unwrap_or(Value::Null);
        if newest["attempts"].as_array().is_some_and(|a| a.len() >= attempts) || Instant::now() > deadline {
            return newest;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_impact_change_is_delivered_signed_with_its_impact_and_link() {
    let app = TestApp::start_with(Options { company_monitoring: cm_open(), ..Default::default() }).await;
    let a = account(&app, Plan::Business, &["company_monitoring:read", "company_monitoring:write"]).await;
    let receiver = Receiver::start(&[]).await;
    let (endpoint_id, secret) = endpoint(&app, &a.key, &receiver.url, &["company.impact.changed"]).await;
    assert!(secret.starts_with("whsec_"));
    let body = json!({"clientRequestId": "acme", "company": {"name": "Acme", "domicileCountry": "US", "domains": ["acme.example"]}});
    let (code, created) = post(&app, &a.key, "/api/company-monitoring/v1/create-monitored-company", body).await;
    assert_eq!(code, 200, "{created}");
    let company = created["company"]["companyId"].as_str().unwrap().to_string();
    let store = &sitrep_api::context(&app.state).company_monitoring.store;
    let mut writes = vec![admitted(&company, Direction::Negative, 2, app.state.clock.now_ms())];
    store.save_events(&a.id, &mut writes, app.state.clock.now_ms()).await.unwrap();
    let impact = writes[0].impact.as_ref().unwrap();

    let got = receiver.wait_for(1, 10).await;
    let delivery = &got[0];
    assert!(delivery.id.starts_with("msg_"), "{}", delivery.id);
    assert!((delivery.timestamp - app.state.clock.now_ms() / 1000).abs() < 30);
    assert!(delivery.signed_by(&secret), "{}", delivery.signature);
    let event = delivery.json();
    assert_eq!(event["type"], "company.impact.changed");
    assert_eq!(event["data"]["impact"]["impactId"], impact.impact_id.as_str());
    assert_eq!(event["data"]["impact"]["companyId"], company.as_str());
    assert_eq!(event["data"]["impact"]["direction"], "MATERIAL_IMPACT_DIRECTION_NEGATIVE");
    let link = event["data"]["materialEventUrl"].as_str().unwrap();
    assert!(link
        .ends_with(&format!("/api/company-monitoring/v1/get-company-material-event?impact_id={}", impact.impact_id)));

    let shown = recorded(&app, &a.key, &endpoint_id, 1).await;
    assert_eq!(shown["deliveryId"], delivery.id.as_str());
    assert_eq!(shown["state"], "delivered");
    assert_eq!(shown["attempts"][0]["outcome"], "delivered");
    assert_eq!(shown["attempts"][0]["statusCode"], 200);
    // Exactly one delivery: nothing is announced twice.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(receiver.received().len(), 1);
    // Another account's endpoint hears nothing of it.
    let other = account(&app, Plan::Business, &["company_monitoring:read"]).await;
    let stranger = Receiver::start(&[]).await;
    endpoint(&app, &other.key, &stranger.url, &["company.impact.changed"]).await;
    let mut more = vec![admitted(&company, Direction::Positive, 1, app.state.clock.now_ms())];
    store.save_events(&a.id, &mut more, app.state.clock.now_ms()).await.unwrap();
    receiver.wait_for(2, 10).await;
    assert!(stranger.received().is_empty());
    let metrics = app.metrics().await;
    assert!(metrics.contains("sitrep_webhook_attempts_total{outcome=\"delivered\"}"), "{metrics}");
}

#[tokio::test]
async fn a_failed_attempt_is_retried_with_the_same_webhook_id_and_a_redelivery_keeps_it() {
    let app = TestApp::start().await;
    let receiver = Receiver::start(&[500]).await;
    let (endpoint_id, secret) = endpoint(&app, &app.key, &receiver.url, &["dataset.version.published"]).await;
    let (code, sent) = post(&app, &app.key, TEST, json!({"endpointId": endpoint_id})).await;
    assert_eq!(code, 200, "{sent}");
    assert_eq!(sent["delivery"]["state"], "pending");
    let first = recorded(&app, &app.key, &endpoint_id, 1).await;
    assert_eq!(first["attempts"][0]["outcome"], "retryable_status");
    assert_eq!(first["attempts"][0]["statusCode"], 500);
    assert_eq!(first["state"], "pending");
    // A later event of the same subject waits behind the one being retried.
    let (code, later) = post(&app, &app.key, TEST, json!({"endpointId": endpoint_id})).await;
    assert_eq!(code, 200, "{later}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(receiver.received().len(), 1, "a later event went before the one being retried");
    // The schedule's first retry is 5 s ± 20 % later: the clock moves past it.
    app.state.clock.advance(7);
    let got = receiver.wait_for(3, 10).await;
    assert_eq!(got[0].id, got[1].id, "a retry keeps its webhook-id");
    assert_eq!(got[2].id, later["delivery"]["deliveryId"].as_str().unwrap(), "then the later one");
    assert!(got.iter().all(|r| r.signed_by(&secret)));
    assert_eq!(got[0].body, got[1].body, "a retry sends the same body");
    recorded(&app, &app.key, &endpoint_id, 1).await;
    let listed = deliveries(&app, &app.key, &endpoint_id).await;
    let retried = listed.iter().find(|d| d["deliveryId"] == got[0].id.as_str()).unwrap();
    assert_eq!(retried["state"], "delivered");
    assert_eq!(retried["attemptCount"], 2);
    // A redelivery of a delivered delivery: the same webhook-id once more.
    let (code, again) =
        post(&app, &app.key, REDELIVER, json!({"endpointId": endpoint_id, "deliveryId": got[0].id})).await;
    assert_eq!((code, again["redeliveredCount"].as_i64()), (200, Some(1)), "{again}");
    let got = receiver.wait_for(4, 10).await;
    assert_eq!(got[3].id, got[0].id);
}

#[tokio::test]
async fn a_redirect_is_not_followed_a_private_address_is_not_reached_and_a_hang_slows_no_other() {
    let app = TestApp::start().await;
    // A redirect answer is a refusal: the target is never asked.
    let redirecting = Receiver::start(&[302]).await;
    let (redirects, _) = endpoint(&app, &app.key, &redirecting.url, &["dataset.version.published"]).await;
    post(&app, &app.key, TEST, json!({"endpointId": redirects})).await;
    let shown = recorded(&app, &app.key, &redirects, 1).await;
    assert_eq!(shown["attempts"][0]["outcome"], "refused_status");
    assert_eq!(shown["attempts"][0]["statusCode"], 302);
    assert_eq!(redirecting.received().len(), 1, "the redirect was followed");
    // A name that resolves to loopback over https: refused at delivery, nothing sent.
    let (private, _) = endpoint(&app, &app.key, "https://localhost:9/hook", &["dataset.version.published"]).await;
    post(&app, &app.key, TEST, json!({"endpointId": private})).await;
    let shown = recorded(&app, &app.key, &private, 1).await;
    assert_eq!(shown["attempts"][0]["outcome"], "address_refused", "{shown}");
    // Addresses that are not public are refused when written.
    for url in ["https://10.1.2.3/hook", "https://169.254.169.254/latest", "http://hooks.example.com/in"] {
        let (code, body) =
            post(&app, &app.key, CREATE, json!({"url": url, "eventTypes": ["dataset.version.published"]})).await;
        assert_eq!(code, 400, "{url}: {body}");
        assert_eq!(body["violations"][0]["field"], "url", "{body}");
    }
    // Four endpoints hang (one delivery each: an endpoint's test events go one after another, as
    // one subject's); another endpoint of the same account gets its delivery at once.
    let hanging = Receiver::start(&[0, 0, 0, 0]).await;
    let mut hangs = String::new();
    for _ in 0..4 {
        hangs = endpoint(&app, &app.key, &hanging.url, &["dataset.version.published"]).await.0;
        post(&app, &app.key, TEST, json!({"endpointId": hangs})).await;
    }
    hanging.wait_for(4, 10).await;
    let fast = Receiver::start(&[]).await;
    let (quick, _) = endpoint(&app, &app.key, &fast.url, &["dataset.version.published"]).await;
    let sent = Instant::now();
    post(&app, &app.key, TEST, json!({"endpointId": quick})).await;
    fast.wait_for(1, 3).await;
    assert!(sent.elapsed() < Duration::from_secs(3), "{:?}", sent.elapsed());
    // The hanging ones end as timeouts, due again later.
    let shown = recorded(&app, &app.key, &hangs, 1).await;
    assert_eq!(shown["attempts"][0]["outcome"], "timeout", "{shown}");
    assert_eq!(shown["state"], "pending");
}

#[tokio::test]
async fn two_workers_on_one_outbox_deliver_each_event_once() {
    let app = TestApp::start().await;
    let _second = sitrep_api::webhooks::delivery::spawn(&app.state);
    let _third = sitrep_api::webhooks::delivery::spawn(&app.state);
    let receiver = Receiver::start(&[]).await;
    let (endpoint_id, _) = endpoint(&app, &app.key, &receiver.url, &["dataset.version.published"]).await;
    for _ in 0..30 {
        let (code, body) = post(&app, &app.key, TEST, json!({"endpointId": endpoint_id})).await;
        assert_eq!(code, 200, "{body}");
    }
    receiver.wait_for(30, 20).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut ids: Vec<String> = receiver.received().into_iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 30);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 30, "a delivery was sent twice");
}

#[tokio::test]
async fn a_rotation_signs_with_both_secrets_for_a_day() {
    let app = TestApp::start().await;
    let receiver = Receiver::start(&[]).await;
    let (endpoint_id, old) = endpoint(&app, &app.key, &receiver.url, &["dataset.version.published"]).await;
    let (code, rotated) = post(&app, &app.key, ROTATE, json!({"endpointId": endpoint_id})).await;
    assert_eq!(code, 200, "{rotated}");
    let new = rotated["secret"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    assert!(rotated["endpoint"]["previousSecretValidUntil"].is_string(), "{rotated}");
    post(&app, &app.key, TEST, json!({"endpointId": endpoint_id})).await;
    let got = receiver.wait_for(1, 10).await;
    assert_eq!(got[0].signature.split(' ').count(), 2);
    assert!(got[0].signed_by(&old) && got[0].signed_by(&new));
    // A day later the old one no longer signs.
    app.state.clock.advance(24 * 3600 + 1);
    post(&app, &app.key, TEST, json!({"endpointId": endpoint_id})).await;
    let got = receiver.wait_for(2, 10).await;
    assert!(got[1].signed_by(&new) && !got[1].signed_by(&old), "{}", got[1].signature);
}

/// An event written while the one before it in its queue is being recorded still becomes the
/// queue's head when that one finishes (PostgreSQL: the writer and the finishing attempt take the
/// endpoint's row in turn, so neither misses the other's delivery). Each next event is sent the
/// moment the receiver has the previous one: its attempt is then being recorded.
#[tokio::test]
async fn an_event_sent_as_the_previous_one_is_recorded_is_delivered_too() {
    let app = TestApp::start().await;
    let receiver = Receiver::start(&[]).await;
    let (endpoint_id, _) = endpoint(&app, &app.key, &receiver.url, &["dataset.version.published"]).await;
    for n in 1..=25 {
        post(&app, &app.key, TEST, json!({"endpointId": endpoint_id})).await;
        receiver.wait_for(n, 10).await;
    }
}

#[tokio::test]
async fn the_operations_refuse_what_the_account_may_not_do() {
    let app = TestApp::start_with(Options { company_monitoring: cm_open(), ..Default::default() }).await;
    let url = "https://hooks.example.com/in";
    // Company impacts need company monitoring's read scope and entitlement.
    let (code, body) =
        post(&app, &app.key, CREATE, json!({"url": url, "eventTypes": ["company.impact.changed"]})).await;
    assert_eq!(code, 403, "{body}");
    // A dataset the plan cannot read cannot be named.
    let free = account(&app, Plan::Free, &["mcp"]).await;
    let pro_only = sitrep_schemas::DatasetId::ALL
        .into_iter()
        .find(|d| app.state.dataset_access(*d) == sitrep_platform::registry::Access::Pro)
        .expect("a dataset only PRO operations read");
    let body = json!({"url": url, "eventTypes": ["dataset.version.published"], "datasets": [pro_only.to_string()]});
    let (code, refused) = post(&app, &free.key, CREATE, body).await;
    assert_eq!(code, 403, "{refused}");
    // Limits by plan: two on the free plan.
    for n in 0..3 {
        let (code, body) =
            post(&app, &free.key, CREATE, json!({"url": url, "eventTypes": ["dataset.version.published"]})).await;
        assert_eq!(code, if n < 2 { 200 } else { 422 }, "{body}");
        if n == 2 {
            assert_eq!(body["code"], "ENDPOINT_LIMIT_REACHED");
        }
    }
    // Validation: every violation, on its field.
    let (code, body) =
        post(&app, &app.key, CREATE, json!({"url": "ftp://x", "eventTypes": ["nope"], "datasets": ["nope"]})).await;
    assert_eq!(code, 400);
    let fields: Vec<&str> =
        body["violations"].as_array().unwrap().iter().map(|v| v["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["url", "eventTypes[0]", "datasets[0]"], "{body}");
    // Another account's endpoint does not exist for this one.
    let (free_endpoint, _) = {
        let (code, list) = get(&app, &free.key, "/api/webhooks/v1/list-webhook-endpoints").await;
        assert_eq!(code, 200);
        assert_eq!(list["endpointLimit"], 2);
        (list["endpoints"][0]["endpointId"].as_str().unwrap().to_string(), ())
    };
    for (path, body) in [
        (UPDATE, json!({"endpointId": free_endpoint, "enabled": false})),
        (ROTATE, json!({"endpointId": free_endpoint})),
        (TEST, json!({"endpointId": free_endpoint})),
    ] {
        let (code, body) = post(&app, &app.key, path, body).await;
        assert_eq!((code, body["code"].as_str()), (404, Some("NOT_FOUND")), "{path}: {body}");
    }
    let (code, _) = get(&app, &app.key, &format!("{DELIVERIES}?endpoint_id={free_endpoint}")).await;
    assert_eq!(code, 404);
    // Its owner can disable it; the secret never appears in a listing.
    let (code, body) = post(&app, &free.key, UPDATE, json!({"endpointId": free_endpoint, "enabled": false})).await;
    assert_eq!((code, body["endpoint"]["enabled"].as_bool()), (200, Some(false)), "{body}");
    let (_, list) = get(&app, &free.key, "/api/webhooks/v1/list-webhook-endpoints").await;
    assert!(!list.to_string().contains("whsec_"));
    let _ = free.id;
}

#[tokio::test]
async fn a_published_dataset_version_is_announced_once_with_its_counts_and_changes_link() {
    let app = TestApp::start().await;
    let receiver = Receiver::start(&[]).await;
    let body =
        json!({"url": receiver.url, "eventTypes": ["dataset.version.published"], "datasets": ["violence-events"]});
    let (code, created) = post(&app, &app.key, CREATE, body).await;
    assert_eq!(code, 200, "{created}");
    let secret = created["secret"].as_str().unwrap().to_string();
    // The worker follows the lake from the version it finds; give it a turn to find it.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    // UCDP re-releases its October candidate: 3 events added, 1 withdrawn, 2 revised.
    let revised = [("ucdp", "normal"), ("ucdp", "revised")];
    sitrep_tests::replay_runner(app.lake.clone(), &revised)
        .await
        .run(&[sitrep_schemas::DatasetId::VIOLENCE_EVENTS])
        .await
        .unwrap();
    // And a version of another dataset the endpoint did not name.
    sitrep_tests::changing_runner(app.lake.clone(), &sitrep_tests::normal())
        .await
        .run(&[sitrep_schemas::DatasetId::ARMED_EVENTS])
        .await
        .unwrap();
    app.snapshots.refresh().await.unwrap();
    let got = receiver.wait_for(1, 20).await;
    assert!(got[0].signed_by(&secret));
    let event = got[0].json();
    assert_eq!(event["type"], "dataset.version.published");
    let data = &event["data"];
    assert_eq!(
        (&data["dataset"], &data["version"], &data["previousVersion"]),
        (&json!("violence-events"), &json!("2"), &json!("1")),
        "{data}"
    );
    assert_eq!(data["changes"], json!({"added": 3, "removed": 1, "changed": 2}), "{data}");
    // The link is ListDatasetChanges of exactly that pair.
    let url = data["changesUrl"].as_str().unwrap();
    let path = url.strip_prefix(&app.base).unwrap_or_else(|| panic!("{url}"));
    let (code, changes) = get(&app, &app.key, path).await;
    assert_eq!(code, 200, "{changes}");
    assert_eq!((&changes["since"]["version"], &changes["until"]["version"]), (&json!(1), &json!(2)));
    assert_eq!(changes["summary"], json!({"added": 3, "removed": 1, "changed": 2}));
    // Announced once, whatever else the worker does: a second worker follows the same cursor.
    let _second = sitrep_api::webhooks::delivery::spawn(&app.state);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        receiver.received().len(),
        1,
        "{:?}",
        receiver.received().iter().map(Received::json).collect::<Vec<_>>()
    );
}

/// The first endpoint of the test key's account, as listed.
async fn first_endpoint(app: &TestApp) -> Value {
    get(app, &app.key, "/api/webhooks/v1/list-webhook-endpoints").await.1["endpoints"][0].clone()
}

#[tokio::test]
async fn an_endpoint_failing_for_five_days_is_disabled_says_why_and_resumes_when_enabled() {
    let app = TestApp::start().await;
    let receiver = Receiver::start(&[500, 500]).await;
    let (endpoint_id, _) = endpoint(&app, &app.key, &receiver.url, &["dataset.version.published"]).await;
    post(&app, &app.key, TEST, json!({"endpointId": endpoint_id})).await;
    assert_eq!(recorded(&app, &app.key, &endpoint_id, 1).await["attempts"][0]["outcome"], "retryable_status");
    assert!(first_endpoint(&app).await["failingSince"].is_string());
    // Five days on, the retry fails too: the endpoint is disabled, with why.
    app.state.clock.advance(5 * 86_400 + 60);
    recorded(&app, &app.key, &endpoint_id, 2).await;
    let shown = first_endpoint(&app).await;
    assert_eq!(shown["enabled"], false, "{shown}");
    assert!(shown["disabledReason"].as_str().unwrap().contains("5 days"), "{shown}");
    assert!(app.metrics().await.contains("sitrep_webhook_endpoints_disabled_total 1"));
    // Its owner enables it: the record is cleared and the waiting delivery goes again.
    let (code, body) = post(&app, &app.key, UPDATE, json!({"endpointId": endpoint_id, "enabled": true})).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!((&body["endpoint"]["disabledReason"], body["endpoint"].get("failingSince")), (&json!(""), None));
    app.state.clock.advance(3_600);
    let got = receiver.wait_for(3, 10).await;
    assert_eq!(got[2].id, got[0].id);
}

#[tokio::test]
async fn a_worker_that_dies_holding_a_lease_leaves_the_attempt_to_the_next_after_it() {
    let app = TestApp::start_with(Options { webhook_worker: false, ..Default::default() }).await;
    let receiver = Receiver::start(&[]).await;
    let (endpoint_id, _) = endpoint(&app, &app.key, &receiver.url, &["dataset.version.published"]).await;
    post(&app, &app.key, TEST, json!({"endpointId": endpoint_id})).await;
    // A worker claims the delivery and is killed before it records anything (what kill -9 leaves).
    let store = &sitrep_api::context(&app.state).webhooks.store;
    let doomed =
        store.claim("doomed-worker", app.state.clock.now_ms(), 4, 8, 10).await.unwrap().pop().expect("a due delivery");
    assert_eq!(doomed.attempt, 1);
    // The live worker leaves it while the lease holds, and takes it once the lease has expired.
    let _worker = sitrep_api::webhooks::delivery::spawn(&app.state);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(receiver.received().is_empty(), "a leased delivery was sent by another worker");
    app.state.clock.advance(sitrep_webhooks::store::LEASE_MS / 1000 + 1);
    let got = receiver.wait_for(1, 10).await;
    assert_eq!(got[0].id, doomed.delivery_id);
    let shown = recorded(&app, &app.key, &endpoint_id, 1).await;
    assert_eq!((shown["state"].as_str(), shown["attemptCount"].as_i64()), (Some("delivered"), Some(1)), "{shown}");
    // Had the doomed worker come back, its attempt would count for nothing.
    let attempt = sitrep_webhooks::store::Attempt {
        attempt: 1,
        started_at: 0,
        duration_ms: 0,
        status_code: Some(200),
        outcome: sitrep_webhooks::schedule::AttemptOutcome::Delivered,
        detail: String::new(),
    };
    let result = sitrep_webhooks::schedule::AttemptResult::Delivered { status: 200 };
    let late = sitrep_webhooks::store::Recorded { claimed: doomed, attempt, result, next_at: None };
    let late = store.finish(&[late], app.state.clock.now_ms()).await.unwrap();
    assert_eq!(late, [sitrep_webhooks::store::Finished::LeaseLost]);
}

/// An attempt of `claimed` that got `status`, as the worker records it.
fn attempted(
    claimed: &sitrep_webhooks::store::Claimed,
    status: u16,
    next_at: Option<i64>,
) -> sitrep_webhooks::store::Recorded {
    let result = sitrep_webhooks::schedule::AttemptResult::of_status(status, None);
    let attempt = sitrep_webhooks::store::Attempt {
        attempt: claimed.attempt,
        started_at: 0,
        duration_ms: 1,
        status_code: Some(status),
        outcome: result.outcome(),
        detail: String::new(),
    };
    sitrep_webhooks::store::Recorded { claimed: claimed.clone(), attempt, result, next_at }
}

#[tokio::test]
async fn attempts_recorded_in_one_batch_each_keep_their_lease_outcome_and_queue() {
    use sitrep_webhooks::store::{DeliveryState, Finished};
    let app = TestApp::start_with(Options { webhook_worker: false, ..Default::default() }).await;
    let (answering, _) = endpoint(&app, &app.key, "http://127.0.0.1:9/a", &["dataset.version.published"]).await;
    let (failing, _) = endpoint(&app, &app.key, "http://127.0.0.1:9/b", &["dataset.version.published"]).await;
    let (taken, _) = endpoint(&app, &app.key, "http://127.0.0.1:9/c", &["dataset.version.published"]).await;
    // Two events queued for the answering endpoint (one subject: the second waits for the first).
    for id in [&answering, &answering, &failing, &taken] {
        post(&app, &app.key, TEST, json!({"endpointId": id})).await;
    }
    let store = &sitrep_api::context(&app.state).webhooks.store;
    let now = app.state.clock.now_ms();
    let claimed = store.claim("worker", now, 4, 8, 10).await.unwrap();
    assert_eq!(claimed.len(), 3, "one head per queue: {claimed:?}");
    let of = |endpoint: &str| claimed.iter().find(|c| c.endpoint.endpoint_id == endpoint).unwrap();
    // The third claim's lease passed to another worker meanwhile.
    let mut lost = of(&taken).clone();
    lost.lease = "another-worker.lease".into();
    let batch = [
        attempted(of(&answering), 204, None),
        attempted(of(&failing), 503, Some(now + 60_000)),
        attempted(&lost, 204, None),
    ];
    let finished = store.finish(&batch, now).await.unwrap();
    assert_eq!(
        finished,
        [Finished::Recorded(DeliveryState::Delivered), Finished::Recorded(DeliveryState::Pending), Finished::LeaseLost]
    );
    let attempts = |d: &Value| d["attempts"].as_array().map_or(0, Vec::len);
    let shown = deliveries(&app, &app.key, &answering).await;
    assert_eq!((shown[1]["state"].as_str(), attempts(&shown[1])), (Some("delivered"), 1), "{shown:?}");
    let shown = deliveries(&app, &app.key, &failing).await;
    assert_eq!((shown[0]["state"].as_str(), attempts(&shown[0])), (Some("pending"), 1), "{shown:?}");
    let shown = deliveries(&app, &app.key, &taken).await;
    assert_eq!((shown[0]["state"].as_str(), attempts(&shown[0])), (Some("pending"), 0), "{shown:?}");
    let (_, listed) = get(&app, &app.key, "/api/webhooks/v1/list-webhook-endpoints").await;
    let failing_since = |id: &str| {
        listed["endpoints"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["endpointId"] == id)
            .unwrap()
            .get("failingSince")
            .cloned()
    };
    assert!(failing_since(&failing).is_some() && failing_since(&answering).is_none(), "{listed}");
    // The answering endpoint's second event heads its queue now; the failing one waits its
    // retry; the taken one is under the other worker's lease (the real claim's, still held).
    let next = store.claim("worker", now, 4, 8, 10).await.unwrap();
    let next: Vec<&str> = next.iter().map(|c| c.endpoint.endpoint_id.as_str()).collect();
    assert_eq!(next, [answering.as_str()]);
}

#[tokio::test]
async fn finished_deliveries_go_after_thirty_days_and_pending_ones_stay() {
    let app = TestApp::start().await;
    let receiver = Receiver::start(&[]).await;
    let (delivered, _) = endpoint(&app, &app.key, &receiver.url, &["dataset.version.published"]).await;
    post(&app, &app.key, TEST, json!({"endpointId": delivered})).await;
    assert_eq!(recorded(&app, &app.key, &delivered, 1).await["state"], "delivered");
    let (waiting, _) = endpoint(&app, &app.key, &receiver.url, &["dataset.version.published"]).await;
    post(&app, &app.key, UPDATE, json!({"endpointId": waiting, "enabled": false})).await;
    post(&app, &app.key, TEST, json!({"endpointId": waiting})).await;
    let store = &sitrep_api::context(&app.state).webhooks.store;
    let month_on = app.state.clock.now_ms() + sitrep_webhooks::store::KEPT_MS + 1_000;
    assert_eq!(store.purge(month_on).await.unwrap(), 1);
    assert!(deliveries(&app, &app.key, &delivered).await.is_empty());
    assert_eq!(deliveries(&app, &app.key, &waiting).await[0]["state"], "pending");
}
