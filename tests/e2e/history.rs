//! History (issue 31): the retention policy — every version of the last 48 hours, then the last
//! of each day for 90 days, always the newest three — kept exactly by the garbage collector and
//! listed by ListDatasetVersions.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};
use sitrep_ingest::lake::GcOptions;
use sitrep_lake::{Lake, Retention};
use sitrep_schemas::{Commit, DatasetId};
use sitrep_tests::{normal_lake, TestApp};

const VERSIONS: &str = "/api/history/v1/list-dataset-versions";

fn run_of(generation: u64) -> String {
    format!("01HISTORYRUN{generation:014}")
}

/// The normal lake rewritten as generations 1..=n, one per time in `times` (ascending), each
/// publishing a version of co2-monitoring from a run folder of its own (the other datasets stay
/// at generation 1's versions).
async fn lake_with_co2_history(dir: &tempfile::TempDir, times: &[DateTime<Utc>]) -> Lake {
    let lake = normal_lake(dir).await;
    let root = dir.path().join("lake");
    let first: Commit = lake.read_commit(1).await.unwrap().unwrap();
    let co2 = first.dataset(DatasetId::CO2_MONITORING).unwrap().clone();
    for (i, at) in times.iter().enumerate() {
        let generation = i as u64 + 1;
        let run = run_of(generation);
        let mut entry = co2.clone();
        entry.version = Some(generation);
        entry.content_hash = Some(format!("content-{generation}"));
        for file in &mut entry.files {
            let path = format!("data/{run}/co2-monitoring/{}", file.path.rsplit('/').next().unwrap());
            std::fs::create_dir_all(root.join(&path).parent().unwrap()).unwrap();
            std::fs::copy(root.join(&file.path), root.join(&path)).unwrap();
            (file.path, file.run_id) = (path, run.clone());
        }
        let mut commit = first.clone();
        (commit.generation, commit.parent, commit.committed_at) =
            (generation, (generation > 1).then(|| generation - 1), *at);
        commit.run_id = run;
        commit.datasets.insert("co2-monitoring".into(), entry);
        std::fs::write(root.join(Commit::key(generation)), serde_json::to_vec(&commit).unwrap()).unwrap();
    }
    lake
}

#[tokio::test]
async fn gc_keeps_exactly_the_retained_versions_and_list_dataset_versions_names_them() {
    let now = Utc::now();
    let at = |days: i64, hours: i64| now - Duration::days(days) + Duration::hours(hours);
    // Generations 1..=9. Kept: 2 (current when the 90 days began), 4 (the last of its day; 3 was
    // superseded that day), 5 (the last of its day, current when the 48 hours began), 6..=9 (within
    // them). 1 is older than 90 days and superseded; 3 is superseded within its day.
    let times = [at(200, 0), at(100, 0), at(10, -3), at(10, -1), at(3, 0), at(1, -6), at(1, 0), at(0, -2), at(0, -1)];
    let dir = tempfile::tempdir().unwrap();
    let lake = lake_with_co2_history(&dir, &times).await;
    let kept = [9u64, 8, 7, 6, 5, 4, 2];

    let options = GcOptions { keep: 1, grace: Duration::zero(), retention: Retention::default(), dry_run: false };
    let report = lake.gc(&options, |_, _| {}).await.unwrap();
    let mut deleted = report.runs_deleted.clone();
    deleted.sort();
    assert_eq!(deleted, vec![run_of(1), run_of(3)], "exactly the versions the policy drops");
    for g in kept {
        let commit = lake.read_commit(g).await.unwrap().unwrap();
        for f in &commit.dataset(DatasetId::CO2_MONITORING).unwrap().files {
            lake.get_bytes(&f.path).await.unwrap_or_else(|e| panic!("version {g}'s {} survives: {e}", f.path));
        }
    }
    assert_eq!(lake.generations().await.unwrap().len(), 9, "commits are the audit log: never deleted");

    // An analyst's views as of a past time: each dataset at its newest retained version then.
    let retention = Retention::default();
    let views = |commit: &Commit| sitrep_ingest::lake::views_sql(&lake, commit);
    let ten_days_ago = lake.commit_as_of(at(10, 0), &retention, now).await.unwrap();
    assert_eq!(ten_days_ago.generation, 4);
    assert!(views(&ten_days_ago).contains(&format!("data/{}/co2-monitoring/", run_of(4))));
    let long_ago = lake.commit_as_of(at(150, 0), &retention, now).await.unwrap();
    assert_eq!(
        (long_ago.generation, long_ago.dataset(DatasetId::CO2_MONITORING).unwrap().version),
        (1, None),
        "co2's retained versions start later; armed-events' one version is from generation 1"
    );
    let before = lake.commit_as_of(at(300, 0), &retention, now).await.unwrap_err().to_string();
    assert!(before.contains(&format!("before the oldest retained version ({})", times[0].to_rfc3339())), "{before}");

    let app = TestApp::serve(dir, lake).await;
    let r = app.get(&format!("{VERSIONS}?dataset=co2-monitoring")).send().await.unwrap();
    assert_eq!((r.status().as_u16(), &r.headers()["x-snapshot-generation"]), (200, &"9".parse().unwrap()));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["dataset"], "co2-monitoring");
    let versions = body["versions"].as_array().unwrap();
    let listed: Vec<u64> = versions.iter().map(|v| v["version"].as_u64().unwrap()).collect();
    assert_eq!(listed, kept);
    for v in versions {
        let g = v["version"].as_u64().unwrap();
        assert_eq!(v["publishedAt"], times[g as usize - 1].timestamp_millis(), "{v}");
        assert_eq!(v["contentHash"], format!("content-{g}"));
        assert_eq!((&v["mode"], &v["current"]), (&json!("replay"), &json!(g == 9)));
        assert!(v["rows"].as_u64().unwrap() > 0);
    }
    // A dataset published once has that one version.
    let (_, body) = app.json(&format!("{VERSIONS}?dataset=armed-events")).await;
    assert_eq!(
        body["versions"].as_array().map(|v| v.iter().map(|x| x["version"].clone()).collect::<Vec<_>>()),
        Some(vec![json!(1)])
    );
}

#[tokio::test]
async fn list_dataset_versions_refuses_a_missing_or_unknown_dataset() {
    let app = TestApp::start().await;
    let (status, body) = app.json(VERSIONS).await;
    assert_eq!(
        (status, &body["violations"][0]),
        (400, &json!({"field": "dataset", "description": "value is required"}))
    );
    let (status, body) = app.json(&format!("{VERSIONS}?dataset=nope")).await;
    assert_eq!(status, 400);
    let description = body["violations"][0]["description"].as_str().unwrap();
    assert!(description.starts_with("value must be one of armed-events, violence-events,"), "{description}");
}
