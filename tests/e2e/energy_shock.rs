//! ComputeEnergyShockScenario over HTTP, from inputs ingested from their recordings: the three
//! worked examples of SUPPLEMENT 2.5.7 with exactly their outputs (the recordings carry their
//! inputs), every mode, the EMPTY answers, the one 400, the unavailable answer and the result cache.

use serde_json::{json, Value};
use sitrep_schemas::DatasetId;
use sitrep_tests::{normal, replay_runner, TestApp};

const SHOCK: &str = "/api/intelligence/v1/compute-energy-shock";
const YIELDS: &str = "refinery yields: US-average EIA basis, gasoline 44%, diesel 30%, jet 10%, LPG 5%";
const LNG: &str = "LNG chokepoint exposure estimates based on global trade route shares";

fn product(name: &str, loss: f64, demand: f64, deficit: f64) -> Value {
    json!({"product": name, "outputLossKbd": loss, "demandKbd": demand, "deficitPct": deficit})
}

#[tokio::test]
async fn worked_examples_a_and_c_and_every_mode() {
    let app = TestApp::start().await;
    // A — JP, hormuz_strait, 50, oil.
    let (status, a) = app.json(&format!("{SHOCK}?country_code=JP&chokepoint_id=hormuz_strait&disruption_pct=50")).await;
    assert_eq!(status, 200);
    assert_eq!(
        a,
        json!({
            "countryCode": "JP", "chokepointId": "hormuz_strait", "disruptionPct": 50,
            "gulfCrudeShare": 0.828, "crudeLossKbd": 993.6,
            "products": [
                product("Gasoline", 437.2, 820.0, 53.3), product("Diesel", 298.1, 700.0, 42.6),
                product("Jet fuel", 99.4, 180.0, 55.2), product("LPG", 49.7, 450.0, 11.0)
            ],
            "effectiveCoverDays": 531,
            "assessment": "With 220 days IEA cover, Japan can bridge a 50% Strait of Hormuz disruption for ~531 days.",
            "dataAvailable": true, "jodiOilCoverage": true, "comtradeCoverage": true, "ieaStocksCoverage": true,
            "portwatchCoverage": true, "coverageLevel": "full", "limitations": [YIELDS], "degraded": false,
            "chokepointConfidence": "high", "liveFlowRatio": 0.9
        })
    );
    // Normalisation: the same scenario asked differently is one answer (one cached body, one ETag).
    let etag = |r: reqwest::Response| r.headers()["etag"].to_str().unwrap().to_string();
    let first = etag(app.get(&format!("{SHOCK}?country_code=JP&disruption_pct=50")).send().await.unwrap());
    let again = etag(
        app.get(&format!("{SHOCK}?country_code=%20jp%20&chokepoint_id=HORMUZ_STRAIT&disruption_pct=50&fuel_mode=coal"))
            .send()
            .await
            .unwrap(),
    );
    assert_eq!(first, again);

    // C — DE, hormuz_strait, 50, gas.
    let (_, c) = app.json(&format!("{SHOCK}?country_code=DE&disruption_pct=50&fuel_mode=gas")).await;
    let gas_c = json!({
        "lngShareOfImports": 0.2, "lngImportsTj": 60000.0, "lngDisruptionTj": 8100.0, "totalDemandTj": 280000.0,
        "deficitPct": 2.9, "dataAvailable": true,
        "assessment": "DE has 2407 days of gas storage buffer under 50% hormuz_strait LNG disruption.",
        "dataSource": "gie_daily",
        "storage": {"fillPct": 72.4, "gasTwh": 180.5, "bufferDays": 2407, "trend": "injecting", "date": "2026-11-18", "scope": "europe"}
    });
    assert_eq!(
        c,
        json!({
            "countryCode": "DE", "chokepointId": "hormuz_strait", "disruptionPct": 50,
            "gulfCrudeShare": 0.0, "crudeLossKbd": 0.0, "products": [], "effectiveCoverDays": 0,
            "assessment": "DE has 2407 days of gas storage buffer under 50% hormuz_strait LNG disruption.",
            "dataAvailable": true, "jodiOilCoverage": false, "comtradeCoverage": false, "ieaStocksCoverage": false,
            "portwatchCoverage": true, "coverageLevel": "full", "limitations": [LNG], "degraded": false,
            "chokepointConfidence": "high", "liveFlowRatio": 0.9, "gasImpact": gas_c
        })
    );
    // Both: the oil answer plus the gas impact; DE's oil side from its own JODI, Comtrade and IEA rows.
    let (_, both) = app.json(&format!("{SHOCK}?country_code=DE&disruption_pct=50&fuel_mode=both")).await;
    assert_eq!(both["gasImpact"], gas_c);
    assert_eq!((both["jodiOilCoverage"].as_bool(), both["coverageLevel"].as_str()), (Some(true), Some("full")));
    assert_eq!(both["limitations"], json!([YIELDS, LNG]));
    insta::assert_json_snapshot!("energy_shock_de_both", both);
    // Outside the EU set there is no storage: JODI's monthly figures only.
    let (_, jp_gas) = app.json(&format!("{SHOCK}?country_code=JP&fuel_mode=gas")).await;
    assert_eq!(
        (jp_gas["gasImpact"]["dataSource"].as_str(), jp_gas["gasImpact"].get("storage")),
        (Some("jodi_monthly"), None)
    );
    insta::assert_json_snapshot!("energy_shock_jp_gas", jp_gas);
    // A country without JODI gas: gas mode is unsupported, with gasImpact saying why.
    let (_, xk) = app.json(&format!("{SHOCK}?country_code=XK&fuel_mode=gas")).await;
    assert_eq!(
        (xk["coverageLevel"].as_str(), xk["dataAvailable"].as_bool(), xk["gasImpact"]["dataAvailable"].as_bool()),
        (Some("unsupported"), Some(false), Some(false))
    );
    assert_eq!(xk["assessment"], "Insufficient gas import data for XK to model hormuz_strait LNG exposure.");
    // A net exporter by IEA.
    let (_, us) = app.json(&format!("{SHOCK}?country_code=US")).await;
    assert_eq!(us["effectiveCoverDays"], -1);
    assert_eq!(
        us["assessment"],
        "United States is a net oil exporter; Strait of Hormuz disruption affects export revenue, not domestic supply."
    );
}

#[tokio::test]
async fn worked_example_b_without_flow_data() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    // Every input as normal, except PortWatch with no chokepoint data at all.
    let scenarios: Vec<(&str, &str)> =
        normal().into_iter().map(|(u, s)| if u == "portwatch" { (u, "empty") } else { (u, s) }).collect();
    let inputs: Vec<DatasetId> = sitrep_api::intelligence::COMPUTE_ENERGY_SHOCK.datasets.to_vec();
    assert_eq!(inputs.len(), 8);
    let report = replay_runner(lake.clone(), &scenarios).await.run(&inputs).await.unwrap();
    assert!(report.datasets.iter().all(|d| d.ok), "{:?}", report.datasets);
    let app = TestApp::serve(dir, lake).await;
    let (_, b) = app.json(&format!("{SHOCK}?country_code=PK&chokepoint_id=hormuz_strait&disruption_pct=100")).await;
    assert_eq!(
        b,
        json!({
            "countryCode": "PK", "chokepointId": "hormuz_strait", "disruptionPct": 100,
            "gulfCrudeShare": 0.4, "crudeLossKbd": 80.0,
            "products": [product("Gasoline", 35.2, 180.0, 19.6), product("Diesel", 24.0, 160.0, 15.0), product("Jet fuel", 8.0, 20.0, 40.0)],
            "effectiveCoverDays": 0,
            "assessment": "Pakistan faces 40.0% jet fuel deficit under 100% Strait of Hormuz disruption; IEA cover: unknown. Gulf share proxied at 40% (live flow data unavailable, using historical baseline).",
            "dataAvailable": true, "jodiOilCoverage": true, "comtradeCoverage": false, "ieaStocksCoverage": false,
            "portwatchCoverage": false, "coverageLevel": "partial",
            "limitations": [
                "Gulf crude share proxied at 40% (no Comtrade data)", "IEA strategic stock data unavailable", YIELDS,
                "PortWatch flow data unavailable, using historical baseline multipliers",
                "strategic reserve policy: not classified for this country"
            ],
            "degraded": true, "chokepointConfidence": "none"
        })
    );
    // A non-IEA government reserve is named with its operator and capacity (the registry file).
    let (_, india) = app.json(&format!("{SHOCK}?country_code=IN")).await;
    let limitations: Vec<&str> = india["limitations"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(limitations.contains(&"strategic reserves: government_spr (ISPRL, 39Mb capacity)"), "{limitations:?}");
}

#[tokio::test]
async fn empty_answers_the_one_violation_and_unavailable_inputs() {
    let app = TestApp::start().await;
    let (_, bad_country) = app.json(&format!("{SHOCK}?country_code=J1&disruption_pct=5")).await;
    assert_eq!(
        bad_country,
        json!({
            "countryCode": "J1", "chokepointId": "hormuz_strait", "disruptionPct": 10, "gulfCrudeShare": 0.0,
            "crudeLossKbd": 0.0, "products": [], "effectiveCoverDays": 0,
            "assessment": "Insufficient data to compute shock scenario for J1.", "dataAvailable": false,
            "jodiOilCoverage": false, "comtradeCoverage": false, "ieaStocksCoverage": false, "portwatchCoverage": false,
            "coverageLevel": "unsupported", "limitations": [], "degraded": false, "chokepointConfidence": "none"
        })
    );
    let (_, absent) = app.json(SHOCK).await;
    assert_eq!(absent["assessment"], "Insufficient data to compute shock scenario for .");
    let (_, unknown) = app.json(&format!("{SHOCK}?country_code=JP&chokepoint_id=Panama&fuel_mode=both")).await;
    assert_eq!(
        (unknown["chokepointId"].as_str(), unknown["assessment"].as_str(), unknown.get("gasImpact")),
        (
            Some("panama"),
            Some("Unknown chokepoint: panama. Valid chokepoints: hormuz_strait, malacca_strait, suez, bab_el_mandeb."),
            None
        )
    );
    insta::assert_json_snapshot!("energy_shock_unknown_chokepoint", unknown);

    for (value, description) in [
        ("101", "number must be less than or equal to 100"),
        ("-1", "number must be greater than or equal to 0"),
        ("ten", "value must be a finite number"),
    ] {
        let (status, body) = app.json(&format!("{SHOCK}?country_code=JP&disruption_pct={value}")).await;
        assert_eq!(
            (status, body),
            (400, json!({"violations": [{"field": "disruptionPct", "description": description}]})),
            "{value}"
        );
    }
    for (asked, used) in [("0", 10), ("1", 10), ("9", 10), ("10", 10), ("100", 100)] {
        let (_, body) = app.json(&format!("{SHOCK}?country_code=JP&disruption_pct={asked}")).await;
        assert_eq!(body["disruptionPct"], used, "{asked}");
    }

    // Before any input is published: the documented degraded answer, unavailable and not stored.
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let empty = TestApp::serve(dir, lake).await;
    let r = empty.get(&format!("{SHOCK}?country_code=JP")).send().await.unwrap();
    assert_eq!(
        (r.headers()["x-data-state"].to_str().unwrap(), r.headers()["cache-control"].to_str().unwrap()),
        ("unavailable", "no-store")
    );
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        (body["coverageLevel"].as_str(), body["assessment"].as_str()),
        (Some("unsupported"), Some("Insufficient import data for Japan to model Strait of Hormuz exposure."))
    );
    assert_eq!(body["chokepointConfidence"], "none");
}
