//! The lake on S3-compatible storage (issue 29): the real `object_store` S3 client against
//! s3s-fs in process (tests/s3_server.rs). Create-only commits decided by the server's 412, a
//! lake ingested and served from S3, and a troubled S3 (500s, slowness): the last good generation
//! keeps serving, the commit is retried, and nothing half-written becomes visible.

use std::time::Duration;

use chrono::Utc;
use sitrep_ingest::lake::{Outcome, Staged};
use sitrep_schemas::DatasetId;
use sitrep_tests::{changing_runner, normal, replay_runner, s3_server::S3Server, TestApp};

const ARMED: &str = "/api/conflict/v1/list-armed-events?page_size=1";

async fn server() -> (tempfile::TempDir, S3Server) {
    let dir = tempfile::tempdir().unwrap();
    let s3 = S3Server::start(&dir.path().join("s3"), "lake").await.unwrap();
    (dir, s3)
}

/// Eight publishers race on S3: each gets its own generation, in one line of history, because
/// the server refuses (412) every create of a commit that exists.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_publishers_on_s3_each_get_their_own_generation() {
    let (_dir, s3) = server().await;
    let lake = s3.lake("lake", "race");
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let lake = lake.clone();
            tokio::spawn(async move {
                let staged = Staged {
                    run_stats: Vec::new(),
                    run_id: format!("S3RACE{i}"),
                    operation: "race".into(),
                    outcomes: vec![Outcome::Failed {
                        dataset: DatasetId::ALL[i % 4],
                        error: format!("run {i}"),
                        attempted_at: Utc::now(),
                    }],
                };
                lake.publish(&staged).await.unwrap().generation
            })
        })
        .collect();
    let mut generations: Vec<u64> = futures::future::join_all(tasks).await.into_iter().map(|r| r.unwrap()).collect();
    generations.sort();
    assert_eq!(generations, (1..=8).collect::<Vec<_>>());
    for g in 2..=8 {
        assert_eq!(lake.read_commit(g).await.unwrap().unwrap().parent, Some(g - 1));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lake_on_s3_is_served_and_survives_a_failing_and_a_slow_s3() {
    let (dir, s3) = server().await;
    let lake = s3.lake("lake", "prod");
    replay_runner(lake.clone(), &normal()).await.run(&DatasetId::ALL).await.expect("an ingest onto S3");
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200);
    let served = app.snapshots.current().unwrap().number;
    // Analysts' views name the files where their tools read them: on S3.
    let views = sitrep_ingest::lake::views_sql(&lake, &lake.latest_commit().await.unwrap());
    assert!(views.contains("read_parquet(['s3://lake/prod/data/"), "{views}");

    // S3 fails every request: the run fails, nothing new is committed, the last good generation
    // keeps serving.
    let changing = changing_runner(lake.clone(), &normal()).await;
    s3.faults.fail_next(u32::MAX);
    assert!(changing.run(&[DatasetId::ARMED_EVENTS]).await.is_err(), "a run cannot publish onto a failing S3");
    s3.faults.fail_next(0);
    assert_eq!(lake.latest_generation().await.unwrap(), served, "no commit became visible");
    app.snapshots.refresh().await.unwrap();
    assert_eq!(app.snapshots.current().unwrap().number, served);
    assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200);

    // A few failures, then S3 answers: the client retries and the commit lands, whole.
    s3.faults.fail_next(2);
    let report = changing.run(&[DatasetId::ARMED_EVENTS]).await.expect("the run retries through two 500s");
    assert_eq!(report.commit.generation, served + 1);
    for f in &report.commit.dataset(DatasetId::ARMED_EVENTS).unwrap().files {
        lake.get_bytes(&f.path).await.expect("every file the commit names is there");
    }

    // A slow S3: the replica still answers from its local copies while it loads the new generation.
    s3.faults.delay(Duration::from_millis(200));
    let r = app.get(ARMED).send().await.unwrap();
    assert_eq!(r.status(), 200);
    app.snapshots.refresh().await.expect("a slow S3 still loads");
    s3.faults.delay(Duration::ZERO);
    assert_eq!(app.snapshots.current().unwrap().number, served + 1);
    assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200);
    drop(dir);
}

/// A server on an S3 lake of `prefix` serving its first generation, and a second generation
/// published after it (not loaded yet) with the path of its first armed-events file.
struct Republished {
    _dir: tempfile::TempDir,
    _s3: S3Server,
    lake: sitrep_ingest::Lake,
    changing: sitrep_ingest::runner::Runner,
    app: TestApp,
    first: u64,
    file: String,
}

async fn served_then_republished(prefix: &str) -> Republished {
    let (dir, s3) = server().await;
    let lake = s3.lake("lake", prefix);
    let changing = changing_runner(lake.clone(), &normal()).await;
    changing.run(&DatasetId::ALL).await.expect("the first generation");
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    let first = app.snapshots.current().unwrap().number;
    let report = changing.run(&[DatasetId::ARMED_EVENTS]).await.expect("a second generation");
    let file = report.commit.dataset(DatasetId::ARMED_EVENTS).unwrap().files[0].path.clone();
    Republished { _dir: dir, _s3: s3, lake, changing, app, first, file }
}

/// A replica that finds a file of the newest generation gone (collected under it) keeps serving
/// what it has, and moves on to the next generation once one is published.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_that_finds_a_file_gone_moves_to_a_newer_generation() {
    let Republished { lake, changing, app, first, file, .. } = &served_then_republished("gone").await;
    object_store::ObjectStoreExt::delete(lake.store().as_ref(), &sitrep_ingest::Lake::path(file))
        .await
        .expect("the file is collected");
    assert!(app.snapshots.refresh().await.is_err(), "a generation with a file gone cannot load");
    assert_eq!(app.snapshots.current().unwrap().number, *first);
    assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200, "the last loaded generation serves");

    let next = changing.run(&[DatasetId::ARMED_EVENTS]).await.expect("a third generation").commit.generation;
    app.snapshots.refresh().await.expect("the newer generation loads");
    assert_eq!(app.snapshots.current().unwrap().number, next);
    assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200);
}

/// A data file whose size is not the one its commit records (rewritten under the server) is
/// refused: the download is checked before it becomes the cached file, nothing half-written stays
/// in the cache, and the last loaded generation keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_another_size_than_its_commit_records_is_refused_and_nothing_of_it_is_cached() {
    use object_store::ObjectStoreExt;
    let Republished { lake, app, first, file, .. } = &served_then_republished("resized").await;
    let path = sitrep_ingest::Lake::path(file);
    let mut bytes = lake.store().get(&path).await.unwrap().bytes().await.unwrap().to_vec();
    bytes.extend_from_slice(b"tail");
    lake.store().put(&path, bytes.into()).await.expect("the file is rewritten");

    let refused = app.snapshots.refresh().await.expect_err("a file of another size cannot load");
    assert!(refused.to_string().contains("the commit says"), "{refused}");
    assert_eq!(app.snapshots.current().unwrap().number, *first);
    assert_eq!(app.get(ARMED).send().await.unwrap().status(), 200, "the last loaded generation serves");
    let cached = app._dir.path().join("cache/files").join(file);
    assert!(!cached.exists(), "the refused file is not cached");
    let leftovers: Vec<_> = std::fs::read_dir(cached.parent().unwrap())
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    assert!(leftovers.iter().all(|name| !name.contains("tmp-")), "no partial download left: {leftovers:?}");
}
