//! `sitrep-serve`: the API server, and the operator's API-key commands.

use std::{path::PathBuf, sync::Arc, time::Duration};

use anyhow::Context;
use clap::{Parser, Subcommand};
use sitrep_agents::AgentContext;
use sitrep_api::{
    company_monitoring::{spawn_upkeep, CompanyMonitoring},
    read_through::ReadThrough,
    ApiContext,
};
use sitrep_cm::store::CmStore;
use sitrep_lake::Lake;
use sitrep_platform::{
    snapshot::Snapshots,
    state::{Plan, StateStore},
    AppState,
};
use sitrep_serve::config::{
    agent_settings_from_env, api_settings_from_env, cm_settings_from_env, cursor_secret_from_env, settings_from_env,
    webhook_settings_from_env, LakeArgs, ReadThroughMode, ServeArgs, StateArgs,
};

/// jemalloc for the whole process, DuckDB's allocations included (see the workspace manifest and `.cargo/config.toml`).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(name = "sitrep-serve", version, about = "Serve the sitrep API from the lake")]
struct Cli {
    #[command(flatten)]
    state: StateArgs,
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start and matched once: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve the API until Ctrl-C.
    Serve {
        #[command(flatten)]
        lake: LakeArgs,
        #[command(flatten)]
        serve: ServeArgs,
        /// Where the embedded scheduler's connectors get their data (with `--with-ingest`).
        #[cfg(feature = "with-ingest")]
        #[command(flatten)]
        source: sitrep_ingest::config::SourceArgs,
    },
    /// Manage API keys.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Manage accounts: their standing (active, lapsed, suspended).
    Accounts {
        #[command(subcommand)]
        command: AccountsCommand,
    },
    /// Print the development API key, creating a Pro account and key the first time.
    DevKey {
        /// Where the development key is kept between runs (only on this machine).
        #[arg(long, env = "SITREP_DEV_KEY_FILE", default_value = "./var/dev-api-key")]
        file: PathBuf,
    },
}

#[derive(Subcommand)]
enum AccountsCommand {
    /// Set an account's standing: `lapsed` refuses its paid entitlements (PRO operations answer the
    /// lapsed 403), `suspended` refuses everything, `active` restores it.
    SetStatus {
        #[arg(long)]
        account: String,
        #[arg(long, value_parser = ["active", "lapsed", "suspended"])]
        status: String,
    },
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Mint a key (shown once) for an account, creating the account if needed.
    Create {
        #[arg(long)]
        account: String,
        #[arg(long, default_value = "free")]
        plan: String,
        #[arg(long, default_value = "operator-cli")]
        name: String,
        /// Grant the operator right (client_credentials grant).
        #[arg(long)]
        operator: bool,
        /// A company-monitoring scope besides `mcp` (repeatable; business plans only).
        #[arg(long, value_parser = ["company_monitoring:read", "company_monitoring:write"])]
        scope: Vec<String>,
    },
    /// List keys (display prefix only).
    List,
    /// Revoke a key by id or display prefix.
    Revoke { key: String },
}

async fn ensure_account(store: &StateStore, name: &str, plan: Plan) -> anyhow::Result<sitrep_platform::state::Account> {
    Ok(match store.find_account_by_name(name).await? {
        Some(a) => a,
        None => store.create_account(name, plan).await?,
    })
}

/// The rate limiter `SITREP_RATE_LIMIT` names.
fn rate_limiter(setting: &str) -> anyhow::Result<Arc<dyn sitrep_platform::edge::rate_limit::RateLimiter>> {
    use sitrep_platform::edge::{rate_limit::InProcessLimiter, redis_limiter::RedisLimiter};
    Ok(match setting {
        "in-process" => Arc::new(InProcessLimiter::default()),
        url if url.starts_with("redis://") => Arc::new(RedisLimiter::connect(url)?),
        other => {
            anyhow::bail!("SITREP_RATE_LIMIT: `{}` is neither in-process nor redis://…", sitrep_db::redacted(other))
        }
    })
}

fn main() -> anyhow::Result<()> {
    // Before any thread: it sets the environment DuckDB's allocator reads.
    sitrep_platform::snapshot::configure_duckdb_allocator();
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(run())
}

async fn run() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("SITREP_LOG").unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let store =
        StateStore::open(&cli.state.state).await.with_context(|| format!("opening state store {}", cli.state.state))?;
    match cli.command {
        Command::Accounts { command: AccountsCommand::SetStatus { account, status } } => {
            let acct = store
                .find_account_by_name(&account)
                .await?
                .with_context(|| format!("no account named `{account}` (keys create makes one)"))?;
            store.set_account_status(&acct.id, &status).await?;
            println!("account {account}: {status}");
        }
        Command::Keys { command } => match command {
            KeysCommand::Create { account, plan, name, operator, scope } => {
                let plan = Plan::parse(&plan).context("plan must be free, pro or business")?;
                if !scope.is_empty() && !plan.has_company_monitoring() {
                    anyhow::bail!("company-monitoring scopes need a plan with company monitoring (business)");
                }
                let acct = ensure_account(&store, &account, plan).await?;
                let scopes: Vec<&str> = std::iter::once("mcp").chain(scope.iter().map(String::as_str)).collect();
                let key = store.create_key(&acct.id, &name, &cli.state.api_key_prefix, &scopes, operator).await?;
                println!("key id: {}", key.record.id);
                println!("API key: {}", key.secret);
            }
            KeysCommand::List => {
                println!("{:<32} {:<10} {:<16} {:<9} {:<26} revoked", "id", "prefix", "account", "plan", "last used");
                for (k, a) in store.list_keys().await? {
                    println!(
                        "{:<32} {:<10} {:<16} {:<9} {:<26} {}",
                        k.id,
                        k.display_prefix,
                        a.name,
                        a.plan.as_str(),
                        k.last_used_at.as_deref().unwrap_or("-"),
                        k.revoked_at.as_deref().unwrap_or("-")
                    );
                }
            }
            KeysCommand::Revoke { key } => {
                if store.revoke_key(&key).await? {
                    println!("revoked {key}");
                } else {
                    anyhow::bail!("no live key {key}");
                }
            }
        },
        Command::DevKey { file } => {
            if let Ok(existing) = std::fs::read_to_string(&file) {
                let existing = existing.trim();
                if store.live_key(&sitrep_platform::state::hash_secret(existing)).await?.is_some() {
                    println!("API key: {existing}");
                    return Ok(());
                }
            }
            let acct = ensure_account(&store, "development", Plan::Pro).await?;
            let key = store.create_key(&acct.id, "development", &cli.state.api_key_prefix, &["mcp"], false).await?;
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&file, &key.secret)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
            }
            println!("API key: {}", key.secret);
        }
        #[cfg_attr(not(feature = "with-ingest"), allow(unused_variables))]
        Command::Serve {
            lake,
            serve,
            #[cfg(feature = "with-ingest")]
            source,
        } => {
            let lake_store = Lake::open(&lake.lake)?;
            let snapshots = Arc::new(
                Snapshots::with_retention(
                    lake_store.clone(),
                    serve.cache_dir.clone(),
                    serve.duckdb_memory.clone(),
                    sitrep_lake::Retention::of(serve.retention_hours, serve.retention_days),
                )?
                .with_build_memory(serve.build_memory.clone())
                .with_diff_memory(serve.diff_memory.clone()),
            );
            let started = std::time::Instant::now();
            // Ready once the files are here; the poller builds the serving files next.
            if let Err(e) = snapshots.start().await {
                tracing::error!(error = %e, "initial generation load failed; serving unavailable until a good one arrives");
            }
            tracing::info!(ms = started.elapsed().as_millis() as u64, "cold start");
            let _poller = snapshots.clone().spawn_poller(Duration::from_secs(serve.poll_seconds.max(1)));
            #[cfg(feature = "with-ingest")]
            let _scheduler = if serve.with_ingest {
                let env =
                    sitrep_ingest::replay::SourceEnv::prepare(&source).await?.with_budget(Arc::new(store.clone()));
                let runner = Arc::new(sitrep_ingest::runner::Runner::new(lake_store, env));
                Some(sitrep_ingest::scheduler::start(runner, &sitrep_schemas::DatasetId::ALL).await?)
            } else {
                None
            };
            #[cfg(not(feature = "with-ingest"))]
            if serve.with_ingest {
                anyhow::bail!("this build has no embedded scheduler (cargo feature `with-ingest`)");
            }
            let settings = settings_from_env(&serve, &cli.state.api_key_prefix)?;
            let registry = Arc::new(sitrep_api::registry());
            let server_url = settings.site_origin().to_string();
            let read_through = match serve.read_through {
                ReadThroughMode::Live => {
                    ReadThrough::live(sitrep_pipelines::UpstreamConfig::from_env().map_err(anyhow::Error::msg)?)?
                }
                ReadThroughMode::Replay => ReadThrough::replay(&serve.read_through_fixtures).await?,
            };
            let company_monitoring =
                CompanyMonitoring::new(CmStore::new(store.db()).await?, cm_settings_from_env()?).await;
            let webhooks = sitrep_api::webhooks::Webhooks {
                store: sitrep_webhooks::WebhookStore::new(store.db()).await?,
                settings: webhook_settings_from_env(),
            };
            let state = Arc::new(
                AppState::new(
                    registry.operations().map(|op| op.id),
                    registry.datasets_access(),
                    snapshots,
                    store,
                    cursor_secret_from_env()?,
                    settings,
                )
                .await
                .map_err(|e| anyhow::anyhow!("{e:?}"))?
                .with_extension(ApiContext {
                    settings: api_settings_from_env()?,
                    company_monitoring,
                    read_through,
                    diffs: Default::default(),
                    webhooks,
                })
                .with_extension(AgentContext::new(agent_settings_from_env()?))
                .with_limiter(rate_limiter(&serve.rate_limit)?),
            );
            let _upkeep = spawn_upkeep(&state);
            let _webhooks = sitrep_api::webhooks::delivery::spawn(&state);
            let _clock = state.spawn_clock_sync(Duration::from_secs(60));
            let _sweeper = sitrep_platform::state::sweep::spawn_sweeper(
                state.store.clone(),
                Duration::from_secs(serve.sweep_seconds.max(1)),
            );
            let _metrics = serve_metrics(&serve.metrics_listen, state.clone()).await?;
            let app = sitrep_serve::app::build_with(state, registry, &server_url, serve.request_limits())?;
            let listener = tokio::net::TcpListener::bind(&serve.listen)
                .await
                .map_err(|e| anyhow::anyhow!("SITREP_LISTEN {}: {e}", serve.listen))?;
            tracing::info!(listen = %serve.listen, "serving");
            let stop = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            sitrep_serve::http_server::serve(listener, app, serve.connection_limits(), stop, Duration::from_secs(5))
                .await?;
        }
    }
    Ok(())
}

/// The operator's `/metrics` listener at `address` (`off`: none), running until the process ends.
async fn serve_metrics(address: &str, state: Arc<AppState>) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    if address == "off" {
        return Ok(None);
    }
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| anyhow::anyhow!("SITREP_METRICS_LISTEN {address}: {e}"))?;
    let bound = listener.local_addr()?;
    tracing::info!("operator metrics on http://{bound}/metrics");
    let acceptor = poem::listener::TcpAcceptor::from_tokio(listener)?;
    let app = sitrep_serve::app::metrics_app(state);
    Ok(Some(tokio::spawn(async move {
        if let Err(e) = poem::Server::new_with_acceptor(acceptor).run(app).await {
            tracing::error!(error = %e, "the metrics listener stopped");
        }
    })))
}
