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

const CREATE: &str = "/api/company-monitoring/v1/create-monitored-company";

async fn post(app: &TestApp, key: &str, path: &str, body: &Value) -> (u16, Value) {
    let r = app.http.post(format!("{}{path}", app.base)).header("X-Service-Key", key).json(body).send().await.unwrap();
    let status = r.status().as_u16();
    if status == 200 {
        assert_eq!(r.headers().get("cache-control").map(|v| v.to_str().unwrap()), Some("no-store"), "{path}");
    }
    (status, r.json().await.unwrap())
}

const RW: &[&str] = &["mcp", "company_monitoring:read", "company_monitoring:write"];

#[tokio::test]
async fn create_checks_in_the_documented_order() {
    let closed = TestApp::start().await;
    let (_, writer) = key(&closed, Plan::Business, RW).await;
    let body = json!({"clientRequestId": "r1", "company": {"name": "Acme", "domicileCountry": "US"}});
    let anonymous = closed.http.post(format!("{}{CREATE}", closed.base)).json(&body).send().await.unwrap();
    assert_eq!(anonymous.status(), 401, "a credential first");
    let (code, refused) = post(&closed, &writer, CREATE, &body).await;
    assert_eq!(
        (code, refused),
        (
            503,
            json!({"error": "COMPANY_MONITORING_DISABLED", "code": "COMPANY_MONITORING_DISABLED", "message": "Company monitoring is not enabled on this deployment."})
        )
    );

    let no_writes =
        CmSettings { flags: sitrep_cm::settings::Flags { rest_writes: false, ..Default::default() }, ..open_gate() };
    let app = TestApp::start_with(Options { company_monitoring: no_writes, ..Default::default() }).await;
    // Scope before entitlement: a pro key without the write scope is refused for the scope.
    let (code, refused) = post(&app, &app.key, CREATE, &body).await;
    assert_eq!((code, refused["error"].clone()), (403, json!("insufficient_scope")));
    let (_, reader) = key(&app, Plan::Business, &["mcp", "company_monitoring:read"]).await;
    assert_eq!(
        post(&app, &reader, CREATE, &body).await.1["message"],
        "This operation requires scope company_monitoring:write."
    );
    let (_, pro_writer) = key(&app, Plan::Pro, RW).await;
    assert_eq!(
        post(&app, &pro_writer, CREATE, &body).await,
        (
            403,
            json!({"error": "ACCESS_DENIED", "code": "ACCESS_DENIED", "message": "company monitoring is not available for this account"})
        )
    );
    // Entitled, then the restWrites flag.
    let (_, writer) = key(&app, Plan::Business, RW).await;
    assert_eq!(
        post(&app, &writer, CREATE, &body).await,
        (
            403,
            json!({"error": "WRITES_DISABLED", "code": "WRITES_DISABLED", "message": "company monitoring REST writes are disabled"})
        )
    );
}

#[tokio::test]
async fn create_answers_replays_conflicts_violations_and_the_limit() {
    let settings = CmSettings { company_limits: [0, 0, 2], ..open_gate() };
    let app = TestApp::start_with(Options { company_monitoring: settings, ..Default::default() }).await;
    let (_, writer) = key(&app, Plan::Business, RW).await;
    let acme = json!({"name": " Acme  Widgets ", "domicileCountry": "us", "domains": ["WWW.Acme.example"],
        "aliases": ["Acme"], "customerReference": "crm-7"});
    let (code, created) = post(&app, &writer, CREATE, &json!({"clientRequestId": "r1", "company": acme})).await;
    assert_eq!(code, 200, "{created}");
    let company = &created["company"];
    let id = company["companyId"].as_str().unwrap();
    assert!(sitrep_cm::ids::Kind::Company.matches(id), "{id}");
    assert_eq!(company["name"], "Acme Widgets");
    assert_eq!(company["domicileCountry"], "DOMICILE_COUNTRY_US");
    assert_eq!(company["lifecycle"], "MONITORED_COMPANY_LIFECYCLE_ACTIVE");
    assert_eq!(company["coverage"], "COMPANY_COVERAGE_STATE_AWAITING_FIRST_SCAN");
    assert_eq!(company["observation"], "COMPANY_OBSERVATION_STATE_UNKNOWN");
    assert_eq!(company["canonicalUrl"], format!("{}/company-monitoring/companies/{id}", app.base));
    assert!(company["createdAt"].as_str().unwrap().ends_with('Z'));
    let claims: Vec<(String, String)> = company["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["type"].as_str().unwrap().to_string(), c["value"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        claims,
        [
            ("COMPANY_CLAIM_TYPE_ALIAS", "Acme Widgets"),
            ("COMPANY_CLAIM_TYPE_ALIAS", "Acme"),
            ("COMPANY_CLAIM_TYPE_DOMAIN", "acme.example"),
            ("COMPANY_CLAIM_TYPE_CUSTOMER_REFERENCE", "crm-7"),
        ]
        .map(|(t, v)| (t.to_string(), v.to_string()))
    );
    let claim = &company["claims"][0];
    assert_eq!(claim["provenance"], "customer");
    assert_eq!(claim["trustState"], "COMPANY_CLAIM_TRUST_STATE_DECLARED");
    assert_eq!(
        claim["allowedUses"],
        json!(["COMPANY_CLAIM_ALLOWED_USE_ATTRIBUTION", "COMPANY_CLAIM_ALLOWED_USE_DISCOVERY"])
    );
    assert_eq!(claim["expiresAt"], "");
    assert_eq!(company["claims"][3]["allowedUses"], json!(["COMPANY_CLAIM_ALLOWED_USE_DISCOVERY"]));
    // The same request (the same meaning, spelled differently) replays; another company conflicts.
    let again = json!({"clientRequestId": "r1", "company": {"name": "Acme Widgets", "domicileCountry": "DOMICILE_COUNTRY_US",
        "domains": ["acme.example"], "aliases": ["Acme"], "customerReference": "crm-7"}});
    let (code, replayed) = post(&app, &writer, CREATE, &again).await;
    assert_eq!((code, replayed["company"]["companyId"].as_str()), (200, Some(id)));
    let other = json!({"clientRequestId": "r1", "company": {"name": "Other", "domicileCountry": "GB"}});
    assert_eq!(
        post(&app, &writer, CREATE, &other).await,
        (
            409,
            json!({"error": "REPLAY_CONFLICT", "code": "REPLAY_CONFLICT", "message": "clientRequestId was already used with a different company"})
        )
    );
    // The customer reference of a live company answers for it.
    let same_reference = json!({"clientRequestId": "r2", "company": {"name": "Acme Again", "domicileCountry": "US", "customerReference": "crm-7"}});
    assert_eq!(post(&app, &writer, CREATE, &same_reference).await.1["company"]["companyId"].as_str(), Some(id));
    // Every violation at once, in field order.
    let bad = json!({"clientRequestId": "", "company": {"name": "x\u{200B}", "domicileCountry": 1, "domains": ["https://a.example/"]}});
    let (code, violations) = post(&app, &writer, CREATE, &bad).await;
    assert_eq!(code, 400);
    let fields: Vec<&str> =
        violations["violations"].as_array().unwrap().iter().map(|v| v["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["clientRequestId", "company.name", "company.domicileCountry", "company.domains[0]"]);
    assert_eq!(post(&app, &writer, CREATE, &json!([1])).await.1["violations"][0]["field"], "$request");
    // The limit (2 here): a second company fits, a third does not.
    let second = json!({"clientRequestId": "r3", "company": {"name": "Second", "domicileCountry": "GB"}});
    let (code, body) = post(&app, &writer, CREATE, &second).await;
    assert_eq!((code, body["company"]["coverage"].clone()), (200, json!("COMPANY_COVERAGE_STATE_IDENTITY_UNRESOLVED")));
    let third = json!({"clientRequestId": "r4", "company": {"name": "Third", "domicileCountry": "GB"}});
    assert_eq!(
        post(&app, &writer, CREATE, &third).await,
        (
            422,
            json!({"error": "COMPANY_LIMIT_REACHED", "code": "COMPANY_LIMIT_REACHED", "message": "company limit reached (2)"})
        )
    );
    let (_, _, status) = status(&app, &writer).await;
    assert_eq!((status["companyCount"].clone(), status["snapshotGeneration"].clone()), (json!(2), json!("2")));
}

const IMPORT: &str = "/api/company-monitoring/v1/import-monitored-company-batch";

#[tokio::test]
async fn import_decides_each_row_and_replays_by_ordinal() {
    let settings = CmSettings { company_limits: [0, 0, 3], ..open_gate() };
    let app = TestApp::start_with(Options { company_monitoring: settings, ..Default::default() }).await;
    let (_, writer) = key(&app, Plan::Business, RW).await;
    let batch = |rows: Value| json!({"contractVersion": "cm-import-v1", "clientImportId": "imp-1", "rows": rows});
    let rows = json!([
        {"ordinal": 1, "company": {"name": "Beta", "domicileCountry": "GB", "customerReference": "r-1"}},
        {"ordinal": 0, "company": {"name": "Alpha", "domicileCountry": "US", "customerReference": "r-1"}},
        {"ordinal": 2, "company": {"name": "Gamma", "domicileCountry": "US", "domains": ["gamma.example"]}},
    ]);
    let (code, body) = post(&app, &writer, IMPORT, &batch(rows.clone())).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        (body["createdCount"].clone(), body["rejectedCount"].clone(), body["replayedCount"].clone()),
        (json!(2), json!(0), json!(0))
    );
    let outcomes: Vec<(i64, &str, &str)> = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["ordinal"].as_i64().unwrap(), r["outcome"].as_str().unwrap(), r["reasonCode"].as_str().unwrap()))
        .collect();
    assert_eq!(
        outcomes,
        [
            (0, "COMPANY_IMPORT_ROW_OUTCOME_CREATED", ""),
            (1, "COMPANY_IMPORT_ROW_OUTCOME_NO_OP", "CUSTOMER_REFERENCE_EXISTS"),
            (2, "COMPANY_IMPORT_ROW_OUTCOME_CREATED", ""),
        ]
    );
    assert_eq!(body["results"][1]["companyId"], body["results"][0]["companyId"]);
    // A retry replays the created rows; a changed row conflicts; a new import meets the limit.
    let mut changed = rows.clone();
    changed[2]["company"]["name"] = json!("Gamma Changed");
    let (_, body) = post(&app, &writer, IMPORT, &batch(changed)).await;
    assert_eq!(
        (body["createdCount"].clone(), body["rejectedCount"].clone(), body["replayedCount"].clone()),
        (json!(0), json!(1), json!(1))
    );
    assert_eq!(body["results"][2]["reasonCode"], "REPLAY_CONFLICT");
    let more = json!({"contractVersion": "cm-import-v1", "clientImportId": "imp-2", "rows": [
        {"ordinal": 0, "company": {"name": "Delta", "domicileCountry": "US"}},
        {"ordinal": 1, "company": {"name": "Epsilon", "domicileCountry": "US"}}]});
    let (_, body) = post(&app, &writer, IMPORT, &more).await;
    assert_eq!(body["results"][0]["outcome"], "COMPANY_IMPORT_ROW_OUTCOME_CREATED");
    assert_eq!(body["results"][1]["reasonCode"], "COMPANY_LIMIT_REACHED");
    assert_eq!(body["rejectedCount"], 1);
}

#[tokio::test]
async fn an_invalid_row_fails_the_whole_import() {
    let app = TestApp::start_with(Options { company_monitoring: open_gate(), ..Default::default() }).await;
    let (_, writer) = key(&app, Plan::Business, RW).await;
    let fields = |body: &Value| -> Vec<(String, String)> {
        body["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| (v["field"].as_str().unwrap().to_string(), v["description"].as_str().unwrap().to_string()))
            .collect()
    };
    let bad = json!({"contractVersion": "cm-import-v2", "clientImportId": "imp", "rows": [
        {"ordinal": 0, "company": {"name": "Fine", "domicileCountry": "US"}},
        {"ordinal": 1.5, "company": {"name": "", "domicileCountry": "US", "domains": ["not a domain"]}}]});
    let (code, body) = post(&app, &writer, IMPORT, &bad).await;
    assert_eq!(code, 400);
    assert_eq!(
        fields(&body),
        [
            ("contractVersion", "string must equal cm-import-v1".to_string()),
            ("rows[1].ordinal", "value must be an integer".to_string()),
            ("rows[1].company.name", "value is required".to_string()),
            (
                "rows[1].company.domains[0]",
                format!("string must match pattern {}", sitrep_cm::company_input::DOMAIN_PATTERN)
            ),
        ]
        .map(|(f, d)| (f.to_string(), d))
    );
    let gap = json!({"contractVersion": "cm-import-v1", "clientImportId": "imp", "rows": [
        {"ordinal": 0, "company": {"name": "A", "domicileCountry": "US"}},
        {"ordinal": 2, "company": {"name": "B", "domicileCountry": "US"}}]});
    assert_eq!(
        fields(&post(&app, &writer, IMPORT, &gap).await.1),
        [("rows".to_string(), "batch ordinals must be contiguous from 0".to_string())]
    );
    let big = json!({"contractVersion": "cm-import-v1", "clientImportId": "imp", "rows": [
        {"ordinal": 0, "company": {"name": "A", "domicileCountry": "US", "identifiers": (0..20).map(|i| format!("{i:02}{}", "i".repeat(480))).collect::<Vec<_>>()}}]});
    assert_eq!(
        fields(&post(&app, &writer, IMPORT, &big).await.1),
        [("rows[0]".to_string(), "normalised row exceeds 8192 bytes".to_string())]
    );
    let empty = json!({"contractVersion": "cm-import-v1", "clientImportId": "imp", "rows": []});
    assert_eq!(
        fields(&post(&app, &writer, IMPORT, &empty).await.1),
        [("rows".to_string(), "array must contain at least 1 item(s)".to_string())]
    );
    // Nothing was imported by any of them.
    let (_, _, status) = status(&app, &writer).await;
    assert_eq!(status["companyCount"], 0);
    // The Idempotency-Key header is ignored: no idempotency headers come back.
    let one = json!({"contractVersion": "cm-import-v1", "clientImportId": "imp-k", "rows": [{"ordinal": 0, "company": {"name": "K", "domicileCountry": "US"}}]});
    let r = app
        .http
        .post(format!("{}{IMPORT}", app.base))
        .header("X-Service-Key", &writer)
        .header("Idempotency-Key", "k1")
        .json(&one)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("idempotent-replayed").is_none());
}

const LIST: &str = "/api/company-monitoring/v1/list-monitored-companies";

async fn get(app: &TestApp, key: &str, path_and_query: &str) -> (u16, Value) {
    let r = app.http.get(format!("{}{path_and_query}", app.base)).header("X-Service-Key", key).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

fn cursor_error(body: &Value) -> &str {
    assert_eq!(body["violations"][0]["field"], "cursor", "{body}");
    body["violations"][0]["description"].as_str().unwrap()
}

#[tokio::test]
async fn listing_pages_at_one_snapshot_and_binds_its_cursors() {
    let app = TestApp::start_with(Options { company_monitoring: open_gate(), ..Default::default() }).await;
    let (_, writer) = key(&app, Plan::Business, RW).await;
    for (i, name) in ["delta", "Alpha", "charlie", "bravo", "echo"].iter().enumerate() {
        let body = json!({"clientRequestId": format!("r{i}"), "company": {"name": name, "domicileCountry": "US", "domains": [format!("{name}.example")]}});
        assert_eq!(post(&app, &writer, CREATE, &body).await.0, 200);
    }
    let (code, first) = get(&app, &writer, &format!("{LIST}?page_size=2")).await;
    assert_eq!(code, 200, "{first}");
    let names = |page: &Value| -> Vec<String> {
        page["companies"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names(&first), ["Alpha", "bravo"]);
    assert_eq!(first["snapshot"]["snapshotGeneration"], "5");
    let next = first["nextCursor"].as_str().unwrap();
    assert!(next.starts_with("cmc1.") && first["snapshot"]["pollCursor"].as_str().unwrap().starts_with("cmc1."));
    let (_, second) = get(&app, &writer, &format!("{LIST}?page_size=2&cursor={next}")).await;
    assert_eq!(names(&second), ["charlie", "delta"]);
    assert_eq!(second["snapshot"]["snapshotAsOf"], first["snapshot"]["snapshotAsOf"], "one snapshot for every page");
    let (_, last) =
        get(&app, &writer, &format!("{LIST}?page_size=2&cursor={}", second["nextCursor"].as_str().unwrap())).await;
    assert_eq!((names(&last), last["nextCursor"].clone()), (vec!["echo".to_string()], json!("")));
    // The cursor is bound to the filters, the operation's account, and the snapshot generation.
    let (code, body) = get(&app, &writer, &format!("{LIST}?page_size=2&lifecycle=paused&cursor={next}")).await;
    assert_eq!((code, cursor_error(&body)), (400, "cursor is bound to different filters"));
    let (_, other) = key(&app, Plan::Business, RW).await;
    assert_eq!(
        cursor_error(&get(&app, &other, &format!("{LIST}?cursor={next}")).await.1),
        "cursor is bound to a different account"
    );
    assert_eq!(cursor_error(&get(&app, &writer, &format!("{LIST}?cursor=abc")).await.1), "unsupported cursor envelope");
    let body = json!({"clientRequestId": "r9", "company": {"name": "foxtrot", "domicileCountry": "US"}});
    post(&app, &writer, CREATE, &body).await;
    assert_eq!(
        cursor_error(&get(&app, &writer, &format!("{LIST}?page_size=2&cursor={next}")).await.1),
        "cursor snapshot generation requires a new snapshot"
    );
    // Filters: the short or the full form, exactly; anything else names the documented pattern.
    let (_, removed) = get(&app, &writer, &format!("{LIST}?lifecycle=MONITORED_COMPANY_LIFECYCLE_REMOVED")).await;
    assert_eq!(removed["companies"], json!([]));
    let (_, unresolved) = get(&app, &writer, &format!("{LIST}?coverage=identity_unresolved")).await;
    assert_eq!(names(&unresolved), ["foxtrot"]);
    let (code, body) = get(&app, &writer, &format!("{LIST}?lifecycle=active&lifecycle=Paused")).await;
    assert_eq!(code, 400);
    assert_eq!(
        body["violations"][0],
        json!({"field": "lifecycle[1]", "description": "string must match pattern ^(?:active|paused|removed|MONITORED_COMPANY_LIFECYCLE_(?:ACTIVE|PAUSED|REMOVED))$"})
    );
    // Reads need the read scope.
    let (_, write_only) = key(&app, Plan::Business, &["mcp", "company_monitoring:write"]).await;
    assert_eq!(get(&app, &write_only, LIST).await.0, 403);
}

const SET_STATE: &str = "/api/company-monitoring/v1/set-monitored-company-state";
const COVERAGE: &str = "/api/company-monitoring/v1/get-company-coverage";

#[tokio::test]
async fn lifecycle_moves_by_the_table_and_coverage_follows_the_company() {
    let app = TestApp::start_with(Options { company_monitoring: open_gate(), ..Default::default() }).await;
    let (_, writer) = key(&app, Plan::Business, RW).await;
    let body = json!({"clientRequestId": "r1", "company": {"name": "Acme", "domicileCountry": "US", "domains": ["acme.example"]}});
    let (_, created) = post(&app, &writer, CREATE, &body).await;
    let id = created["company"]["companyId"].as_str().unwrap().to_string();
    let set = |target: &str| json!({"companyId": id, "targetLifecycle": target});
    let (code, coverage) = get(&app, &writer, &format!("{COVERAGE}?company_id={id}")).await;
    assert_eq!(code, 200, "{coverage}");
    assert_eq!(coverage["companyId"], id.as_str());
    assert_eq!(coverage["coverage"]["state"], "COMPANY_COVERAGE_STATE_AWAITING_FIRST_SCAN");
    assert_eq!(coverage["coverage"]["observation"], "COMPANY_OBSERVATION_STATE_UNKNOWN");
    assert_eq!(
        (coverage["coverage"]["providers"].clone(), coverage["coverage"]["assessmentReady"].clone()),
        (json!([]), json!(false))
    );
    let (code, same) = post(&app, &writer, SET_STATE, &set("MONITORED_COMPANY_LIFECYCLE_ACTIVE")).await;
    assert_eq!((code, same["snapshotRequired"].clone()), (200, json!(false)), "{same}");
    let (_, paused) = post(&app, &writer, SET_STATE, &set("MONITORED_COMPANY_LIFECYCLE_PAUSED")).await;
    assert_eq!(
        (paused["company"]["lifecycle"].clone(), paused["snapshotRequired"].clone()),
        (json!("MONITORED_COMPANY_LIFECYCLE_PAUSED"), json!(true))
    );
    let (_, removed) = post(&app, &writer, SET_STATE, &set("MONITORED_COMPANY_LIFECYCLE_REMOVED")).await;
    assert_eq!((removed["company"]["claims"].clone(), removed["snapshotRequired"].clone()), (json!([]), json!(true)));
    assert_eq!(
        post(&app, &writer, SET_STATE, &set("MONITORED_COMPANY_LIFECYCLE_ACTIVE")).await,
        (
            422,
            json!({"error": "REMOVED_COMPANY_IS_TERMINAL", "code": "REMOVED_COMPANY_IS_TERMINAL", "message": "a removed company cannot change lifecycle"})
        )
    );
    let not_found = json!({"error": "NOT_FOUND", "code": "NOT_FOUND", "message": "company not found"});
    assert_eq!(get(&app, &writer, &format!("{COVERAGE}?company_id={id}")).await, (404, not_found.clone()), "removed");
    // Another account's company is not found either; a malformed id is a violation.
    let (_, other) = key(&app, Plan::Business, RW).await;
    let (_, theirs) = post(
        &app,
        &other,
        CREATE,
        &json!({"clientRequestId": "x", "company": {"name": "Theirs", "domicileCountry": "GB"}}),
    )
    .await;
    let theirs = theirs["company"]["companyId"].as_str().unwrap();
    assert_eq!(get(&app, &writer, &format!("{COVERAGE}?company_id={theirs}")).await, (404, not_found.clone()));
    let theirs_paused = json!({"companyId": theirs, "targetLifecycle": "MONITORED_COMPANY_LIFECYCLE_PAUSED"});
    assert_eq!(post(&app, &writer, SET_STATE, &theirs_paused).await, (404, not_found));
    let (code, body) = get(&app, &writer, &format!("{COVERAGE}?company_id=cm_impact_01ARZ3NDEKTSV4RRFFQ69G5FAV")).await;
    assert_eq!(code, 400);
    assert_eq!(body["violations"][0]["field"], "companyId");
    let bad = json!({"companyId": "nope", "targetLifecycle": "MONITORED_COMPANY_LIFECYCLE_UNSPECIFIED"});
    let (code, body) = post(&app, &writer, SET_STATE, &bad).await;
    assert_eq!(code, 400);
    assert_eq!(
        body["violations"],
        json!([
            {"field": "companyId", "description": "string must match pattern ^cm_company_[0-9A-HJKMNP-TV-Z]{26}$"},
            {"field": "targetLifecycle", "description": "value is required"},
        ])
    );
    let numeric = json!({"companyId": id, "targetLifecycle": 2});
    assert_eq!(
        post(&app, &writer, SET_STATE, &numeric).await.1["violations"][0]["description"],
        sitrep_cm::violations::NUMERIC_ENUM
    );
    // Still listable as removed; the status counts live companies only.
    let (_, listed) = get(&app, &writer, &format!("{LIST}?lifecycle=removed")).await;
    assert_eq!(listed["companies"][0]["companyId"], id.as_str());
    let (_, _, status) = status(&app, &writer).await;
    assert_eq!((status["companyCount"].clone(), status["snapshotGeneration"].clone()), (json!(0), json!("3")));
}

const UPDATE: &str = "/api/company-monitoring/v1/update-monitored-company";

#[tokio::test]
async fn update_applies_a_patch_and_refuses_with_the_documented_codes() {
    let app = TestApp::start_with(Options { company_monitoring: open_gate(), ..Default::default() }).await;
    let (_, writer) = key(&app, Plan::Business, RW).await;
    let create = |id: &str, name: &str, reference: &str| json!({"clientRequestId": id, "company": {"name": name, "domicileCountry": "US", "domains": [format!("{}.example", name.to_lowercase())], "customerReference": reference}});
    let (_, acme) = post(&app, &writer, CREATE, &create("r1", "Acme", "c-1")).await;
    post(&app, &writer, CREATE, &create("r2", "Other", "c-2")).await;
    let id = acme["company"]["companyId"].as_str().unwrap();
    let domain_claim = acme["company"]["claims"][1]["claimId"].as_str().unwrap();
    let patch = |p: Value| json!({"companyId": id, "patch": p});
    let (code, unchanged) = post(&app, &writer, UPDATE, &patch(json!({"name": "Acme"}))).await;
    assert_eq!((code, unchanged["company"]["updatedAt"].clone()), (200, acme["company"]["updatedAt"].clone()));
    let (code, updated) = post(
        &app,
        &writer,
        UPDATE,
        &patch(json!({"name": "Acme Corp", "removeClaimIds": [domain_claim],
        "addClaims": [{"type": "COMPANY_CLAIM_TYPE_LOCATION", "value": "Leeds"}]})),
    )
    .await;
    assert_eq!(code, 200, "{updated}");
    let company = &updated["company"];
    assert_eq!(company["name"], "Acme Corp");
    assert_eq!(company["coverage"], "COMPANY_COVERAGE_STATE_IDENTITY_UNRESOLVED", "its only domain removed");
    let values: Vec<&str> =
        company["claims"].as_array().unwrap().iter().map(|c| c["value"].as_str().unwrap()).collect();
    assert_eq!(values, ["Acme", "c-1", "Leeds", "Acme Corp"]);
    assert_eq!(
        post(&app, &writer, UPDATE, &patch(json!({"removeClaimIds": [domain_claim]}))).await,
        (
            404,
            json!({"error": "CLAIM_NOT_FOUND", "code": "CLAIM_NOT_FOUND", "message": format!("claim not found: {domain_claim}")})
        )
    );
    assert_eq!(
        post(&app, &writer, UPDATE, &patch(json!({"customerReference": "c-2"}))).await,
        (
            409,
            json!({"error": "CUSTOMER_REFERENCE_CONFLICT", "code": "CUSTOMER_REFERENCE_CONFLICT", "message": "customerReference is already used by another company"})
        )
    );
    let many: Vec<Value> =
        (0..80).map(|i| json!({"type": "COMPANY_CLAIM_TYPE_ALIAS", "value": format!("Alias {i}")})).collect();
    assert_eq!(
        post(&app, &writer, UPDATE, &patch(json!({"addClaims": many}))).await,
        (
            422,
            json!({"error": "CLAIM_BUDGET_EXCEEDED", "code": "CLAIM_BUDGET_EXCEEDED", "message": "company claims exceed 81"})
        )
    );
    let (code, body) = post(
        &app,
        &writer,
        UPDATE,
        &patch(json!({"addClaims": [{"type": "COMPANY_CLAIM_TYPE_CUSTOMER_REFERENCE", "value": "x"}]})),
    )
    .await;
    assert_eq!((code, body["violations"][0]["field"].clone()), (400, json!("patch.addClaims[0].type")));
    let missing = json!({"companyId": sitrep_cm::ids::Kind::Company.new_id(), "patch": {}});
    assert_eq!(
        post(&app, &writer, UPDATE, &missing).await,
        (404, json!({"error": "NOT_FOUND", "code": "NOT_FOUND", "message": "company not found"}))
    );
    // The generation moved for the effective update only (and the two creates).
    let (_, _, status) = status(&app, &writer).await;
    assert_eq!(status["snapshotGeneration"], "3");
}

#[tokio::test]
async fn the_idempotency_layer_sits_on_top_of_the_domain_replay() {
    let app = TestApp::start_with(Options { company_monitoring: open_gate(), ..Default::default() }).await;
    let (_, writer) = key(&app, Plan::Business, RW).await;
    let send = |body: Value, idempotency_key: &'static str| {
        let request = app.http.post(format!("{}{CREATE}", app.base)).header("X-Service-Key", &writer);
        request.header("Idempotency-Key", idempotency_key).json(&body).send()
    };
    let body = json!({"clientRequestId": "r1", "company": {"name": "Acme", "domicileCountry": "US"}});
    let first = send(body.clone(), "k-1").await.unwrap();
    assert_eq!((first.status().as_u16(), first.headers()["idempotent-replayed"].to_str().unwrap()), (200, "false"));
    let first: Value = first.json().await.unwrap();
    let again = send(body.clone(), "k-1").await.unwrap();
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.json::<Value>().await.unwrap(), first, "the stored answer, byte for byte");
    // Another key with the same clientRequestId reaches the domain replay: the same company.
    let other_key = send(body, "k-2").await.unwrap();
    assert_eq!(other_key.headers()["idempotent-replayed"], "false");
    assert_eq!(other_key.json::<Value>().await.unwrap()["company"]["companyId"], first["company"]["companyId"]);
    // The same key with another body is the layer's 422, not the domain's 409.
    let changed = json!({"clientRequestId": "r1", "company": {"name": "Changed", "domicileCountry": "US"}});
    let reused = send(changed, "k-1").await.unwrap();
    assert_eq!(reused.status(), 422);
    assert_eq!(reused.json::<Value>().await.unwrap()["error"], "idempotency_key_reused");
}

#[tokio::test]
async fn each_write_has_its_own_cm_write_window() {
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("cm-write=2").unwrap();
    let app =
        TestApp::start_with(Options { company_monitoring: open_gate(), rate_limits: limits, ..Default::default() })
            .await;
    let (account, writer) = key(&app, Plan::Business, RW).await;
    let create = |i: usize| json!({"clientRequestId": format!("r{i}"), "company": {"name": format!("Co {i}"), "domicileCountry": "US"}});
    let (_, first) = post(&app, &writer, CREATE, &create(0)).await;
    assert_eq!(post(&app, &writer, CREATE, &create(1)).await.0, 200);
    assert_eq!(post(&app, &writer, CREATE, &create(2)).await.0, 429, "create's window is spent");
    // A refusal before the limiter (no write scope) shows the account's create window, uncounted.
    let reader = app.state.store.create_key(&account, "reader", "di", &["mcp", "company_monitoring:read"], false);
    let reader = reader.await.unwrap().secret;
    let r = app
        .http
        .post(format!("{}{CREATE}", app.base))
        .header("X-Service-Key", &reader)
        .json(&create(3))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let header = |name: &str| r.headers().get(name).map(|v| v.to_str().unwrap().to_string());
    assert!(header("ratelimit-policy").is_some_and(|p| p.contains("cm-write")), "{:?}", header("ratelimit-policy"));
    assert_eq!(header("ratelimit-remaining").as_deref(), Some("0"));
    // Update and set-state count in windows of their own.
    let id = first["company"]["companyId"].as_str().unwrap();
    let update = json!({"companyId": id, "patch": {"name": "Renamed"}});
    assert_eq!(post(&app, &writer, UPDATE, &update).await.0, 200);
    let pause = json!({"companyId": id, "targetLifecycle": "MONITORED_COMPANY_LIFECYCLE_PAUSED"});
    assert_eq!(post(&app, &writer, SET_STATE, &pause).await.0, 200);
}
