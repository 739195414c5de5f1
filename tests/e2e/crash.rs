//! SIGKILL an ingest process mid-run, then serve and ingest normally.

use std::{path::PathBuf, process::Command, time::Duration};

use sitrep_ingest::Lake;
use sitrep_tests::{fixtures, TestApp};

fn ingest_binary() -> PathBuf {
    // tests run from <target>/debug/deps/e2e-…; the binaries sit in <target>/debug (`make test` builds them first).
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(|p| p.parent()).unwrap().join("sitrep-ingest")
}

fn ingest(lake: &str) -> Command {
    let mut c = Command::new(ingest_binary());
    c.stdout(std::process::Stdio::null());
    c.args(["--lake", lake, "run"])
        .env("SITREP_FIXTURES", fixtures())
        .env("SITREP_MODE", "replay")
        .env("SITREP_LOG", "warn");
    c
}

#[tokio::test]
async fn sigkill_mid_run_leaves_a_servable_lake() {
    assert!(ingest_binary().exists(), "run `make test` (it builds the binaries first)");
    let dir = tempfile::tempdir().unwrap();
    let lake_dir = dir.path().join("lake");
    let lake_url = lake_dir.to_str().unwrap().to_string();
    assert!(ingest(&lake_url).status().unwrap().success(), "first ingest");
    let lake = Lake::open(&lake_url).unwrap();
    let mut last = lake.latest_generation().await.unwrap();
    assert_eq!(last, 1);
    for delay_ms in [0u64, 5, 20, 60, 150, 400] {
        let mut child = ingest(&lake_url).spawn().unwrap();
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
        let now = lake.latest_generation().await.unwrap();
        assert!(now == last || now == last + 1, "at most the run's own commit appeared");
        let commit = lake.latest_commit().await.unwrap();
        for f in commit.datasets.values().flat_map(|e| &e.files) {
            lake.get_bytes(&f.path).await.expect("every referenced file is complete and present");
        }
        last = now;
    }
    assert!(ingest(&lake_url).status().unwrap().success(), "a normal run after the kills");
    assert_eq!(lake.latest_generation().await.unwrap(), last + 1);
    let app = TestApp::serve(dir, lake).await;
    let (status, body) = app.json("/api/conflict/v1/list-armed-events?start=0").await;
    assert_eq!(status, 200);
    assert_eq!(body["pagination"]["totalCount"], 444);
}
