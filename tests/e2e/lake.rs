//! The lake protocol: racing publishers, crashes between data and commit, refusal of bad files, gc.

use std::sync::Arc;

use bytes::Bytes;
use chrono::Utc;
use object_store::{memory::InMemory, ObjectStore};
use sitrep_ingest::{
    lake::{GcOptions, Outcome, Staged},
    writer::write_dataset,
    Lake,
};
use sitrep_pipelines::Scope;
use sitrep_schemas::{DatasetId, FileEntry};
use sitrep_tests::{changing_runner, normal, replay_runner};

fn failed(dataset: DatasetId, run: &str) -> Staged {
    Staged {
        run_stats: Vec::new(),
        run_id: run.into(),
        operation: "test".into(),
        outcomes: vec![Outcome::Failed { dataset, error: format!("test: {run}"), attempted_at: Utc::now() }],
    }
}

#[tokio::test]
async fn racing_publishers_lose_nothing() {
    let lake = Lake::from_store(Arc::new(InMemory::new()), "memory://");
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let lake = lake.clone();
            tokio::spawn(async move {
                let d = DatasetId::ALL[i % 4];
                lake.publish(&failed(d, &format!("run{i}"))).await.unwrap().generation
            })
        })
        .collect();
    let mut gens: Vec<u64> = futures::future::join_all(tasks).await.into_iter().map(|r| r.unwrap()).collect();
    gens.sort();
    assert_eq!(gens, (1..=16).collect::<Vec<_>>(), "every publisher got its own generation");
    assert_eq!(lake.latest_generation().await.unwrap(), 16);
    // Each generation's parent is the one before: a linear history.
    for g in 2..=16 {
        assert_eq!(lake.read_commit(g).await.unwrap().unwrap().parent, Some(g - 1));
    }
}

#[tokio::test]
async fn crash_between_data_and_commit_leaves_the_last_generation_and_rerun_succeeds() {
    let lake = Lake::in_memory();
    let runner = replay_runner(lake.clone(), &normal()).await;
    runner.run(&DatasetId::ALL).await.unwrap();
    let before = lake.latest_commit().await.unwrap();
    // A run that wrote its Parquet and died before committing.
    let ctx_batch = {
        let fetched = sitrep_pipelines::registry::source_for(DatasetId::HUMANITARIAN)
            .unwrap()
            .fetch(&runner.env.context(), sitrep_pipelines::Window::Scheduled)
            .await
            .unwrap();
        fetched.batch
    };
    let mut n = 0;
    write_dataset(&lake, "01CRASHEDRUN0000000000000", DatasetId::HUMANITARIAN, &ctx_batch, Utc::now(), &mut n)
        .await
        .unwrap();
    assert_eq!(lake.latest_commit().await.unwrap(), before, "orphan files change nothing");
    let again = runner.run(&DatasetId::ALL).await.unwrap();
    assert_eq!(again.commit.generation, before.generation + 1);
    // gc removes the orphan folder, keeps everything referenced, never touches commits.
    let report = lake
        .gc(
            &GcOptions {
                keep: 1,
                grace: chrono::Duration::zero(),
                retention: sitrep_lake::Retention::of(0, 0),
                dry_run: false,
            },
            |_, _| {},
        )
        .await
        .unwrap();
    assert!(report.runs_deleted.contains(&"01CRASHEDRUN0000000000000".to_string()));
    assert_eq!(lake.generations().await.unwrap(), vec![1, 2]);
    let latest = lake.latest_commit().await.unwrap();
    for f in latest.datasets.values().flat_map(|e| &e.files) {
        lake.get_bytes(&f.path).await.expect("referenced files survive gc");
    }
}

fn staged_file(path: &str, rows: u64, bytes: u64, dataset: DatasetId) -> Staged {
    Staged {
        run_stats: Vec::new(),
        run_id: "bad".into(),
        operation: "test".into(),
        outcomes: vec![fetched_now(
            dataset,
            vec![FileEntry {
                path: path.into(),
                rows,
                bytes,
                sha256: String::new(),
                schema_fingerprint: dataset.fingerprint(),
                run_id: "bad".into(),
                fetched_at: Utc::now(),
                partition: None,
                bounds: Default::default(),
                extra: Default::default(),
            }],
        )],
    }
}

/// A live fetch of the whole dataset, fetched now.
fn fetched_now(dataset: DatasetId, files: Vec<FileEntry>) -> Outcome {
    Outcome::Fetched {
        partial_error: None,
        dataset,
        files,
        scope: Scope::All,
        fetched_at: Utc::now(),
        as_of: Utc::now(),
        upstream_version: None,
        keeps_as_of: false,
        mode: sitrep_schemas::DataMode::Live,
        content_hash: None,
        content_at: None,
    }
}

#[tokio::test]
async fn corrupt_or_mismatched_parquet_is_refused_before_commit() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let lake = Lake::from_store(store.clone(), "memory://");
    let garbage = Bytes::from_static(b"this is not parquet at all, PAR1");
    lake.put_data("data/bad/humanitarian/part-00000.parquet", garbage.clone()).await.unwrap();
    let err = lake
        .publish(&staged_file(
            "data/bad/humanitarian/part-00000.parquet",
            1,
            garbage.len() as u64,
            DatasetId::HUMANITARIAN,
        ))
        .await;
    assert!(err.unwrap_err().to_string().contains("refused before commit"));

    // A valid Parquet of another dataset's schema.
    let runner = replay_runner(Lake::in_memory(), &normal()).await;
    let iran = sitrep_pipelines::registry::source_for(DatasetId::IRAN_EVENTS)
        .unwrap()
        .fetch(&runner.env.context(), sitrep_pipelines::Window::Scheduled)
        .await
        .unwrap()
        .batch;
    let bytes = sitrep_ingest::writer::encode(&iran).unwrap();
    lake.put_data("data/bad/humanitarian/part-00001.parquet", bytes.clone()).await.unwrap();
    let err = lake
        .publish(&staged_file(
            "data/bad/humanitarian/part-00001.parquet",
            iran.num_rows() as u64,
            bytes.len() as u64,
            DatasetId::HUMANITARIAN,
        ))
        .await;
    assert!(err.unwrap_err().to_string().contains("schema does not match"));
    // Wrong row count.
    let err = lake
        .publish(&staged_file(
            "data/bad/humanitarian/part-00001.parquet",
            1,
            bytes.len() as u64,
            DatasetId::HUMANITARIAN,
        ))
        .await;
    assert!(err.unwrap_err().to_string().contains("rows"));
    assert_eq!(lake.latest_generation().await.unwrap(), 0, "nothing was committed");
    // Data files are never overwritten.
    assert!(lake.put_data("data/bad/humanitarian/part-00001.parquet", bytes).await.is_err());
}

#[tokio::test]
async fn views_and_rollback() {
    let dir = tempfile::tempdir().unwrap();
    let lake = Lake::open(dir.path().to_str().unwrap()).unwrap();
    replay_runner(lake.clone(), &normal()).await.run(&DatasetId::ALL).await.unwrap();
    changing_runner(lake.clone(), &normal()).await.run(&[DatasetId::HUMANITARIAN]).await.unwrap();
    let c2 = lake.latest_commit().await.unwrap();
    let sql = sitrep_ingest::lake::views_sql(&lake, &c2);
    assert_eq!(sql.matches("CREATE OR REPLACE VIEW").count(), DatasetId::ALL.len());
    assert!(sql.contains(&dir.path().canonicalize().unwrap().display().to_string()));
    let json = sitrep_ingest::lake::views_json(&lake, &c2);
    assert_eq!(json["tables"]["armed_events"].as_array().unwrap().len(), 4);
    let rolled = lake.rollback(1).await.unwrap();
    assert_eq!(rolled.generation, 3);
    let first = lake.read_commit(1).await.unwrap().unwrap();
    for (name, entry) in &rolled.datasets {
        let old = &first.datasets[name];
        assert_eq!(entry.files, old.files, "{name} serves generation 1's files");
        // Only what changed since gets a new version; history keeps generation 2's.
        let expected = if name == "humanitarian" { Some(3) } else { old.version };
        assert_eq!(entry.version, expected, "{name}");
    }
    let humanitarian = DatasetId::HUMANITARIAN;
    let history = lake.versions_from(humanitarian, Some(3), chrono::DateTime::UNIX_EPOCH, &[]).await.unwrap();
    assert_eq!(history.iter().map(|v| v.version).collect::<Vec<_>>(), [3, 2, 1]);
    // Rolling back to what is served changes nothing.
    let again = lake.rollback(3).await.unwrap();
    assert_eq!(again.dataset(humanitarian).unwrap().version, Some(3));
    let changes = sitrep_ingest::lake::describe_changes(Some(&c2), &rolled);
    assert!(changes.iter().any(|l| l.starts_with("humanitarian")));
}

#[tokio::test]
async fn the_serving_cache_keeps_only_the_files_of_retained_versions() {
    let app = sitrep_tests::TestApp::start().await;
    let runner = changing_runner(app.lake.clone(), &normal()).await;
    for _ in 0..4 {
        runner.run(&DatasetId::ALL).await.unwrap();
        app.snapshots.refresh().await.unwrap();
    }
    assert_eq!(app.snapshots.current().unwrap().number, 5);
    // Three versions per dataset stay queryable (generations 3, 4 and 5): exactly their files stay cached.
    let mut expected = std::collections::BTreeSet::new();
    for g in 3..=5 {
        for (id, entry) in app.lake.read_commit(g).await.unwrap().unwrap().datasets {
            assert_eq!(entry.version, Some(g), "every dataset was refreshed by every run: {id} {:?}", entry.freshness);
            expected.extend(entry.files.into_iter().map(|f| f.path));
        }
    }
    let root = app._dir.path().join("cache/files");
    let mut cached = std::collections::BTreeSet::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                cached.insert(p.strip_prefix(&root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    assert_eq!(cached, expected);
    let (status, _) = app.json("/api/conflict/v1/list-armed-events?country=UA").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_dataset_unknown_to_this_build_is_served_around_and_carried_forward_intact() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_tests::normal_lake(&dir).await;
    // A newer build published generation 2 with a dataset (and a field) this build does not know.
    let mut commit: serde_json::Value =
        serde_json::from_slice(&lake.get_bytes(&sitrep_schemas::Commit::key(1)).await.unwrap()).unwrap();
    let mut future = commit["datasets"]["humanitarian"].clone();
    future["futureField"] = serde_json::json!({"kept": true});
    future["files"][0]["path"] = serde_json::json!("data/FUTURE/future-dataset/part-00000.parquet");
    commit["datasets"]["future-dataset"] = future.clone();
    commit["generation"] = serde_json::json!(2);
    commit["parent"] = serde_json::json!(1);
    let opts = object_store::PutOptions { mode: object_store::PutMode::Create, ..Default::default() };
    lake.store()
        .put_opts(
            &object_store::path::Path::from(sitrep_schemas::Commit::key(2)),
            serde_json::to_vec(&commit).unwrap().into(),
            opts,
        )
        .await
        .unwrap();
    // The server serves generation 2 and ignores the unknown dataset.
    let app = sitrep_tests::TestApp::serve(dir, lake.clone()).await;
    assert_eq!(app.snapshots.current().unwrap().number, 2);
    let r = app.get("/api/conflict/v1/get-humanitarian-summary?country_code=SD").send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-snapshot-generation"], "2");
    // The next publish carries it forward untouched, unknown field included.
    replay_runner(lake.clone(), &normal()).await.run(&[DatasetId::HUMANITARIAN]).await.unwrap();
    let third: serde_json::Value =
        serde_json::from_slice(&lake.get_bytes(&sitrep_schemas::Commit::key(3)).await.unwrap()).unwrap();
    assert_eq!(third["datasets"]["future-dataset"], future);
    assert_eq!(third["generation"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_publishers_of_real_data_each_land_whole() {
    let lake = Lake::in_memory();
    let runner = replay_runner(lake.clone(), &normal()).await;
    let source = runner.source(DatasetId::HUMANITARIAN).unwrap().clone();
    let batch = source.fetch(&runner.env.context(), sitrep_pipelines::Window::Scheduled).await.unwrap().batch;
    assert!(batch.num_rows() > 8);
    // Eight publishers race, each with different real rows of the same dataset.
    let tasks: Vec<_> = (0..8usize)
        .map(|i| {
            let (lake, slice) = (lake.clone(), batch.slice(0, batch.num_rows() - i));
            tokio::spawn(async move {
                let run = format!("RACE{i}");
                let mut part = 0;
                let files =
                    write_dataset(&lake, &run, DatasetId::HUMANITARIAN, &slice, Utc::now(), &mut part).await.unwrap();
                let staged = Staged {
                    run_stats: Vec::new(),
                    run_id: run.clone(),
                    operation: "race".into(),
                    outcomes: vec![fetched_now(DatasetId::HUMANITARIAN, files.clone())],
                };
                (run, files, lake.publish(&staged).await.unwrap().generation)
            })
        })
        .collect();
    let mut results: Vec<_> = futures::future::join_all(tasks).await.into_iter().map(|r| r.unwrap()).collect();
    results.sort_by_key(|(_, _, g)| *g);
    assert_eq!(results.iter().map(|r| r.2).collect::<Vec<_>>(), (1..=8).collect::<Vec<_>>());
    for (run, files, g) in &results {
        let c = lake.read_commit(*g).await.unwrap().unwrap();
        assert_eq!(&c.run_id, run);
        let entry = c.dataset(DatasetId::HUMANITARIAN).unwrap();
        assert_eq!(&entry.files, files, "generation {g} is exactly its publisher's data");
        assert_eq!(entry.version, Some(*g));
        assert_eq!(entry.freshness.rows, files.iter().map(|f| f.rows).sum::<u64>());
        for f in files {
            lake.get_bytes(&f.path).await.expect("every referenced file is present");
        }
    }
}

/// Workers on several machines running one dataset stage the same content from the same parent:
/// the lake's create-only commit orders them, and those that lose find the content published and
/// keep its version (one version, whatever the interleaving).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_publishers_of_the_same_content_publish_one_version() {
    let lake = Lake::in_memory();
    let runner = replay_runner(lake.clone(), &normal()).await;
    let source = runner.source(DatasetId::HUMANITARIAN).unwrap().clone();
    let batch = source.fetch(&runner.env.context(), sitrep_pipelines::Window::Scheduled).await.unwrap().batch;
    let mut staged = Vec::new();
    for i in 0..8 {
        let run = format!("SAME{i}");
        let mut part = 0;
        let files = write_dataset(&lake, &run, DatasetId::HUMANITARIAN, &batch, Utc::now(), &mut part).await.unwrap();
        let mut outcome = fetched_now(DatasetId::HUMANITARIAN, files);
        if let Outcome::Fetched { content_hash, .. } = &mut outcome {
            *content_hash = Some("the-same-content".into());
        }
        staged.push(Staged { run_stats: Vec::new(), run_id: run, operation: "race".into(), outcomes: vec![outcome] });
    }
    let tasks: Vec<_> = staged
        .into_iter()
        .map(|s| {
            let lake = lake.clone();
            tokio::spawn(async move { lake.publish(&s).await.unwrap().generation })
        })
        .collect();
    let generations: Vec<u64> = futures::future::join_all(tasks).await.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(generations.len(), 8);
    let first = lake.read_commit(1).await.unwrap().unwrap();
    for g in 1..=8 {
        let entry = lake.read_commit(g).await.unwrap().unwrap().dataset(DatasetId::HUMANITARIAN).unwrap().clone();
        assert_eq!(entry.version, Some(1), "generation {g} keeps the first publisher's version");
        assert_eq!(entry.files, first.dataset(DatasetId::HUMANITARIAN).unwrap().files);
    }
}

#[tokio::test]
async fn lake_instants_and_dates_carry_parquet_time_types_for_analysts() {
    use parquet::{
        arrow::arrow_reader::ParquetRecordBatchReaderBuilder,
        basic::{LogicalType, TimeUnit},
    };
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_tests::normal_lake(&dir).await;
    let commit = lake.latest_commit().await.unwrap();
    let logical = |dataset: DatasetId, column: &str| {
        let lake = lake.clone();
        let path = commit.dataset(dataset).unwrap().files[0].path.clone();
        let column = column.to_string();
        async move {
            let bytes = lake.get_bytes(&path).await.unwrap();
            let reader = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
            let schema = reader.parquet_schema();
            let i = (0..schema.num_columns()).find(|i| schema.column(*i).name() == column).unwrap();
            schema.column(i).logical_type_ref().cloned()
        }
    };
    let utc_millis = Some(LogicalType::Timestamp { is_adjusted_to_u_t_c: true, unit: TimeUnit::MILLIS });
    assert_eq!(logical(DatasetId::ARMED_EVENTS, "occurred_at").await, utc_millis);
    assert_eq!(logical(DatasetId::VIOLENCE_EVENTS, "date_start").await, utc_millis);
    assert_eq!(logical(DatasetId::HUMANITARIAN, "updated_at").await, utc_millis);
    assert_eq!(logical(DatasetId::HUMANITARIAN, "reference_period").await, Some(LogicalType::Date));
    assert_eq!(logical(DatasetId::IRAN_EVENTS, "published_at").await, utc_millis);
}

/// A commit that names a file outside `data/` (`..`, an absolute path) is refused by every reader:
/// the server keeps the last good generation and writes nothing outside its cache.
#[tokio::test]
async fn a_commit_naming_a_path_outside_the_lake_is_refused() {
    for escape in ["data/../../../escaped.parquet", "/tmp/escaped.parquet", "data//x.parquet", "other/x.parquet"] {
        let dir = tempfile::tempdir().unwrap();
        let lake = sitrep_tests::normal_lake(&dir).await;
        let cache = dir.path().join("cache");
        let mut commit: serde_json::Value =
            serde_json::from_slice(&lake.get_bytes(&sitrep_schemas::Commit::key(1)).await.unwrap()).unwrap();
        let app = sitrep_tests::TestApp::serve(dir, lake.clone()).await;
        commit["datasets"]["humanitarian"]["files"][0]["path"] = serde_json::json!(escape);
        commit["generation"] = serde_json::json!(2);
        commit["parent"] = serde_json::json!(1);
        lake.store()
            .put_opts(
                &object_store::path::Path::from(sitrep_schemas::Commit::key(2)),
                serde_json::to_vec(&commit).unwrap().into(),
                object_store::PutOptions::default(),
            )
            .await
            .unwrap();
        let refused = lake.read_commit(2).await.unwrap_err().to_string();
        assert!(refused.contains("is not a data file of the lake"), "{escape}: {refused}");
        assert!(app.snapshots.refresh().await.is_err(), "{escape}");
        assert_eq!(app.snapshots.current().map(|g| g.number), Some(1), "{escape}: the last good generation serves");
        let r = app.get("/api/conflict/v1/get-humanitarian-summary?country_code=SD").send().await.unwrap();
        assert_eq!(r.headers()["x-snapshot-generation"], "1");
        assert!(!cache.join("escaped.parquet").exists() && !std::path::Path::new("/tmp/escaped.parquet").exists());
    }
}
