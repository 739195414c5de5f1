//! Company monitoring under concurrent writers (SUPPLEMENT 4.5, 4.6) on a file-backed state store:
//! one company per clientRequestId, companyLimit never passed, changedAt never repeated in an
//! account, and a poller following nextCursor while impacts are written sees each exactly once.

use std::collections::BTreeSet;

use futures::future::join_all;
use serde_json::{json, Value};
use sitrep_cm::{ids::Kind, impacts::Impact, records::Direction, settings::CmSettings, store::CmStore};
use sitrep_platform::state::Plan;
use sitrep_tests::{cm_data::admitted, Options, TestApp};

const CREATE: &str = "/api/company-monitoring/v1/create-monitored-company";
const IMPORT: &str = "/api/company-monitoring/v1/import-monitored-company-batch";

async fn app(dir: &tempfile::TempDir, limit: i64) -> TestApp {
    let settings = CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some("http://127.0.0.1:9/search".into()),
        company_limits: [0, 0, limit],
        ..CmSettings::default()
    };
    // Enough writes in a window for the test's bursts.
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("cm-write=1000,cm-import=1000").unwrap();
    TestApp::start_with(Options {
        company_monitoring: settings,
        state_url: Some(sitrep_tests::fresh_state_url(Some(dir.path())).await),
        rate_limits: limits,
        ..Default::default()
    })
    .await
}

async fn business_key(app: &TestApp) -> (String, String) {
    let account =
        app.state.store.create_account(&format!("cm-{}", Kind::Claim.new_id()), Plan::Business).await.unwrap();
    let scopes = ["mcp", "company_monitoring:read", "company_monitoring:write"];
    (account.id.clone(), app.state.store.create_key(&account.id, "cm", "di", &scopes, false).await.unwrap().secret)
}

async fn post(app: &TestApp, key: &str, path: &str, body: Value) -> (u16, Value) {
    let r = app.http.post(format!("{}{path}", app.base)).header("X-Service-Key", key).json(&body).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

fn store(app: &TestApp) -> CmStore {
    sitrep_api::context(&app.state).company_monitoring.store.clone()
}

#[tokio::test]
async fn thirty_two_creates_with_one_client_request_id_make_one_company() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(&dir, 500).await;
    let (account, key) = business_key(&app).await;
    let body = json!({"clientRequestId": "same", "company": {"name": "Acme", "domicileCountry": "US", "domains": ["acme.example"]}});
    let answers = join_all((0..32).map(|_| post(&app, &key, CREATE, body.clone()))).await;
    let ids: BTreeSet<String> = answers
        .iter()
        .map(|(status, body)| {
            assert_eq!(*status, 200, "{body}");
            body["company"]["companyId"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(ids.len(), 1);
    assert_eq!(store(&app).company_count(&account).await.unwrap(), 1);
    assert_eq!(store(&app).generation(&account).await.unwrap(), 1, "one create bumped the generation");
}

#[tokio::test]
async fn concurrent_creates_and_imports_never_pass_the_company_limit() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(&dir, 10).await;
    let (account, key) = business_key(&app).await;
    let creates = (0..12).map(|i| {
        post(&app, &key, CREATE, json!({"clientRequestId": format!("c{i}"), "company": {"name": format!("Create {i}"), "domicileCountry": "US"}}))
    });
    let imports = (0..2).map(|b| {
        let rows: Vec<Value> = (0..8)
            .map(|i| json!({"ordinal": i, "company": {"name": format!("Import {b}-{i}"), "domicileCountry": "GB"}}))
            .collect();
        post(
            &app,
            &key,
            IMPORT,
            json!({"contractVersion": "cm-import-v1", "clientImportId": format!("b{b}"), "rows": rows}),
        )
    });
    let (created, imported) = tokio::join!(join_all(creates), join_all(imports));
    let made = created.iter().filter(|(s, _)| *s == 200).count()
        + imported.iter().map(|(_, b)| b["createdCount"].as_i64().unwrap() as usize).sum::<usize>();
    let refused = created.iter().filter(|(s, b)| *s == 422 && b["code"] == "COMPANY_LIMIT_REACHED").count()
        + imported.iter().map(|(_, b)| b["rejectedCount"].as_i64().unwrap() as usize).sum::<usize>();
    assert_eq!((made, refused), (10, 18), "12 creates and 16 rows for 10 places");
    assert_eq!(store(&app).company_count(&account).await.unwrap(), 10);
}

#[tokio::test]
async fn concurrent_writers_never_share_a_changed_at_and_a_poller_sees_each_impact_once() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(&dir, 500).await;
    let (account, key) = business_key(&app).await;
    let (_, company) = post(&app, &key, CREATE, json!({"clientRequestId": "acme", "company": {"name": "Acme", "domicileCountry": "US", "domains": ["acme.example"]}})).await;
    let company_id = company["company"]["companyId"].as_str().unwrap().to_string();
    let r = app
        .http
        .get(format!("{}/api/company-monitoring/v1/list-company-event-impacts", app.base))
        .header("X-Service-Key", &key)
        .send()
        .await
        .unwrap();
    let mut cursor = r.json::<Value>().await.unwrap()["snapshot"]["pollCursor"].as_str().unwrap().to_string();
    // Eight writers, twenty impacts each, in small batches, all at once.
    let writers = (0..8).map(|_| {
        let (store, account, company_id, clock) = (store(&app), account.clone(), company_id.clone(), &app.state.clock);
        async move {
            let mut written = Vec::new();
            for _ in 0..10 {
                let mut batch = vec![
                    admitted(&company_id, Direction::Negative, 0, clock.now_ms()),
                    admitted(&company_id, Direction::Negative, 0, clock.now_ms()),
                ];
                store.save_events(&account, &mut batch, clock.now_ms()).await.unwrap();
                written.extend(batch.into_iter().map(|w| w.impact.unwrap()));
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            written
        }
    });
    let poller = async {
        let mut seen: Vec<String> = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while seen.len() < 160 && std::time::Instant::now() < deadline {
            let r = app
                .http
                .get(format!(
                    "{}/api/company-monitoring/v1/list-company-event-changes?cursor={cursor}&page_size=7",
                    app.base
                ))
                .header("X-Service-Key", &key)
                .send()
                .await
                .unwrap();
            let page: Value = r.json().await.unwrap();
            assert_eq!(page["pollState"], "COMPANY_EVENT_POLL_STATE_CURRENT", "{page}");
            seen.extend(
                page["impacts"].as_array().unwrap().iter().map(|i| i["impactId"].as_str().unwrap().to_string()),
            );
            cursor = page["nextCursor"].as_str().unwrap().to_string();
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        seen
    };
    let (written, seen) = tokio::join!(join_all(writers), poller);
    let written: Vec<Impact> = written.into_iter().flatten().collect();
    let times: BTreeSet<i64> = written.iter().map(|i| i.changed_at).collect();
    assert_eq!(times.len(), 160, "every changedAt of the account is its own");
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!((seen.len(), unique.len()), (160, 160), "each impact once, none skipped");
}
