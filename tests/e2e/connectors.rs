//! Every connector against every recorded scenario, through the real runner and lake: good data
//! lands, bad upstream answers leave the last good version serving with the failure recorded.

use std::sync::Arc;

use sitrep_ingest::{backfill::backfill, Lake};
use sitrep_pipelines::{acled::AcledSource, time::YearMonth};
use sitrep_schemas::{DatasetId, DatasetStatus};
use sitrep_tests::{normal, replay_runner};

async fn seeded() -> Lake {
    let lake = Lake::in_memory();
    let report = replay_runner(lake.clone(), &normal()).await.run(&DatasetId::ALL).await.unwrap();
    assert!(report.datasets.iter().all(|d| d.ok), "{:?}", report.datasets);
    lake
}

#[tokio::test]
async fn normal_scenarios_fill_every_dataset() {
    let lake = seeded().await;
    let c = lake.latest_commit().await.unwrap();
    let rows = |d: DatasetId| c.dataset(d).unwrap().freshness.rows;
    assert_eq!(rows(DatasetId::ARMED_EVENTS), 444);
    assert_eq!(rows(DatasetId::HUMANITARIAN), 35);
    assert_eq!(rows(DatasetId::IRAN_EVENTS), 42);
    let v = c.dataset(DatasetId::VIOLENCE_EVENTS).unwrap();
    assert!(v.freshness.rows > 0 && v.freshness.rows <= 2000);
    assert_eq!(v.freshness.upstream_version.as_deref(), Some("26.1+26.0.10"));
    let armed = c.dataset(DatasetId::ARMED_EVENTS).unwrap();
    let parts: Vec<&str> = armed.files.iter().filter_map(|f| f.partition.as_deref()).collect();
    assert_eq!(parts, ["2026-08", "2026-09", "2026-10", "2026-11"]);
    assert_eq!(armed.freshness.as_of.unwrap().to_rfc3339(), "2026-11-20T06:00:00+00:00");
}

#[tokio::test]
async fn acled_pages_until_a_short_page() {
    let lake = Lake::in_memory();
    let runner = replay_runner(lake.clone(), &[("acled", "paged")]).await.with_source(Arc::new(AcledSource::new(
        sitrep_pipelines::acled::DEFAULT_BASE,
        100,
        20_000,
    )));
    let report = runner.run(&[DatasetId::ARMED_EVENTS]).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets[0].error);
    assert_eq!(report.datasets[0].rows, 237);
}

#[tokio::test]
async fn bad_upstream_answers_keep_the_last_good_version() {
    for (upstream, scenario, dataset) in [
        ("acled", "error-false", DatasetId::ARMED_EVENTS),
        ("acled", "truncated", DatasetId::ARMED_EVENTS),
        ("acled", "html", DatasetId::ARMED_EVENTS),
        ("acled", "rate-limited", DatasetId::ARMED_EVENTS),
        ("acled", "server-error", DatasetId::ARMED_EVENTS),
        ("ucdp", "server-error", DatasetId::VIOLENCE_EVENTS),
        ("ucdp", "truncated", DatasetId::VIOLENCE_EVENTS),
        ("ucdp", "html", DatasetId::VIOLENCE_EVENTS),
        ("ucdp", "rate-limited", DatasetId::VIOLENCE_EVENTS),
        ("hdx", "truncated", DatasetId::HUMANITARIAN),
    ] {
        let lake = seeded().await;
        let before = lake.latest_commit().await.unwrap();
        let report = replay_runner(lake.clone(), &[(upstream, scenario)]).await.run(&[dataset]).await.unwrap();
        assert!(!report.datasets[0].ok, "{upstream}/{scenario} should fail");
        let after = lake.latest_commit().await.unwrap();
        let (b, a) = (before.dataset(dataset).unwrap(), after.dataset(dataset).unwrap());
        assert_eq!(a.files, b.files, "{upstream}/{scenario}: data unchanged");
        assert_eq!(a.version, b.version);
        assert_eq!(a.freshness.status, DatasetStatus::Degraded);
        assert!(a.freshness.last_error.is_some(), "{upstream}/{scenario}: failure recorded");
    }
}

#[tokio::test]
async fn legitimately_empty_answers_publish_empty_versions_and_hdx_falls_back_to_csv() {
    let lake = seeded().await;
    let report = replay_runner(lake.clone(), &[("ucdp", "empty"), ("hdx", "fallback")])
        .await
        .run(&[DatasetId::VIOLENCE_EVENTS, DatasetId::HUMANITARIAN])
        .await
        .unwrap();
    assert!(report.datasets.iter().all(|d| d.ok), "{:?}", report.datasets);
    let c = lake.latest_commit().await.unwrap();
    assert_eq!(c.dataset(DatasetId::VIOLENCE_EVENTS).unwrap().freshness.rows, 0);
    let h = c.dataset(DatasetId::HUMANITARIAN).unwrap();
    assert_eq!(h.freshness.upstream_version.as_deref(), Some("ckan-csv"));
    assert_eq!(h.freshness.rows, 12);
}

#[tokio::test]
async fn missing_credentials_are_reported_not_faked() {
    let lake = Lake::in_memory();
    let server = sitrep_pipelines::replay::FixtureServer::start_dirs(&[]).await.unwrap();
    let env = sitrep_ingest::replay::SourceEnv::replay(server, Default::default(), Default::default()).unwrap();
    let report = sitrep_ingest::runner::Runner::new(lake.clone(), env).run(&DatasetId::ALL).await.unwrap();
    // Empty watch lists legitimately publish empty versions, and the SPR registry is our own file;
    // every other dataset needs an upstream.
    let no_upstream = [DatasetId::FLIGHT_PRICE_WATCH, DatasetId::AIRCRAFT_WATCH, DatasetId::SPR_REGISTRY];
    for d in &report.datasets {
        assert_eq!(d.ok, no_upstream.contains(&d.dataset), "{d:?}");
    }
    let c = lake.latest_commit().await.unwrap();
    let armed = c.dataset(DatasetId::ARMED_EVENTS).unwrap();
    assert_eq!(armed.freshness.status, DatasetStatus::Unavailable);
    assert!(armed.freshness.last_error.as_deref().unwrap().starts_with("missing_credentials"));
    assert!(c
        .dataset(DatasetId::IRAN_EVENTS)
        .unwrap()
        .freshness
        .last_error
        .as_deref()
        .unwrap()
        .starts_with("disabled"));
}

#[tokio::test]
async fn backfill_adds_months_in_one_commit_and_keeps_as_of() {
    let lake = seeded().await;
    let before = lake.latest_commit().await.unwrap();
    let runner = replay_runner(lake.clone(), &normal()).await;
    let mut seen = Vec::new();
    let from = YearMonth::parse("2026-05").unwrap();
    let to = YearMonth::parse("2026-07").unwrap();
    let commit = backfill(&runner, DatasetId::ARMED_EVENTS, from, to, |m, _| seen.push(m.to_string())).await.unwrap();
    assert_eq!(seen, ["2026-05", "2026-06", "2026-07"]);
    assert_eq!(commit.generation, before.generation + 1);
    let a = commit.dataset(DatasetId::ARMED_EVENTS).unwrap();
    assert_eq!(a.freshness.rows, 444 + 61 + 64 + 68);
    assert_eq!(a.freshness.as_of, before.dataset(DatasetId::ARMED_EVENTS).unwrap().freshness.as_of);
    assert_eq!(a.files.len(), 7);
    // Other datasets are carried forward untouched.
    assert_eq!(commit.dataset(DatasetId::HUMANITARIAN), before.dataset(DatasetId::HUMANITARIAN));
    // Datasets without date windows refuse backfill clearly.
    let err = backfill(&runner, DatasetId::HUMANITARIAN, from, to, |_, _| {}).await.unwrap_err();
    assert!(err.to_string().contains("does not support backfill"));
}

#[tokio::test]
async fn an_unchanged_fetch_publishes_no_new_version_and_keeps_cursors_and_etags() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_tests::normal_lake(&dir).await;
    let before = lake.read_commit(1).await.unwrap().unwrap();
    let app = sitrep_tests::TestApp::serve(dir, lake.clone()).await;
    let url = "/api/conflict/v1/list-armed-events?start=0&page_size=10";
    let first = app.get(url).send().await.unwrap();
    let etag = first.headers()["etag"].clone();
    let cursor =
        first.json::<serde_json::Value>().await.unwrap()["pagination"]["nextCursor"].as_str().unwrap().to_string();

    // The same recordings again: every dataset's content is unchanged.
    let report = replay_runner(lake.clone(), &normal()).await.run(&DatasetId::ALL).await.unwrap();
    assert!(report.datasets.iter().all(|d| d.ok && d.files == 0), "{:?}", report.datasets);
    let after = report.commit;
    assert_eq!(after.generation, 2);
    for id in DatasetId::ALL {
        let (b, a) = (before.dataset(id).unwrap(), after.dataset(id).unwrap());
        assert_eq!(a.version, Some(1), "{id}: no new version");
        assert_eq!(a.files, b.files, "{id}: no new files");
        assert_eq!(a.freshness.as_of, b.freshness.as_of, "{id}: the version's as-of stays");
        assert!(a.freshness.last_attempt_at > b.freshness.last_attempt_at, "{id}: the attempt is recorded");
        let run = a.last_run.as_ref().unwrap();
        assert_eq!((run.outcome, run.files, &run.run_id), (sitrep_schemas::RunOutcome::Unchanged, 0, &after.run_id));
    }
    let objects: Vec<_> = futures::TryStreamExt::try_collect::<Vec<_>>(lake.store().list(None)).await.unwrap();
    assert!(
        objects.iter().all(|o| !o.location.as_ref().contains(&after.run_id)),
        "the unchanged run wrote no data files"
    );
    // The server moves to generation 2 and answers the same bytes; the old cursor still pages.
    app.snapshots.refresh().await.unwrap();
    let again = app.get(url).send().await.unwrap();
    assert_eq!(again.headers()["x-snapshot-generation"], "2");
    assert_eq!(again.headers()["etag"], etag);
    let (status, next) = app.json(&format!("{url}&cursor={cursor}")).await;
    assert_eq!(status, 200, "{next}");
    // A changed upstream answer is a new version again.
    let changed =
        replay_runner(lake.clone(), &[("acled", "empty")]).await.run(&[DatasetId::ARMED_EVENTS]).await.unwrap();
    assert_eq!(changed.commit.dataset(DatasetId::ARMED_EVENTS).unwrap().version, Some(3));
}
