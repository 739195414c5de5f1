//! `sitrep-ingest`: the operator's ingest CLI — one run, the scheduler, backfill and lake tools.

use std::{sync::Arc, time::Duration};

use anyhow::{bail, Context};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use sitrep_ingest::{
    config::{LakeArgs, SourceArgs},
    lake::{describe_changes, views_json, views_sql, GcOptions},
    replay::SourceEnv,
    runner::Runner,
    Lake,
};
use sitrep_pipelines::{budget::SqliteBudget, time::YearMonth};
use sitrep_schemas::DatasetId;

/// jemalloc for the whole process, DuckDB's allocations included (see the workspace manifest and `.cargo/config.toml`).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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
    /// Run the scheduler: every dataset on its own cadence until Ctrl-C.
    Schedule {
        #[command(flatten)]
        source: SourceArgs,
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
        #[arg(long)]
        generation: Option<u64>,
        #[arg(long, value_enum, default_value = "sql")]
        format: ViewFormat,
    },
    /// Delete run folders unreferenced by the last K generations, after a grace period.
    Gc {
        #[arg(long, default_value_t = 3)]
        keep: usize,
        /// Grace period in minutes for unreferenced folders (protects runs still in progress).
        #[arg(long, default_value_t = 60)]
        grace_minutes: i64,
        /// Generations younger than this many hours stay readable (LAKE_RETENTION).
        #[arg(long, env = "LAKE_RETENTION_HOURS", default_value_t = 24)]
        retention_hours: i64,
        #[arg(long)]
        dry_run: bool,
    },
    /// Publish a new generation equal to an older one.
    Rollback {
        #[arg(long)]
        to: u64,
    },
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
    Ok(match SqliteBudget::open(url).await {
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
        Command::Schedule { source } => {
            let runner = Arc::new(Runner::new(lake, source_env(&source, cli.state.as_deref()).await?));
            let mut sched = sitrep_ingest::scheduler::start(runner, &DatasetId::ALL).await?;
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
            LakeCommand::Views { generation, format } => {
                let commit = match generation {
                    Some(g) => lake.read_commit(g).await?.with_context(|| format!("generation {g} does not exist"))?,
                    None => lake.latest_commit().await?,
                };
                match format {
                    ViewFormat::Sql => print!("{}", views_sql(&lake, &commit)),
                    ViewFormat::Json => println!("{}", views_json(&lake, &commit)),
                }
            }
            LakeCommand::Gc { keep, grace_minutes, retention_hours, dry_run } => {
                let opts = GcOptions {
                    keep,
                    grace: chrono::Duration::minutes(grace_minutes),
                    retention: chrono::Duration::hours(retention_hours),
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
                    "{} {} run folders ({} objects, {} bytes); kept {}",
                    if dry_run { "would delete" } else { "deleted" },
                    report.runs_deleted.len(),
                    report.objects_deleted,
                    report.bytes_freed,
                    report.runs_kept
                );
            }
            LakeCommand::Rollback { to } => {
                let c = lake.rollback(to).await?;
                println!("generation {} = generation {to}", c.generation);
            }
        },
    }
    Ok(())
}
