//! The energy-shock figures: the eight input datasets ingested from their recordings (the real
//! connectors, the replay server), then ComputeEnergyShockScenario over HTTP — warm under wrk beside
//! a ceiling of the same body, and uncached one request at a time over every distinct scenario of
//! the recorded countries, beside the same requests answered from the body cache.

use std::time::Instant;

use sitrep_schemas::DatasetId;
use sitrep_tests::{normal, replay_runner};

use crate::{ceiling_path, http_load, percentile};

const SHOCK: &str = "/api/intelligence/v1/compute-energy-shock";
const CHOKEPOINTS: [&str; 4] = ["hormuz_strait", "malacca_strait", "suez", "bab_el_mandeb"];
const MODES: [&str; 3] = ["oil", "gas", "both"];

pub struct Figures {
    /// (dataset, ingest ms) per input.
    pub ingest: Vec<(DatasetId, f64)>,
    pub warm: Option<(http_load::Run, http_load::Run)>,
    pub scenarios: usize,
    pub uncached_p50_ms: f64,
    pub uncached_p99_ms: f64,
    pub cached_p50_ms: f64,
}

/// One GET, answered 200, in ms (the body read whole).
async fn time_get(app: &sitrep_tests::TestApp, path: &str) -> f64 {
    let t = Instant::now();
    let r = app.get(path).send().await.expect("request");
    assert_eq!(r.status(), 200, "{path}");
    r.bytes().await.expect("body");
    t.elapsed().as_secs_f64() * 1e3
}

pub async fn measure(wrk: Option<&http_load::Wrk>) -> Figures {
    let dir = tempfile::tempdir().expect("tempdir");
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().expect("path")).expect("lake");
    let inputs: Vec<DatasetId> = sitrep_api::intelligence::COMPUTE_ENERGY_SHOCK.datasets.to_vec();
    let mut ingest = Vec::new();
    for d in &inputs {
        // jodi-oil first (Comtrade reads it), so each figure is its own dataset's.
        let t = Instant::now();
        let report = replay_runner(lake.clone(), &normal()).await.run(&[*d]).await.expect("run");
        ingest.push((*d, t.elapsed().as_secs_f64() * 1e3));
        assert!(report.datasets.iter().all(|r| r.ok), "{:?}", report.datasets);
    }
    let (app, ceilings) = crate::serve_with_ceiling(dir, lake).await;

    let countries: Vec<String> = {
        let body: serde_json::Value = serde_json::from_slice(
            &std::fs::read(sitrep_tests::fixtures().join("jodi-oil/expected.json")).expect("ref"),
        )
        .expect("json");
        body["normal"]["records"].as_object().expect("records").keys().cloned().collect()
    };
    let paths: Vec<String> = countries
        .iter()
        .flat_map(|c| CHOKEPOINTS.iter().flat_map(move |cp| MODES.iter().map(move |m| (c.clone(), *cp, *m))))
        .map(|(c, cp, m)| format!("{SHOCK}?country_code={c}&chokepoint_id={cp}&disruption_pct=50&fuel_mode={m}"))
        .collect();
    let (mut uncached, mut cached) = (Vec::new(), Vec::new());
    for p in &paths {
        uncached.push(time_get(&app, p).await);
    }
    for p in &paths {
        cached.push(time_get(&app, p).await);
    }
    uncached.sort_by(f64::total_cmp);
    cached.sort_by(f64::total_cmp);

    let warm_path = format!("{SHOCK}?country_code=JP&disruption_pct=50&fuel_mode=both");
    let body = crate::ok_body(&app, &warm_path).await;
    let _ = ceilings[0].set(body);
    let warm = match wrk {
        Some(w) => {
            let ceiling = (format!("{}{}", app.base, ceiling_path(0)), http_load::Wrk::repeated_anonymous());
            let warm = (format!("{}{warm_path}", app.base), http_load::Wrk::repeated(&app.key));
            let (ceiling, warm) = w.paired((&ceiling.0, &ceiling.1), (&warm.0, &warm.1)).await;
            Some((warm, ceiling))
        }
        None => None,
    };
    Figures {
        ingest,
        warm,
        scenarios: paths.len(),
        uncached_p50_ms: percentile(&uncached, 0.5),
        uncached_p99_ms: percentile(&uncached, 0.99),
        cached_p50_ms: percentile(&cached, 0.5),
    }
}

pub fn print(f: &Figures) {
    let opt = crate::fmt_opt;
    println!("\nEnergy shock: the eight inputs ingested from their recordings (ms per dataset)\n");
    println!("| {} |", f.ingest.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>().join(" | "));
    println!("|{}", "---:|".repeat(f.ingest.len()));
    println!("| {} |", f.ingest.iter().map(|(_, ms)| format!("{ms:.0}")).collect::<Vec<_>>().join(" | "));
    println!(
        "\nComputeEnergyShockScenario over HTTP: warm (wrk, concurrency 32) beside a ceiling of the same body; uncached one at a time over {} distinct scenarios (42 countries × 4 chokepoints × 3 modes), beside the same requests from the body cache\n",
        f.scenarios
    );
    println!("| warm req/s | warm p99 ms | ceiling req/s | ÷ ceiling | warm server CPU µs/answer | ceiling's | CPU ÷ ceiling's (goal ≤ 1.15) | uncached p50 ms | uncached p99 ms | cached p50 ms | uncached ÷ cached |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let warm = f.warm.as_ref();
    let [cpu, ceiling_cpu, cpu_ratio] = http_load::cpu_cells(warm.map(|w| &w.0), warm.map(|w| &w.1));
    println!(
        "| {} | {} | {} | {} | {cpu} | {ceiling_cpu} | {cpu_ratio} | {:.2} | {:.2} | {:.2} | {:.1} |",
        opt(warm.map(|w| w.0.rps), 0),
        opt(warm.map(|w| w.0.p99_ms), 2),
        opt(warm.map(|w| w.1.rps), 0),
        opt(warm.map(|w| w.0.rps / w.1.rps), 2),
        f.uncached_p50_ms,
        f.uncached_p99_ms,
        f.cached_p50_ms,
        f.uncached_p50_ms / f.cached_p50_ms
    );
}
