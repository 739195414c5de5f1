//! Company monitoring's impacts through the real server (SUPPLEMENT 4.6): the listing at a
//! snapshot boundary, the change feed a poll cursor follows, and GetCompanyMaterialEvent. The
//! impacts are written through the store as a scan writes them.

use serde_json::{json, Value};
use sitrep_cm::{
    ids::Kind,
    impacts::Impact,
    records::{Direction, ImpactLifecycle},
    settings::{CmSettings, Flags},
    store::EventWrite,
};
use sitrep_platform::state::Plan;
use sitrep_tests::{cm_data::admitted, Options, TestApp};

const CREATE: &str = "/api/company-monitoring/v1/create-monitored-company";
const COMPANIES: &str = "/api/company-monitoring/v1/list-monitored-companies";
const IMPACTS: &str = "/api/company-monitoring/v1/list-company-event-impacts";
const CHANGES: &str = "/api/company-monitoring/v1/list-company-event-changes";
const EVENT: &str = "/api/company-monitoring/v1/get-company-material-event";

fn settings(publication: bool) -> CmSettings {
    CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some("http://127.0.0.1:9/search".into()),
        flags: Flags { publication, ..Flags::default() },
        ..CmSettings::default()
    }
}

struct Account {
    id: String,
    key: String,
}

async fn account(app: &TestApp) -> Account {
    let name = format!("cm-{}", Kind::Company.new_id());
    let account = app.state.store.create_account(&name, Plan::Business).await.unwrap();
    let scopes = ["mcp", "company_monitoring:read", "company_monitoring:write"];
    let key = app.state.store.create_key(&account.id, "cm", "di", &scopes, false).await.unwrap().secret;
    Account { id: account.id, key }
}

async fn get(app: &TestApp, key: &str, path_and_query: &str) -> (u16, Value) {
    let r = app.http.get(format!("{}{path_and_query}", app.base)).header("X-Service-Key", key).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn create(app: &TestApp, key: &str, name: &str) -> String {
    let body = json!({"clientRequestId": name, "company": {"name": name, "domicileCountry": "US", "domains": [format!("{}.example", name.to_lowercase())]}});
    let r =
        app.http.post(format!("{}{CREATE}", app.base)).header("X-Service-Key", key).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.json::<Value>().await.unwrap()["company"]["companyId"].as_str().unwrap().to_string()
}

async fn save(app: &TestApp, account: &str, mut writes: Vec<EventWrite>) -> Vec<Impact> {
    let store = &sitrep_api::context(&app.state).company_monitoring.store;
    store.save_events(account, &mut writes, app.state.clock.now_ms()).await.unwrap();
    writes.into_iter().filter_map(|w| w.impact).collect()
}

fn ids(page: &Value) -> Vec<String> {
    page["impacts"].as_array().unwrap().iter().map(|i| i["impactId"].as_str().unwrap().to_string()).collect()
}

fn cursor_error(body: &Value) -> &str {
    assert_eq!(body["violations"][0]["field"], "cursor", "{body}");
    body["violations"][0]["description"].as_str().unwrap()
}

#[tokio::test]
async fn impacts_page_at_one_snapshot_and_the_feed_follows_changes_after_it() {
    let app = TestApp::start_with(Options { company_monitoring: settings(true), ..Default::default() }).await;
    let a = account(&app).await;
    let acme = create(&app, &a.key, "Acme").await;
    let beta = create(&app, &a.key, "Beta").await;
    let now = app.state.clock.now_ms();
    let seeded = save(
        &app,
        &a.id,
        vec![
            admitted(&acme, Direction::Negative, 2, now),
            admitted(&beta, Direction::Positive, 1, now),
            admitted(&acme, Direction::Negative, 1, now),
        ],
    )
    .await;
    let newest_first: Vec<String> = seeded.iter().rev().map(|i| i.impact_id.clone()).collect();
    // A listing shows settled changes (2 s old): the seeded impacts once that time has passed.
    app.state.clock.advance(3);
    let (code, first) = get(&app, &a.key, &format!("{IMPACTS}?page_size=2")).await;
    assert_eq!(code, 200, "{first}");
    assert_eq!(ids(&first), newest_first[..2]);
    let shown = &first["impacts"][1];
    assert_eq!(shown["companyId"], beta);
    assert_eq!(shown["isCurrent"], true);
    assert_eq!(shown["direction"], "MATERIAL_IMPACT_DIRECTION_POSITIVE");
    assert_eq!(shown["channels"], json!(["MATERIAL_IMPACT_CHANNEL_REPUTATION", "MATERIAL_IMPACT_CHANNEL_FINANCES"]));
    assert_eq!(
        shown["confidence"],
        json!({"attribution": 0.75, "occurrenceTruth": 0.85, "materialImpact": 0.75, "overall": 0.75})
    );
    assert_eq!(
        (
            shown["evidenceReferenceCount"].clone(),
            shown["evidenceTotalCount"].clone(),
            shown["evidenceTruncated"].clone()
        ),
        (json!(1), json!(1), json!(false))
    );
    assert_eq!(shown["canonicalUrl"], "https://outlet1.example/story");
    let next = first["nextCursor"].as_str().unwrap();
    let (_, second) = get(&app, &a.key, &format!("{IMPACTS}?page_size=2&cursor={next}")).await;
    assert_eq!(ids(&second), newest_first[2..]);
    assert_eq!(
        (second["nextCursor"].clone(), second["snapshot"].clone()["snapshotAsOf"].clone()),
        (json!(""), first["snapshot"]["snapshotAsOf"].clone())
    );
    // Filters, in short or full form; the cursor is bound to them and to the operation.
    let (_, acme_only) = get(&app, &a.key, &format!("{IMPACTS}?company_id={acme}&direction=negative")).await;
    assert_eq!(acme_only["impacts"].as_array().unwrap().len(), 2);
    let (_, none) = get(&app, &a.key, &format!("{IMPACTS}?lifecycle=MATERIAL_IMPACT_LIFECYCLE_RETRACTED")).await;
    assert_eq!(none["impacts"], json!([]));
    let (code, body) = get(&app, &a.key, &format!("{IMPACTS}?direction=up&company_id=acme")).await;
    assert_eq!(code, 400);
    assert_eq!(
        body["violations"],
        json!([
            {"field": "companyId[0]", "description": "string must match pattern ^cm_company_[0-9A-HJKMNP-TV-Z]{26}$"},
            {"field": "direction[0]", "description": "string must match pattern ^(?:positive|negative|mixed|MATERIAL_IMPACT_DIRECTION_(?:POSITIVE|NEGATIVE|MIXED))$"},
        ])
    );
    let (_, body) = get(&app, &a.key, &format!("{IMPACTS}?page_size=2&direction=negative&cursor={next}")).await;
    assert_eq!(cursor_error(&body), "cursor is bound to different filters");
    let poll = first["snapshot"]["pollCursor"].as_str().unwrap().to_string();
    let (_, body) = get(&app, &a.key, &format!("{IMPACTS}?cursor={poll}")).await;
    assert_eq!(cursor_error(&body), "cursor is bound to a different operation");
    let (_, companies) = get(&app, &a.key, COMPANIES).await;
    let companies_next = companies["snapshot"]["pollCursor"].as_str().unwrap().to_string();
    let (_, body) = get(&app, &a.key, &format!("{CHANGES}?cursor={}", first["nextCursor"].as_str().unwrap())).await;
    assert_eq!(cursor_error(&body), "cursor is bound to a different operation");

    // The feed: nothing at the snapshot's watermark; a change after it shows once settled (2 s).
    let (code, feed) = get(&app, &a.key, &format!("{CHANGES}?cursor={poll}")).await;
    assert_eq!((code, ids(&feed), feed["pollState"].clone()), (200, vec![], json!("COMPANY_EVENT_POLL_STATE_CURRENT")));
    let same_place = feed["nextCursor"].as_str().unwrap().to_string();
    assert!(same_place.starts_with("cmc1."));
    app.state.clock.advance(1);
    let later = save(&app, &a.id, vec![admitted(&beta, Direction::Mixed, 1, app.state.clock.now_ms())]).await;
    let (_, unsettled) = get(&app, &a.key, &format!("{CHANGES}?cursor={same_place}")).await;
    assert_eq!(ids(&unsettled), Vec::<String>::new(), "not yet settled");
    app.state.clock.advance(3);
    let (_, feed) = get(&app, &a.key, &format!("{CHANGES}?cursor={same_place}")).await;
    assert_eq!(ids(&feed), [later[0].impact_id.clone()]);
    let after_it = feed["nextCursor"].as_str().unwrap().to_string();
    let (_, caught_up) = get(&app, &a.key, &format!("{CHANGES}?cursor={after_it}")).await;
    assert_eq!(ids(&caught_up), Vec::<String>::new());
    // A correction is a new revision with a new changedAt: the feed shows it again.
    let mut corrected = admitted(&beta, Direction::Mixed, 1, app.state.clock.now_ms());
    let impact = corrected.impact.as_mut().unwrap();
    (impact.impact_id, impact.event_id) = (later[0].impact_id.clone(), later[0].event_id.clone());
    (impact.impact_revision, impact.lifecycle) = (2, ImpactLifecycle::Corrected);
    corrected.event.event_id = later[0].event_id.clone();
    corrected.new_evidence.clear();
    save(&app, &a.id, vec![corrected]).await;
    app.state.clock.advance(3);
    let (_, feed) = get(&app, &a.key, &format!("{CHANGES}?cursor={after_it}&page_size=1")).await;
    assert_eq!(ids(&feed), [later[0].impact_id.clone()]);
    assert_eq!(feed["impacts"][0]["impactRevision"], 2);
    assert_eq!(feed["impacts"][0]["lifecycle"], "MATERIAL_IMPACT_LIFECYCLE_CORRECTED");
    // The company listing's poll cursor follows the impacts of the companies it selects.
    let (_, from_companies) = get(&app, &a.key, &format!("{CHANGES}?cursor={companies_next}")).await;
    assert_eq!(ids(&from_companies), [later[0].impact_id.clone()]);
    // A new company moves the generation on: the feed asks for a new snapshot.
    create(&app, &a.key, "Gamma").await;
    let (code, feed) = get(&app, &a.key, &format!("{CHANGES}?cursor={after_it}")).await;
    assert_eq!(
        (code, feed),
        (200, json!({"impacts": [], "nextCursor": "", "pollState": "COMPANY_EVENT_POLL_STATE_SNAPSHOT_REQUIRED"}))
    );
    let (code, body) = get(&app, &a.key, CHANGES).await;
    assert_eq!(
        (code, body["violations"][0].clone()),
        (400, json!({"field": "cursor", "description": "value is required"}))
    );
    let (_, body) = get(&app, &a.key, &format!("{CHANGES}?cursor=cmc1.x.y")).await;
    assert_eq!(cursor_error(&body), "signed opaque cursor is malformed");
}

#[tokio::test]
async fn a_material_event_shows_its_bounded_evidence_to_its_account_only() {
    let app = TestApp::start_with(Options { company_monitoring: settings(true), ..Default::default() }).await;
    let a = account(&app).await;
    let acme = create(&app, &a.key, "Acme").await;
    let now = app.state.clock.now_ms();
    let impact = save(&app, &a.id, vec![admitted(&acme, Direction::Negative, 22, now)]).await.remove(0);
    let (code, body) = get(&app, &a.key, &format!("{EVENT}?impact_id={}", impact.impact_id)).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!((body["evidenceTotalCount"].clone(), body["evidenceTruncated"].clone()), (json!(22), json!(true)));
    let evidence = body["evidence"].as_array().unwrap();
    assert_eq!(evidence.len(), 20);
    assert_eq!(evidence[0]["authorityTier"], "EVIDENCE_AUTHORITY_TIER_INDEPENDENT_AUTHORITATIVE");
    // Then the ordinary ones, latest published first; the one without a date last (and cut).
    let published: Vec<&str> = evidence[1..].iter().map(|e| e["publishedAt"].as_str().unwrap()).collect();
    assert!(published.windows(2).all(|w| w[0] > w[1]), "{published:?}");
    assert_eq!(body["event"]["category"], "legal");
    assert_eq!(body["event"]["lifecycle"], "MATERIAL_IMPACT_LIFECYCLE_ADMITTED");
    assert_eq!(body["impact"]["impactId"], impact.impact_id.as_str());
    assert_eq!(body["impact"]["evidenceReferenceCount"], 20);
    let not_found = json!({"error": "NOT_FOUND", "code": "NOT_FOUND", "message": "impact not found"});
    let other = account(&app).await;
    assert_eq!(
        get(&app, &other.key, &format!("{EVENT}?impact_id={}", impact.impact_id)).await,
        (404, not_found.clone())
    );
    let unknown = Kind::Impact.new_id();
    assert_eq!(get(&app, &a.key, &format!("{EVENT}?impact_id={unknown}")).await, (404, not_found.clone()));
    let (code, body) = get(&app, &a.key, &format!("{EVENT}?impact_id={acme}")).await;
    assert_eq!(
        (code, body["violations"][0].clone()),
        (
            400,
            json!({"field": "impactId", "description": "string must match pattern ^cm_impact_[0-9A-HJKMNP-TV-Z]{26}$"})
        )
    );
    // A removed company's impacts are hidden.
    let body = json!({"companyId": acme, "targetLifecycle": "MONITORED_COMPANY_LIFECYCLE_REMOVED"});
    let r = app
        .http
        .post(format!("{}/api/company-monitoring/v1/set-monitored-company-state", app.base))
        .header("X-Service-Key", &a.key)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(get(&app, &a.key, &format!("{EVENT}?impact_id={}", impact.impact_id)).await, (404, not_found));
    assert_eq!(get(&app, &a.key, IMPACTS).await.1["impacts"], json!([]));
}

#[tokio::test]
async fn with_publication_off_impacts_events_and_evidence_are_hidden() {
    let app = TestApp::start_with(Options { company_monitoring: settings(false), ..Default::default() }).await;
    let a = account(&app).await;
    let acme = create(&app, &a.key, "Acme").await;
    let impact = save(&app, &a.id, vec![admitted(&acme, Direction::Negative, 1, app.state.clock.now_ms())]).await;
    let (code, list) = get(&app, &a.key, IMPACTS).await;
    assert_eq!((code, list["impacts"].clone()), (200, json!([])));
    app.state.clock.advance(5);
    let poll = list["snapshot"]["pollCursor"].as_str().unwrap();
    assert_eq!(get(&app, &a.key, &format!("{CHANGES}?cursor={poll}")).await.1["impacts"], json!([]));
    let (code, body) = get(&app, &a.key, &format!("{EVENT}?impact_id={}", impact[0].impact_id)).await;
    assert_eq!((code, body["code"].clone()), (404, json!("NOT_FOUND")));
}
