//! SIGKILL an ingest process mid-run, then serve and ingest normally.

use std::{process::Command, time::Duration};

use sitrep_ingest::Lake;
use sitrep_tests::{built_binary, fixtures, TestApp};

fn ingest(lake: &str) -> Command {
    let mut c = Command::new(built_binary("sitrep-ingest"));
    c.stdout(std::process::Stdio::null());
    c.args(["--lake", lake, "run"])
        .env("SITREP_FIXTURES", fixtures())
        .env("SITREP_MODE", "replay")
        .env("SITREP_LOG", "warn");
    c
}

#[tokio::test]
async fn sigkill_mid_run_leaves_a_servable_lake() {
    let dir = tempfile::tempdir().unwrap();
    // Kill runs into fresh lakes at growing delays until one is killed mid-write: its Parquet is
    // in the store, its commit is not. Every killed lake is at no generation or a complete one.
    let mut killed_mid_write = false;
    for (i, delay_ms) in (0..60u64).map(|i| (i, i * 8)) {
        let lake_url = dir.path().join(format!("killed-{i}")).to_str().unwrap().to_string();
        let mut child = ingest(&lake_url).spawn().unwrap();
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        let _ = child.kill(); // SIGKILL on Unix
        let status = child.wait().unwrap();
        let lake = Lake::open(&lake_url).unwrap();
        let generation = lake.latest_generation().await.unwrap();
        assert!(generation <= 1, "at most the run's own commit appeared");
        if generation == 1 {
            for f in lake.latest_commit().await.unwrap().datasets.values().flat_map(|e| &e.files) {
                lake.get_bytes(&f.path).await.expect("every referenced file is complete and present");
            }
        }
        if generation == 0 && sitrep_tests::orphans(&lake).await > 0 {
            killed_mid_write = true;
            // The same lake then takes a normal run: the orphans are ignored, the run commits.
            assert!(ingest(&lake_url).status().unwrap().success(), "a normal run after the kill");
            assert_eq!(lake.latest_generation().await.unwrap(), 1);
            let app = TestApp::serve(tempfile::tempdir().unwrap(), lake).await;
            let (status, body) = app.json("/api/conflict/v1/list-armed-events?start=0").await;
            assert_eq!(status, 200);
            assert_eq!(body["pagination"]["totalCount"], 444);
            break;
        }
        if status.success() {
            // The run finished before the kill; later delays only finish earlier, so give up.
            break;
        }
    }
    assert!(killed_mid_write, "no kill landed between the data files and the commit");
}
