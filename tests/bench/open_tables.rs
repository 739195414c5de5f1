//! `BENCH_GROUPS=open-tables`: issue 56's goals, side by side.
//!
//! - Publishing a version of 1M synthetic ACLED events (parse, normalise, Parquet, commit) with
//!   both open tables written, against the same without them (`Lake::with_open_tables(false)`),
//!   on a local lake and on the tests' S3 server: five versions each, alternating, medians. The
//!   commit step alone is printed beside: what the tables add lands there, and the run-to-run
//!   spread of a whole version (a few per cent) is larger than it.
//! - A reader's cold open of the current version of a dataset with 1,000 versions retained
//!   (Delta checkpoints every ten; Iceberg's one metadata file): deltalake and PyIceberg in a new
//!   process each time (tools/open_tables_cold_open.py; `BENCH_PYTHON`, the test venv's Python
//!   `make bench` sets), the open and the current version's file list timed, medians of five,
//!   against the 200 ms ceiling. Each process first uses its reader on a table of one version
//!   (PyIceberg loads much of itself on its first open, whatever the table): that first use is
//!   printed beside, as what any table costs a new process.

use std::{path::Path, process::Command, time::Instant};

use chrono::{DateTime, Utc};
use sitrep_ingest::Lake;
use sitrep_schemas::DatasetId;
use sitrep_tests::s3_server::S3Server;

use crate::ingest_seeded;

/// Versions of the cold-open table.
fn versions() -> usize {
    crate::scaled(1_000, 20)
}
/// The goals: publishing with the tables within 1.1 × without; a cold open within 200 ms.
const PUBLISH_GOAL: f64 = 1.1;
const COLD_OPEN_CEILING_MS: f64 = 200.0;

pub struct Publish {
    pub store: &'static str,
    /// Whole version (ingest + commit), ms: with the tables, without.
    pub version_ms: [f64; 2],
    /// The commit step alone, ms: with, without.
    pub commit_ms: [f64; 2],
}

pub struct Figures {
    pub events: usize,
    pub publish: Vec<Publish>,
    /// Engine → median (first use on a one-version table, cold open of the 1,000-version table)
    /// in ms, or why it was not measured.
    pub cold_open: Vec<(String, Result<[f64; 2], String>)>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Versions with the tables and without, alternating (one lake each).
fn rounds() -> u64 {
    crate::scaled(5, 1) as u64
}

/// [`rounds`] versions with the tables and as many without, alternating (one lake each).
async fn publish(store: &'static str, with: Lake, without: Lake, events: usize, as_of: DateTime<Utc>) -> Publish {
    let (mut version, mut commit) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    for round in 0..rounds() {
        for (i, lake) in [&with, &without].into_iter().enumerate() {
            let t = Instant::now();
            let ingested = ingest_seeded(lake, events, as_of, 100 + round).await;
            version[i].push(t.elapsed().as_secs_f64() * 1e3);
            commit[i].push(ingested.commit_ms);
        }
    }
    let [vw, vo] = version.map(median);
    let [cw, co] = commit.map(median);
    Publish { store, version_ms: [vw, vo], commit_ms: [cw, co] }
}

/// A local lake whose armed-events has [`versions`] versions (small ones: the table's log is what
/// a cold open reads, not the rows).
async fn many_versions(dir: &Path, as_of: DateTime<Utc>) -> Lake {
    let lake = Lake::open(dir.to_str().expect("utf8")).expect("lake");
    for seed in 0..versions() as u64 {
        ingest_seeded(&lake, 50, as_of, 10_000 + seed).await;
    }
    lake
}

fn cold_open(warmup: &str, table: &str) -> Vec<(String, Result<[f64; 2], String>)> {
    let Ok(python) = std::env::var("BENCH_PYTHON") else {
        let why = "BENCH_PYTHON unset (make bench sets it)".to_string();
        return vec![("deltalake".into(), Err(why.clone())), ("pyiceberg".into(), Err(why))];
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools/open_tables_cold_open.py");
    ["deltalake", "pyiceberg"]
        .into_iter()
        .map(|engine| {
            let (mut first_use, mut runs) = (Vec::new(), Vec::new());
            for _ in 0..5 {
                let out = Command::new(&python).arg(script).arg(engine).arg(warmup).arg(table).output();
                match out {
                    // A reader that fails is a failed run, never a figure.
                    Ok(o) if o.status.success() => {
                        let text = String::from_utf8_lossy(&o.stdout).to_string();
                        let ms: Vec<f64> =
                            text.split_whitespace().map(|v| v.parse().expect("the cold open's milliseconds")).collect();
                        first_use.push(ms[0]);
                        runs.push(ms[1]);
                    }
                    Ok(o) => panic!("{engine} could not open {table}: {}", String::from_utf8_lossy(&o.stderr).trim()),
                    Err(e) => panic!("{python}: {e}"),
                }
            }
            (engine.to_string(), Ok([median(first_use), median(runs)]))
        })
        .collect()
}

pub async fn measure(as_of: DateTime<Utc>) -> Figures {
    let events: usize = std::env::var("OPEN_TABLES_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(crate::scaled(1_000_000, 10_000));
    let dir = tempfile::tempdir().expect("tempdir");
    let local = |name: &str| Lake::open(dir.path().join(name).to_str().expect("utf8")).expect("lake");
    let mut figures = Figures { events, publish: Vec::new(), cold_open: Vec::new() };
    let with = local("with");
    let without = local("without").with_open_tables(false);
    figures.publish.push(publish("local", with, without, events, as_of).await);
    let s3 = S3Server::start(&dir.path().join("s3"), "lake").await.expect("the S3 server");
    let (with, without) = (s3.lake("lake", "with"), s3.lake("lake", "without").with_open_tables(false));
    figures.publish.push(publish("S3", with, without, events, as_of).await);
    let lake = many_versions(&dir.path().join("versions"), as_of).await;
    let (head, _) = lake.delta_head(DatasetId::ARMED_EVENTS).await.expect("the Delta log").expect("a table");
    assert_eq!(head as usize + 1, versions(), "one table version per version");
    let one = local("one-version");
    ingest_seeded(&one, 50, as_of, 1).await;
    let location = |lake: &Lake| sitrep_lake::table_location(lake, DatasetId::ARMED_EVENTS);
    figures.cold_open = cold_open(&location(&one), &location(&lake));
    figures
}

pub fn print(f: &Figures) {
    println!(
        "\nOpen tables (issue 56): publishing a version of {} events with the Delta and Iceberg tables, against without (medians of {}; goal ≤ {PUBLISH_GOAL}×)\n",
        f.events,
        rounds()
    );
    println!("| lake | version with tables ms | without ms | with ÷ without | commit step with ms | without ms | (commit with − without) ÷ version |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for p in &f.publish {
        println!(
            "| {} | {:.0} | {:.0} | {:.3} | {:.1} | {:.1} | {:.4} |",
            p.store,
            p.version_ms[0],
            p.version_ms[1],
            p.version_ms[0] / p.version_ms[1],
            p.commit_ms[0],
            p.commit_ms[1],
            (p.commit_ms[0] - p.commit_ms[1]) / p.version_ms[1]
        );
    }
    println!("\nA reader's cold open of the current version at {} versions (a new process each; medians of five; ceiling {COLD_OPEN_CEILING_MS} ms)\n", versions());
    println!("| reader | cold open ms | ÷ ceiling | the reader's first use in the process (one-version table) ms |");
    println!("|---|---:|---:|---:|");
    for (engine, figure) in &f.cold_open {
        match figure {
            Ok([first, ms]) => println!("| {engine} | {ms:.0} | {:.2} | {first:.0} |", ms / COLD_OPEN_CEILING_MS),
            Err(why) => println!("| {engine} | n/a ({why}) | | |"),
        }
    }
}
