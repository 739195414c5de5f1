//! The Climate figures: ingest time of each Climate dataset from its recordings, the admin-0
//! point-in-polygon lookup rate on one core (uniform points, and points within 0.05° of a
//! boundary vertex), and each of the six operations warm over HTTP next to a ceiling serving a
//! body of the same size.

use std::time::Instant;

use sitrep_pipelines::admin0::Admin0;
use sitrep_schemas::DatasetId;
use sitrep_tests::{normal, replay_runner};

use crate::{ceiling_path, http_load, percentile};

const OPERATIONS: [(&str, &str); 6] = [
    ("ListClimateAnomalies", "/api/climate/v1/list-climate-anomalies"),
    ("ListClimateDisasters", "/api/climate/v1/list-climate-disasters"),
    ("GetCo2Monitoring", "/api/climate/v1/get-co2-monitoring"),
    ("GetOceanIceData", "/api/climate/v1/get-ocean-ice-data"),
    ("ListAirQualityData", "/api/climate/v1/list-air-quality-data"),
    ("ListClimateNews", "/api/climate/v1/list-climate-news"),
];

/// Datasets in an order where inputs come first (normals before anomalies).
const DATASETS: [DatasetId; 7] = [
    DatasetId::CLIMATE_NORMALS,
    DatasetId::CLIMATE_ANOMALIES,
    DatasetId::CLIMATE_DISASTERS,
    DatasetId::CO2_MONITORING,
    DatasetId::OCEAN_ICE,
    DatasetId::AIR_QUALITY,
    DatasetId::CLIMATE_NEWS,
];

pub struct Figures {
    /// (dataset, rows, median ms of a whole run: fetch from the local replay server, parse, Parquet, commit).
    pub ingest: Vec<(DatasetId, u64, f64)>,
    pub pip_uniform_per_s: f64,
    pub pip_border_per_s: f64,
    pub pip_build_ms: f64,
    pub http: Vec<Warm>,
}

/// One operation warm over HTTP: its name, body bytes, and (its run, its ceiling's run) under wrk.
pub type Warm = (&'static str, usize, Option<(http_load::Run, http_load::Run)>);

/// Median wall time of `runs` runs of one dataset, each into a fresh lake that already holds its inputs.
async fn ingest_ms(dataset: DatasetId, runs: usize) -> (u64, f64) {
    let mut times = Vec::new();
    let mut rows = 0;
    for _ in 0..runs {
        let dir = tempfile::tempdir().expect("tempdir");
        let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().expect("path")).expect("lake");
        let runner = replay_runner(lake, &normal()).await;
        if dataset == DatasetId::CLIMATE_ANOMALIES {
            runner.run(&[DatasetId::CLIMATE_NORMALS]).await.expect("normals");
        }
        let t = Instant::now();
        let report = runner.run(&[dataset]).await.expect("run");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(report.datasets.iter().all(|d| d.ok), "{dataset}: {:?}", report.datasets);
        rows = report.datasets.iter().find(|d| d.dataset == dataset).map(|d| d.rows).unwrap_or(0);
    }
    times.sort_by(f64::total_cmp);
    (rows, percentile(&times, 0.5))
}

/// SplitMix64: seeded, uniform enough for benchmark points, no dependency.
struct SplitMix(u64);

impl SplitMix {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / u64::MAX as f64
    }

    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// Lookups per second on this thread over `points`, with a checksum so none is optimised away.
fn lookups_per_s(admin0: &Admin0, points: &[(f64, f64)]) -> f64 {
    let t = Instant::now();
    let mut found = 0usize;
    for &(lon, lat) in points {
        found += usize::from(admin0.locate(lon, lat).is_some());
    }
    std::hint::black_box(found);
    points.len() as f64 / t.elapsed().as_secs_f64()
}

fn point_in_polygon() -> (f64, f64, f64) {
    let t = Instant::now();
    let admin0 = Admin0::parse(include_str!("../../data/reference/admin0.json")).expect("admin0");
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut rng = SplitMix(7);
    let uniform: Vec<(f64, f64)> =
        (0..2_000_000).map(|_| (rng.between(-180.0, 180.0), rng.between(-90.0, 90.0))).collect();
    let vertices: Vec<(f64, f64)> = admin0.vertices().collect();
    let border: Vec<(f64, f64)> = (0..2_000_000)
        .map(|_| {
            let (lon, lat) = vertices[(rng.unit() * (vertices.len() - 1) as f64) as usize];
            (lon + rng.between(-0.05, 0.05), lat + rng.between(-0.05, 0.05))
        })
        .collect();
    lookups_per_s(&admin0, &uniform[..100_000]); // warm-up
    (lookups_per_s(&admin0, &uniform), lookups_per_s(&admin0, &border), build_ms)
}

pub async fn measure(wrk: Option<&http_load::Wrk>) -> Figures {
    let mut ingest = Vec::new();
    for d in DATASETS {
        let (rows, ms) = ingest_ms(d, crate::scaled(5, 1)).await;
        ingest.push((d, rows, ms));
    }
    let (pip_uniform_per_s, pip_border_per_s, pip_build_ms) = point_in_polygon();
    let dir = tempfile::tempdir().expect("tempdir");
    let lake = sitrep_tests::normal_lake(&dir).await;
    let (app, ceilings) = crate::serve_with_ceiling(dir, lake).await;
    let mut http = Vec::new();
    for (slot, (name, path)) in OPERATIONS.iter().enumerate() {
        let r = app.get(path).send().await.expect("request");
        assert_eq!(r.status(), 200, "{path}");
        let body = r.bytes().await.expect("body");
        let size = body.len();
        let _ = ceilings[slot + 1].set(body);
        let runs = match wrk {
            Some(w) => {
                let ceiling = (format!("{}{}", app.base, ceiling_path(slot + 1)), http_load::Wrk::repeated_anonymous());
                let warm = (format!("{}{path}", app.base), http_load::Wrk::repeated(&app.key));
                let (ceiling, run) = w.paired((&ceiling.0, &ceiling.1), (&warm.0, &warm.1)).await;
                Some((run, ceiling))
            }
            None => None,
        };
        http.push((*name, size, runs));
    }
    Figures { ingest, pip_uniform_per_s, pip_border_per_s, pip_build_ms, http }
}

pub fn print(f: &Figures) {
    let opt = crate::fmt_opt;
    println!("\nClimate: ingest from the recordings (median of 5 runs into a fresh lake: replay server, parse, Parquet, commit)\n");
    println!("| dataset | rows | run ms |");
    println!("|---|---:|---:|");
    for (d, rows, ms) in &f.ingest {
        println!("| {d} | {rows} | {ms:.0} |");
    }
    println!("\nClimate: admin-0 point-in-polygon on one core (index built in {:.0} ms)\n", f.pip_build_ms);
    println!("| points | lookups/s | ÷ goal (1M/s) |");
    println!("|---|---:|---:|");
    println!("| uniform over the globe | {:.0} | {:.1} |", f.pip_uniform_per_s, f.pip_uniform_per_s / 1e6);
    println!("| within 0.05° of a boundary vertex | {:.0} | {:.1} |", f.pip_border_per_s, f.pip_border_per_s / 1e6);
    println!("\nClimate: each operation warm (cached) over HTTP next to a ceiling serving the same body (wrk, concurrency 32)\n");
    println!("| operation | body bytes | req/s | p99 ms | ceiling req/s | ÷ ceiling | server CPU µs/answer | ceiling's | CPU ÷ ceiling's (goal ≤ 1.15) |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, size, runs) in &f.http {
        let run = runs.as_ref().map(|r| &r.0);
        let ceiling = runs.as_ref().map(|r| &r.1);
        let [cpu, ceiling_cpu, cpu_ratio] = http_load::cpu_cells(run, ceiling);
        println!(
            "| {name} | {size} | {} | {} | {} | {} | {cpu} | {ceiling_cpu} | {cpu_ratio} |",
            opt(run.map(|r| r.rps), 0),
            opt(run.map(|r| r.p99_ms), 2),
            opt(ceiling.map(|c| c.rps), 0),
            opt(run.zip(ceiling).map(|(r, c)| r.rps / c.rps), 2),
        );
    }
}
