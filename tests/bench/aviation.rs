//! The Aviation figures: ListAirportDelays and GetAirportOpsSummary warm (in process and over HTTP,
//! as for Conflict), a read-through cache hit over HTTP next to the ceiling, and 1,000 concurrent
//! identical cold read-through requests (one upstream call, and their p99).

use std::time::Instant;

use poem::Endpoint;
use sitrep_tests::TestApp;

use crate::{http_load, percentile};

const DELAYS: &str = "/api/aviation/v1/list-airport-delays?page_size=100";
const SUMMARY: &str = "/api/aviation/v1/get-airport-ops-summary?airports=IST&airports=LHR&airports=JFK";
const READ_THROUGH: &str = "/api/aviation/v1/get-flight-status?flight_number=TK2120&date=2026-11-20";
/// A read-through request nobody asked before (a cold cache key, a box outside the watch list),
/// sent 1,000 times at once.
const COLD: &str = "/api/aviation/v1/track-aircraft?sw_lat=38&sw_lon=26&ne_lat=43&ne_lon=35";

pub struct Figures {
    /// (operation, in-process cached p50 µs, p99 µs, HTTP req/s, HTTP p99 ms) per operation.
    pub warm: Vec<(&'static str, f64, f64, Option<http_load::Run>)>,
    /// A read-through cache hit under wrk: [the ceiling, the ceiling with the hit's headers, the
    /// hit], from one round of the alternating rounds.
    pub read_through: Option<[http_load::Run; 3]>,
    pub cold_upstream_calls: u64,
    pub cold_p50_ms: f64,
    pub cold_p99_ms: f64,
}

async fn in_process(app: &TestApp, path: &str) -> (f64, f64) {
    let endpoint = app.endpoint();
    let mut lat = Vec::new();
    for i in 0..crate::scaled(20_000, 1_500) {
        let req = poem::Request::builder().uri(path.parse().expect("uri")).header("x-service-key", &app.key).finish();
        let t = Instant::now();
        let r = endpoint.get_response(req).await;
        assert_eq!(r.status(), 200, "{path}");
        std::hint::black_box(&r);
        if i >= 1000 {
            lat.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    lat.sort_by(f64::total_cmp);
    (percentile(&lat, 0.5), percentile(&lat, 0.99))
}

/// Identical requests at once on a cold read-through key, over HTTP: 1,000 (200 in the short
/// pass: the debug server works about ten times slower, so more of a burst is still on its way to
/// the single flight, counted at work; what a thousand at once show about load shedding is the
/// release bench's).
fn burst() -> usize {
    crate::scaled(1000, 200)
}

/// [`burst`] identical requests at once on a cold read-through key, over HTTP.
async fn cold_burst(app: &TestApp) -> (u64, f64, f64) {
    let before = app.read_through().upstream_calls();
    let url = format!("{}{COLD}", app.base);
    let tasks: Vec<_> = (0..burst())
        .map(|_| {
            let (client, url, key) = (app.http.clone(), url.clone(), app.key.clone());
            tokio::spawn(async move {
                let t = Instant::now();
                let r = client.get(&url).header("x-service-key", key).send().await.expect("request");
                let status = r.status();
                let body = r.bytes().await.expect("body");
                assert_eq!(status, 200, "a cold request was refused: {}", String::from_utf8_lossy(&body));
                t.elapsed().as_secs_f64() * 1e3
            })
        })
        .collect();
    let mut lat = Vec::new();
    for t in tasks {
        lat.push(t.await.expect("task"));
    }
    lat.sort_by(f64::total_cmp);
    let calls = app.read_through().upstream_calls() - before;
    assert_eq!(calls, 1, "{} identical cold requests must make exactly one upstream call", burst());
    (calls, percentile(&lat, 0.5), percentile(&lat, 0.99))
}

pub async fn measure(wrk: Option<&http_load::Wrk>) -> Figures {
    let dir = tempfile::tempdir().expect("tempdir");
    let lake = sitrep_tests::normal_lake(&dir).await;
    let (app, ceiling) = crate::serve_with_ceiling(dir, lake).await;
    let (cold_upstream_calls, cold_p50_ms, cold_p99_ms) = cold_burst(&app).await;
    let hit = app.get(READ_THROUGH).send().await.expect("request");
    assert_eq!(hit.status(), 200);
    let _ = ceiling.headers.set(crate::ceiling_headers(hit.headers()));
    let _ = ceiling[0].set(hit.bytes().await.expect("body"));
    crate::hold(&app, READ_THROUGH).await;
    let mut warm = Vec::new();
    for (name, path) in [("ListAirportDelays", DELAYS), ("GetAirportOpsSummary", SUMMARY)] {
        let (p50, p99) = in_process(&app, path).await;
        let http = match wrk {
            Some(w) => Some(w.run(&format!("{}{path}", app.base), &http_load::Wrk::repeated(&app.key)).await),
            None => None,
        };
        warm.push((name, p50, p99, http));
    }
    let (anonymous, keyed) = (http_load::Wrk::repeated_anonymous(), http_load::Wrk::repeated(&app.key));
    let http = match wrk {
        Some(w) => Some(
            w.alternating([
                (&format!("{}/bench/ceiling", app.base), &anonymous),
                (&format!("{}{}", app.base, crate::HEADERS_CEILING), &anonymous),
                (&format!("{}{READ_THROUGH}", app.base), &keyed),
            ])
            .await,
        ),
        None => None,
    };
    Figures { warm, read_through: http, cold_upstream_calls, cold_p50_ms, cold_p99_ms }
}

pub fn print(f: &Figures) {
    let opt = crate::fmt_opt;
    println!("\nAviation: warm dataset operations (cached), in process and over HTTP (wrk, concurrency 32)\n");
    println!("| operation | in-process p50 µs | in-process p99 µs | HTTP req/s | HTTP p99 ms |");
    println!("|---|---:|---:|---:|---:|");
    for (name, p50, p99, http) in &f.warm {
        println!(
            "| {name} | {p50:.1} | {p99:.1} | {} | {} |",
            opt(http.as_ref().map(|h| h.rps), 0),
            opt(http.as_ref().map(|h| h.p99_ms), 2),
        );
    }
    let [ceiling, headers, hit] = match &f.read_through {
        Some([c, h, r]) => [Some(c), Some(h), Some(r)],
        None => [None, None, None],
    };
    let rps = |r: Option<&http_load::Run>| r.map(|r| r.rps);
    println!("\nAviation read-through: a cache hit (GetFlightStatus) next to the ceiling (the same body) and the ceiling with the hit's headers, and {} identical cold requests at once (TrackAircraft)\n", burst());
    println!("| ceiling req/s | ceiling with our headers req/s | cache hit req/s | hit ÷ ceiling | hit ÷ ceiling with our headers | hit server CPU µs/answer | ceiling's | CPU ÷ ceiling's (goal ≤ 1.2) | hit p99 ms | cold burst: upstream calls | cold burst p50 ms | cold burst p99 ms |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let ratio = |of: Option<&http_load::Run>| hit.zip(of).map(|(h, c)| h.rps / c.rps);
    let [cpu, ceiling_cpu, cpu_ratio] = http_load::cpu_cells(hit, ceiling);
    println!(
        "| {} | {} | {} | {} | {} | {cpu} | {ceiling_cpu} | {cpu_ratio} | {} | {} | {:.1} | {:.1} |",
        opt(rps(ceiling), 0),
        opt(rps(headers), 0),
        opt(rps(hit), 0),
        opt(ratio(ceiling), 2),
        opt(ratio(headers), 2),
        opt(hit.map(|h| h.p99_ms), 2),
        f.cold_upstream_calls,
        f.cold_p50_ms,
        f.cold_p99_ms,
    );
}
