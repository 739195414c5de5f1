//! The scale-out figures of issue 29, each against its peer measured in the same run:
//! - a cached request under wrk with the rate limiter in Redis ÷ with the in-process one (the
//!   same server otherwise; alternating rounds, the median round's ratio);
//! - authentication of a key the server has not seen (its first request, in process) on
//!   PostgreSQL and on a SQLite file: p50 of each;
//! - publishing one dataset version (a changed armed-events run) onto S3 (s3s-fs on loopback) and
//!   onto a local folder: p50 of each;
//! - the time from a commit on S3 until a replica polling every second serves it (goal ≤ 2 × the
//!   poll interval).
//!
//! PostgreSQL, Redis and the S3 server are the tests' own (private servers, started here).

use std::{sync::Arc, time::Duration, time::Instant};

use poem::Endpoint;
use sitrep_platform::{
    edge::{rate_limit::Limits, redis_limiter::RedisLimiter},
    state::Plan,
};
use sitrep_schemas::DatasetId;
use sitrep_tests::{
    changing_runner, normal, postgres_server::PostgresServer, redis_server::RedisServer, s3_server::S3Server, Options,
    TestApp,
};

use crate::{http_load::Wrk, percentile};

const CACHED: &str = "/api/conflict/v1/list-armed-events?country=UA&page_size=100";
const POLL: Duration = Duration::from_secs(1);

pub struct Figures {
    /// (in-process req/s, Redis req/s) of the median round.
    pub limiter_rps: Option<(f64, f64)>,
    pub auth_sqlite_p50_ms: f64,
    pub auth_postgres_p50_ms: f64,
    pub publish_local_p50_ms: f64,
    pub publish_s3_p50_ms: f64,
    pub new_generation_p50_s: f64,
    pub new_generation_max_s: f64,
    pub poll_s: f64,
}

fn unlimited() -> Limits {
    Limits::parse("default=1000000000").expect("limits")
}

async fn limiter_rps(wrk: &Wrk, redis: &RedisServer) -> (f64, f64) {
    let in_process = TestApp::start_with(Options { rate_limits: unlimited(), ..Options::default() }).await;
    let limiter = Arc::new(RedisLimiter::connect(&redis.url()).expect("a Redis limiter"));
    let shared =
        TestApp::start_with(Options { rate_limits: unlimited(), limiter: Some(limiter), ..Options::default() }).await;
    let mut rounds = Vec::new();
    for _ in 0..3 {
        let a = wrk.run(&format!("{}{CACHED}", in_process.base), &Wrk::repeated(&in_process.key)).await.rps;
        let b = wrk.run(&format!("{}{CACHED}", shared.base), &Wrk::repeated(&shared.key)).await.rps;
        rounds.push((a, b));
    }
    rounds.sort_by(|x, y| (x.1 / x.0).total_cmp(&(y.1 / y.0)));
    rounds[1]
}

/// p50 ms of the first request of 200 fresh keys (each a key-cache miss: the store is asked).
async fn new_key_auth_p50_ms(state_url: String) -> f64 {
    let app =
        TestApp::start_with(Options { state_url: Some(state_url), rate_limits: unlimited(), ..Options::default() })
            .await;
    let account = app.store.create_account("auth-bench", Plan::Pro).await.expect("account");
    let endpoint = app.endpoint();
    let mut ms = Vec::new();
    for _ in 0..200 {
        let key = app.store.create_key(&account.id, "k", "di", &[], false).await.expect("key").secret;
        let req = poem::Request::builder().uri(CACHED.parse().expect("uri")).header("x-service-key", key).finish();
        let t = Instant::now();
        let r = endpoint.get_response(req).await;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(r.status(), 200);
    }
    ms.sort_by(f64::total_cmp);
    percentile(&ms, 0.5)
}

/// p50 ms of publishing a changed armed-events version onto `lake` (7 runs after a first).
async fn publish_p50_ms(lake: sitrep_ingest::Lake) -> f64 {
    let runner = changing_runner(lake, &normal()).await;
    runner.run(&DatasetId::ALL).await.expect("the first run");
    let mut ms = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        runner.run(&[DatasetId::ARMED_EVENTS]).await.expect("a publish");
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    percentile(&ms, 0.5)
}

pub async fn measure(wrk: Option<&Wrk>) -> Figures {
    let redis = RedisServer::start();
    let limiter_rps = match wrk {
        Some(wrk) => Some(limiter_rps(wrk, &redis).await),
        None => None,
    };

    let dir = tempfile::tempdir().expect("tempdir");
    let auth_sqlite_p50_ms = new_key_auth_p50_ms(format!("sqlite://{}", dir.path().join("state.db").display())).await;
    let pg = PostgresServer::start();
    pg.ready().await;
    let auth_postgres_p50_ms = new_key_auth_p50_ms(pg.url()).await;

    let s3 = S3Server::start(&dir.path().join("s3"), "lake").await.expect("the S3 server");
    let publish_local_p50_ms =
        publish_p50_ms(sitrep_ingest::Lake::open(dir.path().join("local").to_str().expect("utf8")).expect("lake"))
            .await;
    let publish_s3_p50_ms = publish_p50_ms(s3.lake("lake", "publish")).await;

    // A replica polling the S3 lake every second; each publish times commit → served.
    let lake = s3.lake("lake", "served");
    let runner = changing_runner(lake.clone(), &normal()).await;
    runner.run(&DatasetId::ALL).await.expect("the first run");
    let app = TestApp::serve(tempfile::tempdir().expect("tempdir"), lake).await;
    let _poller = app.snapshots.clone().spawn_poller(POLL);
    let mut seconds = Vec::new();
    for _ in 0..7 {
        let generation = runner.run(&[DatasetId::ARMED_EVENTS]).await.expect("a publish").commit.generation;
        let committed = Instant::now();
        while app.snapshots.current().map(|g| g.number) != Some(generation) {
            assert!(committed.elapsed() < Duration::from_secs(60), "the replica never served generation {generation}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        seconds.push(committed.elapsed().as_secs_f64());
    }
    seconds.sort_by(f64::total_cmp);
    Figures {
        limiter_rps,
        auth_sqlite_p50_ms,
        auth_postgres_p50_ms,
        publish_local_p50_ms,
        publish_s3_p50_ms,
        new_generation_p50_s: percentile(&seconds, 0.5),
        new_generation_max_s: seconds[seconds.len() - 1],
        poll_s: POLL.as_secs_f64(),
    }
}

pub fn print(f: &Figures) {
    println!("\nScale-out (issue 29): PostgreSQL, Redis and an S3-compatible server (s3s-fs) on loopback\n");
    println!("| figure | measured | peer / goal | ratio |");
    println!("|---|---:|---:|---:|");
    match f.limiter_rps {
        Some((in_process, redis)) => println!(
            "| cached request, limiter in Redis (wrk, c=32): req/s | {redis:.0} | in process: {in_process:.0} (goal ≥ 0.7) | {:.2} |",
            redis / in_process
        ),
        None => println!("| cached request, limiter in Redis | n/a (no wrk) | | |"),
    }
    println!(
        "| a new key's first request, state store on PostgreSQL: p50 ms | {:.2} | SQLite file: {:.2} | {:.2} |",
        f.auth_postgres_p50_ms,
        f.auth_sqlite_p50_ms,
        f.auth_postgres_p50_ms / f.auth_sqlite_p50_ms
    );
    println!(
        "| publishing one dataset version onto S3: p50 ms | {:.1} | local folder: {:.1} | {:.2} |",
        f.publish_s3_p50_ms,
        f.publish_local_p50_ms,
        f.publish_s3_p50_ms / f.publish_local_p50_ms
    );
    println!(
        "| commit on S3 → a replica serves it: p50 / max s | {:.2} / {:.2} | ≤ 2 × poll = {:.1} | {:.2} |",
        f.new_generation_p50_s,
        f.new_generation_max_s,
        2.0 * f.poll_s,
        f.new_generation_max_s / (2.0 * f.poll_s)
    );
}
