//! The webhooks figures of issue 59, on one delivery worker over PostgreSQL (the deployment's
//! state store; a server of the bench's own), to receivers on loopback. Every endpoint is its own
//! Business account's, watching one company; an event is one impact revision, committed by
//! company monitoring's own write (`save_events`), so it goes to one endpoint.
//! - backlog: 100,000 events committed while no worker runs (100 to each of 1,000 endpoints),
//!   then one worker started: deliveries per second until the last 2xx;
//! - steady: events committed one at a time at a steady rate over the same endpoints, the
//!   100,000 delivered ones still in the tables: from each commit to its receiver's 2xx, p50 and p99;
//! - the same stream with 100 more endpoints that never answer (a socket accepted, never read)
//!   taking their share of it: the healthy endpoints' p99 against the steady one.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use futures::StreamExt;
use poem::{endpoint::BoxEndpoint, Endpoint};
use serde_json::{json, Value};
use sitrep_cm::{
    records::Direction,
    settings::{CmSettings, Flags},
};
use sitrep_platform::state::Plan;
use sitrep_tests::{cm_data::admitted, postgres_server::PostgresServer, Options, TestApp};

use crate::percentile;

fn endpoint_count() -> usize {
    crate::scaled(1_000, 20)
}
fn backlog_per_endpoint() -> usize {
    crate::scaled(100, 20)
}
fn dead_count() -> usize {
    crate::scaled(100, 2)
}
/// Events committed per second in the steady phases, and for how long.
const STEADY_PER_S: usize = 200;
fn steady_seconds() -> usize {
    crate::scaled(20, 2)
}

pub struct Figures {
    pub endpoints: usize,
    pub backlog: usize,
    pub backlog_s: f64,
    pub steady_events: usize,
    pub steady_p50_ms: f64,
    pub steady_p99_ms: f64,
    pub dead: usize,
    pub with_dead_p50_ms: f64,
    pub with_dead_p99_ms: f64,
}

/// The impact ids a receiver was sent, with when each arrived.
#[derive(Clone, Default)]
struct Arrivals(Arc<Mutex<HashMap<String, Instant>>>);

impl Arrivals {
    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }

    async fn wait_for(&self, n: usize, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.len() < n {
            assert!(Instant::now() < deadline, "webhooks bench: {} of {n} deliveries arrived in {limit:?}", self.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A receiver answering 200 at once: its URL prefix.
async fn fast_receiver(arrivals: Arrivals) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let app = poem::endpoint::make(move |req: poem::Request| {
        let arrivals = arrivals.clone();
        async move {
            let body = req.into_body().into_vec().await.unwrap_or_default();
            let at = Instant::now();
            let event: Value = serde_json::from_slice(&body).unwrap_or_default();
            if let Some(id) = event["data"]["impact"]["impactId"].as_str() {
                arrivals.0.lock().unwrap().entry(id.to_string()).or_insert(at);
            }
            poem::Response::builder().status(poem::http::StatusCode::NO_CONTENT).finish()
        }
    });
    let acceptor = poem::listener::TcpAcceptor::from_tokio(listener).expect("acceptor");
    tokio::spawn(async move {
        let _ = poem::Server::new_with_acceptor(acceptor).run(app).await;
    });
    base
}

/// A receiver that accepts connections and never reads or answers: its URL prefix.
async fn dead_receiver() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    base
}

/// An account watching one company, with one endpoint at `url`.
struct Watcher {
    account: String,
    company: String,
}

async fn post(endpoint: &BoxEndpoint<'static>, key: &str, path: &str, body: Value) -> Value {
    let request = poem::Request::builder()
        .method(poem::http::Method::POST)
        .uri(path.parse().expect("uri"))
        .header("x-service-key", key)
        .header("content-type", "application/json")
        .body(body.to_string());
    let response = endpoint.get_response(request).await;
    assert_eq!(response.status(), 200, "{path}");
    serde_json::from_slice(&response.into_body().into_vec().await.expect("body")).expect("json")
}

async fn watcher(app: &TestApp, endpoint: &BoxEndpoint<'static>, n: usize, url: String) -> Watcher {
    let account = app.state.store.create_account(&format!("hooks-{n}"), Plan::Business).await.expect("account");
    let scopes = ["company_monitoring:read", "company_monitoring:write"];
    let key = app.state.store.create_key(&account.id, "hooks", "di", &scopes, false).await.expect("key").secret;
    let company = json!({"clientRequestId": format!("c{n}"), "company": {"name": format!("Company {n}"), "domicileCountry": "US"}});
    let created = post(endpoint, &key, "/api/company-monitoring/v1/create-monitored-company", company).await;
    let company = created["company"]["companyId"].as_str().expect("company id").to_string();
    post(
        endpoint,
        &key,
        "/api/webhooks/v1/create-webhook-endpoint",
        json!({"url": url, "eventTypes": ["company.impact.changed"]}),
    )
    .await;
    Watcher { account: account.id, company }
}

async fn watchers(app: &TestApp, range: std::ops::Range<usize>, base: &str) -> Vec<Watcher> {
    let endpoint = app.endpoint();
    futures::stream::iter(range)
        .map(|n| watcher(app, &endpoint, n, format!("{base}/hook/{n}")))
        .buffered(8)
        .collect()
        .await
}

/// Commits `count` impact revisions of `w`'s company in one transaction: their ids.
async fn commit(app: &TestApp, w: &Watcher, count: usize) -> Vec<String> {
    let store = &sitrep_api::context(&app.state).company_monitoring.store;
    let now = app.state.clock.now_ms();
    let mut writes: Vec<_> = (0..count).map(|_| admitted(&w.company, Direction::Negative, 0, now)).collect();
    store.save_events(&w.account, &mut writes, now).await.expect("impacts");
    writes.iter().map(|w| w.impact.as_ref().expect("an impact").impact_id.clone()).collect()
}

/// Commits `STEADY_PER_S` events a second for the steady time, each to the next of `to` in turn
/// (those marked false never answer); the healthy ones' latencies (ms, sorted) once all arrived.
async fn stream(app: &TestApp, to: &[(&Watcher, bool)], arrivals: &Arrivals) -> Vec<f64> {
    let total = STEADY_PER_S * steady_seconds();
    let before = arrivals.len();
    let mut committed = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1) / STEADY_PER_S as u32);
    for i in 0..total {
        tick.tick().await;
        let (w, healthy) = to[i % to.len()];
        let ids = commit(app, w, 1).await;
        if healthy {
            committed.push((ids[0].clone(), Instant::now()));
        }
    }
    arrivals.wait_for(before + committed.len(), Duration::from_secs(120)).await;
    let got = arrivals.0.lock().unwrap();
    let mut latencies: Vec<f64> =
        committed.iter().map(|(id, at)| got[id].saturating_duration_since(*at).as_secs_f64() * 1000.0).collect();
    latencies.sort_by(f64::total_cmp);
    latencies
}

pub async fn measure() -> Figures {
    let pg = PostgresServer::start();
    let limits =
        sitrep_platform::edge::rate_limit::Limits::parse("default=1000000000,cm-write=1000000000").expect("limits");
    let company_monitoring = CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some("http://127.0.0.1:9/search".into()),
        flags: Flags { publication: true, ..Flags::default() },
        company_limits: [0, 0, 100_000],
        ..CmSettings::default()
    };
    let options = Options {
        state_url: Some(pg.url()),
        rate_limits: limits,
        company_monitoring,
        webhook_worker: false,
        ..Options::default()
    };
    let app = TestApp::start_with(options).await;
    let arrivals = Arrivals::default();
    let fast = fast_receiver(arrivals.clone()).await;
    let healthy = watchers(&app, 0..endpoint_count(), &fast).await;

    // The backlog, committed with no worker running; then one worker.
    for w in &healthy {
        commit(&app, w, backlog_per_endpoint()).await;
    }
    let backlog = healthy.len() * backlog_per_endpoint();
    let started = Instant::now();
    let _worker = sitrep_api::webhooks::delivery::spawn(&app.state);
    arrivals.wait_for(backlog, Duration::from_secs(1_200)).await;
    let backlog_s = started.elapsed().as_secs_f64();

    let calm = stream(&app, &healthy.iter().map(|w| (w, true)).collect::<Vec<_>>(), &arrivals).await;

    let dead_base = dead_receiver().await;
    let dead = watchers(&app, endpoint_count()..endpoint_count() + dead_count(), &dead_base).await;
    // Every tenth event goes to a dead endpoint.
    let mut mixed = Vec::new();
    let mut dead_ones = dead.iter().cycle();
    for chunk in healthy.chunks(9) {
        mixed.extend(chunk.iter().map(|w| (w, true)));
        mixed.push((dead_ones.next().expect("a dead endpoint"), false));
    }
    let stormy = stream(&app, &mixed, &arrivals).await;
    Figures {
        endpoints: healthy.len(),
        backlog,
        backlog_s,
        steady_events: calm.len(),
        steady_p50_ms: percentile(&calm, 0.5),
        steady_p99_ms: percentile(&calm, 0.99),
        dead: dead.len(),
        with_dead_p50_ms: percentile(&stormy, 0.5),
        with_dead_p99_ms: percentile(&stormy, 0.99),
    }
}

pub fn print(f: &Figures) {
    println!(
        "\nWebhooks (one worker, PostgreSQL, receivers on loopback; goals: ≥ 1,000 deliveries/s; commit → 2xx p50 ≤ 1 s, p99 ≤ 5 s; {} dead endpoints move the healthy p99 ≤ 1.5 ×)\n",
        f.dead
    );
    println!("| endpoints | backlog | drained in s | deliveries/s | steady events | p50 ms | p99 ms | with dead: p50 ms | p99 ms | p99 ÷ steady p99 |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} | {:.1} | {:.0} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} |",
        f.endpoints,
        f.backlog,
        f.backlog_s,
        f.backlog as f64 / f.backlog_s,
        f.steady_events,
        f.steady_p50_ms,
        f.steady_p99_ms,
        f.with_dead_p50_ms,
        f.with_dead_p99_ms,
        f.with_dead_p99_ms / f.steady_p99_ms
    );
}
