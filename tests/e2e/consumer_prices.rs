//! The Consumer prices group end to end (SUPPLEMENT 2.4): the retail feed (a directory listing of
//! a CSV and a JSONL file) replayed into `consumer-prices`, the indices derived in DuckDB when the
//! version loads, and the four operations. Every expected number comes from the reference
//! implementation in `data/fixtures/consumer-prices/make_recordings.py`, which reads the recordings
//! back and applies 2.4's definitions independently of the SQL.

use serde_json::{json, Value};
use sitrep_schemas::DatasetId;
use sitrep_tests::{replay_runner, TestApp};

const OVERVIEW: &str = "/api/consumer-prices/v1/get-consumer-price-overview";
const SERIES: &str = "/api/consumer-prices/v1/get-consumer-price-basket-series";
const CATEGORIES: &str = "/api/consumer-prices/v1/list-consumer-price-categories";
const MOVERS: &str = "/api/consumer-prices/v1/list-consumer-price-movers";

fn violations(body: &Value) -> Vec<(String, String)> {
    body["violations"]
        .as_array()
        .unwrap_or_else(|| panic!("no violations in {body}"))
        .iter()
        .map(|v| (v["field"].as_str().unwrap().to_string(), v["description"].as_str().unwrap().to_string()))
        .collect()
}

fn names(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|c| c["slug"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn overview_of_both_markets() {
    let app = TestApp::start().await;
    let (status, ae) = app.json(OVERVIEW).await;
    assert_eq!(status, 200, "{ae}");
    let expect = |body: &Value, m: &str, cur: &str, e: f64, v: f64, wow: f64, mom: f64, spread: f64, lag: i64| {
        assert_eq!(
            (
                body["marketCode"].as_str(),
                body["currencyCode"].as_str(),
                body["essentialsIndex"].as_f64(),
                body["valueBasketIndex"].as_f64(),
                body["wowPct"].as_f64(),
                body["momPct"].as_f64(),
                body["retailerSpreadPct"].as_f64(),
                body["coveragePct"].as_f64(),
                body["freshnessLagMin"].as_i64(),
                body["upstreamUnavailable"].as_bool(),
            ),
            (
                Some(m),
                Some(cur),
                Some(e),
                Some(v),
                Some(wow),
                Some(mom),
                Some(spread),
                Some(100.0),
                Some(lag),
                Some(false)
            ),
            "{m}"
        );
    };
    // ae by default; the 20:00 eggs row is the day's latest; yogurt is out of the spread's common items.
    expect(&ae, "ae", "AED", 104.3, 105.1, 0.8, 2.7, 3.6, 1200);
    assert_eq!(ae["asOf"], "1795154400000", "the publish (recording) time");
    let top = names(&ae["topCategories"]);
    assert_eq!(
        top,
        ["dairy", "eggs", "cooking-oil", "produce", "chicken", "rice", "bread", "sugar"],
        "8: water is left out"
    );
    assert_eq!(ae["topCategories"][0]["wowPct"], 1.1, "range 7d: the weekly change");
    assert_eq!(ae["topCategories"][0]["momPct"], 0.0);
    // sa: "SA" rows stored lower case, danube_sa silent on the last day (its prices carry).
    let (_, sa) = app.json(&format!("{OVERVIEW}?market_code=SA&basket_slug=ESSENTIALS-sa")).await;
    expect(&sa, "sa", "SAR", 104.1, 104.5, 0.6, 2.5, 4.0, 2220);
    insta::assert_json_snapshot!("consumer_price_overview_ae", ae);
}

#[tokio::test]
async fn basket_series_categories_and_movers() {
    let app = TestApp::start().await;
    let (_, s) = app.json(&format!("{SERIES}?range=7d")).await;
    let points = |list: &Value| -> Vec<(String, f64)> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|p| (p["date"].as_str().unwrap().into(), p["index"].as_f64().unwrap()))
            .collect()
    };
    let essentials = points(&s["essentialsSeries"]);
    assert_eq!(essentials.first().map(|p| p.0.as_str()), Some("2026-11-13"));
    assert_eq!(essentials.iter().map(|p| p.1).collect::<Vec<_>>(), [103.6, 103.7, 103.8, 103.9, 103.9, 104.0, 104.3]);
    assert_eq!(
        points(&s["valueSeries"]).iter().map(|p| p.1).collect::<Vec<_>>(),
        [104.0, 104.0, 104.1, 104.2, 104.3, 104.4, 105.1]
    );
    assert_eq!(
        (s["basketSlug"].as_str(), s["range"].as_str(), s["currencyCode"].as_str()),
        (Some("essentials-ae"), Some("7d"), Some("AED"))
    );
    let (_, s30) = app.json(SERIES).await;
    assert_eq!((s30["range"].as_str(), s30["essentialsSeries"].as_array().map(Vec::len)), (Some("30d"), Some(30)));

    let (_, c) = app.json(&format!("{CATEGORIES}?market_code=sa&range=30d")).await;
    assert_eq!(names(&c["categories"]).len(), 8);
    let dairy = &c["categories"][0];
    assert_eq!(
        (
            dairy["slug"].as_str(),
            dairy["name"].as_str(),
            dairy["currentIndex"].as_f64(),
            dairy["momPct"].as_f64(),
            dairy["wowPct"].as_f64()
        ),
        (Some("dairy"), Some("Dairy"), Some(110.7), Some(6.4), Some(0.0)),
        "danube_sa's `cheese` rows count as the basket's dairy"
    );
    assert_eq!((dairy["itemCount"].as_i64(), dairy["coveragePct"].as_f64()), (Some(3), Some(100.0)));
    assert_eq!(dairy["sparkline"].as_array().map(Vec::len), Some(30));
    let oil = c["categories"].as_array().unwrap().iter().find(|c| c["slug"] == "cooking-oil").unwrap();
    assert_eq!((oil["name"].as_str(), oil["momPct"].as_f64()), (Some("Cooking Oil"), Some(3.4)));
    let (_, c7) = app.json(&format!("{CATEGORIES}?range=7d")).await;
    let ae_dairy = &c7["categories"][0];
    assert_eq!(
        ae_dairy["sparkline"],
        json!([109.4, 109.6, 109.8, 110.0, 109.9, 110.1, 110.4]),
        "lulu_ae's yogurt leaves the 7-day window on 11-17"
    );

    let (_, m) = app.json(&format!("{MOVERS}?limit=3")).await;
    let movers = |side: &str| -> Vec<(String, f64, f64)> {
        m[side]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["productId"].as_str().unwrap().into(),
                    x["changePct"].as_f64().unwrap(),
                    x["currentPrice"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        movers("risers"),
        [
            ("carrefour_ae:eggs_12".into(), 8.79, 13.99),
            ("carrefour_ae:milk_1l".into(), 7.77, 7.63),
            ("carrefour_ae:cheese_processed_200g".into(), 6.86, 9.97)
        ]
    );
    assert_eq!(
        movers("fallers"),
        [
            ("carrefour_ae:tomatoes_1kg".into(), -4.33, 5.53),
            ("lulu_ae:tomatoes_1kg".into(), -3.77, 5.87),
            ("carrefour_ae:onions_1kg".into(), -2.19, 3.13)
        ]
    );
    let rice = app.json(&format!("{MOVERS}?limit=50&category_slug=rice")).await.1;
    let titles: Vec<&str> = rice["risers"].as_array().unwrap().iter().map(|r| r["title"].as_str().unwrap()).collect();
    assert!(titles.contains(&"India Gate Basmati Rice, Classic 1 kg"), "the latest title: {titles:?}");
    assert!(rice["fallers"].as_array().unwrap().is_empty());
    let (_, all) = app.json(&format!("{MOVERS}?limit=50")).await;
    assert_eq!((all["risers"].as_array().map(Vec::len), all["fallers"].as_array().map(Vec::len)), (Some(17), Some(4)));
    assert!(
        !all["risers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["productId"] == "lulu_ae:yogurt_500g" || r["category"] == "water"),
        "no current price, or no change: left out"
    );
    insta::assert_json_snapshot!("consumer_price_movers_ae_3", m);
}

#[tokio::test]
async fn validation_and_the_empty_shape() {
    let app = TestApp::start().await;
    let (status, body) = app.json(&format!("{SERIES}?range=1y&market_code=a1&basket_slug=value-ae")).await;
    assert_eq!(status, 400);
    assert_eq!(
        violations(&body),
        [
            ("marketCode".into(), "string must match pattern ^[A-Za-z]{2}$".into()),
            ("basketSlug".into(), "string length must be at least 13".into()),
            ("range".into(), "value must be one of 7d, 30d, 90d, 180d".into()),
        ]
    );
    let (status, body) = app.json(&format!("{MOVERS}?limit=51")).await;
    assert_eq!(
        (status, violations(&body)),
        (400, vec![("limit".into(), "number must be less than or equal to 50".into())])
    );

    let empty_overview = json!({
        "marketCode": "zz", "asOf": "0", "currencyCode": "", "essentialsIndex": 0.0, "valueBasketIndex": 0.0,
        "wowPct": 0.0, "momPct": 0.0, "retailerSpreadPct": 0.0, "coveragePct": 0.0, "freshnessLagMin": 0,
        "topCategories": [], "upstreamUnavailable": true
    });
    assert_eq!(
        app.json(&format!("{OVERVIEW}?market_code=ZZ")).await,
        (200, empty_overview),
        "a market without a basket"
    );
    let (_, mismatch) = app.json(&format!("{OVERVIEW}?market_code=ae&basket_slug=essentials-sa")).await;
    assert_eq!((mismatch["marketCode"].as_str(), mismatch["upstreamUnavailable"].as_bool()), (Some("ae"), Some(true)));
    let (_, series) = app.json(&format!("{SERIES}?basket_slug=essentials-sa")).await;
    assert_eq!(
        series,
        json!({"marketCode": "ae", "basketSlug": "", "asOf": "0", "currencyCode": "", "range": "", "essentialsSeries": [],
               "valueSeries": [], "upstreamUnavailable": true})
    );
    // `AE` and the default are one request: one cached answer, one ETag.
    let etag = |r: reqwest::Response| r.headers()["etag"].to_str().unwrap().to_string();
    let a = etag(app.get(&format!("{CATEGORIES}?market_code=AE")).send().await.unwrap());
    let b = etag(app.get(CATEGORIES).send().await.unwrap());
    assert_eq!(a, b);
}

#[tokio::test]
async fn refused_down_and_empty_feeds() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::CONSUMER_PRICES];
    let app = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    let r = app.get(OVERVIEW).send().await.unwrap();
    assert_eq!(r.headers()["x-data-state"], "unavailable");
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        (body["marketCode"].as_str(), body["asOf"].as_str(), body["upstreamUnavailable"].as_bool()),
        (Some("ae"), Some("0"), Some(true))
    );

    let report = replay_runner(lake.clone(), &[("consumer-prices", "normal")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    let version = lake.latest_commit().await.unwrap().dataset(DatasetId::CONSUMER_PRICES).unwrap().version;
    for (scenario, why) in [("refused", "6 of 10 rows rejected"), ("down", "503")] {
        let report = replay_runner(lake.clone(), &[("consumer-prices", "normal"), ("consumer-prices", scenario)])
            .await
            .run(&only)
            .await
            .unwrap();
        let error = report.datasets[0].error.as_deref().unwrap_or("");
        assert!(!report.datasets[0].ok && error.contains(why), "{scenario}: {error}");
        let current = lake.latest_commit().await.unwrap();
        assert_eq!(
            current.dataset(DatasetId::CONSUMER_PRICES).unwrap().version,
            version,
            "{scenario}: the last version keeps serving"
        );
    }
    let served = TestApp::serve(tempfile::tempdir().unwrap(), lake.clone()).await;
    assert_eq!(served.json(OVERVIEW).await.1["essentialsIndex"], 104.3);

    let report = replay_runner(lake.clone(), &[("consumer-prices", "empty")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "a feed without rows is a legitimate version");
    let app = TestApp::serve(dir, lake).await;
    let (_, body) = app.json(OVERVIEW).await;
    assert_eq!(
        (body["upstreamUnavailable"].as_bool(), body["asOf"].as_str()),
        (Some(true), Some("0")),
        "no prices: the empty shape"
    );
}

#[tokio::test]
async fn a_single_feed_file_without_a_listing() {
    use sitrep_ingest::{replay::SourceEnv, runner::Runner};
    use sitrep_pipelines::{http::RetryPolicy, replay::FixtureServer, UpstreamConfig};
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let server = FixtureServer::start_dirs(&[sitrep_tests::fixtures().join("consumer-prices/normal")]).await.unwrap();
    let file = "https://feed.sitrep.example/consumer-prices/sa-2026-11.jsonl";
    let config = UpstreamConfig {
        consumer_prices_feed: Some((file.into(), Some("REDACTED".into()))),
        ..UpstreamConfig::replay(&sitrep_tests::fixtures())
    };
    let runner = Runner::new(lake.clone(), SourceEnv::replay(server, config, RetryPolicy::default()).unwrap());
    let report = runner.run(&[DatasetId::CONSUMER_PRICES]).await.unwrap();
    // The feed row, 8 markets, 8 × 12 basket items and the 1,188 sa observations (JSONL, sniffed by extension).
    assert_eq!((report.datasets[0].ok, report.datasets[0].rows), (true, 1 + 8 + 96 + 1188), "{:?}", report.datasets);
    let app = TestApp::serve(dir, lake).await;
    assert_eq!(app.json(&format!("{OVERVIEW}?market_code=sa")).await.1["essentialsIndex"], 104.1);
    assert_eq!(app.json(OVERVIEW).await.1["upstreamUnavailable"], true, "ae has no prices in this feed");
}
