//! History (issue 31): the retention policy — every version of the last 48 hours, then the last
//! of each day for 90 days, always the newest three — kept exactly by the garbage collector and
//! listed by ListDatasetVersions; ListDatasetChanges checked against a diff of the Parquet files.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{json, Value};
use sitrep_ingest::lake::GcOptions;
use sitrep_lake::{Lake, Retention};
use sitrep_schemas::{Commit, DatasetId};
use sitrep_tests::{normal_lake, replay_runner, Options, TestApp};

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
    // An hour of the UTC day ten days ago (3 and 4 must share a day whatever the time of day now).
    let ten_days_ago_at =
        |hour: u32| (now - Duration::days(10)).date_naive().and_hms_opt(hour, 0, 0).expect("an hour").and_utc();
    // Generations 1..=9. Kept: 2 (current when the 90 days began), 4 (the last of its day; 3 was
    // superseded that day), 5 (the last of its day, current when the 48 hours began), 6..=9 (within
    // them). 1 is older than 90 days and superseded; 3 is superseded within its day.
    let times = [
        at(200, 0),
        at(100, 0),
        ten_days_ago_at(9),
        ten_days_ago_at(11),
        at(3, 0),
        at(1, -6),
        at(1, 0),
        at(0, -2),
        at(0, -1),
    ];
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
    let ten_days_ago = lake.commit_as_of(ten_days_ago_at(12), &retention, now).await.unwrap();
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
    // Issue 48: the status page pictures the same retained versions, a mark each on its time
    // axis, the current one highlighted, and says so in words.
    let page = app.get("/status").send().await.unwrap().text().await.unwrap();
    let picture = page
        .split("<svg class=\"history\" data-dataset=\"co2-monitoring\"")
        .nth(1)
        .and_then(|rest| rest.split("</svg>").next())
        .expect("co2-monitoring's history picture");
    let marked: Vec<u64> =
        picture.split("data-version=\"").skip(1).map(|m| m.split('"').next().unwrap().parse().unwrap()).collect();
    assert_eq!(marked, kept, "a mark for each retained version, as ListDatasetVersions lists them");
    assert!(picture.contains("data-version=\"9\" class=\"current\""), "the current version highlighted");
    assert_eq!(picture.matches("class=\"current\"").count(), 1);
    let words = format!(
        "co2-monitoring: {} retained versions since {}",
        kept.len(),
        times[*kept.last().unwrap() as usize - 1].format("%Y-%m-%d %H:%M UTC")
    );
    assert!(picture.contains(&words) && picture.contains("current version 9"), "its text equivalent: {picture}");
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

const CHANGES: &str = "/api/history/v1/list-dataset-changes";

/// A version's rows as the lake holds them, by id: every column's value as text.
async fn rows_by_id(lake: &Lake, entry: &sitrep_schemas::DatasetEntry) -> BTreeMap<String, BTreeMap<String, String>> {
    use arrow::{datatypes::DataType, util::display::array_value_to_string};
    let mut rows = BTreeMap::new();
    for file in &entry.files {
        let bytes = lake.get_bytes(&file.path).await.unwrap();
        for batch in ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap().build().unwrap() {
            let batch = batch.unwrap();
            for i in 0..batch.num_rows() {
                let mut row = BTreeMap::new();
                for (f, column) in batch.schema().fields().iter().zip(batch.columns()) {
                    // Instants as their epoch milliseconds (the display of a named zone needs chrono-tz).
                    let column = match f.data_type() {
                        DataType::Timestamp(..) => arrow::compute::cast(column, &DataType::Int64).unwrap(),
                        _ => column.clone(),
                    };
                    let text =
                        if column.is_null(i) { "null".into() } else { array_value_to_string(&column, i).unwrap() };
                    row.insert(f.name().clone(), text);
                }
                rows.insert(row["id"].clone(), row);
            }
        }
    }
    rows
}

#[tokio::test]
async fn list_dataset_changes_matches_a_reference_diff_of_the_two_versions_parquet() {
    // Started early: version 1 is read from its Parquet files and version 2 from its built file,
    // so the row hashes of both ways must agree for unchanged rows to be unchanged.
    let app = TestApp::start_with(Options { start_early: true, ..Options::default() }).await;
    let early = app.snapshots.current().unwrap().dataset(DatasetId::VIOLENCE_EVENTS).unwrap().backing();
    assert_eq!(early, sitrep_platform::snapshot::Backing::Parquet);
    let between = Utc::now();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    // UCDP re-releases its October candidate: revised deaths, a withdrawn event, three new ones.
    let revised = [("ucdp", "normal"), ("ucdp", "revised")];
    replay_runner(app.lake.clone(), &revised).await.run(&[DatasetId::VIOLENCE_EVENTS]).await.unwrap();
    app.snapshots.refresh().await.unwrap();
    let entry = |g: u64| {
        let lake = app.lake.clone();
        async move { lake.read_commit(g).await.unwrap().unwrap().dataset(DatasetId::VIOLENCE_EVENTS).unwrap().clone() }
    };
    let (older, newer) = (rows_by_id(&app.lake, &entry(1).await).await, rows_by_id(&app.lake, &entry(2).await).await);
    // The reference, from the Parquet files alone: (change, id) → the columns that differ.
    let mut expected = BTreeMap::new();
    for (id, row) in &newer {
        match older.get(id) {
            None => expected.insert(("added".to_string(), id.clone()), vec![]),
            Some(old) => {
                let differ: Vec<String> = row.keys().filter(|c| row[*c] != old[*c]).cloned().collect();
                if differ.is_empty() {
                    continue;
                }
                expected.insert(("changed".to_string(), id.clone()), differ)
            }
        };
    }
    for id in older.keys().filter(|id| !newer.contains_key(*id)) {
        expected.insert(("removed".to_string(), id.clone()), vec![]);
    }
    let kinds = |kind: &str| expected.keys().filter(|(k, _)| k == kind).count();
    assert_eq!((kinds("added"), kinds("removed"), kinds("changed")), (3, 1, 2), "the scenario as written");

    // Every page of the answer, two rows at a time, through its cursors.
    let first = format!("{CHANGES}?dataset=violence-events&since={}&page_size=2", between.timestamp_millis());
    let (mut url, mut got, mut pages) = (first.clone(), BTreeMap::new(), 0);
    // Pages are a range read of the computed diff, kept out of the body cache (issue 45: one
    // client paging a large diff would fill it).
    let cached_before = app.state.cache.stats().2;
    loop {
        let r = app.get(&url).send().await.unwrap();
        assert_eq!((r.status().as_u16(), &r.headers()["x-snapshot-generation"]), (200, &"2".parse().unwrap()));
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            (&body["since"]["version"], &body["until"]["version"], &body["key"]),
            (&json!(1), &json!(2), &json!(["id"]))
        );
        assert_eq!(body["summary"], json!({"added": 3, "removed": 1, "changed": 2}));
        assert_eq!(body["pagination"]["totalCount"], 6);
        for c in body["changes"].as_array().unwrap() {
            let id = c["key"]["id"].as_str().unwrap().to_string();
            let columns: Vec<String> =
                c["changedColumns"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
            // The rows themselves, as the versions hold them.
            match c["change"].as_str().unwrap() {
                "added" => assert!(c.get("before").is_none() && c["after"]["id"] == id.as_str()),
                "removed" => assert!(c.get("after").is_none() && c["before"]["id"] == id.as_str()),
                _ => {
                    let deaths = |side: &str, rows: &BTreeMap<String, BTreeMap<String, String>>| {
                        (c[side]["deaths_best"].to_string(), rows[&id]["deaths_best"].clone())
                    };
                    let (before, reference) = deaths("before", &older);
                    assert_eq!(before, reference);
                    let (after, reference) = deaths("after", &newer);
                    assert_eq!(after, reference);
                }
            }
            got.insert((c["change"].as_str().unwrap().to_string(), id), columns);
        }
        pages += 1;
        match body["pagination"]["nextCursor"].as_str().unwrap() {
            "" => break,
            next => url = format!("{first}&cursor={next}"),
        }
    }
    assert_eq!(app.state.cache.stats().2, cached_before, "diff pages in the body cache");
    assert_eq!(pages, 3);
    assert_eq!(got, expected);
    let ids: Vec<&String> = got.keys().map(|(_, id)| id).collect();
    assert!(ids.iter().all(|id| !id.is_empty()));

    // Since and until the same version: nothing changed. Until before since: refused. Since
    // before every retained version: refused with the oldest time.
    let (_, same) =
        app.json(&format!("{CHANGES}?dataset=violence-events&since={0}&until={0}", between.timestamp_millis())).await;
    assert_eq!((&same["summary"], &same["changes"]), (&json!({"added": 0, "removed": 0, "changed": 0}), &json!([])));
    let (status, body) = app.json(&format!("{CHANGES}?dataset=violence-events&since=2&until=1")).await;
    assert_eq!(status, 400);
    assert!(
        body["violations"]
            .as_array()
            .unwrap()
            .contains(&json!({"field": "since", "description": "since must be less than or equal to until"})),
        "{body}"
    );
    let (status, body) = app.json(&format!("{CHANGES}?dataset=violence-events&since=1000")).await;
    let oldest = app.lake.read_commit(1).await.unwrap().unwrap().committed_at;
    assert_eq!(
        (status, &body["violations"][0]),
        (
            400,
            &json!({"field": "since", "description": format!("since is before the oldest retained version ({})", oldest.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))})
        )
    );
    let (status, body) = app.json(&format!("{CHANGES}?dataset=violence-events")).await;
    assert_eq!((status, &body["violations"][0]), (400, &json!({"field": "since", "description": "value is required"})));
}

#[tokio::test]
async fn every_dataset_has_a_unique_row_key_and_a_changes_answer() {
    let app = TestApp::start().await;
    let generation = app.snapshots.current().unwrap();
    for (dataset, db) in &generation.datasets {
        let key = dataset.row_key().join(", ");
        let duplicated: i64 = db
            .query_table(move |conn, table| {
                let sql = format!("SELECT count(*) FROM (SELECT {key} FROM {table} GROUP BY ALL HAVING count(*) > 1)");
                conn.query_row(&sql, [], |r| r.get(0))
            })
            .await
            .unwrap();
        assert_eq!(duplicated, 0, "{dataset}: keys held by more than one row");
    }
    let between = Utc::now().timestamp_millis();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    sitrep_tests::changing_runner(app.lake.clone(), &sitrep_tests::normal()).await.run(&DatasetId::ALL).await.unwrap();
    app.snapshots.refresh().await.unwrap();
    for dataset in generation.datasets.keys() {
        let (status, body) = app.json(&format!("{CHANGES}?dataset={dataset}&since={between}&page_size=100")).await;
        assert_eq!(status, 200, "{dataset}: {body}");
        let summary = &body["summary"];
        let total = ["added", "removed", "changed"].iter().map(|k| summary[k].as_i64().unwrap()).sum::<i64>();
        assert!(total >= 1, "{dataset}: every dataset changed: {summary}");
        assert_eq!(body["pagination"]["totalCount"], total, "{dataset}");
        for c in body["changes"].as_array().unwrap() {
            let row = c.get("after").or(c.get("before")).unwrap();
            for k in dataset.row_key() {
                assert_eq!(c["key"][k], row[k], "{dataset}: the key is the row's");
            }
        }
    }
}

/// Heavy work per account (issue 55): a caller whose seconds for diffs and past versions are spent
/// is refused 429 with `Retry-After` before anything starts — a new pair's diff and an `as_of` load
/// alike — while a pair already computed is still read, and another account is not affected.
#[tokio::test]
async fn an_account_whose_heavy_work_time_is_spent_is_refused_and_no_other_is() {
    let app = TestApp::start_with(Options {
        work_time: (std::time::Duration::from_millis(1), 0.000_1),
        ..Options::default()
    })
    .await;
    // Versions 1..=4 of every dataset; 2..=4 are kept loaded, 1 is loaded on demand.
    let runner = sitrep_tests::changing_runner(app.lake.clone(), &sitrep_tests::normal()).await;
    for _ in 0..3 {
        runner.run(&DatasetId::ALL).await.unwrap();
        app.snapshots.refresh().await.unwrap();
    }
    let at = |g: u64| {
        let lake = app.lake.clone();
        async move { lake.read_commit(g).await.unwrap().unwrap().committed_at.timestamp_millis() }
    };
    let changes = |since: i64, until: i64| format!("{CHANGES}?dataset=armed-events&since={since}&until={until}");
    let (v1, v2, v3, v4) = (at(1).await, at(2).await, at(3).await, at(4).await);
    let (status, first) = app.json(&changes(v2, v3)).await;
    assert_eq!(status, 200, "{first}");
    // Its computation took more than the millisecond the account has.
    let r = app.get(&changes(v3, v4)).send().await.unwrap();
    let retry_after: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert_eq!((r.status().as_u16(), r.json::<Value>().await.unwrap()), (429, json!({"error": "Too many requests"})));
    assert!(retry_after >= 1, "{retry_after}");
    let as_of = format!("/api/conflict/v1/list-armed-events?start=0&page_size=5&as_of={v1}");
    assert_eq!(app.get(&as_of).send().await.unwrap().status().as_u16(), 429, "a past version's load too");
    let (status, again) = app.json(&changes(v2, v3)).await;
    assert_eq!((status, &again["summary"]), (200, &first["summary"]), "a kept diff costs no time");

    // Every other account has its own time: one computes the pair refused above, one loads the past version.
    for (name, path) in [("other", changes(v3, v4)), ("another", as_of)] {
        let account = app.store.create_account(name, sitrep_platform::state::Plan::Pro).await.unwrap();
        let key = app.store.create_key(&account.id, name, "di", &["mcp"], false).await.unwrap().secret;
        let r = app.http.get(format!("{}{path}", app.base)).header("x-service-key", &key).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200, "{name}: {path}");
    }
}
