//! The peer: datasette serving the same ListArmedEvents rows from SQLite with an index on
//! (country, time), answering the same distinct page (one country, a time range, 100 rows newest
//! first, with the filtered count) under the same wrk settings.

use std::{
    io::Write,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use arrow::{
    array::{Array, AsArray},
    datatypes::{Float64Type, Int32Type, TimestampMillisecondType},
};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use sitrep_ingest::Lake;
use sitrep_schemas::DatasetId;

/// Loads a CSV into SQLite with the index the query needs (Python's own sqlite3 and csv modules).
const LOAD: &str = r#"
import csv, sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE armed_events (id TEXT PRIMARY KEY, country_iso2 TEXT, occurred_at INTEGER, event_type TEXT, country TEXT, admin1 TEXT, latitude REAL, longitude REAL, fatalities INTEGER, actors TEXT, source TEXT)")
with open(sys.argv[1], newline="") as f:
    db.executemany("INSERT INTO armed_events VALUES (?,?,?,?,?,?,?,?,?,?,?)", csv.reader(f))
db.execute("CREATE INDEX armed_events_country_time ON armed_events (country_iso2, occurred_at DESC)")
db.commit()
db.execute("ANALYZE")
db.close()
"#;

/// Writes the current armed-events rows of `lake` to a SQLite file; returns its path.
pub async fn sqlite_of(lake: &Lake, python: &Path, dir: &Path) -> PathBuf {
    let commit = lake.latest_commit().await.expect("commit");
    let entry = commit.dataset(DatasetId::ARMED_EVENTS).expect("armed-events");
    let csv_path = dir.join("armed_events.csv");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&csv_path).expect("csv"));
    for f in &entry.files {
        let bytes = lake.get_bytes(&f.path).await.expect("parquet");
        let reader = ParquetRecordBatchReaderBuilder::try_new(bytes).expect("reader").build().expect("batches");
        for batch in reader {
            let b = batch.expect("batch");
            let s = |name: &str| b.column_by_name(name).expect(name).as_string::<i32>().clone();
            let (id, cc, et, country, admin1, source) =
                (s("id"), s("country_iso2"), s("event_type"), s("country"), s("admin1"), s("source"));
            let at = b.column_by_name("occurred_at").expect("time").as_primitive::<TimestampMillisecondType>().clone();
            let lat = b.column_by_name("latitude").expect("lat").as_primitive::<Float64Type>().clone();
            let lon = b.column_by_name("longitude").expect("lon").as_primitive::<Float64Type>().clone();
            let fat = b.column_by_name("fatalities").expect("fat").as_primitive::<Int32Type>().clone();
            let actors = b.column_by_name("actors").expect("actors").as_list::<i32>().clone();
            let mut w = csv_writer(&mut out);
            for i in 0..b.num_rows() {
                let a = actors.value(i);
                let a = a.as_string::<i32>();
                let joined: Vec<&str> = (0..a.len()).map(|j| a.value(j)).collect();
                w.write_record([
                    id.value(i),
                    cc.value(i),
                    &at.value(i).to_string(),
                    et.value(i),
                    country.value(i),
                    admin1.value(i),
                    &lat.value(i).to_string(),
                    &lon.value(i).to_string(),
                    &fat.value(i).to_string(),
                    &joined.join("; "),
                    source.value(i),
                ])
                .expect("row");
            }
            w.flush().expect("flush");
        }
    }
    out.flush().expect("flush");
    drop(out);
    let db = dir.join("bench.db");
    let status =
        std::process::Command::new(python).args(["-c", LOAD]).arg(&csv_path).arg(&db).status().expect("python");
    assert!(status.success(), "loading SQLite failed");
    let _ = std::fs::remove_file(&csv_path);
    db
}

fn csv_writer<W: Write>(w: W) -> csv::Writer<W> {
    csv::WriterBuilder::new().has_headers(false).from_writer(w)
}

/// A running datasette over `db` on a free loopback port.
pub struct Datasette {
    child: std::process::Child,
    pub base: String,
}

impl Drop for Datasette {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn serve(datasette: &Path, db: &Path) -> Option<Datasette> {
    let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
    let child = std::process::Command::new(datasette)
        .arg("serve")
        .arg("-i")
        .arg(db)
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(["--setting", "sql_time_limit_ms", "10000", "--setting", "default_page_size", "100"])
        // Facet suggestions are extra queries per page that our API does not make.
        .args(["--setting", "suggest_facets", "off"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let base = format!("http://127.0.0.1:{port}");
    let server = Datasette { child, base };
    let http = reqwest::Client::new();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if http.get(format!("{}/-/versions.json", server.base)).send().await.is_ok_and(|r| r.status() == 200) {
            return Some(server);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}
