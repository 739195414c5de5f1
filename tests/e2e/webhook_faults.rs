//! Webhook delivery through the faults of real processes (issue 59): a `sitrep-serve` killed with
//! SIGKILL between claiming a delivery and recording it, then two servers on its outbox; and
//! PostgreSQL stopped and started while a receiver answers. What must hold each time: every event
//! delivered, in order, none lost, and an event sent a second time only when its first attempt
//! could not be recorded (the kill).

use std::{
    collections::BTreeMap,
    time::{Duration, Instant},
};

use serde_json::{json, Value};
use sitrep_platform::state::{Plan, StateStore};
use sitrep_tests::{
    fresh_postgres_database, normal_lake, postgres_server::PostgresServer, served_process::ServedProcess, Options,
    TestApp,
};
use sitrep_webhooks::store::LEASE_MS;

use crate::webhooks::{Receiver, HELD};

const CREATE: &str = "/api/webhooks/v1/create-webhook-endpoint";
const TEST: &str = "/api/webhooks/v1/send-webhook-test-event";
const DELIVERIES: &str = "/api/webhooks/v1/list-webhook-deliveries";

/// A caller of one server: its base URL and an API key.
struct Caller<'a> {
    http: reqwest::Client,
    base: &'a str,
    key: &'a str,
}

impl Caller<'_> {
    async fn post(&self, path: &str, body: Value) -> Value {
        let r = self.http.post(format!("{}{path}", self.base)).header("x-service-key", self.key).json(&body);
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        r.json().await.unwrap()
    }

    /// A new endpoint to `url` (its id), and `events` test events sent to it (their delivery ids, in order).
    async fn endpoint_with_tests(&self, url: &str, events: usize) -> (String, Vec<String>) {
        let created = self.post(CREATE, json!({"url": url, "eventTypes": ["dataset.version.published"]})).await;
        let endpoint = created["endpoint"]["endpointId"].as_str().unwrap().to_string();
        (endpoint.clone(), self.send_tests(&endpoint, events).await)
    }

    async fn send_tests(&self, endpoint: &str, events: usize) -> Vec<String> {
        let mut ids = Vec::new();
        for _ in 0..events {
            let sent = self.post(TEST, json!({"endpointId": endpoint})).await;
            ids.push(sent["delivery"]["deliveryId"].as_str().unwrap().to_string());
        }
        ids
    }

    /// Waits (at most `secs`) until every delivery of `endpoint` is delivered; the listing.
    async fn all_delivered(&self, endpoint: &str, count: usize, secs: u64) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let r = self.http.get(format!("{}{DELIVERIES}?endpoint_id={endpoint}", self.base));
            let listed: Value = r.header("x-service-key", self.key).send().await.unwrap().json().await.unwrap();
            let deliveries = listed["deliveries"].as_array().cloned().unwrap_or_default();
            let delivered = deliveries.iter().filter(|d| d["state"] == "delivered").count();
            if delivered == count || Instant::now() > deadline {
                assert_eq!(delivered, count, "{listed}");
                return deliveries;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// How many times each webhook-id arrived.
fn arrivals(receiver: &Receiver) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for r in receiver.received() {
        *counts.entry(r.id).or_default() += 1;
    }
    counts
}

/// The webhook-ids in the order of their first arrival.
fn first_arrivals(receiver: &Receiver) -> Vec<String> {
    let mut seen = Vec::new();
    for r in receiver.received() {
        if !seen.contains(&r.id) {
            seen.push(r.id);
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_delivery_leaves_it_to_the_next_and_two_servers_send_each_event_once() {
    let dir = tempfile::tempdir().unwrap();
    let _lake = normal_lake(&dir).await; // in <dir>/lake
    let lake = dir.path().join("lake").to_str().unwrap().to_string();
    let state = fresh_postgres_database().await;
    let store = StateStore::open(&state).await.unwrap();
    let account = store.create_account("hooks", Plan::Pro).await.unwrap();
    let key = store.create_key(&account.id, "hooks", "di", &[], false).await.unwrap().secret;
    let serve = |cache: &'static str| {
        let (state, lake, cache) = (state.clone(), lake.clone(), dir.path().join(cache));
        async move {
            ServedProcess::start(&state, &lake, &cache, |c| {
                c.env("WEBHOOKS_ALLOW_LOOPBACK", "on");
            })
            .await
        }
    };

    // The third event's request is held: the server has claimed it and is waiting for the answer.
    let receiver = Receiver::start(&[200, 200, HELD]).await;
    let mut killed = serve("cache-killed").await;
    let caller = Caller { http: reqwest::Client::new(), base: &killed.base, key: &key };
    let (endpoint, sent) = caller.endpoint_with_tests(&receiver.url, 6).await;
    receiver.wait_for(3, 20).await;
    killed.kill().await;
    let killed_at = Instant::now();
    assert_eq!(receiver.received().len(), 3, "a later event went while an earlier one was unanswered");

    // Two servers on the same outbox: the killed claim's lease runs out, then the rest go.
    let (a, b) = (serve("cache-a").await, serve("cache-b").await);
    let caller = Caller { http: reqwest::Client::new(), base: &a.base, key: &key };
    let listed = caller.all_delivered(&endpoint, 6, (LEASE_MS / 1000) as u64 + 30).await;
    assert!(
        killed_at.elapsed() >= Duration::from_millis(LEASE_MS as u64 - 5_000),
        "the killed server's claim was taken before its lease ran out: {:?}",
        killed_at.elapsed()
    );
    assert_eq!(first_arrivals(&receiver), sent, "one endpoint's events go in the order they were created");
    let counts = arrivals(&receiver);
    for (i, id) in sent.iter().enumerate() {
        let expected = if i == 2 { 2 } else { 1 };
        assert_eq!(counts[id], expected, "event {i} arrived {} times: {counts:?}", counts[id]);
    }
    // The killed attempt left no record: the delivery shows the one that was answered.
    let held = listed.iter().find(|d| d["deliveryId"] == sent[2].as_str()).unwrap();
    assert_eq!(held["attemptCount"], 1, "{held}");
    assert_eq!(held["attempts"][0]["outcome"], "delivered", "{held}");
    drop((a, b));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_restarted_while_a_receiver_answers_loses_nothing_and_sends_nothing_twice() {
    let pg = PostgresServer::start();
    let app = TestApp::start_with(Options { state_url: Some(pg.url()), ..Options::default() }).await;
    let caller = Caller { http: app.http.clone(), base: &app.base, key: &app.key };
    // The second event's request is held until the database is down.
    let receiver = Receiver::start(&[200, HELD]).await;
    let (endpoint, mut sent) = caller.endpoint_with_tests(&receiver.url, 4).await;
    receiver.wait_for(2, 20).await;
    pg.stop();
    receiver.release();
    // The receiver answered 200; recording it fails while the database is down (longer than the
    // pool's 3 s wait for a connection), and is tried again.
    tokio::time::sleep(Duration::from_secs(7)).await;
    pg.resume();
    pg.ready().await;
    sent.extend(caller.send_tests(&endpoint, 2).await);
    let listed = caller.all_delivered(&endpoint, 6, 40).await;
    assert_eq!(first_arrivals(&receiver), sent, "in order");
    assert!(arrivals(&receiver).values().all(|&n| n == 1), "an event arrived twice: {:?}", arrivals(&receiver));
    assert!(listed.iter().all(|d| d["attemptCount"] == 1), "{listed:?}");
    let metrics = app.metrics().await;
    assert!(metrics.contains("sitrep_webhook_attempts_total{outcome=\"delivered\"} 6"), "{metrics}");
}
