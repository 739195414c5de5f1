//! Company monitoring (SUPPLEMENT Part 4) through the real server: the runtime gate and the
//! access states of GetCompanyMonitoringStatus (4.1).

use serde_json::{json, Value};
use sitrep_cm::{company_input::CompanyInput, settings::CmSettings, violations::Violations};
use sitrep_platform::state::Plan;
use sitrep_tests::{Options, TestApp};

const STATUS: &str = "/api/company-monitoring/v1/get-company-monitoring-status";

/// Settings that open the runtime gate (a cursor secret of 32 bytes and a search provider).
fn open_gate() -> CmSettings {
    CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some("http://127.0.0.1:9/search".into()),
        ..CmSettings::default()
    }
}

/// A key of a new account on `plan` with `scopes`.
async fn key(app: &TestApp, plan: Plan, scopes: &[&str]) -> (String, String) {
    let account = app.state.store.create_account(&format!("cm-{}", ulid_like()), plan).await.unwrap();
    let key = app.state.store.create_key(&account.id, "cm", "di", scopes, false).await.unwrap().secret;
    (account.id, key)
}

fn ulid_like() -> String {
    format!("{:x}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos())
}

async fn status(app: &TestApp, key: &str) -> (u16, Option<String>, Value) {
    let r = app.http.get(format!("{}{STATUS}", app.base)).header("X-Service-Key", key).send().await.unwrap();
    let cache = r.headers().get("cache-control").map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), cache, r.json().await.unwrap())
}

#[tokio::test]
async fn status_with_the_gate_closed_is_disabled_with_nothing_live() {
    let app = TestApp::start().await;
    let (_, business) = key(&app, Plan::Business, &["mcp", "company_monitoring:read"]).await;
    let (code, cache, body) = status(&app, &business).await;
    assert_eq!((code, cache.as_deref()), (200, Some("no-store")));
    assert_eq!(
        body,
        json!({"accessState": "COMPANY_MONITORING_ACCESS_STATE_DISABLED", "companyCount": 0, "companyLimit": 0,
            "snapshotGeneration": "0",
            "featureFlags": {"alerts": false, "publication": false, "restWrites": false, "searchProvider": false, "ui": false}})
    );
    let anonymous = app.http.get(format!("{}{STATUS}", app.base)).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
}

#[tokio::test]
async fn status_reports_each_access_state() {
    // Keys are asked of the store on every request, so a change of standing shows at once.
    let options =
        Options { company_monitoring: open_gate(), key_cache_ttl: std::time::Duration::ZERO, ..Default::default() };
    let app = TestApp::start_with(options).await;
    let flags = json!({"alerts": false, "publication": true, "restWrites": true, "searchProvider": true, "ui": false});
    // A plan without company monitoring: denied, with the deployment's flags. Any credential will do.
    let (code, _, body) = status(&app, &app.key).await;
    assert_eq!(code, 200);
    assert_eq!(
        body,
        json!({"accessState": "COMPANY_MONITORING_ACCESS_STATE_DENIED", "companyCount": 0, "companyLimit": 0,
            "snapshotGeneration": "0", "featureFlags": flags})
    );
    // An entitled account: live values, which move with its companies.
    let (account, business) = key(&app, Plan::Business, &["mcp"]).await;
    let (_, _, body) = status(&app, &business).await;
    assert_eq!(body["accessState"], "COMPANY_MONITORING_ACCESS_STATE_ENTITLED");
    assert_eq!((body["companyCount"].clone(), body["companyLimit"].clone()), (json!(0), json!(500)));
    assert_eq!(body["snapshotGeneration"], "0");
    let mut v = Violations::default();
    let input =
        CompanyInput::parse("company", Some(&json!({"name": "Acme", "domicileCountry": "US"})), &mut v).unwrap();
    let cm = &sitrep_api::context(&app.state).company_monitoring;
    cm.store.create(&account, "req-1", &input, 500, 1_000).await.unwrap();
    let (_, _, body) = status(&app, &business).await;
    assert_eq!((body["companyCount"].clone(), body["snapshotGeneration"].clone()), (json!(1), json!("1")));
    // Lapsed: live values, the lapsed state.
    app.state.store.set_account_status(&account, "lapsed").await.unwrap();
    let (_, _, body) = status(&app, &business).await;
    assert_eq!(body["accessState"], "COMPANY_MONITORING_ACCESS_STATE_ENTITLEMENT_LAPSED");
    assert_eq!(body["companyCount"], 1);
    // Suspended: the 403 of 1.10.
    app.state.store.set_account_status(&account, "suspended").await.unwrap();
    let (code, _, body) = status(&app, &business).await;
    assert_eq!((code, body), (403, json!({"error": "API access requires an active subscription"})));
}
