//! The real `sitrep-serve` binary (built next to this one) over a benchmark lake: the first start
//! (ready once the files are downloaded, answering from them; then it builds every serving
//! database), peak resident memory after a burst of uncached requests, then a restart over the
//! same cache directory (re-attaches the databases).

use std::{
    path::Path,
    time::{Duration, Instant},
};

use sitrep_platform::state::{Plan, StateStore};

use crate::http_load::Wrk;

pub struct Measured {
    pub cold_start_ms: f64,
    /// From the start until every serving database is built (`sitrep_serving_builds_pending` 0).
    pub built_ms: f64,
    pub warm_restart_ms: f64,
    pub peak_rss_mb: f64,
    pub memory: Memory,
}

/// Where the server's memory goes (MB): what is resident once ready and the peak of the first
/// start up to the end of its builds; after the burst, what is resident and what of it
/// DuckDB's buffer manager and the body cache say they hold; and the peak of a restart that
/// re-attaches the built files, after the same burst (the peak without a build).
#[derive(Debug, Default)]
pub struct Memory {
    pub start_peak: f64,
    pub ready: f64,
    pub after_burst: f64,
    pub duckdb: f64,
    pub body_cache: f64,
    pub restart_peak: f64,
}

/// A SQLite state store in `dir` with a Pro account named `name` and its API key: (URL, key).
pub async fn state_with_key(dir: &Path, name: &str) -> (String, String) {
    let state_url = format!("sqlite://{}", dir.join("state.db").display());
    let store = StateStore::open(&state_url).await.expect("state store");
    let account = store.create_account(name, Plan::Pro).await.expect("account");
    let key = store.create_key(&account.id, name, "di", &[], false).await.expect("key").secret;
    (state_url, key)
}

/// An OAuth access token of the account of `key` (authorised through it, valid for an hour), as
/// the token endpoint would issue to an agent: the store keeps its digest only.
pub async fn access_token(state_url: &str, key: &str) -> String {
    use sitrep_platform::state::{hash_secret, Family};
    let store = StateStore::open(state_url).await.expect("state store");
    let (record, account) = store.live_key(&hash_secret(key)).await.expect("store").expect("a live key");
    let family = Family {
        id: format!("fam_{}", ulid::Ulid::new().to_string().to_lowercase()),
        client_id: None,
        account_id: account.id,
        key_id: record.id,
        scope: "mcp".into(),
    };
    let now = chrono::Utc::now().timestamp();
    store.create_family(&family, now).await.expect("family");
    let token = format!("bench-agent-{}", ulid::Ulid::new());
    store.store_token(&hash_secret(&token), "access", &family.id, now + 3_600).await.expect("token");
    token
}

/// A loopback port free now.
/// A free port whose next one is free too: the server's public listener takes it and its
/// operator listener (`/metrics`, [`metrics_base`]) the next.
pub fn free_port() -> u16 {
    loop {
        let first = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
        let port = first.local_addr().expect("addr").port();
        if port < u16::MAX && std::net::TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
}

/// Where the server started on `port` serves `/metrics`.
pub fn metrics_base(port: u16) -> String {
    format!("http://127.0.0.1:{}", port + 1)
}

/// Starts the binary; returns it once `/readyz` answers 200, with the time that took (from just
/// before the spawn).
async fn start(
    binary: &Path,
    state_url: &str,
    lake_dir: &Path,
    cache: &Path,
    port: u16,
) -> Option<(tokio::process::Child, f64)> {
    start_with(binary, state_url, lake_dir, cache, port, 3600, &[]).await.map(|(child, _, ms)| (child, ms))
}

/// [`start`], polling the lake every `poll_seconds`, with more environment; also returns when
/// the spawn began.
pub async fn start_with(
    binary: &Path,
    state_url: &str,
    lake_dir: &Path,
    cache: &Path,
    port: u16,
    poll_seconds: u64,
    env: &[(&str, &str)],
) -> Option<(tokio::process::Child, Instant, f64)> {
    let base = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    let mut child = tokio::process::Command::new(binary)
        .args(["--state", state_url, "serve", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--poll-seconds", &poll_seconds.to_string()])
        .arg("--lake")
        .arg(lake_dir)
        .arg("--cache-dir")
        .arg(cache)
        .env("SITREP_LOG", std::env::var("BENCH_SERVE_LOG").unwrap_or_else(|_| "warn".into()))
        // The burst below is one key's thousands of requests a minute.
        .env("SITREP_RATE_LIMITS", "default=100000000")
        .env("SITREP_METRICS_LISTEN", format!("127.0.0.1:{}", port + 1))
        .envs(env.iter().copied())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn sitrep-serve");
    let http = reqwest::Client::new();
    loop {
        if let Ok(r) = http.get(format!("{base}/readyz")).send().await {
            if r.status() == 200 {
                return Some((child, started, started.elapsed().as_secs_f64() * 1e3));
            }
        }
        if started.elapsed() > Duration::from_secs(600) || child.try_wait().ok().flatten().is_some() {
            eprintln!("sitrep-serve never became ready");
            return None;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A number from the environment, or `default`.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The descriptors process `pid` holds open.
pub fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0)
}

/// A line of `/proc/<pid>/status` in MB (`VmHWM`: the peak resident set; `VmRSS`: now).
pub fn status_mb(pid: u32, field: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// A gauge of the server's `/metrics`, in MB.
pub async fn gauge_mb(base: &str, name: &str) -> f64 {
    let text = reqwest::get(format!("{base}/metrics")).await.ok().map(|r| r.text());
    let text = match text {
        Some(t) => t.await.unwrap_or_default(),
        None => String::new(),
    };
    gauge(&text, name) / (1024.0 * 1024.0)
}

/// A gauge's value in a `/metrics` exposition (NaN when absent).
fn gauge(text: &str, name: &str) -> f64 {
    let value = text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse::<f64>().ok());
    value.unwrap_or(f64::NAN)
}

/// Waits until the server has built every serving database it started without (`None` if that
/// takes over ten minutes: a build that keeps failing).
pub async fn wait_built(base: &str) -> Option<()> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(600) {
        let text = match reqwest::get(format!("{base}/metrics")).await {
            Ok(r) => r.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if gauge(&text, "sitrep_serving_builds_pending") == 0.0 {
            return Some(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eprintln!("sitrep-serve never finished building its serving databases");
    None
}

pub async fn measure(lake_dir: &Path, wrk: Option<&Wrk>, as_of: chrono::DateTime<chrono::Utc>) -> Option<Measured> {
    let binary = std::env::current_exe().ok()?.with_file_name("sitrep-serve");
    if !binary.is_file() {
        eprintln!("{} not built: cold start and RSS are n/a (make bench builds it)", binary.display());
        return None;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (state_url, key) = state_with_key(dir.path(), "bench").await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let cache = dir.path().join("cache");
    let (mut child, started, cold_start_ms) =
        start_with(&binary, &state_url, lake_dir, &cache, port, 3600, &[]).await?;
    let pid = child.id()?;
    let ready = status_mb(pid, "VmRSS:")?;
    wait_built(&metrics_base(port)).await?;
    let built_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut memory = Memory { start_peak: status_mb(pid, "VmHWM:")?, ready, ..Memory::default() };
    if let Some(w) = wrk {
        w.uncached(&base, &key, as_of).await;
    }
    let peak_rss_mb = status_mb(pid, "VmHWM:")?;
    memory.after_burst = status_mb(pid, "VmRSS:")?;
    memory.duckdb = gauge_mb(&metrics_base(port), "sitrep_duckdb_memory_bytes").await;
    memory.body_cache = gauge_mb(&metrics_base(port), "sitrep_body_cache_bytes").await;
    let _ = child.kill().await;
    let _ = child.wait().await;
    let (mut child, warm_restart_ms) = start(&binary, &state_url, lake_dir, &cache, port).await?;
    if let Some(w) = wrk {
        w.uncached(&base, &key, as_of).await;
    }
    memory.restart_peak = status_mb(child.id()?, "VmHWM:")?;
    let _ = child.kill().await;
    Some(Measured { cold_start_ms, built_ms, warm_restart_ms, peak_rss_mb, memory })
}

/// The figures of one size at once (`BENCH_ONLY_SERVED`).
pub fn print(n: usize, measured: Option<&Measured>) {
    match measured {
        Some(m) => println!(
            "{n} events: first start→ready {:.0} ms, →built {:.0} ms, warm restart→ready {:.0} ms, peak RSS {:.0} MB; {:?}",
            m.cold_start_ms, m.built_ms, m.warm_restart_ms, m.peak_rss_mb, m.memory
        ),
        None => println!("{n} events: the served binary could not be measured"),
    }
}
