//! Shared harness of the end-to-end tests and the benchmarks: a lake built by the real pipelines in
//! replay mode, and the real server on 127.0.0.1:0.

pub mod cm_data;
pub mod postgres_server;
pub mod redis_server;
pub mod s3_server;
pub mod served_process;

use std::{path::PathBuf, sync::Arc, time::Duration};

use poem::endpoint::BoxEndpoint;
use sitrep_agents::{AgentContext, AgentSettings};
use sitrep_api::{company_monitoring::CompanyMonitoring, read_through::ReadThrough, ApiContext, ApiSettings};
use sitrep_cm::{settings::CmSettings, store::CmStore};
use sitrep_db::{Backend, Db};
use sitrep_ingest::{replay::SourceEnv, runner::Runner, Lake};
use sitrep_pipelines::{
    budget::{AviationStackBudget, CallBudget, MemoryBudget},
    http::RetryPolicy,
    replay::FixtureServer,
    FetchContext, Fetched, Source, SourceError, UpstreamConfig, Window,
};
use sitrep_platform::{
    app_state::{AppState, Settings},
    edge::rate_limit::{Limits, RateLimiter},
    registry::Registry,
    snapshot::Snapshots,
    state::{Plan, StateStore},
};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// A binary of this build (`sitrep-serve`, `sitrep-ingest`, …): the tests run from
/// `<target>/<profile>/deps`, the binaries sit one folder up (`make test` builds them first).
pub fn built_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let binary = exe.parent().and_then(|p| p.parent()).expect("<target>/<profile>").join(name);
    assert!(binary.exists(), "{} is missing: run `make test` (it builds the binaries first)", binary.display());
    binary
}

pub fn fixtures() -> PathBuf {
    repo_root().join("data/fixtures")
}

/// A runner over the given scenario of each upstream (`normal`, `empty`, `server-error`, …),
/// counting metered calls in a fresh in-memory budget.
pub async fn replay_runner(lake: Lake, scenarios: &[(&str, &str)]) -> Runner {
    replay_runner_with_budget(lake, scenarios, Arc::new(MemoryBudget::default()), Default::default()).await
}

/// As [`replay_runner`], with the given budget store and AviationStack budgets.
pub async fn replay_runner_with_budget(
    lake: Lake,
    scenarios: &[(&str, &str)],
    store: Arc<dyn CallBudget>,
    budget: AviationStackBudget,
) -> Runner {
    let dirs: Vec<PathBuf> = scenarios.iter().map(|(u, s)| fixtures().join(u).join(s)).collect();
    let server = FixtureServer::start_dirs(&dirs).await.expect("fixture server");
    let retry = RetryPolicy {
        max_retries: 2,
        base_delay: std::time::Duration::from_millis(10),
        max_retry_after: std::time::Duration::from_millis(50),
    };
    let config = UpstreamConfig { aviationstack_budget: budget, ..UpstreamConfig::replay(&fixtures()) };
    let env = SourceEnv::replay(server, config, retry).expect("source env").with_budget(store);
    Runner::new(lake, env)
}

/// A real connector whose every run publishes different content: run `k` keeps all but the last
/// `k` rows of what the recordings hold (`k mod n` for a dataset of `n` rows). Tests that need
/// generations with different data (torn answers must be detectable, caches must be per version)
/// use it instead of re-running the same recordings, which publishes no new version (an unchanged
/// content hash).
pub struct Shrinking {
    inner: Arc<dyn Source>,
    runs: std::sync::atomic::AtomicUsize,
    /// Drop the first rows instead: an input of other datasets (climate-normals) keeps the rows
    /// they are computed from (the last zone's November normal), so they stay publishable.
    from_front: bool,
}

#[async_trait::async_trait]
impl Source for Shrinking {
    fn dataset(&self) -> sitrep_schemas::DatasetId {
        self.inner.dataset()
    }
    fn upstreams(&self) -> &'static [&'static str] {
        self.inner.upstreams()
    }
    fn reads_previous(&self) -> bool {
        self.inner.reads_previous()
    }
    fn inputs(&self) -> &'static [sitrep_schemas::DatasetId] {
        self.inner.inputs()
    }
    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        let mut fetched = self.inner.fetch(ctx, window).await?;
        let k = self.runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let rows = fetched.batch.num_rows();
        // k rows fewer on run k; wrapping around (k mod n) so a dataset of a few rows still changes
        // on every run instead of staying empty.
        let keep = if rows == 0 { 0 } else { rows - k % rows };
        fetched.batch = fetched.batch.slice(if self.from_front { rows - keep } else { 0 }, keep);
        Ok(fetched)
    }
}

/// As [`replay_runner`], with every connector wrapped in [`Shrinking`].
pub async fn changing_runner(lake: Lake, scenarios: &[(&str, &str)]) -> Runner {
    let mut runner = replay_runner(lake, scenarios).await;
    let all = sitrep_schemas::DatasetId::ALL;
    let inputs: Vec<_> =
        all.iter().filter_map(|d| runner.source(*d)).flat_map(|s| s.inputs().iter().copied()).collect();
    for d in all {
        if let Some(inner) = runner.source(d).cloned() {
            let from_front = inputs.contains(&d);
            runner = runner.with_source(Arc::new(Shrinking { inner, runs: Default::default(), from_front }));
        }
    }
    runner
}

/// Which state store the tests run on: SQLite, or PostgreSQL when `SITREP_TEST_STATE=postgres`
/// (the one switch that runs every end-to-end test against PostgreSQL; `make test` runs them on
/// both).
pub fn state_backend() -> Backend {
    match std::env::var("SITREP_TEST_STATE").as_deref() {
        Ok("postgres") => Backend::Postgres,
        Ok("sqlite") | Err(_) => Backend::Sqlite,
        Ok(other) => panic!("SITREP_TEST_STATE={other}: expected sqlite or postgres"),
    }
}

/// An empty state store of the test run's backend: on SQLite a file under `dir` (when the test
/// reopens it or shares it between processes) or in memory; on PostgreSQL a database of its own.
pub async fn fresh_state_url(dir: Option<&std::path::Path>) -> String {
    match (state_backend(), dir) {
        (Backend::Sqlite, None) => "sqlite::memory:".into(),
        (Backend::Sqlite, Some(dir)) => format!("sqlite://{}", dir.join("state.db").display()),
        (Backend::Postgres, _) => fresh_postgres_database().await,
    }
}

/// A new, empty database on the test run's PostgreSQL server (`SITREP_TEST_POSTGRES`, a URL of
/// its `postgres` database, as tools/services.sh exports it).
pub async fn fresh_postgres_database() -> String {
    let server = std::env::var("SITREP_TEST_POSTGRES")
        .expect("SITREP_TEST_POSTGRES: run the tests under tools/services.sh (make test does)");
    let admin = Db::connect(&server, 1).await.expect("the test PostgreSQL server answers");
    let name = format!("t_{}", ulid::Ulid::new().to_string().to_lowercase());
    sqlx::raw_sql(&format!("CREATE DATABASE {name}")).execute(admin.pool()).await.expect("create a test database");
    admin.close().await;
    let base = server.rsplit_once('/').map(|(base, _)| base).unwrap_or(&server);
    format!("{base}/{name}")
}

/// The server's default (`SITREP_KEY_CACHE_SECONDS`).
pub const KEY_CACHE_TTL: Duration = Duration::from_secs(5);

/// The `normal` scenario of every upstream the sources record (each source declares its own).
pub fn normal() -> Vec<(&'static str, &'static str)> {
    sitrep_pipelines::registry::recorded_upstreams().into_iter().map(|u| (u, "normal")).collect()
}

pub struct TestApp {
    pub base: String,
    /// The operator's listener (`/metrics`), apart from the public one as in a deployment.
    pub metrics_base: String,
    pub key: String,
    pub lake: Lake,
    pub snapshots: Arc<Snapshots>,
    pub store: StateStore,
    pub state: Arc<AppState>,
    /// The operations the server answers.
    pub registry: Arc<Registry>,
    pub http: reqwest::Client,
    pub _dir: tempfile::TempDir,
    server: tokio::task::JoinHandle<()>,
    metrics_server: tokio::task::JoinHandle<()>,
}

impl Drop for TestApp {
    /// The server task holds the application state (and with it the DuckDB instance and its open
    /// files): it ends with the app, not with the runtime. The benchmarks run many apps in one
    /// runtime; left running, their files piled up in every child (wrk, without close-on-exec
    /// from DuckDB) until wrk's 32 connections no longer fitted its event loop.
    fn drop(&mut self) {
        self.server.abort();
        self.metrics_server.abort();
    }
}

/// How a test server differs from the defaults.
pub struct Options {
    /// How long a resolved API key is trusted (zero: every request asks the store).
    pub key_cache_ttl: Duration,
    pub rate_limits: Limits,
    /// Replaces the in-process rate limiter (tests make it fail this way).
    pub limiter: Option<Arc<dyn RateLimiter>>,
    /// The state store URL (default: the test run's backend, [`fresh_state_url`]).
    pub state_url: Option<String>,
    /// Which published versions stay readable (default: 48 h, then daily for 90 days).
    pub retention: sitrep_lake::Retention,
    /// `EDGE_UA_FILTER=on`.
    pub edge_ua_filter: bool,
    /// Datasets the deployment does not serve (`IRAN_EVENTS_ENABLED` unset: iran-events).
    pub datasets_off: Vec<sitrep_schemas::DatasetId>,
    /// A test CA for Client ID Metadata Documents served from loopback (turns on `OAUTH_CIMD_ALLOW_LOOPBACK`).
    pub cimd_ca: Option<Vec<u8>>,
    pub aviationstack_budget: AviationStackBudget,
    /// Read-through scenarios other than `normal` (`("wingbits", "down")`).
    pub read_through_scenarios: Vec<(&'static str, &'static str)>,
    /// Changes to the replay upstream configuration (credentials, optional providers).
    pub upstream: fn(UpstreamConfig) -> UpstreamConfig,
    /// Company monitoring's settings (default: the runtime gate closed, as on a deployment that
    /// configured none of it).
    pub company_monitoring: CmSettings,
    /// Load the lake as a starting server does (`Snapshots::start`: versions read from their
    /// Parquet files until `build_pending`), not with every serving file built.
    pub start_early: bool,
    /// The listener's deadlines and connection cap (default: the server's).
    pub connection_limits: sitrep_serve::http_server::ConnectionLimits,
    /// The request deadline and the in-flight cap (default: the server's).
    pub request_limits: sitrep_serve::app::RequestLimits,
    /// `SITREP_TRUSTED_PROXIES` (default: none).
    pub trusted_proxies: &'static str,
    /// `FLIGHT_SEARCH_ACCOUNT_PER_MINUTE` (default: the server's, 10).
    pub flight_search_account_per_minute: u32,
    /// Each owner's seconds of heavy work at once and regained per second (default: the server's).
    pub work_time: (Duration, f64),
    /// Run the webhook delivery worker, as every replica does (default: yes).
    pub webhook_worker: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            key_cache_ttl: KEY_CACHE_TTL,
            rate_limits: Limits::default(),
            limiter: None,
            state_url: None,
            retention: sitrep_lake::Retention::default(),
            edge_ua_filter: false,
            datasets_off: Vec::new(),
            cimd_ca: None,
            aviationstack_budget: Default::default(),
            read_through_scenarios: Vec::new(),
            upstream: |c| c,
            company_monitoring: CmSettings::default(),
            start_early: false,
            connection_limits: Default::default(),
            request_limits: Default::default(),
            trusted_proxies: "",
            flight_search_account_per_minute: 10,
            work_time: (sitrep_platform::snapshot::work_time::BURST, sitrep_platform::snapshot::work_time::REFILL),
            webhook_worker: true,
        }
    }
}

/// A lake ingested from the `normal` fixtures in replay mode, in `dir`: a copy of one lake
/// ingested once per test process (replay makes every run of the recordings the same lake, its
/// freshness from the recordings' times, so a copy is what a fresh ingest would write).
pub async fn normal_lake(dir: &tempfile::TempDir) -> Lake {
    static TEMPLATE: tokio::sync::OnceCell<tempfile::TempDir> = tokio::sync::OnceCell::const_new();
    let template = TEMPLATE
        .get_or_init(|| async {
            let template = tempfile::tempdir().expect("template dir");
            let lake = Lake::open(template.path().to_str().expect("utf8")).expect("template lake");
            replay_runner(lake, &normal()).await.run(&sitrep_schemas::DatasetId::ALL).await.expect("ingest");
            template
        })
        .await;
    let path = dir.path().join("lake");
    copy_tree(template.path(), &path).expect("copy the template lake");
    Lake::open(path.to_str().expect("utf8")).expect("lake")
}

/// Data files under `data/` that no commit references: what a worker killed between writing its
/// Parquet and creating its commit leaves behind (gc collects them later).
pub async fn orphans(lake: &Lake) -> usize {
    let mut referenced = std::collections::HashSet::new();
    for g in lake.generations().await.expect("generations") {
        let commit = lake.read_commit(g).await.expect("a commit").expect("a listed commit");
        referenced.extend(commit.datasets.values().flat_map(|e| &e.files).map(|f| f.path.clone()));
    }
    let objects: Vec<_> =
        futures::TryStreamExt::try_collect::<Vec<_>>(lake.store().list(None)).await.expect("the lake's objects");
    objects.iter().map(|o| o.location.to_string()).filter(|p| p.starts_with("data/") && !referenced.contains(p)).count()
}

/// Copies the directory `from` to `to` (created), files and folders alike.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

impl TestApp {
    /// A lake ingested from the `normal` fixtures, loaded, and served.
    pub async fn start() -> TestApp {
        Self::start_with(Options::default()).await
    }

    /// As [`TestApp::start`], trusting a resolved API key for `ttl` (zero: every request asks the store).
    pub async fn start_with_key_ttl(ttl: Duration) -> TestApp {
        Self::start_with(Options { key_cache_ttl: ttl, ..Options::default() }).await
    }

    pub async fn start_with(options: Options) -> TestApp {
        let dir = tempfile::tempdir().expect("tempdir");
        let lake = normal_lake(&dir).await;
        Self::serve_with(dir, lake, options, |app| app).await
    }

    pub async fn serve(dir: tempfile::TempDir, lake: Lake) -> TestApp {
        Self::serve_with(dir, lake, Options::default(), |app| app).await
    }

    /// Serves `wrap(app)`: the benchmarks add a route next to the real application this way.
    pub async fn serve_wrapped(
        dir: tempfile::TempDir,
        lake: Lake,
        key_cache_ttl: Duration,
        wrap: impl FnOnce(BoxEndpoint<'static>) -> BoxEndpoint<'static>,
    ) -> TestApp {
        Self::serve_with(dir, lake, Options { key_cache_ttl, ..Options::default() }, wrap).await
    }

    pub async fn serve_with(
        dir: tempfile::TempDir,
        lake: Lake,
        options: Options,
        wrap: impl FnOnce(BoxEndpoint<'static>) -> BoxEndpoint<'static>,
    ) -> TestApp {
        let snapshots = Arc::new(
            Snapshots::with_retention(lake.clone(), dir.path().join("cache"), "256MB".into(), options.retention)
                .expect("engine")
                .with_work_time(sitrep_platform::snapshot::WorkTime::new(options.work_time.0, options.work_time.1)),
        );
        let loaded = if options.start_early { snapshots.start().await } else { snapshots.refresh().await };
        loaded.expect("load generation");
        let state_url = match options.state_url {
            Some(url) => url,
            None => fresh_state_url(None).await,
        };
        let store = StateStore::open(&state_url).await.expect("state");
        let acct = match store.find_account_by_name("test").await.expect("account lookup") {
            Some(a) => a,
            None => store.create_account("test", Plan::Pro).await.expect("account"),
        };
        let key = store.create_key(&acct.id, "test", "di", &["mcp"], false).await.expect("key").secret;
        // Bound once and handed to the server as it is (no window for another test to take the port).
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let base = format!("http://{addr}");
        let settings = Settings {
            realm: "data-intelligence".into(),
            public_origins: vec![base.clone()],
            api_key_prefix: "di".into(),
            key_cache_ttl: options.key_cache_ttl,
            rate_limits: options.rate_limits,
            edge_ua_filter: options.edge_ua_filter,
            datasets_off: options.datasets_off,
            trusted_proxies: sitrep_platform::edge::client_addr::TrustedProxies::parse(options.trusted_proxies)
                .expect("trusted proxies"),
        };
        let api_settings = ApiSettings {
            consumer_prices_default_market: "ae".into(),
            aviationstack_budget: options.aviationstack_budget,
            flight_search_account_per_minute: options.flight_search_account_per_minute,
        };
        let agent_settings = AgentSettings {
            mcp_allowed_origins: vec!["https://inspector.example".into()],
            oauth_cimd_allow_loopback: options.cimd_ca.is_some(),
            oauth_cimd_ca: options.cimd_ca,
            ..AgentSettings::default()
        };
        let registry = Arc::new(sitrep_api::registry());
        let mut state = AppState::new(
            registry.operations().map(|op| op.id),
            registry.datasets_access(),
            snapshots.clone(),
            store.clone(),
            Some("test-secret".into()),
            settings,
        )
        .await
        .expect("state");
        if let Some(limiter) = options.limiter {
            state = state.with_limiter(limiter);
        }
        let config = (options.upstream)(UpstreamConfig::replay(&fixtures()));
        let read_through = ReadThrough::replay_scenarios(&fixtures(), &options.read_through_scenarios, config)
            .await
            .expect("read-through fixtures");
        let cm_store = CmStore::new(store.db()).await.expect("company-monitoring store");
        let company_monitoring = CompanyMonitoring::new(cm_store, options.company_monitoring).await;
        let state = Arc::new(
            state
                .with_extension(ApiContext {
                    settings: api_settings,
                    company_monitoring,
                    read_through,
                    diffs: Default::default(),
                    webhooks: sitrep_api::webhooks::Webhooks {
                        store: sitrep_webhooks::WebhookStore::new(store.db()).await.expect("webhook store"),
                        settings: sitrep_api::webhooks::WebhookSettings { allow_loopback: true, extra_root_pem: None },
                    },
                })
                .with_extension(AgentContext::new(agent_settings)),
        );
        let _upkeep = sitrep_api::company_monitoring::spawn_upkeep(&state);
        if options.webhook_worker {
            sitrep_api::webhooks::delivery::spawn(&state);
        }
        let metrics_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let metrics_base = format!("http://{}", metrics_listener.local_addr().expect("addr"));
        let metrics_acceptor = poem::listener::TcpAcceptor::from_tokio(metrics_listener).expect("acceptor");
        let metrics_app = sitrep_serve::app::metrics_app(state.clone());
        let metrics_server = tokio::spawn(async move {
            let _ = poem::Server::new_with_acceptor(metrics_acceptor).run(metrics_app).await;
        });
        let app = wrap(
            sitrep_serve::app::build_with(state.clone(), registry.clone(), &base, options.request_limits)
                .expect("assembly"),
        );
        let (limits, forever) = (options.connection_limits, std::future::pending());
        let server = tokio::spawn(async move {
            if let Err(e) = sitrep_serve::http_server::serve(listener, app, limits, forever, Duration::ZERO).await {
                panic!("the test server stopped: {e}");
            }
        });
        let http = reqwest::Client::builder()
            .user_agent("sitrep-tests/0.1 (+https://sitrep.example)")
            .build()
            .expect("client");
        // The socket accepts already; this proves the application answers (and fails the test if not).
        let ready = http.get(format!("{base}/healthz")).send().await.expect("the test server answers");
        assert_eq!(ready.status(), 200, "the test server is not healthy");
        TestApp {
            base,
            metrics_base,
            key,
            lake,
            snapshots,
            store,
            state,
            registry,
            http,
            _dir: dir,
            server,
            metrics_server,
        }
    }

    /// The operator's `/metrics` exposition.
    pub async fn metrics(&self) -> String {
        let r = self.http.get(format!("{}/metrics", self.metrics_base)).send().await.expect("metrics");
        r.text().await.expect("metrics text")
    }

    /// The server's read-through layer (its upstream call count, its cache).
    pub fn read_through(&self) -> &ReadThrough {
        &sitrep_api::context(&self.state).read_through
    }

    /// The application in process (no socket): requests are futures the test can drop.
    pub fn endpoint(&self) -> BoxEndpoint<'static> {
        sitrep_serve::app::build(self.state.clone(), self.registry.clone(), &self.base).expect("assembly")
    }

    /// A client that shows redirects instead of following them (as an OAuth client or a browser
    /// test sees them), with the tests' descriptive User-Agent.
    pub fn no_redirects() -> reqwest::Client {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent("sitrep-tests/0.1 (+https://sitrep.example)")
            .build()
            .expect("client")
    }

    pub fn get(&self, path_and_query: &str) -> reqwest::RequestBuilder {
        self.http.get(format!("{}{path_and_query}", self.base)).header("x-service-key", &self.key)
    }

    pub fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.http.post(format!("{}{path}", self.base)).header("x-service-key", &self.key)
    }

    /// GET returning (status, JSON body).
    pub async fn json(&self, path_and_query: &str) -> (u16, serde_json::Value) {
        let r = self.get(path_and_query).send().await.expect("request");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(serde_json::Value::Null))
    }
}
