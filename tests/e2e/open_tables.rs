//! The open tables (issue 56): every publish writes, beside our commit, each dataset's Delta Lake
//! table version and Iceberg snapshot; the Delta log replayed, and each Iceberg snapshot's
//! manifests, name exactly the files our commit names for that version, a lost table version is
//! caught up at the next publish, and racing writers write one log. Engines we did not write read
//! these tables in the contract tests (tools/open_tables_check.py, tools/iceberg_tables_check.py).

use std::collections::BTreeSet;

use futures::TryStreamExt;
use object_store::ObjectStoreExt;
use serde_json::Value;
use sitrep_ingest::Lake;
use sitrep_lake::{delta_log_key, iceberg_metadata_key, layout};
use sitrep_schemas::DatasetId;
use sitrep_tests::{changing_runner, normal};

/// The table versions of `dataset`'s log, in order, each as its actions.
async fn log_of(lake: &Lake, dataset: DatasetId) -> Vec<Vec<Value>> {
    let mut versions = Vec::new();
    loop {
        let key = delta_log_key(dataset, versions.len() as u64);
        let Ok(got) = lake.store().get(&object_store::path::Path::from(key.as_str())).await else { break };
        let bytes = got.bytes().await.unwrap();
        let text = std::str::from_utf8(&bytes).unwrap();
        versions.push(text.lines().map(|l| serde_json::from_str(l).unwrap()).collect());
    }
    versions
}

/// Replays the log: after each table version, the files it holds (relative paths), and the
/// generation its commit names.
fn replayed(log: &[Vec<Value>]) -> Vec<(u64, BTreeSet<String>)> {
    let mut files = BTreeSet::new();
    let mut out = Vec::new();
    for version in log {
        let mut generation = None;
        for action in version {
            if let Some(add) = action.get("add") {
                assert!(files.insert(add["path"].as_str().unwrap().to_string()), "added twice: {add}");
            } else if let Some(remove) = action.get("remove") {
                assert!(files.remove(remove["path"].as_str().unwrap()), "removed what was not there: {remove}");
            } else if let Some(info) = action.get("commitInfo") {
                generation = info["sitrepGeneration"].as_u64();
            }
        }
        out.push((generation.expect("every version names its generation"), files.clone()));
    }
    out
}

/// What our commit log says the dataset's version `generation` holds, relative to the table root.
async fn committed(lake: &Lake, dataset: DatasetId, generation: u64) -> BTreeSet<String> {
    let commit = lake.read_commit(generation).await.unwrap().unwrap();
    let entry = commit.dataset(dataset).unwrap();
    assert_eq!(entry.version, Some(generation));
    entry.files.iter().map(|f| layout::in_table(dataset, &f.path).expect("in the table folder").to_string()).collect()
}

/// Every dataset's published versions, by the commit log, oldest first.
async fn versions(lake: &Lake, dataset: DatasetId) -> Vec<u64> {
    let latest = lake.latest_commit().await.unwrap();
    let top = latest.dataset(dataset).and_then(|e| e.version);
    let history = lake.versions_from(dataset, top, chrono::DateTime::UNIX_EPOCH, &[]).await.unwrap();
    history.iter().rev().map(|v| v.version).collect()
}

async fn assert_tables_follow_the_commit_log(lake: &Lake) {
    for dataset in DatasetId::ALL {
        let log = log_of(lake, dataset).await;
        let expected = versions(lake, dataset).await;
        let replay = replayed(&log);
        assert_eq!(
            replay.iter().map(|(g, _)| *g).collect::<Vec<_>>(),
            expected,
            "{dataset}: one table version per version"
        );
        for (generation, files) in &replay {
            assert_eq!(files, &committed(lake, dataset, *generation).await, "{dataset} v{generation}");
        }
        if let Some(first) = log.first() {
            assert_eq!(first[1]["protocol"], serde_json::json!({"minReaderVersion": 1, "minWriterVersion": 2}));
            assert_eq!(first[2]["metaData"]["id"], sitrep_lake::delta_table_id(dataset).as_str());
        }
        assert_iceberg_table_follows_the_commit_log(lake, dataset, &expected).await;
    }
}

/// The Iceberg table's snapshots are `expected` (our versions, oldest first), each holding the
/// files our commit names for it, each published at its commit's time; metadata versions are
/// v1…vN without a gap, the hint names the last.
async fn assert_iceberg_table_follows_the_commit_log(lake: &Lake, dataset: DatasetId, expected: &[u64]) {
    let Some((n, metadata)) = lake.iceberg_head(dataset).await.unwrap() else {
        assert!(expected.is_empty(), "{dataset}: versions, no Iceberg table");
        return;
    };
    let ids: Vec<u64> = metadata.snapshots.iter().map(|s| s.snapshot_id as u64).collect();
    assert_eq!(ids, expected, "{dataset}: one snapshot per version");
    assert_eq!(metadata.current_snapshot_id as u64, *expected.last().unwrap());
    let log: Vec<i64> = metadata.snapshot_log.iter().map(|e| e.snapshot_id).collect();
    assert_eq!(log, metadata.snapshots.iter().map(|s| s.snapshot_id).collect::<Vec<_>>());
    for (i, snapshot) in metadata.snapshots.iter().enumerate() {
        let generation = snapshot.snapshot_id as u64;
        let files: BTreeSet<String> = lake
            .iceberg_snapshot_files(&metadata, snapshot.snapshot_id)
            .await
            .unwrap()
            .unwrap()
            .iter()
            .map(|k| layout::in_table(dataset, k).unwrap().to_string())
            .collect();
        assert_eq!(files, committed(lake, dataset, generation).await, "{dataset} snapshot {generation}");
        let commit = lake.read_commit(generation).await.unwrap().unwrap();
        assert_eq!(snapshot.timestamp_ms, commit.committed_at.timestamp_millis(), "{dataset} {generation}");
        assert!(i == 0 || snapshot.sequence_number == metadata.snapshots[i - 1].sequence_number + 1);
    }
    let hint = lake.get_bytes(&format!("{}metadata/version-hint.text", layout::table_root(dataset))).await.unwrap();
    assert_eq!(std::str::from_utf8(&hint).unwrap(), n.to_string(), "{dataset}");
}

#[tokio::test]
async fn every_publish_writes_each_datasets_delta_table_version_naming_its_files() {
    let lake = Lake::in_memory();
    let runner = changing_runner(lake.clone(), &normal()).await;
    // Five versions: gc below has two to drop (the newest three are always kept).
    for _ in 0..5 {
        runner.run(&DatasetId::ALL).await.unwrap();
    }
    assert_eq!(log_of(&lake, DatasetId::ARMED_EVENTS).await.len(), 5);
    assert_tables_follow_the_commit_log(&lake).await;
    // Versions after the first carry what stayed: a file in both is neither removed nor added.
    let log = log_of(&lake, DatasetId::ARMED_EVENTS).await;
    assert!(log[1].iter().any(|a| a.get("remove").is_some()) && log[1].iter().any(|a| a.get("add").is_some()));

    // gc deletes the run folders no retained version names, in the dataset folders too, and
    // expires the table versions naming them: a checkpoint at the oldest retained version's, the
    // log before it deleted.
    let logs_before = log_objects(&lake).await;
    let options = sitrep_lake::GcOptions {
        keep: 1,
        grace: chrono::Duration::zero(),
        retention: sitrep_lake::Retention::of(0, 0),
        dry_run: false,
    };
    let report = lake.gc(&options, |_, _| {}).await.unwrap();
    assert!(!report.runs_deleted.is_empty(), "the first runs' folders are no longer named");
    let table = layout::table_root(DatasetId::ARMED_EVENTS);
    let expected: BTreeSet<String> = logs_before
        .iter()
        .filter(|k| !k.starts_with(&table) || !(k.ends_with("00000.json") || k.ends_with("00001.json")))
        .cloned()
        .chain([
            format!("{table}_delta_log/00000000000000000002.checkpoint.parquet"),
            format!("{table}_delta_log/_last_checkpoint"),
        ])
        .collect();
    let armed = |keys: &BTreeSet<String>| {
        keys.iter().filter(|k| k.starts_with(&table) && k.contains("/_delta_log/")).cloned().collect::<Vec<_>>()
    };
    assert_eq!(armed(&log_objects(&lake).await), armed(&expected));
    assert_eq!(report.table_versions_expired, 2 * tables_with_versions(&lake, 5).await);
    // Iceberg: a metadata version without the two expired snapshots, the metadata before it and
    // the expired snapshots' manifests and lists deleted.
    assert_eq!(report.snapshots_expired, report.table_versions_expired);
    let (n, metadata) = lake.iceberg_head(DatasetId::ARMED_EVENTS).await.unwrap().unwrap();
    assert_eq!(n, 6, "five snapshots, then the expiry");
    let kept: Vec<u64> = metadata.snapshots.iter().map(|s| s.snapshot_id as u64).collect();
    assert_eq!(kept, versions(&lake, DatasetId::ARMED_EVENTS).await[2..]);
    let metadata_dir = format!("{table}metadata/");
    let metadata_objects: Vec<String> =
        table_objects(&lake).await.into_iter().filter(|k| k.starts_with(&metadata_dir)).collect();
    let expected_metadata: BTreeSet<String> = metadata
        .snapshots
        .iter()
        .flat_map(|s| {
            let list = s.manifest_list.rsplit('/').next().unwrap().to_string();
            let id = s.snapshot_id;
            [list, format!("{id:020}-m0-")]
        })
        .chain([format!("v{n}.metadata.json"), "version-hint.text".into()])
        .collect();
    assert_eq!(metadata_objects.len(), expected_metadata.len(), "{metadata_objects:?}");
    for name in &expected_metadata {
        assert!(metadata_objects.iter().any(|k| k.rsplit('/').next().unwrap().starts_with(name.as_str())), "{name}");
    }
    let armed_versions = versions(&lake, DatasetId::ARMED_EVENTS).await;
    assert_iceberg_table_follows_the_commit_log(&lake, DatasetId::ARMED_EVENTS, &armed_versions[2..]).await;
    let hint = lake.get_bytes(&format!("{table}_delta_log/_last_checkpoint")).await.unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&hint).unwrap()["version"], 2);
    let latest = lake.latest_commit().await.unwrap();
    for f in latest.datasets.values().flat_map(|e| &e.files) {
        lake.get_bytes(&f.path).await.expect("the current files survive gc");
    }
}

/// Tables of `versions` versions.
async fn tables_with_versions(lake: &Lake, versions: u64) -> usize {
    let mut n = 0;
    for dataset in DatasetId::ALL {
        n += usize::from(lake.delta_head(dataset).await.unwrap().is_some_and(|(head, _)| head + 1 == versions));
    }
    n
}

/// Every object of every table's log.
async fn log_objects(lake: &Lake) -> BTreeSet<String> {
    table_objects(lake).await.into_iter().filter(|p| p.contains("/_delta_log/")).collect()
}

/// Every object of both tables' logs.
async fn table_objects(lake: &Lake) -> BTreeSet<String> {
    let objects: Vec<_> = lake.store().list(Some(&"data".into())).try_collect().await.unwrap();
    objects
        .iter()
        .map(|o| o.location.to_string())
        .filter(|p| p.contains("/_delta_log/") || p.contains("/metadata/"))
        .collect()
}

/// As writers that died between our commits and their tables leave the lake: `tables.json` names
/// a generation before the last two (here: none).
async fn forget_tables_written(lake: &Lake) {
    lake.store().delete(&"tables.json".into()).await.unwrap();
}

/// Publishes that change one dataset write only its tables (`tables.json` says the others are
/// up to date); a publish after one that died before its tables checks them all.
#[tokio::test]
async fn a_publish_writes_the_tables_it_changed_and_all_after_one_that_died() {
    let lake = Lake::in_memory();
    let runner = changing_runner(lake.clone(), &normal()).await;
    runner.run(&DatasetId::ALL).await.unwrap();
    let marker = || async { serde_json::from_slice::<Value>(&lake.get_bytes("tables.json").await.unwrap()).unwrap() };
    assert_eq!(marker().await["generation"], lake.latest_commit().await.unwrap().generation);
    // Violence events' tables lost with no trace: a publish of armed events alone leaves them.
    let violence = DatasetId::VIOLENCE_EVENTS;
    let violence_tables: Vec<String> =
        table_objects(&lake).await.into_iter().filter(|k| k.starts_with(&layout::table_root(violence))).collect();
    for key in &violence_tables {
        lake.store().delete(&key.as_str().into()).await.unwrap();
    }
    runner.run(&[DatasetId::ARMED_EVENTS]).await.unwrap();
    assert!(lake.delta_head(violence).await.unwrap().is_none(), "not looked at");
    assert_eq!(lake.delta_head(DatasetId::ARMED_EVENTS).await.unwrap().map(|(n, _)| n), Some(1));
    // After a publish that died before its tables, the next checks every table.
    forget_tables_written(&lake).await;
    runner.run(&[DatasetId::ARMED_EVENTS]).await.unwrap();
    assert!(lake.delta_head(violence).await.unwrap().is_some() && lake.iceberg_head(violence).await.unwrap().is_some());
    assert_tables_follow_the_commit_log(&lake).await;
}

/// A publish whose table version was lost (the writer died after our commit) is caught up by the
/// next publish, in order; writers racing over one commit write one log, the same bytes.
#[tokio::test]
async fn a_lost_table_version_is_caught_up_and_racing_writers_write_one_log() {
    let lake = Lake::in_memory();
    let runner = changing_runner(lake.clone(), &normal()).await;
    runner.run(&DatasetId::ALL).await.unwrap();
    runner.run(&DatasetId::ALL).await.unwrap();
    let dataset = DatasetId::VIOLENCE_EVENTS;
    let lost = object_store::path::Path::from(delta_log_key(dataset, 1).as_str());
    let written = lake.store().get(&lost).await.unwrap().bytes().await.unwrap();
    lake.store().delete(&lost).await.unwrap();
    // Only armed events this time: the publish still brings every table up to the commit.
    // Iceberg: the newest metadata version lost (the hint still names it).
    let lost_metadata = object_store::path::Path::from(iceberg_metadata_key(dataset, 2).as_str());
    let written_metadata = lake.store().get(&lost_metadata).await.unwrap().bytes().await.unwrap();
    lake.store().delete(&lost_metadata).await.unwrap();
    // The writer died after our commit: nor did it record the tables as up to date.
    forget_tables_written(&lake).await;
    runner.run(&[DatasetId::ARMED_EVENTS]).await.unwrap();
    assert_eq!(lake.store().get(&lost).await.unwrap().bytes().await.unwrap(), written, "the same bytes");
    let caught_up = lake.store().get(&lost_metadata).await.unwrap().bytes().await.unwrap();
    assert_eq!(caught_up, written_metadata, "the same metadata bytes");
    assert_tables_follow_the_commit_log(&lake).await;

    // Eight writers over one commit whose tables are all gone: one linear log each.
    for object in table_objects(&lake).await {
        lake.store().delete(&object.as_str().into()).await.unwrap();
    }
    forget_tables_written(&lake).await;
    let commit = lake.latest_commit().await.unwrap();
    let writers = (0..8).map(|_| {
        let (lake, commit) = (lake.clone(), commit.clone());
        tokio::spawn(async move { lake.write_open_tables(&commit).await })
    });
    futures::future::join_all(writers).await.into_iter().for_each(|r| r.unwrap());
    assert_tables_follow_the_commit_log(&lake).await;
}

/// A lake written before the open tables (its files in `data/<run>/<dataset>/`) has no table
/// for such a dataset; `lake migrate` copies the current version's files into the dataset's
/// folder and publishes them as a version of the same rows, where both tables begin. It resumes a
/// crashed migration's run, leaves the older version's files where its commit names them, and a
/// second migration moves nothing.
#[tokio::test]
async fn a_lake_from_before_the_tables_is_migrated_into_them() {
    use sitrep_ingest::lake::{Outcome, Staged};
    let dataset = DatasetId::VIOLENCE_EVENTS;
    let source = Lake::in_memory();
    changing_runner(source.clone(), &normal()).await.run(&[dataset]).await.unwrap();
    let made = source.latest_commit().await.unwrap().dataset(dataset).unwrap().clone();
    // The same version as an older ingest laid it out.
    let lake = Lake::in_memory();
    let mut files = Vec::new();
    for (n, file) in made.files.iter().enumerate() {
        let path = format!("data/01OLDLAYOUTRUN/{dataset}/part-{n:05}.parquet");
        let bytes = source.get_bytes(&file.path).await.unwrap();
        lake.store().put(&path.as_str().into(), bytes.into()).await.unwrap();
        files.push(sitrep_schemas::FileEntry { path, run_id: "01OLDLAYOUTRUN".into(), ..file.clone() });
    }
    let fetched = Outcome::Fetched {
        partial_error: None,
        dataset,
        files: files.clone(),
        scope: sitrep_pipelines::Scope::All,
        fetched_at: chrono::Utc::now(),
        as_of: chrono::Utc::now(),
        upstream_version: None,
        keeps_as_of: false,
        mode: sitrep_schemas::DataMode::Replay,
        content_hash: None,
        content_at: None,
    };
    let staged = Staged {
        run_stats: Vec::new(),
        run_id: "01OLDLAYOUTRUN".into(),
        operation: "run".into(),
        outcomes: vec![fetched],
    };
    let old = lake.publish(&staged).await.unwrap().generation;
    assert!(lake.delta_head(dataset).await.unwrap().is_none(), "its files lie outside the table folder");
    assert!(lake.iceberg_head(dataset).await.unwrap().is_none());

    // A migration that crashed after recording its run.
    let begun = serde_json::json!({"run_id": "01MIGRATIONRUN"}).to_string();
    lake.store().put(&"staging/migrate.json".into(), begun.into_bytes().into()).await.unwrap();
    let report = lake.migrate().await.unwrap();
    assert_eq!(report.moved, vec![(dataset, files.len())]);
    let generation = report.generation.unwrap();
    let entry = lake.latest_commit().await.unwrap().dataset(dataset).unwrap().clone();
    assert_eq!(entry.version, Some(generation), "a version of its own");
    assert_eq!(entry.freshness, lake.read_commit(old).await.unwrap().unwrap().dataset(dataset).unwrap().freshness);
    for (moved, before) in entry.files.iter().zip(&files) {
        assert!(moved.path.starts_with(&format!("data/{dataset}/01MIGRATIONRUN/")), "{}", moved.path);
        assert_eq!((moved.sha256.as_str(), moved.rows), (before.sha256.as_str(), before.rows));
        assert_eq!(lake.get_bytes(&moved.path).await.unwrap(), lake.get_bytes(&before.path).await.unwrap());
    }
    assert_eq!(lake.delta_head(dataset).await.unwrap(), Some((0, generation)), "the Delta table begins there");
    let (_, metadata) = lake.iceberg_head(dataset).await.unwrap().unwrap();
    assert_eq!(metadata.snapshots.iter().map(|s| s.snapshot_id as u64).collect::<Vec<_>>(), vec![generation]);
    assert!(lake.get_bytes("staging/migrate.json").await.is_err(), "the checkpoint is removed");
    let again = lake.migrate().await.unwrap();
    assert!(again.moved.is_empty() && again.generation.is_none(), "{again:?}");
}
