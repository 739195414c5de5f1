//! The company-monitoring figures of issue 28, on one account and a file-backed SQLite state
//! store: ListCompanyEventImpacts over 500 companies / 50k impacts (a page of 50, in process),
//! a ListCompanyEventChanges poll (empty and full page), CreateMonitoredCompany, an import of 100
//! rows, and a scan of 500 companies against local providers answering in 50 ms (SEARCH for
//! all, FILINGS for the fifth that are listed, paced as the SEC asks), and GDELT's pace apart:
//! a few queries timed against its floor of one every 5 s.

use std::{sync::Arc, time::Instant};

use poem::{endpoint::BoxEndpoint, Endpoint};
use serde_json::{json, Value};
use sitrep_cm::settings::GDELT_DOC_API;
use sitrep_cm::{
    records::Direction,
    settings::CmSettings,
    store::{CmStore, EventWrite, ScanScope},
};
use sitrep_ingest::company_scan::{RecordedVerification, Scanner};
use sitrep_pipelines::{
    edgar::{Edgar, EDGAR_DATA_API, TIMEOUT as EDGAR_TIMEOUT},
    http::{Http, RetryPolicy},
    replay::FixtureServer,
    web_search::{Kind as SearchKind, SearchProvider, GDELT_PACE, TIMEOUT},
};
use sitrep_platform::state::Plan;
use sitrep_tests::{cm_data::admitted, Options, TestApp};

use crate::percentile;

/// Companies monitored by the account (500; 100, one import batch, in the short pass), and
/// impacts recorded.
fn company_count() -> usize {
    crate::scaled(500, 100)
}
fn impact_count() -> usize {
    crate::scaled(50_000, 2_000)
}
const SEARCH_URL: &str = "https://search.provider.example/v1/search";

pub struct Figures {
    pub list_p50_ms: f64,
    pub list_p99_ms: f64,
    pub poll_empty_p50_ms: f64,
    pub poll_full_p50_ms: f64,
    pub create_p50_ms: f64,
    pub import_p50_ms: f64,
    pub scan_s: f64,
    pub scanned: usize,
    /// Companies of the scan with a CIK (FILINGS ran for them).
    pub listed: usize,
    /// GDELT: queries timed, and how long they took.
    pub gdelt_queries: usize,
    pub gdelt_s: f64,
}

/// Every fifth company of the scan is listed (a CIK claim).
const LISTED_EVERY: usize = 5;
/// GDELT queries timed (one company of two queries, then another).
const GDELT_QUERIES: usize = 4;

/// A recording in `dir` answering `url` after 50 ms; `open` its query parameters matched whatever
/// their value.
fn record(dir: &std::path::Path, name: &str, method: &str, url: &str, open: &[&str], body: &Value) {
    let meta = json!({"request": {"method": method, "url": url, "anyValueOf": open},
        "response": {"status": 200, "headers": {"content-type": "application/json"}, "delayMs": 50},
        "recordedAt": "2026-11-20T06:00:00Z"});
    std::fs::write(dir.join(format!("{name}.meta.json")), meta.to_string()).expect("meta");
    std::fs::write(dir.join(format!("{name}.body.json")), body.to_string()).expect("body");
}

fn settings() -> CmSettings {
    CmSettings {
        cursor_secret: Some(b"company-monitoring-cursor-secret".to_vec()),
        search_provider_url: Some(SEARCH_URL.into()),
        company_limits: [0, 0, 100_000],
        ..CmSettings::default()
    }
}

/// Milliseconds of `runs` in-process requests made by `request` (after 20 warm-up ones), sorted.
async fn timed(endpoint: &BoxEndpoint<'static>, runs: usize, request: impl Fn(usize) -> poem::Request) -> Vec<f64> {
    let mut ms = Vec::with_capacity(runs);
    for i in 0..runs + 20 {
        let req = request(i);
        let t = Instant::now();
        let r = endpoint.get_response(req).await;
        let elapsed = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(r.status(), 200, "{:?}", r.into_body().into_string().await);
        if i >= 20 {
            ms.push(elapsed);
        }
    }
    ms.sort_by(f64::total_cmp);
    ms
}

fn get(path: &str, key: &str) -> poem::Request {
    poem::Request::builder().uri(path.parse().expect("uri")).header("x-service-key", key).finish()
}

fn post(path: &str, key: &str, body: &Value) -> poem::Request {
    poem::Request::builder()
        .method(poem::http::Method::POST)
        .uri(path.parse().expect("uri"))
        .header("x-service-key", key)
        .content_type("application/json")
        .body(body.to_string())
}

pub async fn measure() -> Figures {
    let dir = tempfile::tempdir().expect("tempdir");
    let limits = sitrep_platform::edge::rate_limit::Limits::parse("cm-write=1000000,cm-import=1000000,default=1000000")
        .expect("limits");
    let app = TestApp::start_with(Options {
        company_monitoring: settings(),
        state_url: Some(format!("sqlite://{}", dir.path().join("state.db").display())),
        rate_limits: limits,
        ..Default::default()
    })
    .await;
    let account = app.state.store.create_account("cm-bench", Plan::Business).await.expect("account");
    let scopes = ["mcp", "company_monitoring:read", "company_monitoring:write"];
    let key = app.state.store.create_key(&account.id, "cm", "di", &scopes, false).await.expect("key").secret;
    let endpoint = app.endpoint();
    let store: CmStore = sitrep_api::context(&app.state).company_monitoring.store.clone();

    // 500 companies by import (5 batches of 100 rows: the import figure), then 50k impacts.
    let mut import_ms = Vec::new();
    for batch in 0..company_count() / 100 {
        let rows: Vec<Value> = (0..100)
            .map(|i| {
                let n = batch * 100 + i;
                json!({"ordinal": i, "company": {"name": format!("Company {n:04} Holdings"), "domicileCountry": "US",
                    "domains": [format!("company{n:04}.example")]}})
            })
            .collect();
        let body = json!({"contractVersion": "cm-import-v1", "clientImportId": format!("bench-{batch}"), "rows": rows});
        let t = Instant::now();
        let r =
            endpoint.get_response(post("/api/company-monitoring/v1/import-monitored-company-batch", &key, &body)).await;
        import_ms.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(r.status(), 200);
    }
    import_ms.sort_by(f64::total_cmp);
    let companies = store.live_companies(&account.id).await.expect("companies");
    assert_eq!(companies.len(), company_count());
    let now = app.state.clock.now_ms() - 3_600_000;
    for chunk in 0..impact_count() / 1_000 {
        let mut writes: Vec<EventWrite> = (0..1_000)
            .map(|i| {
                admitted(&companies[(chunk * 1_000 + i) % company_count()].company_id, Direction::Negative, 0, now)
            })
            .collect();
        store.save_events(&account.id, &mut writes, now).await.expect("impacts");
    }

    let list = "/api/company-monitoring/v1/list-company-event-impacts?page_size=50";
    let listed = timed(&endpoint, crate::scaled(500, 50), |_| get(list, &key)).await;
    let first: Value = {
        let r = endpoint.get_response(get(list, &key)).await;
        serde_json::from_slice(&r.into_body().into_vec().await.expect("body")).expect("json")
    };
    let poll_cursor = first["snapshot"]["pollCursor"].as_str().expect("poll cursor").to_string();
    let empty = timed(&endpoint, 500, |_| {
        get(&format!("/api/company-monitoring/v1/list-company-event-changes?cursor={poll_cursor}"), &key)
    })
    .await;
    // A full page: a poll cursor from before the impacts were written (their feed holds 50k).
    app.state.clock.advance(-7_200);
    let early: Value = {
        let r =
            endpoint.get_response(get("/api/company-monitoring/v1/list-monitored-companies?page_size=1", &key)).await;
        serde_json::from_slice(&r.into_body().into_vec().await.expect("body")).expect("json")
    };
    app.state.clock.advance(7_200);
    let early_cursor = early["snapshot"]["pollCursor"].as_str().expect("poll cursor").to_string();
    let full = timed(&endpoint, 500, |_| {
        get(&format!("/api/company-monitoring/v1/list-company-event-changes?cursor={early_cursor}&page_size=50"), &key)
    })
    .await;
    let created = timed(&endpoint, 300, |i| {
        let body = json!({"clientRequestId": format!("create-{i}"), "company": {"name": format!("New {i}"), "domicileCountry": "GB", "domains": [format!("new{i}.example")]}});
        post("/api/company-monitoring/v1/create-monitored-company", &key, &body)
    })
    .await;

    // The scan: a fresh account of 500 companies, a provider that answers every query in 50 ms.
    let scan_account = app.state.store.create_account("cm-bench-scan", Plan::Business).await.expect("account");
    let mut v = sitrep_cm::violations::Violations::default();
    for n in 0..company_count() {
        let mut value = json!({"name": format!("Scanned {n:04} Industries"), "domicileCountry": "US", "domains": [format!("scanned{n:04}.example")]});
        if n % LISTED_EVERY == 0 {
            value["identifiers"] = json!([format!("CIK:{}", 9_000_000 + n)]);
        }
        let input = sitrep_cm::company_input::CompanyInput::parse("company", Some(&value), &mut v).expect("input");
        store.create(&scan_account.id, &format!("s{n}"), &input, 100_000, now).await.expect("create");
    }
    let fixtures = tempfile::tempdir().expect("fixtures");
    std::fs::write(
        fixtures.path().join("any.meta.json"),
        json!({"request": {"method": "POST", "url": SEARCH_URL}, "response": {"status": 200, "headers": {"content-type": "application/json"}, "delayMs": 50}, "recordedAt": "2026-11-20T06:00:00Z"}).to_string(),
    )
    .expect("meta");
    let results: Vec<Value> = (0..5)
        .map(|i| json!({"url": format!("https://outlet{i}.example/story-{i}"), "title": format!("Scanned {i:04} Industries sued over contract"), "snippet": "A lawsuit was filed.", "publishedAt": "2026-11-19T10:00:00Z", "publisher": format!("Outlet {i}")}))
        .collect();
    std::fs::write(fixtures.path().join("any.body.json"), json!({"results": results, "truncated": false}).to_string())
        .expect("body");
    // EDGAR: each listed company's submissions (the recorded week's, an 8-K of item 2.05 in it).
    let submissions: Value = serde_json::from_str(
        &std::fs::read_to_string(sitrep_tests::fixtures().join("sec-edgar/normal/CIK0001987654.body.json"))
            .expect("EDGAR"),
    )
    .expect("EDGAR json");
    for n in (0..company_count()).step_by(LISTED_EVERY) {
        let url = format!("https://data.sec.gov/submissions/CIK{:010}.json", 9_000_000 + n);
        record(fixtures.path(), &format!("cik-{n}"), "GET", &url, &[], &submissions);
    }
    // GDELT: every query, any window, a few articles.
    let articles: Vec<Value> = (0..5)
        .map(|i| json!({"url": format!("https://outlet{i}.example/story-{i}"), "title": format!("Scanned {i:04} Industries sued over contract"), "seendate": "20261119T100000Z", "domain": format!("outlet{i}.example")}))
        .collect();
    let gdelt_url = "https://api.gdeltproject.org/api/v2/doc/doc?query=x&mode=artlist&format=json&maxrecords=75&sort=datedesc&startdatetime=0&enddatetime=0";
    record(
        fixtures.path(),
        "gdelt",
        "GET",
        gdelt_url,
        &["query", "startdatetime", "enddatetime"],
        &json!({"articles": articles}),
    );
    let server = FixtureServer::start_dirs(&[fixtures.path().to_path_buf()]).await.expect("provider");
    let http = Http::new(server.transport(), RetryPolicy { max_retries: 0, ..RetryPolicy::default() }).expect("http");
    let edgar = Edgar::new(EDGAR_DATA_API.into(), "Sitrep Bench bench@sitrep.example".into(), EDGAR_TIMEOUT);
    let scanner = Arc::new(Scanner {
        store: store.clone(),
        lake: app.lake.clone(),
        http: http.clone(),
        search: Some(SearchProvider::new(SEARCH_URL.into(), None, SearchKind::Contract, TIMEOUT)),
        filings: Some(edgar),
        settings: settings(),
        owner: "bench".into(),
        verification: Arc::new(RecordedVerification::default()),
        lease: sitrep_ingest::company_scan::LEASE,
    });
    let t = Instant::now();
    let report = scanner.run(ScanScope::Account(&scan_account.id), app.state.clock.now_ms()).await.expect("scan");
    let scan_s = t.elapsed().as_secs_f64();

    // GDELT's pace: two companies of two queries each (name and domain), one request every 5 s.
    let gdelt = SearchProvider::new(GDELT_DOC_API.into(), None, SearchKind::Gdelt, TIMEOUT);
    let gdelt_scanner = Scanner {
        store: store.clone(),
        lake: app.lake.clone(),
        http,
        search: Some(gdelt),
        filings: None,
        settings: settings(),
        owner: "bench".into(),
        verification: Arc::new(RecordedVerification::default()),
        lease: sitrep_ingest::company_scan::LEASE,
    };
    let gdelt_account = app.state.store.create_account("cm-bench-gdelt", Plan::Business).await.expect("account");
    for n in 0..GDELT_QUERIES / 2 {
        let value = json!({"name": format!("Paced {n:04} Industries"), "domicileCountry": "US", "domains": [format!("paced{n:04}.example")]});
        let input = sitrep_cm::company_input::CompanyInput::parse("company", Some(&value), &mut v).expect("input");
        store.create(&gdelt_account.id, &format!("g{n}"), &input, 100_000, now).await.expect("create");
    }
    let t = Instant::now();
    gdelt_scanner.run(ScanScope::Account(&gdelt_account.id), app.state.clock.now_ms()).await.expect("GDELT scan");
    let gdelt_s = t.elapsed().as_secs_f64();

    Figures {
        list_p50_ms: percentile(&listed, 0.5),
        list_p99_ms: percentile(&listed, 0.99),
        poll_empty_p50_ms: percentile(&empty, 0.5),
        poll_full_p50_ms: percentile(&full, 0.5),
        create_p50_ms: percentile(&created, 0.5),
        import_p50_ms: percentile(&import_ms, 0.5),
        scan_s,
        scanned: report.scanned,
        listed: company_count().div_ceil(LISTED_EVERY),
        gdelt_queries: GDELT_QUERIES,
        gdelt_s,
    }
}

pub fn print(f: &Figures) {
    println!("\nCompany monitoring: one account, SQLite state store (file), in process\n");
    println!("| figure | measured | goal | ÷ goal |");
    println!("|---|---:|---:|---:|");
    let row = |name: &str, v: f64, goal: f64, unit: &str| {
        println!("| {name} | {v:.2} {unit} | ≤ {goal} {unit} | {:.2} |", v / goal);
    };
    let sizes = format!("{} companies / {} impacts", company_count(), impact_count());
    row(&format!("ListCompanyEventImpacts, {sizes}, page of 50: p50"), f.list_p50_ms, 2.0, "ms");
    row(&format!("ListCompanyEventImpacts, {sizes}, page of 50: p99"), f.list_p99_ms, 10.0, "ms");
    row("ListCompanyEventChanges poll, empty page: p50", f.poll_empty_p50_ms, 2.0, "ms");
    row("ListCompanyEventChanges poll, full page of 50: p50", f.poll_full_p50_ms, 2.0, "ms");
    row("CreateMonitoredCompany: p50", f.create_p50_ms, 5.0, "ms");
    row("ImportMonitoredCompanyBatch of 100 rows: p50", f.import_p50_ms, 100.0, "ms");
    row(
        &format!("scan of {} companies ({} listed: FILINGS too), providers answering in 50 ms", f.scanned, f.listed),
        f.scan_s,
        60.0,
        "s",
    );
    // GDELT's floor: its queries one every 5 s, whatever else the scan does.
    let floor = (f.gdelt_queries - 1) as f64 * GDELT_PACE.as_secs_f64();
    println!(
        "| GDELT: {} queries (2 companies) at one every {} s | {:.2} s | floor {floor:.0} s | {:.2} |",
        f.gdelt_queries,
        GDELT_PACE.as_secs(),
        f.gdelt_s,
        f.gdelt_s / floor
    );
    let per_interval = 6.0 * 3600.0 / GDELT_PACE.as_secs_f64() / 2.0;
    println!(
        "\nGDELT's pace bounds a deployment, not this machine: {} companies of two queries take {:.0} min; a 6-hour scan interval covers {per_interval:.0} such companies (864 at five queries each).",
        company_count(),
        company_count() as f64 * 2.0 * GDELT_PACE.as_secs_f64() / 60.0
    );
}
