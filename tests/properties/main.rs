//! Property tests of every decoder that reads a caller's bytes: jmespath expressions, data and
//! company-monitoring cursors, query parameters, the JSON bodies of the POST operations, MCP's
//! JSON-RPC envelope and the OAuth forms. Each runs with a fixed seed and a fixed number of cases
//! in `make test`; `make fuzz` runs them with a random seed and `SITREP_FUZZ_CASES` cases each.
//!
//! The requests go through the real application in this process (routing, authentication, the
//! edge, the handlers), without sockets, so thousands of cases take seconds.

mod bodies;
mod cursors;
mod jmespath;
mod mcp;
mod oauth;
mod query;

use std::sync::{LazyLock, OnceLock};

use poem::Endpoint;
use proptest::{
    prelude::*,
    test_runner::{Config, RngSeed},
};
use serde_json::Value;
use sitrep_platform::{edge::rate_limit::Limits, state::Plan};
use sitrep_tests::{Options, TestApp};

/// The seed of `make test`'s runs: the same cases every time.
const SEED: u64 = 20_261_127;

/// `cases` cases with the fixed seed, or under `make fuzz` (`SITREP_FUZZ_CASES`) that many with a
/// fresh seed, printed (`SITREP_FUZZ_SEED=<seed>` replays a run).
pub fn config(cases: u32) -> Config {
    let fuzz: Option<u32> = std::env::var("SITREP_FUZZ_CASES").ok().and_then(|n| n.parse().ok());
    let seed = match fuzz {
        None => SEED,
        Some(_) => {
            let seed = std::env::var("SITREP_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(SEED, |d| d.as_nanos() as u64)
            });
            eprintln!("fuzz seed {seed} (SITREP_FUZZ_SEED={seed} replays it)");
            seed
        }
    };
    Config {
        cases: fuzz.unwrap_or(cases),
        rng_seed: RngSeed::Fixed(seed),
        // Failures are reported with their case; no regression files in the source tree.
        failure_persistence: None,
        max_shrink_iters: 2_000,
        ..Config::default()
    }
}

/// One runtime for every property: the application's tasks live in it.
pub static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
});

/// The real application over the replayed lake, started once for every property: rate limits
/// lifted (the properties send thousands of requests a minute) and company monitoring open.
pub fn app() -> &'static TestApp {
    static APP: OnceLock<TestApp> = OnceLock::new();
    APP.get_or_init(|| {
        RUNTIME.block_on(async {
            let policies =
                ["default", "batch", "humanitarian-batch", "cm-write", "cm-import", "webhook-write", "oauth-register"]
                    .iter()
                    .chain(&[
                        "oauth-token",
                        "oauth-token-address",
                        "oauth-authorize",
                        "mcp-discovery",
                        "mcp-free",
                        "mcp",
                    ])
                    .map(|p| format!("{p}=100000000"))
                    .collect::<Vec<_>>()
                    .join(",");
            let company_monitoring = sitrep_cm::settings::CmSettings {
                cursor_secret: Some(b"property-tests-company-monitoring-secret".to_vec()),
                search_provider_url: Some("http://127.0.0.1:9/search".into()),
                ..Default::default()
            };
            let options = Options {
                rate_limits: Limits::parse(&policies).expect("limits"),
                company_monitoring,
                ..Default::default()
            };
            TestApp::start_with(options).await
        })
    })
}

/// A Business key with every scope: whatever a request is refused for, it is not its access.
pub fn business_key() -> &'static str {
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| {
        let app = app();
        RUNTIME.block_on(async {
            let account = app.state.store.create_account("properties", Plan::Business).await.expect("account");
            let scopes = ["mcp", "company_monitoring:read", "company_monitoring:write"];
            app.state.store.create_key(&account.id, "properties", "di", &scopes, false).await.expect("key").secret
        })
    })
}

/// What the application answers `request` with, in process: its status, content type and body.
pub fn send(request: poem::Request) -> (u16, String, Vec<u8>) {
    let endpoint = {
        static ENDPOINT: OnceLock<poem::endpoint::BoxEndpoint<'static>> = OnceLock::new();
        ENDPOINT.get_or_init(|| app().endpoint())
    };
    RUNTIME.block_on(async {
        let response = endpoint.get_response(request).await;
        let status = response.status().as_u16();
        let content_type = response.content_type().unwrap_or_default().to_string();
        let body = response.into_body().into_vec().await.expect("body");
        (status, content_type, body)
    })
}

/// An answer that is not the server's fault: no 5xx, and every JSON refusal one of SUPPLEMENT
/// 1.5's shapes — a ValidationError (each violation a field and a description), the jmespath
/// envelope, or a body carrying `error` or `message`.
pub fn well_answered(what: &str, (status, content_type, body): &(u16, String, Vec<u8>)) -> Result<(), TestCaseError> {
    prop_assert!(*status < 500, "{what}: {status} {}", String::from_utf8_lossy(body));
    if *status >= 400 && content_type.starts_with("application/json") {
        let v: Value = serde_json::from_slice(body).map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
        let violations = v.get("violations").and_then(Value::as_array);
        let documented = match violations {
            Some(list) => {
                !list.is_empty() && list.iter().all(|x| x["field"].is_string() && x["description"].is_string())
            }
            None => ["error", "message", "_jmespath_error"].iter().any(|k| v.get(*k).is_some_and(Value::is_string)),
        };
        prop_assert!(documented, "{what}: {status} in no documented shape: {v}");
    }
    Ok(())
}

/// Any JSON value, nested a few levels: what a hostile body may hold.
pub fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)),
        ".{0,24}".prop_map(Value::String),
        Just(Value::String("x".repeat(5000))),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::btree_map("[a-zA-Z_]{0,12}", inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A hostile text: anything, boundary numbers, long runs, encodings.
pub fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,40}",
        "[0-9-]{0,24}",
        Just(String::new()),
        Just("x".repeat(4096)),
        Just(i64::MAX.to_string()),
        Just("-2147483649".to_string()),
        Just("1e309".to_string()),
        Just("NaN".to_string()),
        Just("%00%ff".to_string()),
        Just(r"\u0000".to_string()),
        Just("2026-02-30T25:61:00Z".to_string()),
        any::<Vec<u8>>().prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}
