//! `make bench`: the figures of the Foundation issue (first three tables), of the Aviation group
//! (`aviation.rs`), of the Climate group (`climate.rs`) and of Consumer prices (`consumer_prices.rs`).
//!
//! `BENCH_GROUPS` (default `all`) picks tables: a comma list of `aviation`, `climate`,
//! `consumer-prices`, `energy-shock`, `history`, `open-tables` (`open_tables.rs`), `company-monitoring`, `scale-out` (`scale_out.rs`),
//! `webhooks` (`webhooks.rs`), `conflict`
//! (the per-size tables below), and `ingest` (the conflict tables' ingest figure alone, at each
//! size; only when named, as `all` measures it in the conflict tables), and `soak` (`soak.rs`, the
//! ten-minute mixed-load soak of `make soak`; only when named), and `abuse` (`abuse.rs`, the attacks
//! of `make abuse` beside a well-behaved client; only when named).
//!
//! `BENCH_ONLY_SERVED` stops after the first size's served-binary figures (start, memory), printed
//! at once: for trying a setting of the server (the binary inherits the environment).
//!
//! `BENCH_HOLD_SECONDS` keeps each size's server up that long before measuring, for a profiler.
//!
//! For each size (env `BENCH_SIZES`, default 10k,100k,1M,5M synthetic ACLED events in ACLED's wire
//! format, dated over the 90 days before the as-of time):
//! - ingest: parse + normalise + write Parquet throughput (page generation is not timed) and the
//!   commit latency of the generation;
//! - the real `sitrep-serve` binary over that lake: first start to ready (downloads and builds the
//!   serving databases), its peak RSS after a burst of uncached requests, and a restart to ready
//!   with that warm cache (re-attaches them);
//! - in process: ListArmedEvents (one country, 30-day range, page_size 100): the engine's floor (the
//!   same SQL timed inside DuckDB's own call), the query through the pool and rendering with no
//!   body cache (p50/p99), and the whole cached request through the application (no socket): its
//!   latency, and the CPU it takes repeated back to back by one task, then by two at once;
//! - over HTTP with `wrk` (concurrency 32, loopback): the same request repeated (cached), distinct
//!   uncached requests, the ceiling (the same server returning a pre-rendered body of the same size
//!   from a plain route; beside it, the same body with the headers of our answer; the three run
//!   in five alternating rounds, and the round with the median cached ÷ ceiling is printed), and
//!   the peer: datasette answering the same distinct pages from the same
//!   rows in SQLite with an index on (country, time) (`BENCH_DATASETTE`, set by `make bench`).

mod abuse;
mod aviation;
mod climate;
mod company_monitoring;
mod consumer_prices;
mod datasette;
mod energy_shock;
mod forwarding_proxy;
mod history;
mod http_load;
mod open_tables;
mod scale_out;
mod served_binary;
mod soak;
mod webhooks;

use std::{
    sync::{Arc, OnceLock},
    time::{Duration as StdDuration, Instant},
};

use chrono::{DateTime, Duration, Utc};
use futures::future::OptionFuture;
use poem::{endpoint::BoxEndpoint, Endpoint, EndpointExt, Response};
use sitrep_api::conflict::queries;
use sitrep_ingest::{
    lake::{Outcome, Staged},
    writer::DatasetWriter,
    Lake,
};
use sitrep_pipelines::{acled, synthetic::AcledGenerator, Scope};
use sitrep_platform::kit::error::ApiError;
use sitrep_schemas::DatasetId;
use sitrep_tests::TestApp;

/// The binaries' allocator, so in-process figures match them (see the workspace manifest and `.cargo/config.toml`).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
// And sitrep-ingest's options (freed pages kept during a run, released after it), so the ingest
// figures are that binary's. The in-process serving figures are CPU and latency; every memory
// figure is read from the sitrep-serve binary itself.
sitrep_ingest::keep_freed_pages!();

const DAY_MS: i64 = 86_400_000;
/// Events per synthetic page: the connector's page size, so the writer's pipeline (one page
/// encoded while the next is parsed) has the depth it has in a real run.
const PAGE_EVENTS: usize = acled::PAGE_SIZE;
const REQUEST: &str = "/api/conflict/v1/list-armed-events?country=UA&page_size=100";

/// `BENCH_SHORT`: the short pass `make test` runs — every group at small sizes, a second a wrk
/// round, one round where the full run alternates five; its outcomes are asserted (statuses, one
/// upstream call per cold burst, the diffs' row counts), its figures judged by nothing.
pub fn short() -> bool {
    std::env::var_os("BENCH_SHORT").is_some()
}

/// `full` in a full run, `small` in the short pass.
pub fn scaled(full: usize, small: usize) -> usize {
    if short() {
        small
    } else {
        full
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

pub struct Ingested {
    events_per_s: f64,
    commit_ms: f64,
}

/// Pages generated ahead of timing, at most (a million events, about 0.7 GB of JSON).
const CHUNK_PAGES: usize = 1_000_000 / PAGE_EVENTS;

/// Generates `n` events in chunks of pages and times only parse + normalise + Parquet writing
/// (the writer encodes one batch while the next is parsed, as in production).
async fn ingest(lake: &Lake, n: usize, as_of: DateTime<Utc>) -> Ingested {
    ingest_seeded(lake, n, as_of, 42).await
}

/// [`ingest`] of the events `seed` generates (another seed: other events, another run).
pub async fn ingest_seeded(lake: &Lake, n: usize, as_of: DateTime<Utc>, seed: u64) -> Ingested {
    let run_id = format!("01BENCH{:06}{n:013}", seed % 1_000_000);
    let mut gen = AcledGenerator::new(n, seed, as_of, 90);
    let mut writer = DatasetWriter::new(lake, &run_id, DatasetId::ARMED_EVENTS, as_of, 0);
    let mut busy = StdDuration::ZERO;
    loop {
        let chunk: Vec<Vec<u8>> = std::iter::from_fn(|| gen.next_page(PAGE_EVENTS)).take(CHUNK_PAGES).collect();
        if chunk.is_empty() {
            break;
        }
        let t = Instant::now();
        for page in &chunk {
            let parsed = acled::parse_page(page).expect("parse");
            writer.write(acled::normalise(parsed.data.iter(), usize::MAX).expect("normalise")).await.expect("write");
        }
        writer.flush().await.expect("flush");
        busy += t.elapsed();
    }
    let t = Instant::now();
    let files = writer.finish().await.expect("finish");
    busy += t.elapsed();
    let months = files.iter().filter_map(|f| f.partition.as_deref().and_then(sitrep_pipelines::time::YearMonth::parse));
    let staged = Staged {
        run_stats: Vec::new(),
        run_id,
        operation: "bench".into(),
        outcomes: vec![Outcome::Fetched {
            partial_error: None,
            dataset: DatasetId::ARMED_EVENTS,
            scope: Scope::Months(months.collect()),
            files,
            fetched_at: as_of,
            as_of,
            upstream_version: None,
            keeps_as_of: false,
            mode: sitrep_schemas::DataMode::Live,
            content_hash: None,
            content_at: None,
        }],
    };
    let t = Instant::now();
    lake.publish(&staged).await.expect("publish");
    sitrep_ingest::memory::release_freed_pages();
    Ingested { events_per_s: n as f64 / busy.as_secs_f64(), commit_ms: t.elapsed().as_secs_f64() * 1e3 }
}

struct InProcess {
    /// The SQL alone, timed inside the blocking call (no pool, no thread hop, no rendering).
    engine_p50_us: f64,
    p50_us: f64,
    p99_us: f64,
    cached_p50_us: f64,
    cached_p99_us: f64,
    /// CPU per cached request: repeated back to back by one task, then by two at once (one per
    /// worker thread, where what both threads write shows), in ns per request.
    cached_ns: [f64; 2],
}

/// Requests each task sends in one round of [`cached_ns`].
fn repeats() -> usize {
    scaled(200_000, 2_000)
}

/// [`InProcess::cached_ns`]: the best of three alternating rounds of 1 and 2 tasks, each sending
/// the cached request [`repeats`] times.
async fn cached_ns(endpoint: Arc<BoxEndpoint<'static>>, key: &str) -> [f64; 2] {
    let uri: poem::http::Uri = REQUEST.parse().expect("uri");
    let mut best = [f64::INFINITY; 2];
    for _ in 0..3 {
        for (slot, tasks) in [1usize, 2].into_iter().enumerate() {
            let t = Instant::now();
            let running: Vec<_> = (0..tasks)
                .map(|_| {
                    let (endpoint, uri, key) = (endpoint.clone(), uri.clone(), key.to_string());
                    tokio::spawn(async move {
                        for _ in 0..repeats() {
                            let req = poem::Request::builder().uri(uri.clone()).header("x-service-key", &key).finish();
                            let r = endpoint.get_response(req).await;
                            assert_eq!(r.status(), 200);
                        }
                    })
                })
                .collect();
            for task in running {
                task.await.expect("task");
            }
            let ns = t.elapsed().as_nanos() as f64 / (repeats() * tasks) as f64;
            best[slot] = best[slot].min(ns);
        }
    }
    best
}

/// The query + render path, then the cached answer path, on the served generation.
async fn in_process(app: &TestApp) -> InProcess {
    let generation = app.snapshots.current().expect("generation");
    let db = generation.dataset(DatasetId::ARMED_EVENTS).expect("armed-events").clone();
    let to = db.as_of().expect("as of").timestamp_millis().div_euclid(DAY_MS) * DAY_MS;
    let positions = db.positions("UA", to - 30 * DAY_MS, to);
    let filter = move || queries::EventFilter {
        from_ms: to - 30 * DAY_MS,
        to_ms: to,
        country: Some("UA".into()),
        positions,
        limit: 100,
        offset: 0,
    };
    let render = |db: Arc<sitrep_platform::snapshot::DatasetDb>| async move {
        let f = filter();
        let table = db.table().to_string();
        let (events, total) = db.query(move |c| queries::armed_events(c, &table, &f)).await.map_err(ApiError::from)?;
        Ok::<_, ApiError>(serde_json::json!({ "events": events, "total": total }))
    };
    let mut engine = Vec::new();
    for i in 0..scaled(1200, 300) {
        let (f, table) = (filter(), db.table().to_string());
        let inside = db
            .query(move |c| {
                let t = Instant::now();
                let page = queries::armed_events(c, &table, &f)?;
                std::hint::black_box(page);
                Ok(t.elapsed())
            })
            .await
            .expect("query");
        if i >= 200 {
            engine.push(inside.as_secs_f64() * 1e6);
        }
    }
    engine.sort_by(f64::total_cmp);
    let mut lat = Vec::new();
    for i in 0..scaled(1200, 300) {
        let t = Instant::now();
        let body = serde_json::to_vec(&render(db.clone()).await.expect("query")).expect("render");
        std::hint::black_box(body);
        if i >= 200 {
            lat.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    lat.sort_by(f64::total_cmp);

    // The whole cached request in process: routing, authentication, gate, rate limit, the body
    // cache, headers and the metrics layer (everything but the socket).
    let endpoint = app.endpoint();
    let mut cached = Vec::new();
    for i in 0..scaled(20_000, 1_500) {
        let req =
            poem::Request::builder().uri(REQUEST.parse().expect("uri")).header("x-service-key", &app.key).finish();
        let t = Instant::now();
        let r = endpoint.get_response(req).await;
        std::hint::black_box(&r);
        if i >= 1000 {
            cached.push(t.elapsed().as_secs_f64() * 1e6);
        }
        assert_eq!(r.status(), 200);
    }
    cached.sort_by(f64::total_cmp);
    let cached_ns = cached_ns(Arc::new(endpoint), &app.key).await;
    InProcess {
        engine_p50_us: percentile(&engine, 0.5),
        p50_us: percentile(&lat, 0.5),
        p99_us: percentile(&lat, 0.99),
        cached_p50_us: percentile(&cached, 0.5),
        cached_p99_us: percentile(&cached, 0.99),
        cached_ns,
    }
}

struct Row {
    n: usize,
    ingest: Ingested,
    served: Option<served_binary::Measured>,
    query: InProcess,
    http: Option<http_load::Figures>,
    mcp_reply_bytes: usize,
}

async fn bench_size(n: usize, as_of: DateTime<Utc>, wrk: Option<&http_load::Wrk>) -> Row {
    let dir = tempfile::tempdir().expect("tempdir");
    let lake_dir = dir.path().join("lake");
    let lake = Lake::open(lake_dir.to_str().expect("utf8")).expect("lake");
    let ingest = ingest(&lake, n, as_of).await;
    let served = served_binary::measure(&lake_dir, wrk, as_of).await;
    if std::env::var_os("BENCH_ONLY_SERVED").is_some() {
        served_binary::print(n, served.as_ref());
        std::process::exit(0);
    }

    let (app, ceiling) = serve_with_ceiling(dir, lake.clone()).await;
    let real = app.get(REQUEST).send().await.expect("request");
    assert_eq!(real.status(), 200, "the benchmark request must succeed");
    let _ = ceiling.headers.set(ceiling_headers(real.headers()));
    let _ = ceiling[0].set(real.bytes().await.expect("body"));
    let call = app.post("/mcp").header("content-type", "application/json").body(http_load::mcp_call(REQUEST));
    let reply = call.send().await.expect("tools/call");
    assert_eq!(reply.status(), 200, "the benchmark's tool call must succeed");
    let reply = reply.bytes().await.expect("body");
    let mcp_reply_bytes = reply.len();
    let _ = ceiling[MCP_CEILING_SLOT].set(reply);
    hold(&app, REQUEST).await;
    let query = in_process(&app).await;
    let http = match wrk {
        Some(w) => {
            let mut figures = w
                .figures(
                    &app.base,
                    &app.key,
                    REQUEST,
                    ["/bench/ceiling", HEADERS_CEILING, &ceiling_path(MCP_CEILING_SLOT)],
                    as_of,
                )
                .await;
            figures.datasette = peer(w, &lake, as_of).await;
            Some(figures)
        }
        None => None,
    };
    Row { n, ingest, served, query, http, mcp_reply_bytes }
}

/// Ceiling bodies: slot `i` (the slice this derefs to) is served at [`ceiling_path`]`(i)`, each
/// set once to the size of the request measured beside it; slot 0 is also served at
/// [`HEADERS_CEILING`] with `headers`.
pub struct CeilingSet {
    bodies: Vec<OnceLock<bytes::Bytes>>,
    pub headers: OnceLock<poem::http::HeaderMap>,
}

impl std::ops::Deref for CeilingSet {
    type Target = [OnceLock<bytes::Bytes>];
    fn deref(&self) -> &Self::Target {
        &self.bodies
    }
}

pub type Ceilings = Arc<CeilingSet>;
const CEILING_SLOTS: usize = 8;
/// The conflict table's slot for the bytes of the MCP reply to the same page.
const MCP_CEILING_SLOT: usize = 1;
/// Slot 0's body with the headers of the answer it copies: what the spec's response headers cost
/// a handler that does nothing else.
pub const HEADERS_CEILING: &str = "/bench/ceiling-headers";

/// The headers a handler sets on `answer` (hyper adds the length and the date itself).
pub fn ceiling_headers(answer: &poem::http::HeaderMap) -> poem::http::HeaderMap {
    let mut headers = answer.clone();
    for added_by_hyper in [poem::http::header::CONTENT_LENGTH, poem::http::header::DATE] {
        headers.remove(added_by_hyper);
    }
    headers
}

pub fn ceiling_path(slot: usize) -> String {
    if slot == 0 {
        "/bench/ceiling".into()
    } else {
        format!("/bench/ceiling{slot}")
    }
}

/// The real application in this process, plus the ceiling routes: a body set once (the same size
/// as the request measured beside it), answered by the same HTTP server without auth, query or
/// rendering. Rate limits are lifted: wrk sends tens of thousands of requests a minute from one key.
/// `BENCH_HOLD_SECONDS`: keeps `app` up that long before it is measured, for profiling by hand
/// (perf, wrk) `request` beside the ceilings.
pub async fn hold(app: &TestApp, request: &str) {
    if let Some(secs) = std::env::var("BENCH_HOLD_SECONDS").ok().and_then(|s| s.parse().ok()) {
        eprintln!(
            "holding {secs} s: {}{request} with X-Service-Key: {}; ceilings {}/bench/ceiling and {}{HEADERS_CEILING}",
            app.base, app.key, app.base, app.base
        );
        tokio::time::sleep(StdDuration::from_secs(secs)).await;
    }
}

pub async fn serve_with_ceiling(dir: tempfile::TempDir, lake: Lake) -> (TestApp, Ceilings) {
    let ceilings: Ceilings = Arc::new(CeilingSet {
        bodies: (0..CEILING_SLOTS).map(|_| OnceLock::new()).collect(),
        headers: OnceLock::new(),
    });
    let bodies = ceilings.clone();
    let wrap = move |app: BoxEndpoint<'static>| -> BoxEndpoint<'static> {
        let paths = (0..CEILING_SLOTS).map(ceiling_path).collect();
        WithCeilings { paths, bodies: bodies.clone(), app }.boxed()
    };
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("default=100000000,batch=100000000,mcp=100000000")
        .expect("limits");
    let options = sitrep_tests::Options { rate_limits: limits, ..Default::default() };
    (TestApp::serve_with(dir, lake, options, wrap).await, ceilings)
}

/// The ceiling paths in front of the application, matched by a string comparison so that the
/// wrapper adds no routing cost to the requests measured against them.
struct WithCeilings {
    paths: Vec<String>,
    bodies: Ceilings,
    app: BoxEndpoint<'static>,
}

impl Endpoint for WithCeilings {
    type Output = Response;

    async fn call(&self, req: poem::Request) -> poem::Result<Response> {
        if req.uri().path() == HEADERS_CEILING {
            let mut r = Response::builder().body(self.bodies[0].get().cloned().unwrap_or_default());
            *r.headers_mut() = self.bodies.headers.get().cloned().unwrap_or_default();
            return Ok(r);
        }
        match self.paths.iter().position(|p| p == req.uri().path()) {
            Some(slot) => Ok(Response::builder()
                .content_type("application/json; charset=utf-8")
                .body(self.bodies[slot].get().cloned().unwrap_or_default())),
            None => self.app.call(req).await,
        }
    }
}

/// datasette over the same rows, when `BENCH_DATASETTE` names its executable.
async fn peer(wrk: &http_load::Wrk, lake: &Lake, as_of: DateTime<Utc>) -> Option<http_load::Run> {
    let Some(exe) = std::env::var_os("BENCH_DATASETTE").map(std::path::PathBuf::from).filter(|p| p.is_file()) else {
        eprintln!("BENCH_DATASETTE not set: the datasette columns are n/a (make bench installs it)");
        return None;
    };
    let python = exe.with_file_name("python");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = datasette::sqlite_of(lake, &python, dir.path()).await;
    let server = datasette::serve(&exe, &db).await?;
    Some(wrk.datasette(&server.base, as_of).await)
}

/// Which DuckDB this run measures (and the `sitrep-serve` beside it): its release, and whether it is
/// DuckDB Labs' prebuilt library or compiled into the binaries (`DUCKDB=bundled`).
fn duckdb_build() -> String {
    let version = sitrep_platform::snapshot::open_duckdb()
        .and_then(|c| {
            c.query_row("SELECT library_version || ' (' || source_id || ')' FROM pragma_version()", [], |r| {
                r.get::<_, String>(0)
            })
        })
        .unwrap_or_else(|e| format!("unknown ({e})"));
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let linked = match maps.lines().find(|l| l.ends_with("/libduckdb.so")) {
        Some(line) => format!("DuckDB Labs' prebuilt library, {}", line.split_whitespace().last().unwrap_or_default()),
        None => "compiled into the binaries (DUCKDB=bundled)".to_string(),
    };
    format!("\nDuckDB {version}: {linked}")
}

/// The body of `path`'s answer, which must be a 200: a ceiling is never set from an error's bytes.
pub async fn ok_body(app: &TestApp, path: &str) -> bytes::Bytes {
    let r = app.get(path).send().await.expect("request");
    let status = r.status();
    let body = r.bytes().await.expect("body");
    assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
    body
}

fn fmt_opt(v: Option<f64>, decimals: usize) -> String {
    v.map(|v| format!("{v:.decimals$}")).unwrap_or_else(|| "n/a".into())
}

fn main() {
    // As sitrep-serve does, before any thread (its in-process figures are that binary's).
    sitrep_platform::snapshot::configure_duckdb_allocator();
    tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime").block_on(run());
}

async fn run() {
    println!("{}", duckdb_build());
    let sizes: Vec<usize> = std::env::var("BENCH_SIZES")
        .unwrap_or_else(|_| "10000,100000,1000000,5000000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let wrk = http_load::Wrk::find();
    if wrk.is_none() {
        eprintln!("wrk not found on PATH: HTTP columns are n/a (make bench installs it with apt-get)");
    }
    let as_of = Utc::now() - Duration::days(1);
    let groups = std::env::var("BENCH_GROUPS").unwrap_or_else(|_| "all".into());
    const GROUPS: [&str; 13] = [
        "aviation",
        "climate",
        "consumer-prices",
        "energy-shock",
        "history",
        "open-tables",
        "company-monitoring",
        "scale-out",
        "webhooks",
        "conflict",
        "ingest",
        "soak",
        "abuse",
    ];
    if let Some(unknown) = groups.split(',').map(str::trim).find(|g| *g != "all" && !GROUPS.contains(g)) {
        // A misspelt group would otherwise print nothing for it and still look like a run.
        eprintln!("BENCH_GROUPS: unknown group {unknown:?}; the groups are all, {}", GROUPS.join(", "));
        std::process::exit(2);
    }
    let wants = |g: &str| {
        let chosen = groups == "all" || groups.split(',').any(|x| x.trim() == g);
        if chosen {
            eprintln!("bench: {g} …");
        }
        chosen
    };
    let aviation = OptionFuture::from(wants("aviation").then(|| aviation::measure(wrk.as_ref()))).await;
    let climate = OptionFuture::from(wants("climate").then(|| climate::measure(wrk.as_ref()))).await;
    let consumer_prices =
        OptionFuture::from(wants("consumer-prices").then(|| consumer_prices::measure(wrk.as_ref()))).await;
    let energy_shock = OptionFuture::from(wants("energy-shock").then(|| energy_shock::measure(wrk.as_ref()))).await;
    let history = OptionFuture::from(wants("history").then(|| history::measure(as_of))).await;
    let open_tables = OptionFuture::from(wants("open-tables").then(|| open_tables::measure(as_of))).await;
    let company_monitoring = OptionFuture::from(wants("company-monitoring").then(company_monitoring::measure)).await;
    let scale_out = OptionFuture::from(wants("scale-out").then(|| scale_out::measure(wrk.as_ref()))).await;
    let webhooks = OptionFuture::from(wants("webhooks").then(webhooks::measure)).await;
    // The ingest figure alone (the conflict tables measure it too, with everything else).
    let named = |g: &str| groups.split(',').any(|x| x.trim() == g);
    let ingest_only = if named("ingest") { sizes.clone() } else { Vec::new() };
    let mut ingested = Vec::new();
    for &n in &ingest_only {
        let dir = tempfile::tempdir().expect("tempdir");
        let lake = Lake::open(dir.path().to_str().expect("utf8")).expect("lake");
        ingested.push((n, ingest(&lake, n, as_of).await));
    }
    let soak = if named("soak") { soak::run(as_of).await } else { None };
    let abuse = if named("abuse") { abuse::run().await } else { None };
    let sizes = if wants("conflict") { sizes } else { Vec::new() };
    let mut rows = Vec::new();
    for n in sizes {
        eprintln!("bench: {n} events …");
        rows.push(bench_size(n, as_of, wrk.as_ref()).await);
    }
    if !ingested.is_empty() {
        println!("\nIngest alone: parse + normalise + Parquet writing of synthetic ACLED pages, and the commit\n");
        println!("| events | ingest events/s | commit ms |");
        println!("|---:|---:|---:|");
        for (n, i) in &ingested {
            println!("| {n} | {:.0} | {:.1} |", i.events_per_s, i.commit_ms);
        }
    }
    if !rows.is_empty() {
        print_conflict(&rows);
    }
    if let Some(f) = &aviation {
        aviation::print(f);
    }
    if let Some(f) = &climate {
        climate::print(f);
    }
    if let Some(f) = &consumer_prices {
        consumer_prices::print(f);
    }
    if let Some(f) = &history {
        history::print(f);
    }
    if let Some(f) = &open_tables {
        open_tables::print(f);
    }
    if let Some(f) = &energy_shock {
        energy_shock::print(f);
    }
    if let Some(f) = &company_monitoring {
        company_monitoring::print(f);
    }
    if let Some(f) = &scale_out {
        scale_out::print(f);
    }
    if let Some(f) = &webhooks {
        webhooks::print(f);
    }
    if let Some(r) = &soak {
        soak::print(r);
    }
    if let Some(r) = &abuse {
        abuse::print(r);
    }
    // ABUSE_CHECK=all|short: the run fails when an attack missed a goal (`make abuse`: all of
    // them; the short pass of `make test`: its outcomes, `abuse::missed`).
    if named("abuse") {
        if let Ok(check) = std::env::var("ABUSE_CHECK") {
            let missed = abuse.as_ref().map(|r| abuse::missed(r, check != "short"));
            match missed {
                None => {
                    eprintln!("abuse: the server binary beside this one is missing");
                    std::process::exit(1);
                }
                Some(m) if !m.is_empty() => {
                    eprintln!("abuse: goals missed:\n  {}", m.join("\n  "));
                    std::process::exit(1);
                }
                Some(_) => eprintln!("abuse: every attack within its goals"),
            }
        }
    }
}

/// The per-size conflict tables (printed only when the conflict group ran).
fn print_conflict(rows: &[Row]) {
    println!("\nIngest, serving binary, in-process ListArmedEvents (one country, 30 days, page_size 100)\n");
    println!("| events | ingest events/s | commit ms | first start→ready ms | →all built ms | warm restart→ready ms | server peak RSS MB | engine p50 µs | query p50 µs | query p99 µs | cached p50 µs | cached p99 µs | cached ns/req, 1 thread | cached ns/req, 2 threads |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {:.0} | {:.1} | {} | {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} | {:.0} | {:.0} |",
            r.n,
            r.ingest.events_per_s,
            r.ingest.commit_ms,
            fmt_opt(r.served.as_ref().map(|s| s.cold_start_ms), 0),
            fmt_opt(r.served.as_ref().map(|s| s.built_ms), 0),
            fmt_opt(r.served.as_ref().map(|s| s.warm_restart_ms), 0),
            fmt_opt(r.served.as_ref().map(|s| s.peak_rss_mb), 0),
            r.query.engine_p50_us,
            r.query.p50_us,
            r.query.p99_us,
            r.query.cached_p50_us,
            r.query.cached_p99_us,
            r.query.cached_ns[0],
            r.query.cached_ns[1]
        );
    }
    println!("\nThe server's memory (MB): resident once ready (answering from the Parquet files) and the first start's peak up to the end of its builds; after the burst of uncached requests, the peak (the table above), resident, and what DuckDB's buffer manager and the body cache hold of it; a restart's peak after the same burst (re-attached files, no build)\n");
    println!("| events | first start peak, built | ready | peak | after burst | DuckDB | body cache | restart peak |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let Some(s) = &r.served else { continue };
        let m = &s.memory;
        println!(
            "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} |",
            r.n, m.start_peak, m.ready, s.peak_rss_mb, m.after_burst, m.duckdb, m.body_cache, m.restart_peak
        );
    }
    println!("\nHTTP under load: wrk, 2 threads, concurrency 32, loopback (wrk and the server share the 2 cores)\n");
    println!("| events | ceiling req/s | ceiling p99 ms | cached req/s | cached ÷ ceiling | ceiling with our headers req/s | cached ÷ it | cached p99 ms | uncached req/s | uncached ÷ ceiling | uncached p99 ms | one-at-a-time uncached p50 ms | ÷ engine p50 | datasette req/s | uncached ÷ datasette |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let Some(h) = &r.http else {
            println!("| {} | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |", r.n);
            continue;
        };
        println!(
            "| {} | {:.0} | {:.2} | {:.0} | {:.2} | {:.0} | {:.2} | {:.2} | {:.0} | {:.2} | {:.2} | {:.3} | {:.1} | {} | {} |",
            r.n,
            h.ceiling.rps,
            h.ceiling.p99_ms,
            h.cached.rps,
            h.cached.rps / h.ceiling.rps,
            h.headers_ceiling.rps,
            h.cached.rps / h.headers_ceiling.rps,
            h.cached.p99_ms,
            h.uncached.rps,
            h.uncached.rps / h.ceiling.rps,
            h.uncached.p99_ms,
            h.sequential.p50_ms,
            h.sequential.p50_ms * 1e3 / r.query.engine_p50_us,
            fmt_opt(h.datasette.as_ref().map(|d| d.rps), 0),
            fmt_opt(h.datasette.as_ref().map(|d| h.uncached.rps / d.rps), 1),
        );
    }
    println!("\nServer CPU per answer (user + system of the process serving, ÷ 2xx answers, µs) for each pair above: the goals of issue 58 are on these ratios, which the two cores wrk shares move less than throughput's\n");
    println!("| events | ceiling | cached | cached ÷ ceiling (goal ≤ 1.15) | ceiling with our headers | cached ÷ it | MCP ceiling | tools/call | tools/call ÷ MCP ceiling (goal ≤ 1.3) | cached, one at a time | 20-op batch, one at a time | batch ÷ cached (goal ≤ 20) |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let Some(h) = &r.http else { continue };
        let [cached, ceiling, cached_ratio] = http_load::cpu_cells(Some(&h.cached), Some(&h.ceiling));
        let [_, headers, headers_ratio] = http_load::cpu_cells(Some(&h.cached), Some(&h.headers_ceiling));
        let [mcp, mcp_ceiling, mcp_ratio] = http_load::cpu_cells(Some(&h.mcp_tool), Some(&h.mcp_ceiling));
        let [batch, one, batch_ratio] = http_load::cpu_cells(Some(&h.batch_sequential), Some(&h.cached_sequential));
        println!(
            "| {} | {ceiling} | {cached} | {cached_ratio} | {headers} | {headers_ratio} | {mcp_ceiling} | {mcp} | {mcp_ratio} | {one} | {batch} | {batch_ratio} |",
            r.n
        );
    }
    println!("\nMCP and batch: the same cached page as a tools/call under the same load beside a ceiling serving its reply's bytes, and a 20-operation batch of it one at a time\n");
    println!("| events | reply bytes | tools/call req/s | MCP ceiling req/s | tools/call ÷ MCP ceiling | tools/call ÷ REST ceiling | cached REST p50 ms (one at a time) | 20-op batch p50 ms | batch ÷ cached REST |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let Some(h) = &r.http else { continue };
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.3} | {:.3} | {:.1} |",
            r.n,
            r.mcp_reply_bytes,
            h.mcp_tool.rps,
            h.mcp_ceiling.rps,
            h.mcp_tool.rps / h.mcp_ceiling.rps,
            h.mcp_tool.rps / h.ceiling.rps,
            h.cached_sequential.p50_ms,
            h.batch_sequential.p50_ms,
            h.batch_sequential.p50_ms / h.cached_sequential.p50_ms,
        );
    }
}
