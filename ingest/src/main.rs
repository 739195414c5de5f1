//! `sitrep-ingest`: the operator's ingest CLI — one run, the scheduler, backfill and lake tools.

use std::{sync::Arc, time::Duration};

use anyhow::{bail, Context};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use sitrep_cm::{
    settings::CmSettings,
    store::{CmStore, ScanScope},
};
use sitrep_ingest::{
    company_scan::{LiveVerification, RecordedVerification, Scanner, Verification},
    config::{LakeArgs, SourceArgs},
    lake::{describe_changes, views_json, views_sql, GcOptions},
    replay::SourceEnv,
    runner::Runner,
    Lake,
};
use sitrep_pipelines::{budget::StoreBudget, time::YearMonth, web_search};
use sitrep_schemas::DatasetId;

/// jemalloc for the whole process, DuckDB's allocations included (see the workspace manifest and `.cargo/config.toml`).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
sitrep_ingest::keep_freed_pages!();

#[derive(Parser)]
#[command(name = "sitrep-ingest", version, about = "Ingest upstream sources into the sitrep lake")]
struct Cli {
    #[command(flatten)]
    lake: LakeArgs,
    /// The server's state store (`sqlite://…`), where metered upstream calls (AviationStack) are
    /// counted against their budgets; without it those calls are not made.
    #[arg(long, env = "SITREP_STATE", global = true)]
    state: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// One ingest run over every dataset (or the ones named), published as one generation.
    Run {
        #[command(flatten)]
        source: SourceArgs,
        /// Restrict the run to these datasets (repeatable).
        #[arg(long = "dataset", env = "DATASET", value_delimiter = ',')]
        datasets: Vec<String>,
    },
    /// Run the scheduler: every dataset on its own cadence until Ctrl-C (and, with a state store
    /// and company monitoring's gate open, the due companies' scans and the coverage sweep).
    Schedule {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        search: SearchArgs,
        #[command(flatten)]
        filings: FilingsArgs,
    },
    /// Fetch historical month partitions FROM..TO (YYYY-MM, inclusive) and commit them once.
    Backfill {
        #[command(flatten)]
        source: SourceArgs,
        #[arg(long, env = "DATASET")]
        dataset: String,
        #[arg(long, env = "FROM")]
        from: String,
        #[arg(long, env = "TO")]
        to: String,
    },
    /// Inspect and maintain the lake.
    Lake {
        #[command(subcommand)]
        command: LakeCommand,
    },
    /// Company monitoring.
    Cm {
        #[command(subcommand)]
        command: CmCommand,
    },
}

#[derive(Subcommand)]
// Parsed once per process: boxing the scan's arguments would buy nothing.
#[allow(clippy::large_enum_variant)]
enum CmCommand {
    /// Scan companies now: every due one, or those of an account, or one company.
    Scan {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        search: SearchArgs,
        #[command(flatten)]
        filings: FilingsArgs,
        #[arg(long)]
        account: Option<String>,
        #[arg(long, conflicts_with = "account")]
        company: Option<String>,
    },
    /// Print the category lexicon: each group of keywords, its concept and where its words come from.
    Lexicon,
}

/// Company monitoring's SEARCH provider (its URL is `SEARCH_PROVIDER_URL`, a CM setting).
#[derive(clap::Args)]
struct SearchArgs {
    /// `contract` (our web-search contract, the default), `searxng`, `gdelt` (keyless; GDELT's
    /// public DOC API when SEARCH_PROVIDER_URL is unset) or `exa` (Exa's API when it is unset).
    #[arg(long, env = "SEARCH_PROVIDER_KIND", default_value = "contract")]
    search_provider_kind: String,
    #[arg(long, env = "SEARCH_PROVIDER_API_KEY", hide_env_values = true)]
    search_provider_api_key: Option<String>,
    /// Where paced upstreams' turns are kept (GDELT's one request every 5 s, the SEC's ten a
    /// second): `in-process`, or the replicas' `redis://…`, shared by every worker.
    #[arg(long, env = "SITREP_RATE_LIMIT", default_value = "in-process")]
    rate_limit: String,
}

/// The turns of the paced upstream `key`: shared through Redis where one is configured.
fn pacer(rate_limit: &str, key: &str) -> anyhow::Result<sitrep_pipelines::pace::Pacer> {
    if rate_limit.starts_with("redis://") || rate_limit.starts_with("rediss://") {
        let shared = sitrep_pipelines::pace::SharedTurns::new(rate_limit, key)
            .with_context(|| "SITREP_RATE_LIMIT is not a Redis URL")?;
        return Ok(sitrep_pipelines::pace::Pacer::shared(shared));
    }
    Ok(sitrep_pipelines::pace::Pacer::default())
}

/// Company monitoring's FILINGS provider: the SEC's EDGAR submissions API.
#[derive(clap::Args)]
struct FilingsArgs {
    /// The User-Agent the SEC requires of automated clients: "Organisation contact@address".
    /// Live scans run FILINGS only with it.
    #[arg(long, env = "SEC_EDGAR_USER_AGENT")]
    sec_edgar_user_agent: Option<String>,
    /// Where EDGAR's submissions API is served.
    #[arg(long, env = "SEC_EDGAR_URL", default_value = sitrep_pipelines::edgar::EDGAR_DATA_API)]
    sec_edgar_url: String,
}

/// The User-Agent replay declares (the recordings' requests carry it).
const REPLAY_EDGAR_USER_AGENT: &str = "Sitrep Replay replay@sitrep.example";

/// The FILINGS provider of this run: live only with a declared User-Agent (the SEC blocks
/// undeclared tools), in replay with the recordings' own.
fn edgar(args: &FilingsArgs, mode: sitrep_ingest::config::Mode) -> Option<sitrep_pipelines::edgar::Edgar> {
    let declared = args.sec_edgar_user_agent.as_deref().map(str::trim).filter(|ua| !ua.is_empty());
    let user_agent = match (declared, mode) {
        (Some(ua), _) => ua.to_string(),
        (None, sitrep_ingest::config::Mode::Replay) => REPLAY_EDGAR_USER_AGENT.to_string(),
        (None, sitrep_ingest::config::Mode::Live) => {
            tracing::warn!("company monitoring: FILINGS is off: SEC_EDGAR_USER_AGENT is not set (the SEC requires it)");
            return None;
        }
    };
    Some(sitrep_pipelines::edgar::Edgar::new(args.sec_edgar_url.clone(), user_agent, sitrep_pipelines::edgar::TIMEOUT))
}

/// The worker's clock: the recordings' time in replay mode, else the wall clock.
type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

/// Company monitoring's scanner over the state store at `state`, and the worker's clock; an
/// error when the store is unreachable or the runtime gate is closed.
async fn company_scanner(
    state: &str,
    source: &SourceArgs,
    search: &SearchArgs,
    filings: &FilingsArgs,
    lake: Lake,
) -> anyhow::Result<(Scanner, Clock)> {
    let settings = CmSettings::from_env()?;
    let store = CmStore::open(state).await.with_context(|| format!("state store {state} is unreachable"))?;
    if let Err(why) = settings.gate(store.schema_current().await?) {
        bail!("company monitoring is not enabled on this deployment ({why:?})");
    }
    let kind = web_search::Kind::parse(&search.search_provider_kind).with_context(|| {
        format!("SEARCH_PROVIDER_KIND `{}` is not contract, searxng, gdelt or exa", search.search_provider_kind)
    })?;
    let env = Arc::new(SourceEnv::prepare(source).await?);
    let provider = match settings.search_provider_url.clone() {
        Some(url) => Some(
            web_search::SearchProvider::new(url, search.search_provider_api_key.clone(), kind, web_search::TIMEOUT)
                .with_pacer(pacer(&search.rate_limit, "gdelt")?),
        ),
        None => None,
    };
    let filings = match edgar(filings, source.mode) {
        Some(edgar) => Some(edgar.with_pacer(pacer(&search.rate_limit, "sec-edgar")?)),
        None => None,
    };
    let owner = format!("{}-{}", hostname(), std::process::id());
    // The recorded world has no DNS and its URLs stay: in replay every domain resolves.
    let verification: Arc<dyn Verification> = match source.mode {
        sitrep_ingest::config::Mode::Live => Arc::new(LiveVerification),
        sitrep_ingest::config::Mode::Replay => Arc::new(RecordedVerification::default()),
    };
    let scanner = Scanner {
        store,
        lake,
        http: env.http().clone(),
        search: provider,
        filings,
        settings,
        owner,
        verification,
        lease: sitrep_ingest::company_scan::LEASE,
    };
    // Live, leases are judged on the state store's clock (this machine's plus the skew), as on
    // every other worker; replay keeps the recordings' time.
    let skew = match source.mode {
        sitrep_ingest::config::Mode::Live => scanner.store.clock_skew_ms().await?,
        sitrep_ingest::config::Mode::Replay => 0,
    };
    // The clock keeps the environment (in replay, its fixture server) alive.
    let clock: Clock = Arc::new(move || env.now().timestamp_millis() + skew);
    Ok((scanner, clock))
}

#[derive(Clone, Copy, ValueEnum)]
enum ViewFormat {
    Sql,
    Json,
}

#[derive(Subcommand)]
enum LakeCommand {
    /// Generations, newest first, and what each changed.
    Log {
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Views over a generation's files for DuckDB (`sql`) or Polars/pandas (`json`).
    Views {
        #[arg(long, conflicts_with = "as_of")]
        generation: Option<u64>,
        /// Each dataset at its newest retained version published at or before this time (RFC 3339
        /// or epoch ms), as the API's `as_of` answers.
        #[arg(long, value_parser = as_of_arg)]
        as_of: Option<chrono::DateTime<chrono::Utc>>,
        #[arg(long, env = "LAKE_RETENTION_HOURS", default_value_t = 48)]
        retention_hours: i64,
        #[arg(long, env = "LAKE_RETENTION_DAYS", default_value_t = 90)]
        retention_days: i64,
        #[arg(long, value_enum, default_value = "sql")]
        format: ViewFormat,
    },
    /// Where each dataset's open tables are (Delta Lake, Apache Iceberg), and the version each is at.
    Tables,
    /// Delete run folders that no retained dataset version and none of the last K generations
    /// references, after a grace period.
    Gc {
        #[arg(long, default_value_t = 3)]
        keep: usize,
        /// Grace period in minutes for unreferenced folders (protects runs still in progress).
        #[arg(long, default_value_t = 60)]
        grace_minutes: i64,
        /// Every dataset version current within this many hours is kept (the server's setting).
        #[arg(long, env = "LAKE_RETENTION_HOURS", default_value_t = 48)]
        retention_hours: i64,
        /// Then the version current at the end of each UTC day, for this many days.
        #[arg(long, env = "LAKE_RETENTION_DAYS", default_value_t = 90)]
        retention_days: i64,
        #[arg(long)]
        dry_run: bool,
    },
    /// Move the current versions of a lake written before the open tables into the datasets'
    /// folders (a new version of the same rows each, where the tables begin); resumable.
    Migrate,
    /// Publish a new generation equal to an older one.
    Rollback {
        #[arg(long)]
        to: u64,
    },
}

/// This machine's name, for the leases a worker takes.
fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_string()).unwrap_or_else(|_| "worker".into())
}

fn as_of_arg(s: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    sitrep_lake::parse_as_of(s).ok_or_else(|| "expected an RFC 3339 time or epoch milliseconds".into())
}

fn parse_datasets(names: &[String]) -> anyhow::Result<Vec<DatasetId>> {
    if names.is_empty() {
        return Ok(DatasetId::ALL.to_vec());
    }
    names.iter().map(|n| n.trim().parse::<DatasetId>().map_err(Into::into)).collect()
}

/// The run's source environment, counting metered calls in the state store when one is given.
async fn source_env(source: &SourceArgs, state: Option<&str>) -> anyhow::Result<SourceEnv> {
    let env = SourceEnv::prepare(source).await?;
    let Some(url) = state else { return Ok(env) };
    // A missing store is not fatal: the run goes on without metered calls, and the affected
    // component says so in the dataset (`no budget store`).
    Ok(match StoreBudget::open(url).await {
        Ok(store) => env.with_budget(Arc::new(store)),
        Err(e) => {
            tracing::warn!(error = %e, "no budget store: metered upstream calls (AviationStack) are skipped");
            env
        }
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("SITREP_LOG").unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let lake = Lake::open(&cli.lake.lake).with_context(|| format!("opening lake {}", cli.lake.lake))?;
    match cli.command {
        Command::Run { source, datasets } => {
            let datasets = parse_datasets(&datasets)?;
            let runner = Runner::new(lake, source_env(&source, cli.state.as_deref()).await?);
            let report = runner.run(&datasets).await?;
            println!("generation {}", report.commit.generation);
            println!("{:<20} {:>6} {:>9} {:>11} {:>8}  error", "dataset", "status", "rows", "bytes", "ms");
            for r in &report.datasets {
                println!(
                    "{:<20} {:>6} {:>9} {:>11} {:>8}  {}",
                    r.dataset.as_str(),
                    if r.ok { "ok" } else { "failed" },
                    r.rows,
                    r.bytes,
                    r.millis,
                    r.error.as_deref().unwrap_or("")
                );
            }
        }
        Command::Schedule { source, search, filings } => {
            let scanner = match cli.state.as_deref() {
                Some(state) => match company_scanner(state, &source, &search, &filings, lake.clone()).await {
                    Ok(scanner) => Some(scanner),
                    Err(e) => {
                        tracing::info!(reason = %e, "company monitoring scans are not scheduled");
                        None
                    }
                },
                None => None,
            };
            let runner = Arc::new(Runner::new(lake, source_env(&source, cli.state.as_deref()).await?));
            let mut sched = sitrep_ingest::scheduler::start(runner, &DatasetId::ALL).await?;
            if let Some((scanner, clock)) = scanner {
                sitrep_ingest::company_scan::schedule(&sched, Arc::new(scanner), clock).await?;
                tracing::info!("company monitoring scans scheduled");
            }
            tokio::signal::ctrl_c().await?;
            let _ = sched.shutdown().await;
        }
        Command::Backfill { source, dataset, from, to } => {
            let dataset: DatasetId = dataset.parse()?;
            let (Some(from), Some(to)) = (YearMonth::parse(&from), YearMonth::parse(&to)) else {
                bail!("FROM and TO must be months as YYYY-MM");
            };
            let runner = Runner::new(lake, source_env(&source, cli.state.as_deref()).await?);
            let total = YearMonth::range(from, to).len() as u64;
            let bar = ProgressBar::new(total).with_style(
                ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} months ({eta})")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_message(format!("backfill {dataset}"));
            bar.enable_steady_tick(Duration::from_millis(200));
            let commit = sitrep_ingest::backfill::backfill(&runner, dataset, from, to, |m, resumed| {
                bar.inc(1);
                bar.set_message(format!("backfill {dataset} {m}{}", if resumed { " (resumed)" } else { "" }));
            })
            .await?;
            bar.finish_with_message(format!("backfill {dataset} done"));
            println!("generation {}", commit.generation);
        }
        Command::Cm { command: CmCommand::Scan { source, search, filings, account, company } } => {
            let state = cli.state.as_deref().context("cm scan needs the state store (--state or SITREP_STATE)")?;
            let (scanner, clock) = company_scanner(state, &source, &search, &filings, lake).await?;
            let scope = match (&account, &company) {
                (_, Some(c)) => ScanScope::Company(c),
                (Some(a), None) => ScanScope::Account(a),
                (None, None) => ScanScope::Due { interval_ms: scanner.settings.scan_interval_ms },
            };
            let report = scanner.run(scope, clock()).await?;
            println!(
                "companies scanned {}, dropped {}, impact revisions {}",
                report.scanned, report.dropped, report.impact_revisions
            );
        }
        Command::Cm { command: CmCommand::Lexicon } => {
            for g in sitrep_cm::pipeline::lexicon::groups() {
                println!("{} / {}: {}", g.category, g.concept, g.keywords.join(" | "));
                if !g.with.is_empty() {
                    println!("  only beside: {}", g.with.join(", "));
                }
                println!("  from: {}", g.from);
            }
        }
        Command::Lake { command } => match command {
            LakeCommand::Log { limit } => {
                let gens = lake.generations().await?;
                for g in gens.iter().rev().take(limit) {
                    let Some(c) = lake.read_commit(*g).await? else { continue };
                    let parent = match c.parent {
                        Some(p) => lake.read_commit(p).await?,
                        None => None,
                    };
                    println!(
                        "generation {}  {}  {}  run {}",
                        c.generation,
                        c.committed_at.to_rfc3339(),
                        c.operation,
                        c.run_id
                    );
                    for line in describe_changes(parent.as_ref(), &c) {
                        println!("    {line}");
                    }
                }
            }
            LakeCommand::Views { generation, as_of, retention_hours, retention_days, format } => {
                let retention = sitrep_lake::Retention::of(retention_hours, retention_days);
                let commit = match (generation, as_of) {
                    (Some(g), _) => {
                        lake.read_commit(g).await?.with_context(|| format!("generation {g} does not exist"))?
                    }
                    (None, Some(at)) => lake.commit_as_of(at, &retention, chrono::Utc::now()).await?,
                    (None, None) => lake.latest_commit().await?,
                };
                match format {
                    ViewFormat::Sql => print!("{}", views_sql(&lake, &commit)),
                    ViewFormat::Json => println!("{}", views_json(&lake, &commit)),
                }
            }
            LakeCommand::Tables => {
                for dataset in sitrep_schemas::DatasetId::ALL {
                    let location = sitrep_lake::table_location(&lake, dataset);
                    if let Some((version, generation)) = lake.delta_head(dataset).await? {
                        println!(
                            "{:<22} delta    {location}  (table version {version} = generation {generation})",
                            dataset.as_str()
                        );
                    }
                    if let Some((n, metadata)) = lake.iceberg_head(dataset).await? {
                        let metadata_file = lake.external_path(&sitrep_lake::iceberg_metadata_key(dataset, n));
                        let (snapshot, kept) = (metadata.current_snapshot_id, metadata.snapshots.len());
                        println!(
                            "{:<22} iceberg  {metadata_file}  (snapshot {snapshot} = generation {snapshot}, {kept} snapshots)",
                            dataset.as_str()
                        );
                    }
                }
            }
            LakeCommand::Gc { keep, grace_minutes, retention_hours, retention_days, dry_run } => {
                let opts = GcOptions {
                    keep,
                    grace: chrono::Duration::minutes(grace_minutes),
                    retention: sitrep_lake::Retention::of(retention_hours, retention_days),
                    dry_run,
                };
                let bar = ProgressBar::new(0);
                let report = lake
                    .gc(&opts, |i, n| {
                        bar.set_length(n as u64);
                        bar.set_position(i as u64);
                    })
                    .await?;
                bar.finish_and_clear();
                println!(
                    "{} {} run folders ({} objects, {} bytes); kept {} ({} retained dataset versions); {} {} Delta table versions and {} Iceberg snapshots",
                    if dry_run { "would delete" } else { "deleted" },
                    report.runs_deleted.len(),
                    report.objects_deleted,
                    report.bytes_freed,
                    report.runs_kept,
                    report.versions_retained,
                    if dry_run { "would expire" } else { "expired" },
                    report.table_versions_expired,
                    report.snapshots_expired
                );
            }
            LakeCommand::Migrate => {
                let report = lake.migrate().await?;
                for (dataset, files) in &report.moved {
                    println!(
                        "{:<22} {files} files moved into {}",
                        dataset.as_str(),
                        sitrep_lake::table_location(&lake, *dataset)
                    );
                }
                match report.generation {
                    Some(g) => println!("generation {g} publishes the moved versions; their open tables begin there"),
                    None => println!("nothing to move: every current version lies in its dataset's folder"),
                }
            }
            LakeCommand::Rollback { to } => {
                let c = lake.rollback(to).await?;
                println!("generation {} = generation {to}", c.generation);
            }
        },
    }
    Ok(())
}
