//! History (issue 31): an answer `as_of` a past time against the current answer, both uncached, and
//! ListDatasetChanges between two versions of 1M armed events: the first page (which computes the
//! pair's diff, issue 45) and then pages uncached by the body cache (each request a page size of its
//! own), read from the computed diff.
//!
//! The lake: 1M synthetic events (version 1); the same stream extended to 1.01M (version 2: 10k
//! events added, the incremental case); then 1M events of another seed (version 3: every row
//! removed and another million added, the worst case).

use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Utc};
use sitrep_ingest::Lake;

use crate::percentile;

const LIST: &str = "/api/conflict/v1/list-armed-events?country=UA";
const CHANGES: &str = "/api/history/v1/list-dataset-changes?dataset=armed-events";
/// Events of a version: 1M (20k in the short pass).
fn events() -> usize {
    crate::scaled(1_000_000, 20_000)
}
/// Distinct requests timed per figure.
fn samples() -> usize {
    crate::scaled(60, 5)
}
fn diff_samples() -> usize {
    crate::scaled(15, 3)
}

pub struct Figures {
    current_p50_ms: f64,
    as_of_p50_ms: f64,
    /// (what changed, the first page's ms, times told to come back, p50 ms, p99 ms, changed rows)
    changes: Vec<(&'static str, f64, usize, f64, f64, i64)>,
}

async fn time_get(app: &sitrep_tests::TestApp, path: &str) -> (f64, serde_json::Value) {
    let t = Instant::now();
    let r = app.get(path).send().await.expect("request");
    let status = r.status();
    let body: serde_json::Value = r.json().await.expect("body");
    assert_eq!(status, 200, "{path}: {body}");
    (t.elapsed().as_secs_f64() * 1e3, body)
}

/// The first page of a pair's changes, which computes their diff: asked again, as a client
/// does, while the server answers 503 `still_computing` (the diff goes on past the request's
/// patience, issue 58) after the `Retry-After` it gives; ms from the first ask to the page, and
/// how many times it was told to come back.
async fn first_page(app: &sitrep_tests::TestApp, path: &str) -> (f64, usize) {
    let t = Instant::now();
    let mut told = 0;
    loop {
        let r = app.get(path).send().await.expect("request");
        let status = r.status();
        let retry_after: u64 =
            r.headers().get("retry-after").and_then(|v| v.to_str().ok()?.parse().ok()).unwrap_or_default();
        let body: serde_json::Value = r.json().await.expect("body");
        if status == 503 && body["code"] == "still_computing" && told < 20 {
            assert!((1..=60).contains(&retry_after), "{path}: Retry-After {retry_after}");
            told += 1;
            tokio::time::sleep(StdDuration::from_secs(retry_after)).await;
            continue;
        }
        assert_eq!(status, 200, "{path}: {body}");
        return (t.elapsed().as_secs_f64() * 1e3, told);
    }
}

/// An instant between two publications: after the first, before the second.
pub async fn after_publishing() -> DateTime<Utc> {
    let t = Utc::now();
    tokio::time::sleep(StdDuration::from_millis(20)).await;
    t
}

pub async fn measure(as_of: DateTime<Utc>) -> Figures {
    let dir = tempfile::tempdir().expect("tempdir");
    let lake = Lake::open(dir.path().join("lake").to_str().expect("path")).expect("lake");
    let events = events();
    crate::ingest_seeded(&lake, events, as_of, 42).await;
    let v1 = after_publishing().await;
    crate::ingest_seeded(&lake, events + events / 100, as_of, 42).await;
    let v2 = after_publishing().await;
    crate::ingest_seeded(&lake, events, as_of, 43).await;
    let app = sitrep_tests::TestApp::serve(dir, lake).await;

    // Each version loaded once before timing (a cold load is the cursor path's cost too).
    let as_of_param = v1.timestamp_millis();
    time_get(&app, &format!("{LIST}&page_size=1&as_of={as_of_param}")).await;
    let (mut current, mut past) = (Vec::new(), Vec::new());
    for size in 2..2 + samples() {
        current.push(time_get(&app, &format!("{LIST}&page_size={size}")).await.0);
        past.push(time_get(&app, &format!("{LIST}&page_size={size}&as_of={as_of_param}")).await.0);
    }
    current.sort_by(f64::total_cmp);
    past.sort_by(f64::total_cmp);

    let mut changes = Vec::new();
    let pairs = [
        ("1 % added (v1 → v2)", format!("since={}&until={}", v1.timestamp_millis(), v2.timestamp_millis())),
        ("every row replaced (v2 → v3)", format!("since={}", v2.timestamp_millis())),
    ];
    for (what, range) in pairs {
        let (first, told) = first_page(&app, &format!("{CHANGES}&{range}&page_size=1")).await;
        let (mut times, mut total) = (Vec::new(), 0);
        for size in 2..2 + diff_samples() {
            let (ms, body) = time_get(&app, &format!("{CHANGES}&{range}&page_size={size}")).await;
            times.push(ms);
            total = body["pagination"]["totalCount"].as_i64().expect("the diff's row count");
            let rows = body["changes"].as_array().map_or(0, Vec::len);
            assert_eq!(rows, size.min(total as usize), "{what}: a page of {size} holds {rows} changes");
        }
        // The outcomes the figures stand on: the stream extended by 1 % adds exactly those
        // events; a version of other events replaces nearly every row (both sides counted).
        match changes.len() {
            0 => assert_eq!(total as usize, events / 100, "{what}: rows changed"),
            _ => assert!(total as usize > events, "{what}: {total} rows changed"),
        }
        times.sort_by(f64::total_cmp);
        changes.push((what, first, told, percentile(&times, 0.5), percentile(&times, 0.99), total));
    }
    Figures { current_p50_ms: percentile(&current, 0.5), as_of_p50_ms: percentile(&past, 0.5), changes }
}

pub fn print(f: &Figures) {
    println!("\nHistory: ListArmedEvents (UA, 30 days) at {} events, uncached one at a time over {} distinct page sizes: current, and as of a past time (an older version)\n", events(), samples());
    println!("| current p50 ms | as_of p50 ms | as_of ÷ current (goal ≤ 1.5) |");
    println!("|---:|---:|---:|");
    println!("| {:.2} | {:.2} | {:.2} |", f.current_p50_ms, f.as_of_p50_ms, f.as_of_p50_ms / f.current_p50_ms);
    println!("\nListDatasetChanges between two versions of about {} armed events: the first page computes the pair's diff; then {} distinct page sizes (no body-cache hit) read from it (goal p50 ≤ 500 ms)\n", events(), diff_samples());
    println!("| versions | rows changed | first page ms (goal ≤ 8,000 at 1M) | 503 still_computing before it | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (what, first, told, p50, p99, total) in &f.changes {
        println!("| {what} | {total} | {first:.0} | {told} | {p50:.0} | {p99:.0} |");
    }
}
