//! The Consumer prices figures: 1M synthetic observations in our feed's CSV format, served by the
//! local replay server and ingested by the real connector (fetch, validation, Parquet, commit);
//! then the version's load with its derived indices (the serving file built once); then
//! GetConsumerPriceOverview warm under wrk and uncached one request at a time.

use std::time::Instant;

use sitrep_ingest::{replay::SourceEnv, runner::Runner, Lake};
use sitrep_pipelines::{consumer_prices::basket, http::RetryPolicy, replay::FixtureServer, UpstreamConfig};
use sitrep_schemas::DatasetId;

use crate::{ceiling_path, http_load, percentile};

const RETAILERS: usize = 8;
const DAYS: i64 = 1302;
const FILE_URL: &str = "https://feed.sitrep.example/consumer-prices/bench.csv";
const OVERVIEW: &str = "/api/consumer-prices/v1/get-consumer-price-overview";

pub struct Figures {
    pub observations: usize,
    pub csv_mb: f64,
    pub ingest_ms: f64,
    pub load_ms: f64,
    pub warm: Option<(http_load::Run, http_load::Run)>,
    pub uncached_p50_ms: f64,
    pub uncached_p99_ms: f64,
}

/// Every market × 8 retailers × 12 items × 1,302 days ending the day before the recordings' time:
/// 1,000,000 rows (8 × 8 × 12 × 1,302 = 999,936), prices drifting per item and retailer.
fn feed_csv() -> (String, usize) {
    let end = chrono::NaiveDate::from_ymd_opt(2026, 11, 19).expect("date");
    let mut out = String::with_capacity(110 * 1_000_000);
    out.push_str("market_code,retailer,item_id,item_name,category,unit,price,currency,observed_at\n");
    let mut n = 0;
    for b in basket::all() {
        for r in 0..RETAILERS {
            for (i, item) in b.items.iter().enumerate() {
                let base = 2.0 + i as f64 * 1.7 + r as f64 * 0.11;
                for d in 0..DAYS {
                    let day = end - chrono::Duration::days(DAYS - 1 - d);
                    let price = base
                        * (1.0 + 0.0004 * d as f64 * (1.0 + (i % 4) as f64 * 0.5))
                        * (1.0 + ((d * 7 + r as i64) % 5) as f64 * 0.002);
                    use std::fmt::Write;
                    let _ = writeln!(
                        out,
                        "{m},r{r}_{m},{id},{name},{cat},1,{price:.2},{cur},{day}T08:00:00Z",
                        m = b.market_code,
                        id = item.item_id,
                        name = item.name.replace(',', ""),
                        cat = item.category,
                        cur = b.currency
                    );
                    n += 1;
                }
            }
        }
    }
    (out, n)
}

fn record(dir: &std::path::Path, body: &str) {
    let meta = serde_json::json!({
        "request": {"method": "GET", "url": FILE_URL, "headers": {}},
        "response": {"status": 200, "headers": {"content-type": "text/csv"}},
        "recordedAt": "2026-11-20T06:00:00Z"
    });
    std::fs::write(dir.join("bench.meta.json"), meta.to_string()).expect("meta");
    std::fs::write(dir.join("bench.body.csv"), body).expect("body");
}

pub async fn measure(wrk: Option<&http_load::Wrk>) -> Figures {
    let (csv, observations) = feed_csv();
    let recordings = tempfile::tempdir().expect("tempdir");
    record(recordings.path(), &csv);
    let csv_mb = csv.len() as f64 / 1e6;
    drop(csv);
    let server = FixtureServer::start_dirs(&[recordings.path().to_path_buf()]).await.expect("fixture server");
    let config = UpstreamConfig {
        consumer_prices_feed: Some((FILE_URL.into(), None)),
        ..UpstreamConfig::replay(&sitrep_tests::fixtures())
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let lake = Lake::open(dir.path().join("lake").to_str().expect("path")).expect("lake");
    let runner = Runner::new(lake.clone(), SourceEnv::replay(server, config, RetryPolicy::default()).expect("env"));
    let t = Instant::now();
    let report = runner.run(&[DatasetId::CONSUMER_PRICES]).await.expect("run");
    let ingest_ms = t.elapsed().as_secs_f64() * 1e3;
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    // Serving starts when every version is loaded: the serving file with its derived indices is built.
    let t = Instant::now();
    let (app, ceilings) = crate::serve_with_ceiling(dir, lake).await;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;

    // Uncached: the first request of each distinct (market, basket) pair, one at a time.
    let mut cold = Vec::new();
    for b in basket::all() {
        for basket in ["", b.slug.as_str()] {
            let path = format!("{OVERVIEW}?market_code={}&basket_slug={basket}", b.market_code);
            let t = Instant::now();
            let r = app.get(&path).send().await.expect("request");
            assert_eq!(r.status(), 200);
            let body: serde_json::Value = r.json().await.expect("json");
            cold.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(body["upstreamUnavailable"], false, "{path}");
        }
    }
    cold.sort_by(f64::total_cmp);
    let warm_path = format!("{OVERVIEW}?market_code=ae");
    let body = crate::ok_body(&app, &warm_path).await;
    let _ = ceilings[7].set(body);
    let warm = match wrk {
        Some(w) => {
            let ceiling = (format!("{}{}", app.base, ceiling_path(7)), http_load::Wrk::repeated_anonymous());
            let warm = (format!("{}{warm_path}", app.base), http_load::Wrk::repeated(&app.key));
            let (ceiling, warm) = w.paired((&ceiling.0, &ceiling.1), (&warm.0, &warm.1)).await;
            Some((warm, ceiling))
        }
        None => None,
    };
    Figures {
        observations,
        csv_mb,
        ingest_ms,
        load_ms,
        warm,
        uncached_p50_ms: percentile(&cold, 0.5),
        uncached_p99_ms: percentile(&cold, 0.99),
    }
}

pub fn print(f: &Figures) {
    let opt = crate::fmt_opt;
    println!(
        "\nConsumer prices: {} observations ({:.0} MB of CSV) through the real connector, then the version's load\n",
        f.observations, f.csv_mb
    );
    println!("| feed ingest ms (fetch, validate, Parquet, commit) | load ms (serving file + derived indices) | total ÷ goal (10 s) |");
    println!("|---:|---:|---:|");
    println!("| {:.0} | {:.0} | {:.2} |", f.ingest_ms, f.load_ms, (f.ingest_ms + f.load_ms) / 10_000.0);
    println!("\nGetConsumerPriceOverview over HTTP: warm (wrk, concurrency 32) beside a ceiling of the same body, and uncached one at a time (16 distinct requests)\n");
    println!("| warm req/s | warm p99 ms | ceiling req/s | ÷ ceiling | warm server CPU µs/answer | ceiling's | CPU ÷ ceiling's (goal ≤ 1.15) | uncached p50 ms | uncached p99 ms |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let warm = f.warm.as_ref();
    let [cpu, ceiling_cpu, cpu_ratio] = http_load::cpu_cells(warm.map(|w| &w.0), warm.map(|w| &w.1));
    println!(
        "| {} | {} | {} | {} | {cpu} | {ceiling_cpu} | {cpu_ratio} | {:.2} | {:.2} |",
        opt(warm.map(|w| w.0.rps), 0),
        opt(warm.map(|w| w.0.p99_ms), 2),
        opt(warm.map(|w| w.1.rps), 0),
        opt(warm.map(|w| w.0.rps / w.1.rps), 2),
        f.uncached_p50_ms,
        f.uncached_p99_ms
    );
}
