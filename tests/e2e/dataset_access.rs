//! Access follows the data: an operation that names a dataset by parameter (the History group)
//! asks the strictest access of the operations that read that dataset, and a dataset the
//! deployment does not serve answers there as its own operation does. Derived from the registry.

use serde_json::{json, Value};
use sitrep_platform::{registry::Access, state::Plan};
use sitrep_schemas::DatasetId;
use sitrep_tests::{Options, TestApp};

const VERSIONS: &str = "/api/history/v1/list-dataset-versions";
const CHANGES: &str = "/api/history/v1/list-dataset-changes";

fn access_name(access: Access) -> &'static str {
    match access {
        Access::Public => "public",
        Access::Subscription => "any plan",
        Access::Pro => "PRO",
        Access::CmRead | Access::CmWrite | Access::CmStatus => "company monitoring",
    }
}

#[tokio::test]
async fn every_datasets_access_is_the_strictest_of_its_readers() {
    let app = TestApp::start().await;
    let table: Vec<String> = DatasetId::ALL
        .iter()
        .map(|&d| {
            let readers: Vec<&str> = app.registry.reading(d).map(|op| op.id).collect();
            format!("{d}: {} ({})", access_name(app.registry.dataset_access(d)), readers.join(", "))
        })
        .collect();
    insta::assert_yaml_snapshot!("dataset_access", table);
}

async fn key_of(app: &TestApp, plan: Plan) -> String {
    let account = app.state.store.create_account(&format!("{plan:?}-reader"), plan).await.unwrap();
    app.state.store.create_key(&account.id, "reader", "di", &["mcp"], false).await.unwrap().secret
}

async fn get(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    let r = app.http.get(format!("{}{path}", app.base)).header("x-service-key", key).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_free_key_reaches_no_row_of_a_dataset_only_pro_operations_read() {
    let app = TestApp::start().await;
    let free = key_of(&app, Plan::Free).await;
    let pro = key_of(&app, Plan::Pro).await;
    let pro_datasets: Vec<DatasetId> =
        DatasetId::ALL.iter().copied().filter(|&d| app.registry.dataset_access(d) == Access::Pro).collect();
    assert!(
        pro_datasets.contains(&DatasetId::AIRPORT_FLIGHTS) && pro_datasets.contains(&DatasetId::FLIGHT_PRICE_WATCH)
    );
    for dataset in &pro_datasets {
        for path in [
            format!("{VERSIONS}?dataset={dataset}"),
            format!("{CHANGES}?dataset={dataset}&since=0"),
            // Refused before validation, as every PRO operation is.
            format!("{CHANGES}?dataset={dataset}&since=not-a-time&page_size=-4"),
        ] {
            let (status, body) = get(&app, &free, &path).await;
            assert_eq!((status, body["error"].as_str()), (403, Some("Pro subscription required")), "{path}: {body}");
            let (status, _) = get(&app, &pro, &path).await;
            assert_ne!(status, 403, "{path}");
        }
        // The operations that read it, `as_of` or not.
        for op in app.registry.reading(*dataset) {
            let (status, _) = get(&app, &free, &format!("{}?as_of=0", op.path)).await;
            assert_eq!(status, 403, "{} as_of", op.id);
        }
        // Through ExecuteBatch too.
        let batch = app
            .http
            .post(format!("{}/api/batch/v1/execute", app.base))
            .header("x-service-key", &free)
            .json(&json!({"operations": [{"id": "h", "path": format!("{CHANGES}?dataset={dataset}&since=0")}]}))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap();
        assert_eq!(batch["results"][0]["status"], 403, "{batch}");
    }
    // A dataset a free operation reads stays open to a free key.
    let (status, body) = get(&app, &free, &format!("{VERSIONS}?dataset=armed-events")).await;
    assert_eq!(status, 200, "{body}");
    // A lapsed Pro account is told so, as on the PRO operations themselves.
    let lapsed = app.state.store.create_account("lapsed-reader", Plan::Pro).await.unwrap();
    let past = chrono::Utc::now() - chrono::Duration::days(1);
    app.state.store.set_account_valid_until(&lapsed.id, Some(past)).await.unwrap();
    let key = app.state.store.create_key(&lapsed.id, "reader", "di", &["mcp"], false).await.unwrap().secret;
    let (status, body) = get(&app, &key, &format!("{VERSIONS}?dataset=airport-flights")).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("subscription_lapsed")), "{body}");
}

#[tokio::test]
async fn a_dataset_the_deployment_does_not_serve_answers_empty_wherever_it_is_named() {
    let options = Options { datasets_off: vec![DatasetId::IRAN_EVENTS], ..Default::default() };
    let app = TestApp::start_with(options).await;
    let key = app.key.clone();
    let own = app.http.get(format!("{}/api/conflict/v1/list-iran-events", app.base)).header("x-service-key", &key);
    let own = own.send().await.unwrap();
    assert_eq!(own.headers()["x-data-state"], "unavailable");
    for path in [
        format!("{VERSIONS}?dataset=iran-events"),
        format!("{CHANGES}?dataset=iran-events&since=0"),
        "/api/conflict/v1/list-iran-events?as_of=0".to_string(),
    ] {
        let r = app.http.get(format!("{}{path}", app.base)).header("x-service-key", &key).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["x-data-state"], "unavailable", "{path}");
        assert_eq!(r.headers()["cache-control"], "no-store", "{path}");
        let body: Value = r.json().await.unwrap();
        let rows = body.get("versions").or(body.get("changes")).or(body.get("events"));
        assert_eq!(rows, Some(&json!([])), "{path}: {body}");
    }
    // Served datasets are not affected.
    let (status, body) = get(&app, &key, &format!("{VERSIONS}?dataset=armed-events")).await;
    assert_eq!(status, 200);
    assert!(!body["versions"].as_array().unwrap().is_empty());
}
