//! Several replicas and workers (issue 29): two real `sitrep-serve` processes over one lake on
//! S3 (s3s-fs in process), one PostgreSQL state store and one Redis limiter, and two
//! `sitrep-ingest` workers racing one dataset onto S3. What every replica must show: the same bytes and ETag for the same request and
//! generation, cursors and Idempotency-Keys that work across replicas, one rate-limit window, OAuth
//! tokens valid on every replica and a revocation refused everywhere within the key-cache time to
//! live, `/status` and `/metrics` naming the generation each serves, and Redis stopped: the
//! fail-closed policies refuse, the others go on, marked degraded.

use std::{path::Path, process::Stdio, time::Duration};

use serde_json::{json, Value};
use sitrep_platform::state::{Plan, StateStore};
use sitrep_tests::{
    built_binary, fixtures, fresh_postgres_database, normal, redis_server::RedisServer, replay_runner,
    s3_server::S3Server, served_process::ServedProcess,
};

const ARMED: &str = "/api/conflict/v1/list-armed-events";
const BATCH: &str = "/api/conflict/v1/get-humanitarian-summary-batch";
/// The site origin both replicas serve behind (a load balancer's): tokens and links name it.
const ORIGIN: &str = "https://sitrep.example";
const KEY_CACHE_SECONDS: u64 = 1;

struct Replica {
    base: String,
    /// Its operator listener (`/metrics`).
    metrics: String,
    _process: ServedProcess,
}

impl Replica {
    async fn start(state: &str, s3: &S3Server, redis: &str, lake: &str, cache: &Path) -> Replica {
        let metrics_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let served = ServedProcess::start(state, lake, cache, |c| {
            c.args(["--poll-seconds", "1"])
                .envs(s3.env())
                .env("SITREP_RATE_LIMIT", redis)
                .env("SITREP_RATE_LIMITS", "humanitarian-batch=3,oauth-token=100,oauth-token-address=100")
                .env("SITREP_KEY_CACHE_SECONDS", KEY_CACHE_SECONDS.to_string())
                .env("PUBLIC_ORIGINS", ORIGIN)
                .env("SITREP_METRICS_LISTEN", format!("127.0.0.1:{metrics_port}"));
        })
        .await;
        Replica { base: served.base.clone(), metrics: format!("http://127.0.0.1:{metrics_port}"), _process: served }
    }
}

/// One request's status, ETag and body bytes.
async fn fetch(http: &reqwest::Client, request: reqwest::RequestBuilder) -> (u16, Option<String>, Vec<u8>) {
    let r = http.execute(request.build().unwrap()).await.unwrap();
    let etag = r.headers().get("etag").map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), etag, r.bytes().await.unwrap().to_vec())
}

async fn served_generation(http: &reqwest::Client, replica: &Replica) -> (u64, u64) {
    let status: Value =
        http.get(format!("{}/status?format=json", replica.base)).send().await.unwrap().json().await.unwrap();
    let metrics = http.get(format!("{}/metrics", replica.metrics)).send().await.unwrap().text().await.unwrap();
    let gauge = metrics
        .lines()
        .find(|l| l.contains("loaded_generation") && !l.starts_with('#'))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse::<f64>().ok())
        .expect("the loaded_generation gauge");
    (status["generation"].as_u64().expect("the status page's generation"), gauge as u64)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_one_state_store_and_limiter_answer_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let s3 = S3Server::start(&dir.path().join("s3"), "lake").await.unwrap();
    let lake = s3.lake("lake", "cluster");
    replay_runner(lake.clone(), &normal()).await.run(&sitrep_schemas::DatasetId::ALL).await.unwrap();
    let state = fresh_postgres_database().await;
    let store = StateStore::open(&state).await.unwrap();
    let account = store.create_account("cluster", Plan::Pro).await.unwrap();
    let reader = store.create_key(&account.id, "reader", "di", &[], false).await.unwrap();
    let key = reader.secret.clone();
    // Windows count per account: the rate-limit check gets an account of its own.
    let other = store.create_account("cluster-limited", Plan::Pro).await.unwrap();
    let limited = store.create_key(&other.id, "limited", "di", &[], false).await.unwrap().secret;
    let operator = store.create_key(&account.id, "ops", "di", &["mcp"], true).await.unwrap();
    let (cache_a, cache_b) = (dir.path().join("cache-a"), dir.path().join("cache-b"));
    let url = "s3://lake/cluster";
    // A Redis of this test's own: it is stopped at the end.
    let mut redis = RedisServer::start();
    let redis_url = redis.url();
    let (a, b) = tokio::join!(
        Replica::start(&state, &s3, &redis_url, url, &cache_a),
        Replica::start(&state, &s3, &redis_url, url, &cache_b)
    );
    let http = reqwest::Client::builder().user_agent("sitrep-tests/0.1 (+https://sitrep.example)").build().unwrap();
    let get = |r: &Replica, path: &str, key: &str| http.get(format!("{}{path}", r.base)).header("x-service-key", key);

    // Each replica names the generation it serves, and it is the lake's.
    let generation = lake.latest_generation().await.unwrap();
    assert_eq!(served_generation(&http, &a).await, (generation, generation));
    assert_eq!(served_generation(&http, &b).await, (generation, generation));

    // The same request and generation: byte-identical bodies and ETags on both.
    let page = format!("{ARMED}?country=UA&page_size=2");
    let on_a = fetch(&http, get(&a, &page, &key)).await;
    let on_b = fetch(&http, get(&b, &page, &key)).await;
    assert_eq!(on_a.0, 200);
    assert!(on_a.1.is_some());
    assert_eq!(on_a, on_b, "the same bytes and ETag from both replicas");

    // A cursor minted on one replica pages on the other.
    let first: Value = serde_json::from_slice(&on_a.2).unwrap();
    let cursor = first["pagination"]["nextCursor"].as_str().unwrap();
    assert!(!cursor.is_empty(), "the page has a next one");
    let next = format!("{ARMED}?country=UA&page_size=2&cursor={cursor}");
    let next_on_b = fetch(&http, get(&b, &next, &key)).await;
    assert_eq!(next_on_b.0, 200, "{}", String::from_utf8_lossy(&next_on_b.2));
    assert_eq!(next_on_b, fetch(&http, get(&a, &next, &key)).await);

    // An Idempotency-Key replayed on the other replica gets the stored answer.
    let post = |r: &Replica, k: &str| {
        http.post(format!("{}{BATCH}", r.base))
            .header("x-service-key", k)
            .header("idempotency-key", "cluster-1")
            .json(&json!({"countryCodes": ["SD", "UA"]}))
    };
    let first = http.execute(post(&a, &key).build().unwrap()).await.unwrap();
    assert_eq!(first.headers()["idempotent-replayed"], "false");
    let first_body = first.bytes().await.unwrap();
    let replayed = http.execute(post(&b, &key).build().unwrap()).await.unwrap();
    assert_eq!(replayed.headers()["idempotent-replayed"], "true");
    assert_eq!(replayed.bytes().await.unwrap(), first_body);

    // One window across replicas: humanitarian-batch allows 3 a minute, wherever they land.
    let batch = |r: &Replica| {
        http.post(format!("{}{BATCH}", r.base)).header("x-service-key", &limited).json(&json!({"countryCodes": ["SD"]}))
    };
    let mut statuses = Vec::new();
    for replica in [&a, &b, &a, &b] {
        statuses.push(http.execute(batch(replica).build().unwrap()).await.unwrap().status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 429]);

    // An OAuth token issued by one replica works on the other; revoking its key on one (in the
    // shared store) is refused everywhere within the key cache's time to live.
    let token: Value = http
        .post(format!("{}/oauth/token", a.base))
        .form(&[("grant_type", "client_credentials"), ("client_secret", operator.secret.as_str())])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let bearer = token["access_token"].as_str().expect("an access token").to_string();
    let with_token = |r: &Replica| http.get(format!("{}{page}", r.base)).bearer_auth(&bearer);
    assert_eq!(http.execute(with_token(&b).build().unwrap()).await.unwrap().status(), 200);
    assert_eq!(http.execute(get(&a, &page, &key).build().unwrap()).await.unwrap().status(), 200);
    assert!(store.revoke_key(&operator.record.id).await.unwrap());
    assert!(store.revoke_key(&reader.record.id).await.unwrap());
    tokio::time::sleep(Duration::from_secs(KEY_CACHE_SECONDS) + Duration::from_millis(500)).await;
    for replica in [&a, &b] {
        assert_eq!(http.execute(with_token(replica).build().unwrap()).await.unwrap().status(), 401, "the token");
        assert_eq!(http.execute(get(replica, &page, &key).build().unwrap()).await.unwrap().status(), 401, "the key");
    }

    // Redis stops: a fail-closed policy answers 503 on every replica, the default policy goes on,
    // marked degraded (SUPPLEMENT 1.12).
    redis.stop();
    let still = store.create_key(&other.id, "after-redis", "di", &[], false).await.unwrap().secret;
    for replica in [&a, &b] {
        let r = http.execute(get(replica, &page, &still).build().unwrap()).await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["x-ratelimit-mode"], "degraded");
        let refused = http
            .post(format!("{}{BATCH}", replica.base))
            .header("x-service-key", &still)
            .json(&json!({"countryCodes": ["SD"]}))
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 503);
        assert_eq!(
            refused.json::<Value>().await.unwrap(),
            json!({"error": "Rate-limit service temporarily unavailable"})
        );
    }
}

/// Two workers running the same dataset at once onto one lake on S3 publish it once: the lake's
/// create-only commit lets one generation win, and the loser finds the content already there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_racing_one_dataset_publish_one_version() {
    let dir = tempfile::tempdir().unwrap();
    let s3 = S3Server::start(&dir.path().join("s3"), "lake").await.unwrap();
    let worker = || {
        tokio::process::Command::new(built_binary("sitrep-ingest"))
            .args(["--lake", "s3://lake/race", "run", "--dataset", "armed-events"])
            .envs(s3.env())
            .env("SITREP_FIXTURES", fixtures())
            .env("SITREP_MODE", "replay")
            .env("SITREP_LOG", "warn")
            .stdout(Stdio::null())
            .status()
    };
    let (first, second) = tokio::join!(worker(), worker());
    assert!(first.unwrap().success() && second.unwrap().success());
    let lake = s3.lake("lake", "race");
    let generation = lake.latest_generation().await.unwrap();
    let mut versions = std::collections::BTreeSet::new();
    for g in lake.generations().await.unwrap() {
        let commit = lake.read_commit(g).await.unwrap().expect("a listed generation's commit");
        if let Some(version) = commit.dataset(sitrep_schemas::DatasetId::ARMED_EVENTS).and_then(|e| e.version) {
            versions.insert(version);
        }
    }
    assert_eq!(versions.len(), 1, "one version of armed-events in {generation} generation(s): {versions:?}");
}

/// `kill -9` of a worker at spread moments of its run onto S3 (`SITREP_STRESS_TRIALS` times, 20 by
/// default; `make stress` runs 200): every lake is at no generation or a complete one, the next
/// worker publishes over what the killed one left, and a kill between the data files and the
/// commit is among the trials.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_commit_on_s3_loses_and_corrupts_nothing() {
    let trials: u64 = std::env::var("SITREP_STRESS_TRIALS").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let dir = tempfile::tempdir().unwrap();
    let s3 = S3Server::start(&dir.path().join("s3"), "lake").await.unwrap();
    let worker = |prefix: &str| {
        let mut c = tokio::process::Command::new(built_binary("sitrep-ingest"));
        c.args(["--lake", &format!("s3://lake/{prefix}"), "run"])
            .envs(s3.env())
            .env("SITREP_FIXTURES", fixtures())
            .env("SITREP_MODE", "replay")
            .env("SITREP_LOG", "error")
            .stdout(Stdio::null())
            .kill_on_drop(true);
        c
    };
    // How long a whole run takes here: the kills are spread over it.
    let started = std::time::Instant::now();
    assert!(worker("timed").status().await.unwrap().success());
    let run = started.elapsed();
    let mut killed_between_data_and_commit = 0;
    for i in 0..trials {
        let prefix = format!("killed-{i}");
        let mut child = worker(&prefix).spawn().unwrap();
        tokio::time::sleep(run.mul_f64((i as f64 + 0.5) / trials as f64)).await;
        child.start_kill().unwrap(); // SIGKILL
        child.wait().await.unwrap();
        let lake = s3.lake("lake", &prefix);
        let generation = lake.latest_generation().await.unwrap();
        assert!(generation <= 1, "trial {i}: at most the run's own commit");
        if generation == 1 {
            for f in lake.latest_commit().await.unwrap().datasets.values().flat_map(|e| &e.files) {
                lake.get_bytes(&f.path).await.expect("every file a commit names is whole and present");
            }
        } else if sitrep_tests::orphans(&lake).await > 0 {
            killed_between_data_and_commit += 1;
        }
        assert!(worker(&prefix).status().await.unwrap().success(), "trial {i}: the next worker publishes");
        let commit = lake.latest_commit().await.unwrap();
        let armed = commit.dataset(sitrep_schemas::DatasetId::ARMED_EVENTS).unwrap();
        assert_eq!(armed.freshness.rows, 444, "trial {i}: the data is all there");
    }
    assert!(killed_between_data_and_commit > 0, "no kill of {trials} landed between the data files and the commit");
}
