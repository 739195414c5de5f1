//! `make bench`: the figures of the Foundation issue, printed as a table.
//!
//! For each size (env `BENCH_SIZES`, default 10k,100k,1M,5M synthetic ACLED events):
//! - ingest: parse + normalise + write Parquet throughput (events/s) and commit latency;
//! - serving: generation load time (cold start to ready) and ListArmedEvents latency in process
//!   (one country, 30-day range, page_size 100): the DuckDB query + render path with the body cache
//!   bypassed (p50/p99), and the cached path through the full pipeline;
//! - resident memory after the generation is loaded.

use std::{sync::Arc, time::Instant};

use chrono::{DateTime, Duration, Utc};
use sitrep_ingest::{
    lake::{Outcome, Staged},
    writer::write_dataset,
    Lake,
};
use sitrep_pipelines::{acled, synthetic::AcledGenerator, Scope};
use sitrep_schemas::DatasetId;
use sitrep_serve::{api::conflict::queries, snapshot::Snapshots};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("0").parse::<f64>().unwrap_or(0.0))
        })
        .unwrap_or(0.0)
        / 1024.0
}

struct Row {
    n: usize,
    ingest_eps: f64,
    commit_ms: f64,
    load_ms: f64,
    p50_us: f64,
    p99_us: f64,
    cached_p50_us: f64,
    cached_p99_us: f64,
    rss_mb: f64,
}

async fn bench_size(n: usize, as_of: DateTime<Utc>) -> Row {
    let dir = tempfile::tempdir().expect("tempdir");
    let lake = Lake::open(dir.path().join("lake").to_str().expect("utf8")).expect("lake");
    let run_id = ulid_like(n);
    let mut gen = AcledGenerator::new(n, 42, as_of, 90);
    let mut files = Vec::new();
    let mut part = 0;
    let t = Instant::now();
    while let Some(page) = gen.next_page(50_000) {
        let parsed = acled::parse_page(&page).expect("parse");
        let batch = acled::normalise(parsed.data.iter(), usize::MAX).expect("normalise");
        files.extend(
            write_dataset(&lake, &run_id, DatasetId::ArmedEvents, &batch, as_of, &mut part).await.expect("write"),
        );
    }
    let ingest_secs = t.elapsed().as_secs_f64();
    let months = files
        .iter()
        .filter_map(|f| f.partition.as_deref().and_then(sitrep_pipelines::time::YearMonth::parse))
        .collect();
    let staged = Staged {
        run_id,
        operation: "bench".into(),
        outcomes: vec![Outcome::Fetched {
            dataset: DatasetId::ArmedEvents,
            files,
            scope: Scope::Months(months),
            fetched_at: as_of,
            as_of,
            upstream_version: None,
            keeps_as_of: false,
        }],
    };
    let t = Instant::now();
    lake.publish(&staged).await.expect("publish");
    let commit_ms = t.elapsed().as_secs_f64() * 1e3;

    let snapshots = Arc::new(Snapshots::new(lake.clone(), dir.path().join("cache"), "256MB".into()));
    let t = Instant::now();
    let generation = snapshots.refresh().await.expect("load").expect("generation");
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let db = generation.dataset(DatasetId::ArmedEvents).expect("armed").clone();

    let to = as_of.timestamp_millis() / 86_400_000 * 86_400_000;
    let from = to - 30 * 86_400_000;
    let mut lat = Vec::new();
    for i in 0..1200 {
        let f = queries::EventFilter { from_ms: from, to_ms: to, country: Some("UA".into()), limit: 100, offset: 0 };
        let t = Instant::now();
        let (events, total) = db.query(move |c| queries::armed_events(c, &f)).await.expect("query");
        let body = serde_json::to_vec(&serde_json::json!({"events": events, "total": total})).expect("render");
        std::hint::black_box(body);
        if i >= 200 {
            lat.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    lat.sort_by(f64::total_cmp);

    let cached = sitrep_serve::api::answer::BodyCache::new(16);
    let mut clat = Vec::new();
    for i in 0..5000 {
        let t = Instant::now();
        let prov = sitrep_serve::api::answer::Provenance {
            generation: 1,
            published_at: as_of,
            state: sitrep_serve::api::answer::DataState::Fresh,
        };
        let req =
            sitrep_serve::api::answer::GetRequest { if_none_match: None, jmespath: None, cache_key: Some("k".into()) };
        let db = db.clone();
        let a: sitrep_serve::api::answer::Answer<()> =
            sitrep_serve::api::answer::dataset_get(&cached, req, prov, async move {
                let f = queries::EventFilter {
                    from_ms: from,
                    to_ms: to,
                    country: Some("UA".into()),
                    limit: 100,
                    offset: 0,
                };
                let (events, total) = db
                    .query(move |c| queries::armed_events(c, &f))
                    .await
                    .map_err(sitrep_serve::api::error::ApiError::from)?;
                Ok(serde_json::json!({"events": events, "total": total}))
            })
            .await;
        std::hint::black_box(a.0);
        if i >= 100 {
            clat.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    clat.sort_by(f64::total_cmp);
    Row {
        n,
        ingest_eps: n as f64 / ingest_secs,
        commit_ms,
        load_ms,
        p50_us: percentile(&lat, 0.5),
        p99_us: percentile(&lat, 0.99),
        cached_p50_us: percentile(&clat, 0.5),
        cached_p99_us: percentile(&clat, 0.99),
        rss_mb: rss_mb(),
    }
}

fn ulid_like(n: usize) -> String {
    format!("01BENCH{n:019}")
}

#[tokio::main]
async fn main() {
    let sizes: Vec<usize> = std::env::var("BENCH_SIZES")
        .unwrap_or_else(|_| "10000,100000,1000000,5000000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let as_of = Utc::now() - Duration::days(1);
    println!("| events | ingest events/s | commit ms | load (cold→ready) ms | query p50 µs | query p99 µs | cached p50 µs | cached p99 µs | RSS MB |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let r = bench_size(n, as_of).await;
        println!(
            "| {} | {:.0} | {:.1} | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} | {:.0} |",
            r.n, r.ingest_eps, r.commit_ms, r.load_ms, r.p50_us, r.p99_us, r.cached_p50_us, r.cached_p99_us, r.rss_mb
        );
    }
}
