//! The declared platform: the operation registry against the OpenAPI document, deny-by-default
//! authentication, rate limits and their failure modes, the entitlement store going away, and
//! the canonical request behind cursors, caches and ETags.

use std::{collections::BTreeSet, sync::Arc};

use serde_json::{json, Value};
use sitrep_platform::{
    edge::rate_limit::{Decision, LimiterUnavailable, Limits, Policy, RateLimiter},
    registry::Access,
};
use sitrep_tests::{Options, TestApp};

const ARMED: &str = "/api/conflict/v1/list-armed-events";
const BATCH: &str = "/api/conflict/v1/get-humanitarian-summary-batch";

#[tokio::test]
async fn the_registry_and_the_openapi_document_list_the_same_operations() {
    let app = TestApp::start().await;
    let doc: Value = app.http.get(format!("{}/openapi.json", app.base)).send().await.unwrap().json().await.unwrap();
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            documented.insert((method.to_uppercase(), path.clone(), op["operationId"].as_str().unwrap().to_string()));
        }
    }
    let declared: BTreeSet<_> = app
        .registry
        .operations()
        .map(|op| (op.method.as_str().to_string(), op.path.to_string(), op.id.to_string()))
        .collect();
    assert_eq!(documented, declared);
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(
        schemes["WorldMonitorKey"],
        json!({"type": "apiKey", "in": "header", "name": "X-Service-Key", "description": "API key (ServiceKey)."})
    );
    assert_eq!(schemes["ApiKeyHeader"]["name"], "X-Api-Key");
    assert_eq!(schemes["BearerAuth"]["scheme"], "bearer");
    for op in app.registry.operations() {
        let entry = &doc["paths"][op.path][op.method.as_str().to_ascii_lowercase()];
        let security: Vec<String> =
            entry["security"].as_array().unwrap().iter().flat_map(|s| s.as_object().unwrap().keys().cloned()).collect();
        let expected: &[&str] = match op.access {
            Access::Public => &[],
            Access::Pro => &["WorldMonitorKey", "ApiKeyHeader", "BearerAuth"],
            _ => &["WorldMonitorKey", "ApiKeyHeader"],
        };
        assert_eq!(security, expected, "{}", op.id);
        let params: Vec<&str> = entry["parameters"]
            .as_array()
            .map(|p| p.iter().map(|p| p["name"].as_str().unwrap()).collect())
            .unwrap_or_default();
        let mut declared: Vec<&str> = op.params.iter().chain(op.pipeline_params()).map(|p| p.name).collect();
        if op.idempotent {
            declared.push("Idempotency-Key");
        }
        assert_eq!(params, declared, "{}", op.id);
        for status in ["400", "403", "429", "503", "default"] {
            assert!(entry["responses"].get(status).is_some(), "{}: {status} undocumented", op.id);
        }
        // Deny by default: without a credential every non-public operation answers 401.
        let url = format!("{}{}", app.base, op.path);
        let r = match op.method.as_str() {
            "GET" => app.http.get(&url).send().await.unwrap(),
            _ => app.http.post(&url).json(&json!({})).send().await.unwrap(),
        };
        if op.access != Access::Public {
            assert_eq!(r.status(), 401, "{}", op.id);
            assert!(r.headers().contains_key("www-authenticate"), "{}", op.id);
        }
    }
    // The paths the handlers serve are exactly the declared ones.
    assert_eq!(doc["paths"].as_object().unwrap().len(), app.registry.operations().count());
}

#[tokio::test]
async fn undeclared_paths_and_rejected_bearers() {
    let app = TestApp::start().await;
    let r = app.get("/api/conflict/v1/list-armed-event").send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert!(r.headers().contains_key("ratelimit-limit"), "RateLimit headers on every /api/* answer");
    // A bearer value that is not an API key is an access token, and none is valid.
    let r = app.http.get(format!("{}{ARMED}", app.base)).bearer_auth("eyJhbGciOiJub25lIn0.e30.").send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers()["www-authenticate"].to_str().unwrap().ends_with("error=\"invalid_token\""));
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"error": "Invalid or expired access token"}));
}

#[tokio::test]
async fn rate_limits_count_per_policy_and_answer_429_with_retry_after() {
    let limits = Limits::parse("default=3,humanitarian-batch=2").unwrap();
    let app = TestApp::start_with(Options { rate_limits: limits, ..Options::default() }).await;
    for remaining in [2, 1, 0] {
        let r = app.get(&format!("{ARMED}?page_size=1")).send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["ratelimit-policy"], "\"default\";q=3;w=60");
        assert_eq!(r.headers()["ratelimit-limit"], "3");
        assert_eq!(r.headers()["ratelimit-remaining"], remaining.to_string().as_str());
        let reset: u64 = r.headers()["ratelimit-reset"].to_str().unwrap().parse().unwrap();
        assert!((1..=60).contains(&reset));
    }
    let r = app.get(ARMED).send().await.unwrap();
    assert_eq!(r.status(), 429);
    let retry: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert_eq!(r.headers()["ratelimit-reset"].to_str().unwrap(), retry.to_string());
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"error": "Too many requests"}));
    // An endpoint policy replaces `default` for its route, with its own counter.
    for expected in [200, 200, 429] {
        let r = app.post(BATCH).json(&json!({"countryCodes": ["SD"]})).send().await.unwrap();
        assert_eq!(r.status(), expected);
        assert_eq!(r.headers()["ratelimit-policy"], "\"humanitarian-batch\";q=2;w=60");
    }
}

/// A limiter whose store is down.
struct DownLimiter;

#[async_trait::async_trait]
impl RateLimiter for DownLimiter {
    async fn hit(&self, _: Policy, _: u32, _: &str, _: std::time::Instant) -> Result<Decision, LimiterUnavailable> {
        Err(LimiterUnavailable("connection refused".into()))
    }
    async fn peek(&self, _: Policy, _: u32, _: &str, _: std::time::Instant) -> Result<Decision, LimiterUnavailable> {
        Err(LimiterUnavailable("connection refused".into()))
    }
}

#[tokio::test]
async fn a_failed_limiter_fails_open_or_closed_per_policy() {
    let app = TestApp::start_with(Options { limiter: Some(Arc::new(DownLimiter)), ..Options::default() }).await;
    // `default` fails open: served, marked degraded.
    let r = app.get(&format!("{ARMED}?page_size=1")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-ratelimit-mode"], "degraded");
    assert_eq!(r.headers()["ratelimit-policy"], "\"default\";q=600;w=60");
    // `humanitarian-batch` fails closed.
    let r = app.post(BATCH).json(&json!({"countryCodes": ["SD"]})).send().await.unwrap();
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "5");
    assert_eq!(r.headers()["x-ratelimit-mode"], "degraded");
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"error": "Rate-limit service temporarily unavailable"}));
}

#[tokio::test]
async fn an_unreadable_entitlement_store_answers_503_not_500() {
    let app = TestApp::start_with_key_ttl(std::time::Duration::ZERO).await;
    app.store.close().await;
    let r = app.get(ARMED).send().await.unwrap();
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "5");
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"error": "Entitlement verification unavailable", "code": "entitlement_verification_unavailable"})
    );
}

#[tokio::test]
async fn lapsed_and_suspended_accounts_on_free_level_operations() {
    let app = TestApp::start_with_key_ttl(std::time::Duration::ZERO).await;
    let account = app.store.list_keys().await.unwrap()[0].1.id.clone();
    // A Pro plan past its validUntil: paid entitlements lapse, free-level operations keep working.
    app.store.set_account_valid_until(&account, Some(chrono::Utc::now() - chrono::Duration::days(1))).await.unwrap();
    assert_eq!(app.get(&format!("{ARMED}?page_size=1")).send().await.unwrap().status(), 200);
    app.store.set_account_status(&account, "suspended").await.unwrap();
    let r = app.get(ARMED).send().await.unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"error": "API access requires an active subscription"}));
}

#[tokio::test]
async fn a_cursor_follows_the_canonical_request_not_its_spelling() {
    let app = TestApp::start().await;
    let (_, first) = app.json(&format!("{ARMED}?country=ua&page_size=10")).await;
    let cursor = first["pagination"]["nextCursor"].as_str().unwrap().to_string();
    assert!(!cursor.is_empty());
    // The same filters spelled differently: upper case, a zero-padded page size, another order.
    let (status, second) = app.json(&format!("{ARMED}?page_size=10&country=UA&cursor={cursor}")).await;
    assert_eq!(status, 200, "{second}");
    let ids = |b: &Value| -> Vec<String> {
        b["events"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_string()).collect()
    };
    assert!(ids(&first).iter().all(|id| !ids(&second).contains(id)), "the next page, not the first again");
    // Equal requests share one answer: one ETag.
    let a = app.get(&format!("{ARMED}?country=ua&page_size=10")).send().await.unwrap();
    let b = app.get(&format!("{ARMED}?page_size=10&country=UA&start=")).send().await.unwrap();
    assert_eq!(a.headers()["etag"], b.headers()["etag"]);
    // A different filter still refuses the cursor.
    let (status, body) = app.json(&format!("{ARMED}?country=YE&cursor={cursor}")).await;
    assert_eq!(status, 400);
    assert_eq!(body["violations"][0]["description"], "cursor does not match the request filters");
}

#[tokio::test]
async fn jmespath_length_is_checked_before_the_query_with_the_documented_keys() {
    let app = TestApp::start().await;
    let long = "a".repeat(1025);
    for (path, keys) in [
        (ARMED, json!(["events", "pagination"])),
        ("/api/conflict/v1/get-humanitarian-summary?country_code=YE", json!(["summary"])),
        ("/api/conflict/v1/list-iran-events", json!(["events", "scrapedAt"])),
    ] {
        let sep = if path.contains('?') { '&' } else { '?' };
        let (status, body) = app.json(&format!("{path}{sep}jmespath={long}")).await;
        assert_eq!(status, 400, "{path}");
        assert_eq!(body, json!({"_jmespath_error": "expression_too_long: 1025 > 1024", "original_keys": keys}));
    }
}

#[tokio::test]
async fn replayed_data_is_labelled_and_if_none_match_compares_weakly() {
    let app = TestApp::start().await;
    let r = app.get(&format!("{ARMED}?page_size=1")).send().await.unwrap();
    assert_eq!(r.headers()["x-data-mode"], "replay");
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    for validator in [format!("W/{etag}"), "*".to_string(), format!("\"nope\", {etag}")] {
        let r =
            app.get(&format!("{ARMED}?page_size=1")).header("if-none-match", validator.as_str()).send().await.unwrap();
        assert_eq!(r.status(), 304, "{validator}");
    }
    let ready: Value = app.http.get(format!("{}/readyz", app.base)).send().await.unwrap().json().await.unwrap();
    assert_eq!(ready["datasets"]["armed-events"]["mode"], "replay");
    let health: Value = app.http.get(format!("{}/api/health", app.base)).send().await.unwrap().json().await.unwrap();
    assert_eq!(health["datasets"]["violence-events"]["mode"], "replay");
}

fn scrape(text: &str) -> prometheus_parse::Scrape {
    prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).expect("a valid exposition")
}

/// The value of the sample named `metric` whose labels include all of `labels`.
fn sample(s: &prometheus_parse::Scrape, metric: &str, labels: &[(&str, &str)]) -> Option<f64> {
    s.samples.iter().find(|x| x.metric == metric && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v))).map(|x| {
        match x.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            _ => f64::NAN,
        }
    })
}

#[tokio::test]
async fn metrics_are_a_valid_exposition_of_what_happened() {
    let limits = Limits::parse("default=4").unwrap();
    let app = TestApp::start_with(Options { rate_limits: limits, ..Options::default() }).await;
    for _ in 0..3 {
        assert_eq!(app.get(&format!("{ARMED}?page_size=2")).send().await.unwrap().status(), 200);
    }
    assert_eq!(app.get("/api/conflict/v1/nope").send().await.unwrap().status(), 404);
    assert_eq!(app.get(&format!("{ARMED}?page_size=3")).send().await.unwrap().status(), 200);
    assert_eq!(app.get(&format!("{ARMED}?page_size=3")).send().await.unwrap().status(), 429);
    // Not on the public listener: the operator's own.
    assert_eq!(app.http.get(format!("{}/metrics", app.base)).send().await.unwrap().status(), 404);
    let r = app.http.get(format!("{}/metrics", app.metrics_base)).send().await.unwrap();
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("application/openmetrics-text"));
    let text = r.text().await.unwrap();
    assert!(text.ends_with("# EOF\n"));
    let s = scrape(&text);
    let ok = [("operation", "ListArmedEvents"), ("status", "200")];
    assert_eq!(sample(&s, "sitrep_http_requests_total", &ok), Some(4.0));
    assert_eq!(sample(&s, "sitrep_http_requests_total", &[("operation", "unknown"), ("status", "404")]), Some(1.0));
    assert_eq!(
        sample(&s, "sitrep_http_requests_total", &[("operation", "ListArmedEvents"), ("status", "429")]),
        Some(1.0)
    );
    assert_eq!(sample(&s, "sitrep_rate_limit_refusals_total", &[("policy", "default")]), Some(1.0));
    assert_eq!(sample(&s, "sitrep_body_cache_hits_total", &[]), Some(2.0), "two repeats of page_size=2");
    assert_eq!(sample(&s, "sitrep_body_cache_misses_total", &[]), Some(2.0));
    assert!(sample(&s, "sitrep_body_cache_bytes", &[]).unwrap() > 0.0);
    assert_eq!(sample(&s, "sitrep_loaded_generation", &[]), Some(1.0));
    assert_eq!(sample(&s, "sitrep_duckdb_connections_in_use", &[]), Some(0.0));
    // Memory: the process's resident set, and DuckDB's buffers holding the pages the queries read.
    let resident = sample(&s, "sitrep_process_resident_bytes", &[]).unwrap();
    let duckdb = sample(&s, "sitrep_duckdb_memory_bytes", &[]).unwrap();
    assert!(resident > 10e6 && duckdb > 0.0 && duckdb < resident, "resident {resident}, DuckDB {duckdb}");
    // Replayed fixtures are months old by the wall clock: stale, with their age.
    assert_eq!(sample(&s, "sitrep_dataset_state", &[("dataset", "armed-events"), ("state", "stale")]), Some(1.0));
    assert_eq!(sample(&s, "sitrep_dataset_state", &[("dataset", "armed-events"), ("state", "fresh")]), Some(0.0));
    assert!(sample(&s, "sitrep_dataset_age_seconds", &[("dataset", "armed-events")]).unwrap() > 0.0);
    // The ingest run's counters, as the commit records them.
    assert_eq!(sample(&s, "sitrep_ingest_last_run_rows", &[("dataset", "armed-events")]), Some(444.0));
    assert!(sample(&s, "sitrep_ingest_last_run_bytes", &[("dataset", "armed-events")]).unwrap() > 0.0);
    let published = [("dataset", "armed-events"), ("outcome", "published")];
    assert_eq!(sample(&s, "sitrep_ingest_last_run_outcome", &published), Some(1.0));
    let buckets = s.samples.iter().filter(|x| x.metric == "sitrep_http_request_duration_seconds").count();
    assert!(buckets > 0, "the latency histogram is exposed");
}

#[tokio::test]
async fn answers_are_compressed_as_negotiated_and_decode_to_the_same_body() {
    use std::io::Read;
    let app = TestApp::start().await;
    let url = format!("{ARMED}?start=0&page_size=50");
    let plain = app.get(&url).send().await.unwrap();
    assert!(plain.headers().get("content-encoding").is_none(), "no Accept-Encoding, no compression");
    let etag = plain.headers()["etag"].clone();
    let identity = plain.bytes().await.unwrap();
    let gz = app.get(&url).header("accept-encoding", "gzip").send().await.unwrap();
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    assert_eq!(gz.headers()["etag"], etag, "one ETag for the representation's content");
    let packed = gz.bytes().await.unwrap();
    assert!(packed.len() < identity.len() / 3, "{} of {}", packed.len(), identity.len());
    let mut unpacked = Vec::new();
    flate2::read::GzDecoder::new(&packed[..]).read_to_end(&mut unpacked).unwrap();
    assert_eq!(unpacked, identity);
    let zs = app.get(&url).header("accept-encoding", "gzip;q=0.5, zstd").send().await.unwrap();
    assert_eq!(zs.headers()["content-encoding"], "zstd");
    assert_eq!(zstd::decode_all(&zs.bytes().await.unwrap()[..]).unwrap(), identity);
    let vary = app.get(&url).send().await.unwrap().headers()["vary"].to_str().unwrap().to_string();
    assert!(vary.contains("Accept-Encoding"));
}

#[tokio::test]
async fn a_repeated_request_is_answered_again_as_it_was_within_its_generation() {
    let app = TestApp::start().await;
    let url = format!("{ARMED}?country=UA&page_size=5");
    let first = app.get(&url).send().await.unwrap();
    let epoch = app.state.epoch();
    assert!(
        app.state.cache.remembered(&url, epoch, std::time::Instant::now()).is_some(),
        "kept under the request as it came"
    );
    let second = app.get(&url).send().await.unwrap();
    assert_eq!(second.status(), 200);
    for h in [
        "etag",
        "x-snapshot-generation",
        "x-data-as-of",
        "x-data-state",
        "x-data-mode",
        "cache-control",
        "content-type",
        "vary",
        "ratelimit-policy",
    ] {
        assert_eq!(first.headers().get(h), second.headers().get(h), "{h}");
    }
    let remaining =
        |r: &reqwest::Response| r.headers()["ratelimit-remaining"].to_str().unwrap().parse::<u64>().unwrap();
    assert_eq!(remaining(&second), remaining(&first) - 1, "a repeat is still counted by the limiter");
    assert_ne!(first.headers()["x-request-id"], second.headers()["x-request-id"]);
    let body: Value = first.json().await.unwrap();
    assert_eq!(second.json::<Value>().await.unwrap(), body);
    // A page behind a cursor is answered by the handler every time.
    let cursor = body["pagination"]["nextCursor"].as_str().unwrap();
    let next = format!("{url}&cursor={cursor}");
    assert_eq!(app.get(&next).send().await.unwrap().status(), 200);
    assert!(app.state.cache.remembered(&next, epoch, std::time::Instant::now()).is_none());
    // An error is not kept either.
    let bad = format!("{ARMED}?country=UA&page_size=101");
    assert_eq!(app.get(&bad).send().await.unwrap().status(), 400);
    assert!(app.state.cache.remembered(&bad, epoch, std::time::Instant::now()).is_none());
}
