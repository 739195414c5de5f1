//! `make soak` (the `soak` group, only when named): the release `sitrep-serve` over a lake of the
//! replayed datasets plus 1M synthetic armed events, under mixed load for `SOAK_SECONDS` (default
//! 600) while a new generation with changed content is published every `SOAK_PUBLISH_SECONDS`
//! (default 30: the armed events again, from another seed). The read-through upstreams are the
//! recordings, each answer held back `SOAK_UPSTREAM_DELAY_MS` (default 80).
//!
//! Load: `SOAK_CLIENTS` (default 16) clients, each request 70 % one of a fixed set (REST across the
//! groups, MCP tool calls, a batch, a read-through hit) and 30 % distinct (armed-event pages with
//! a start no one asked before, over REST and MCP). Reported per kind: requests, p50, p99, errors
//! (goal 0: any status but 200, or a failed transport). An answer mixing two generations (goal 0)
//! is one whose body differs from another answer to the same request that named the same
//! generation (`X-Snapshot-Generation`, or MCP's `_meta`): an answer is a function of its
//! generation and request, so a header from one generation over a body of another shows as two
//! bodies under one generation. Resident memory and open descriptors are read after a warm-up
//! (`SOAK_WARMUP_SECONDS`, default 120: the caches fill up to their bounds first) and at the end
//! (goal: drift ≤ 10 %); and before each publish, resident memory beside what DuckDB's buffers
//! and the body cache hold (`/metrics`), to tell growth from caches filling to their bounds.

use std::{
    collections::HashMap,
    path::Path,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use chrono::{DateTime, Utc};
use sitrep_ingest::Lake;

use crate::{
    percentile, served_binary,
    served_binary::{env_u64, open_fds},
};

const CONFLICT: &str = "/api/conflict/v1/list-armed-events";

/// One request the clients send.
#[derive(Clone)]
enum Ask {
    Get(String),
    Mcp(serde_json::Value),
    Batch(String),
}

/// The fixed set the repeated 70 % is drawn from, with the kind each is reported under.
fn repeated() -> Vec<(&'static str, Ask)> {
    let gets = [
        "/api/conflict/v1/list-armed-events?country=UA&page_size=100",
        "/api/conflict/v1/list-armed-events?country=SD&page_size=50",
        "/api/conflict/v1/get-humanitarian-summary?country_code=YE",
        "/api/climate/v1/list-climate-anomalies",
        "/api/climate/v1/list-climate-disasters",
        "/api/consumer-prices/v1/get-consumer-price-overview",
        "/api/aviation/v1/list-airport-delays",
        "/api/aviation/v1/get-airport-ops-summary",
    ];
    let mut asks: Vec<(&'static str, Ask)> = gets.iter().map(|p| ("rest repeated", Ask::Get(p.to_string()))).collect();
    asks.push((
        "read-through hit",
        Ask::Get("/api/aviation/v1/get-flight-status?flight_number=tk2120&date=2026-11-20".into()),
    ));
    for args in
        [serde_json::json!({"country": "UA", "page_size": 100}), serde_json::json!({"country": "YE", "page_size": 20})]
    {
        asks.push(("mcp repeated", Ask::Mcp(tool_call("list_armed_events", args))));
    }
    let ops: Vec<_> =
        gets.iter().take(5).enumerate().map(|(i, p)| serde_json::json!({"id": format!("op{i}"), "path": p})).collect();
    asks.push(("batch repeated", Ask::Batch(serde_json::json!({ "operations": ops }).to_string())));
    asks
}

fn tool_call(name: &str, arguments: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// A distinct request: an armed-events page whose start (epoch ms) no one asked before.
fn distinct(n: u64, as_of: DateTime<Utc>) -> (&'static str, Ask) {
    let start = (as_of - chrono::Duration::days(30)).timestamp_millis() + n as i64;
    let countries = ["UA", "SD", "YE", "SY", "MM", "CD", "ML", "SO"];
    let country = countries[(n as usize / 2) % countries.len()];
    if n.is_multiple_of(2) {
        ("rest distinct", Ask::Get(format!("{CONFLICT}?country={country}&page_size=100&start={start}")))
    } else {
        let args = serde_json::json!({"country": country, "page_size": 100, "start": start});
        ("mcp distinct", Ask::Mcp(tool_call("list_armed_events", args)))
    }
}

#[derive(Default)]
struct Tally {
    latencies_us: HashMap<&'static str, Vec<f64>>,
    errors: HashMap<&'static str, u64>,
    /// (request, generation) → the body's digest, and the answers that disagreed with it.
    bodies: HashMap<(String, String), u64>,
    mixed: u64,
    generations_seen: std::collections::BTreeSet<String>,
}

pub struct Report {
    seconds: u64,
    kinds: Vec<(&'static str, usize, f64, f64, u64)>,
    mixed: u64,
    published: u64,
    generations_seen: usize,
    rss_mb: (f64, f64),
    fds: (usize, usize),
    /// At each publish: seconds in, resident MB, DuckDB's buffers MB, the body cache MB.
    memory: Vec<(u64, f64, f64, f64)>,
}

fn digest(body: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut h);
    h.finish()
}

/// One request; its latency, whether it failed, and (for a dataset answer) its request key,
/// generation and body digest.
async fn send(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    ask: &Ask,
) -> (Duration, bool, Option<(String, String, u64)>) {
    let t = Instant::now();
    let (label, request) = match ask {
        Ask::Get(path) => (path.clone(), http.get(format!("{base}{path}"))),
        Ask::Mcp(call) => (call.to_string(), http.post(format!("{base}/mcp")).json(call)),
        Ask::Batch(body) => (
            body.clone(),
            http.post(format!("{base}/api/batch/v1/execute"))
                .header("content-type", "application/json")
                .body(body.clone()),
        ),
    };
    let Ok(r) = request.header("x-service-key", key).send().await else { return (t.elapsed(), true, None) };
    let status = r.status();
    let header_generation = r.headers().get("x-snapshot-generation").and_then(|v| v.to_str().ok()).map(str::to_string);
    let Ok(body) = r.bytes().await else { return (t.elapsed(), true, None) };
    let elapsed = t.elapsed();
    if status != 200 {
        return (elapsed, true, None);
    }
    let seen = match ask {
        Ask::Get(_) => header_generation.map(|g| (label, g, digest(&body))),
        Ask::Mcp(_) => {
            let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            if v.get("error").is_some() {
                return (elapsed, true, None);
            }
            let result = &v["result"];
            let generation = result["_meta"]["sitrep/snapshotGeneration"].as_str().map(str::to_string);
            generation.map(|g| (label, g, digest(result["structuredContent"].to_string().as_bytes())))
        }
        Ask::Batch(_) => {
            let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            return (elapsed, v["failed"] != 0, None);
        }
    };
    (elapsed, false, seen)
}

/// Publishes the armed events again from another seed (changed content): a new generation.
async fn publish(lake: &Lake, round: u64, as_of: DateTime<Utc>) {
    crate::ingest_seeded(lake, 1_000_000, as_of, 42 + round).await;
}

/// The recordings with every read-through upstream's answers held back `delay_ms`.
fn fixtures_with_latency(to: &Path, delay_ms: u64) -> std::path::PathBuf {
    let from = sitrep_tests::fixtures();
    sitrep_tests::copy_tree(&from, to).expect("copy the fixtures");
    for upstream in sitrep_api::read_through::REPLAY_UPSTREAMS {
        for entry in walk(&to.join(upstream)) {
            if !entry.to_string_lossy().ends_with(".meta.json") {
                continue;
            }
            let text = std::fs::read_to_string(&entry).expect("meta");
            let mut meta: serde_json::Value = serde_json::from_str(&text).expect("meta json");
            if meta["response"].get("delayMs").is_none() {
                meta["response"]["delayMs"] = delay_ms.into();
                std::fs::write(&entry, serde_json::to_vec_pretty(&meta).expect("json")).expect("write meta");
            }
        }
    }
    to.to_path_buf()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

pub async fn run(as_of: DateTime<Utc>) -> Option<Report> {
    let seconds = env_u64("SOAK_SECONDS", 600);
    let publish_every = Duration::from_secs(env_u64("SOAK_PUBLISH_SECONDS", 30));
    let clients = env_u64("SOAK_CLIENTS", 16);
    let binary = std::env::current_exe().ok()?.with_file_name("sitrep-serve");
    let dir = tempfile::tempdir().expect("tempdir");
    let lake = sitrep_tests::normal_lake(&dir).await;
    publish(&lake, 0, as_of).await;
    let fixtures = fixtures_with_latency(&dir.path().join("fixtures"), env_u64("SOAK_UPSTREAM_DELAY_MS", 80));
    let (state_url, key) = served_binary::state_with_key(dir.path(), "soak").await;
    let port = served_binary::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let fixtures = fixtures.to_string_lossy().into_owned();
    let env = [
        ("SITREP_READ_THROUGH", "replay"),
        ("SITREP_FIXTURES", fixtures.as_str()),
        ("SITREP_RATE_LIMITS", "default=100000000,batch=100000000,mcp=100000000"),
    ];
    let lake_dir = dir.path().join("lake");
    let cache = dir.path().join("cache");
    let (mut server, _, _) = served_binary::start_with(&binary, &state_url, &lake_dir, &cache, port, 1, &env).await?;
    let pid = server.id()?;

    let tally = Arc::new(Mutex::new(Tally::default()));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let counter = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let asks = Arc::new(repeated());
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (tally, counter, asks, base, key) =
                (tally.clone(), counter.clone(), asks.clone(), base.clone(), key.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                let mut n = c;
                while Instant::now() < deadline {
                    n = n.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let (kind, ask) = if (n >> 33) % 10 < 7 {
                        asks[((n >> 40) as usize) % asks.len()].clone()
                    } else {
                        distinct(counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed), as_of)
                    };
                    let (elapsed, failed, seen) = send(&http, &base, &key, &ask).await;
                    let mut t = tally.lock().expect("tally");
                    t.latencies_us.entry(kind).or_default().push(elapsed.as_secs_f64() * 1e6);
                    if failed {
                        *t.errors.entry(kind).or_default() += 1;
                    }
                    if let Some((request, generation, body)) = seen {
                        t.generations_seen.insert(generation.clone());
                        match t.bodies.entry((request, generation)) {
                            std::collections::hash_map::Entry::Vacant(v) => {
                                v.insert(body);
                            }
                            std::collections::hash_map::Entry::Occupied(o) if *o.get() != body => t.mixed += 1,
                            _ => {}
                        }
                    }
                }
            })
        })
        .collect();

    // The start's figures once the caches have warmed: at the first publish after
    // `SOAK_WARMUP_SECONDS` (default 120, at most a quarter of the run).
    let warmup = Duration::from_secs(env_u64("SOAK_WARMUP_SECONDS", 120).min(seconds / 4));
    let mut published = 0;
    let mut memory = Vec::new();
    let mut start_figures = None;
    let mut next = started + publish_every;
    while Instant::now() < deadline {
        tokio::time::sleep_until(next.into()).await;
        if Instant::now() >= deadline {
            break;
        }
        // Read before the publish, as the end's are after the load: neither while a load runs.
        if start_figures.is_none() && started.elapsed() >= warmup {
            start_figures = Some((served_binary::status_mb(pid, "VmRSS:").unwrap_or(f64::NAN), open_fds(pid)));
        }
        memory.push((
            started.elapsed().as_secs(),
            served_binary::status_mb(pid, "VmRSS:").unwrap_or(f64::NAN),
            served_binary::gauge_mb(&served_binary::metrics_base(port), "sitrep_duckdb_memory_bytes").await,
            served_binary::gauge_mb(&served_binary::metrics_base(port), "sitrep_body_cache_bytes").await,
        ));
        published += 1;
        publish(&lake, published, as_of).await;
        next += publish_every;
    }
    for w in workers {
        let _ = w.await;
    }
    let end = (served_binary::status_mb(pid, "VmRSS:").unwrap_or(f64::NAN), open_fds(pid));
    let start = start_figures.unwrap_or(end);
    let _ = server.kill().await;
    let mut tally = Arc::try_unwrap(tally).ok()?.into_inner().ok()?;
    let mut kinds: Vec<_> = tally
        .latencies_us
        .iter_mut()
        .map(|(kind, lat)| {
            lat.sort_by(f64::total_cmp);
            let errors = tally.errors.get(kind).copied().unwrap_or(0);
            (*kind, lat.len(), percentile(lat, 0.5) / 1e3, percentile(lat, 0.99) / 1e3, errors)
        })
        .collect();
    kinds.sort_by_key(|k| k.0);
    Some(Report {
        seconds,
        kinds,
        mixed: tally.mixed,
        published,
        generations_seen: tally.generations_seen.len(),
        rss_mb: (start.0, end.0),
        fds: (start.1, end.1),
        memory,
    })
}

pub fn print(r: &Report) {
    println!(
        "\nSoak: {} s of mixed load (70 % repeated, 30 % distinct; REST, MCP, batch, read-through) on 1M armed events, a new generation every publish ({} published, {} seen in answers)\n",
        r.seconds, r.published, r.generations_seen
    );
    println!("| kind | requests | p50 ms | p99 ms | errors |");
    println!("|---|---:|---:|---:|---:|");
    for (kind, n, p50, p99, errors) in &r.kinds {
        println!("| {kind} | {n} | {p50:.2} | {p99:.2} | {errors} |");
    }
    let drift = |a: f64, b: f64| (b - a) / a * 100.0;
    println!("\n| answers mixing two generations | RSS MB start → end | drift | open fds start → end | drift |");
    println!("|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {:.0} → {:.0} | {:+.1} % | {} → {} | {:+.1} % |",
        r.mixed,
        r.rss_mb.0,
        r.rss_mb.1,
        drift(r.rss_mb.0, r.rss_mb.1),
        r.fds.0,
        r.fds.1,
        drift(r.fds.0 as f64, r.fds.1 as f64)
    );
    println!("\nMemory before each publish (s: resident / DuckDB buffers / body cache, MB):");
    let series: Vec<String> =
        r.memory.iter().map(|(s, rss, db, cache)| format!("{s}: {rss:.0}/{db:.0}/{cache:.0}")).collect();
    println!("{}", series.join(", "));
}
