//! The energy-shock input datasets, end to end from their recordings: chokepoint flows (IMF
//! PortWatch, paged), JODI oil and gas, IEA stocks, Comtrade, Ember, GIE AGSI+ and the SPR
//! registry. Expected values come from the reference computations in each fixture generator
//! (`expected.json` beside the recordings), compared record by record.

use arrow::{
    array::{Array, AsArray},
    datatypes::{DataType, Date32Type, Float64Type, Int32Type},
    record_batch::RecordBatch,
};
use serde_json::{json, Value};
use sitrep_schemas::DatasetId;
use sitrep_tests::{fixtures, replay_runner};

/// One scenario's reference records from a fixture generator.
fn reference(upstream: &str, scenario: &str) -> serde_json::Map<String, Value> {
    let path = fixtures().join(upstream).join("expected.json");
    let all: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    all[scenario]["records"].as_object().cloned().unwrap_or_else(|| panic!("{upstream}/{scenario} records"))
}

/// A cell as JSON: numbers, text, booleans, dates as `YYYY-MM-DD`, null.
fn cell(b: &RecordBatch, column: &str, row: usize) -> Value {
    let c = b.column_by_name(column).unwrap_or_else(|| panic!("column {column}"));
    if c.is_null(row) {
        return Value::Null;
    }
    match c.data_type() {
        DataType::Utf8 => json!(c.as_string::<i32>().value(row)),
        DataType::Float64 => json!(c.as_primitive::<Float64Type>().value(row)),
        DataType::Int32 => json!(c.as_primitive::<Int32Type>().value(row)),
        DataType::Boolean => json!(c.as_boolean().value(row)),
        DataType::Date32 => json!(c.as_primitive::<Date32Type>().value_as_date(row).unwrap().to_string()),
        other => panic!("{column}: {other}"),
    }
}

/// Every row of `b` equals the reference record of its key, field by field (`(reference key,
/// column)`), and the two hold the same keys.
fn assert_reference(b: &RecordBatch, key: &str, expected: &serde_json::Map<String, Value>, fields: &[(&str, &str)]) {
    let keys: Vec<String> = (0..b.num_rows()).map(|i| cell(b, key, i).as_str().unwrap().to_string()).collect();
    let mut want: Vec<&String> = expected.keys().collect();
    want.sort();
    assert_eq!(keys.iter().collect::<Vec<_>>(), want, "the same records, in key order");
    for (i, k) in keys.iter().enumerate() {
        for (field, column) in fields {
            let (got, want) = (cell(b, column, i), &expected[k][*field]);
            let close = match (got.as_f64(), want.as_f64()) {
                (Some(g), Some(w)) => (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                _ => &got == want,
            };
            assert!(close, "{k}.{field}: got {got}, reference {want}");
        }
    }
}

async fn rows(lake: &sitrep_ingest::Lake, dataset: DatasetId) -> arrow::record_batch::RecordBatch {
    let commit = lake.latest_commit().await.unwrap();
    lake.read_rows(dataset, commit.dataset(dataset).unwrap()).await.unwrap().unwrap()
}

#[tokio::test]
async fn chokepoint_flows_from_portwatch() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::CHOKEPOINT_FLOWS];
    let report = replay_runner(lake.clone(), &[("portwatch", "normal")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    let b = rows(&lake, DatasetId::CHOKEPOINT_FLOWS).await;
    let ids: Vec<&str> =
        b.column_by_name("chokepoint_id").unwrap().as_string::<i32>().iter().map(Option::unwrap).collect();
    assert_eq!(ids, ["hormuz_strait", "malacca_strait", "bab_el_mandeb"], "Suez has 30 days: no entry");
    let col = |name: &str, i: usize| b.column_by_name(name).unwrap().as_primitive::<Float64Type>().value(i);
    let basis = b.column_by_name("basis").unwrap().as_string::<i32>();
    let disrupted = b.column_by_name("disrupted").unwrap().as_boolean();
    let round3 = |x: f64| (x * 1000.0).round() / 1000.0;
    // Hormuz over two pages (100 + 80 rows), in DWT.
    assert_eq!(
        (round3(col("flow_ratio", 0)), round3(col("current_mbd", 0)), basis.value(0), disrupted.value(0)),
        (0.9, 18.9, "dwt", false)
    );
    assert!((col("flow_ratio", 0) - 0.9000000169438445).abs() < 1e-12);
    assert_eq!(
        (round3(col("flow_ratio", 1)), round3(col("current_mbd", 1)), basis.value(1)),
        (1.051, 18.074, "counts")
    );
    assert_eq!((round3(col("flow_ratio", 2)), round3(col("current_mbd", 2)), disrupted.value(2)), (0.6, 3.72, true));

    let report =
        replay_runner(lake.clone(), &[("portwatch", "normal"), ("portwatch", "down")]).await.run(&only).await.unwrap();
    let error = report.datasets[0].error.as_deref().unwrap_or("");
    assert!(!report.datasets[0].ok && error.contains("Invalid query parameters"), "{error}");
    assert_eq!(rows(&lake, DatasetId::CHOKEPOINT_FLOWS).await.num_rows(), 3, "the last version keeps serving");
    let report = replay_runner(lake.clone(), &[("portwatch", "empty")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok && report.datasets[0].rows == 0, "no data anywhere: an empty version");
}

#[tokio::test]
async fn jodi_oil_records_at_each_countrys_data_month() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::JODI_OIL];
    let report = replay_runner(lake.clone(), &[("jodi-oil", "normal")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    let b = rows(&lake, DatasetId::JODI_OIL).await;
    assert_eq!(b.num_rows(), 42);
    let codes = b.column_by_name("country_code").unwrap().as_string::<i32>();
    let months = b.column_by_name("data_month").unwrap().as_string::<i32>();
    let at = |cc: &str| (0..b.num_rows()).find(|i| codes.value(*i) == cc).unwrap_or_else(|| panic!("{cc}"));
    let value = |cc: &str, column: &str| {
        let c = b.column_by_name(column).unwrap().as_primitive::<Float64Type>();
        let i = at(cc);
        (!c.is_null(i)).then(|| c.value(i))
    };
    use arrow::array::Array;
    // 2.5.7's example A and B inputs, from 2026's `<kind>year2026.csv` (the plain name answers 404).
    assert_eq!(months.value(at("JP")), "2026-09");
    assert_eq!(
        ["crude_imports_kbd", "gasoline_demand_kbd", "diesel_demand_kbd", "jet_demand_kbd", "lpg_demand_kbd"]
            .map(|c| value("JP", c)),
        [Some(2400.0), Some(820.0), Some(700.0), Some(180.0), Some(450.0)]
    );
    assert_eq!(
        (value("PK", "crude_imports_kbd"), value("PK", "crude_exports_kbd"), value("PK", "lpg_demand_kbd")),
        (Some(200.0), None, Some(0.0))
    );
    assert_eq!(months.value(at("NG")), "2026-08", "its September products are not assessed");
    assert_eq!((months.value(at("IR")), months.value(at("EG"))), ("2025-12", "2026-07"));
    assert_eq!(value("CL", "crude_imports_kbd"), Some(207.1891), "TOTCRUDE when there is no CRUDEOIL");
    assert_eq!(
        (value("IN", "diesel_demand_kbd"), value("US", "diesel_demand_kbd")),
        (None, Some(10500.0)),
        "over 10,000 is an error outside the US"
    );
    assert_eq!(value("US", "jet_exports_kbd"), None, "assessment code 3");

    for (scenario, why) in [("too-few", "12 countries"), ("down", "503")] {
        let report = replay_runner(lake.clone(), &[("jodi-oil", "normal"), ("jodi-oil", scenario)])
            .await
            .run(&only)
            .await
            .unwrap();
        let error = report.datasets[0].error.as_deref().unwrap_or("");
        assert!(!report.datasets[0].ok && error.contains(why), "{scenario}: {error}");
        assert_eq!(rows(&lake, DatasetId::JODI_OIL).await.num_rows(), 42, "{scenario}: the last version keeps serving");
    }
}

#[tokio::test]
async fn iea_stocks_by_member() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::IEA_STOCKS];
    let fields = [
        ("dataMonth", "data_month"),
        ("daysOfCover", "days_of_cover"),
        ("netExporter", "net_exporter"),
        ("anomaly", "anomaly"),
    ];
    let report = replay_runner(lake.clone(), &[("iea", "normal")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    let b = rows(&lake, DatasetId::IEA_STOCKS).await;
    assert_reference(&b, "country_code", &reference("iea", "normal"), &fields);
    assert_eq!(b.num_rows(), 32, "every member under IEA's own names; the Total rows skipped");

    let report = replay_runner(lake.clone(), &[("iea", "normal"), ("iea", "down")]).await.run(&only).await.unwrap();
    let error = report.datasets[0].error.as_deref().unwrap_or("");
    assert!(!report.datasets[0].ok && error.contains("502"), "{error}");
    assert_eq!(rows(&lake, DatasetId::IEA_STOCKS).await.num_rows(), 32, "the last version keeps serving");
    let report = replay_runner(lake.clone(), &[("iea", "empty")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok && report.datasets[0].rows == 0, "an empty month is a legitimate version");
}

#[tokio::test]
async fn comtrade_crude_for_each_jodi_importer() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let fields = [("year", "year"), ("gulfValueUsd", "gulf_value_usd"), ("totalValueUsd", "total_value_usd")];
    // Comtrade reads jodi-oil, which has never been published: the run fetches it first.
    let both = [("jodi-oil", "normal"), ("comtrade", "normal")];
    let report = replay_runner(lake.clone(), &both).await.run(&[DatasetId::COMTRADE_CRUDE]).await.unwrap();
    assert!(report.datasets.iter().all(|d| d.ok), "{:?}", report.datasets);
    let b = rows(&lake, DatasetId::COMTRADE_CRUDE).await;
    assert_reference(&b, "country_code", &reference("comtrade", "normal"), &fields);
    assert!(!reference("comtrade", "normal").contains_key("PK"), "worked example B: no Comtrade data in three years");

    // A reporter that fails keeps its previous record and is named; the others are fetched again.
    for (scenario, status) in [("down", "503"), ("rate-limited", "429")] {
        let scenarios = [("jodi-oil", "normal"), ("comtrade", "normal"), ("comtrade", scenario)];
        let report = replay_runner(lake.clone(), &scenarios).await.run(&[DatasetId::COMTRADE_CRUDE]).await.unwrap();
        let d = report.datasets.iter().find(|d| d.dataset == DatasetId::COMTRADE_CRUDE).unwrap();
        assert!(d.ok, "{scenario}: {:?}", d.error);
        let commit = lake.latest_commit().await.unwrap();
        let error = commit.dataset(DatasetId::COMTRADE_CRUDE).unwrap().freshness.last_error.clone().unwrap_or_default();
        assert!(error.contains("JP") && error.contains(status), "{scenario}: {error}");
        assert_reference(
            &rows(&lake, DatasetId::COMTRADE_CRUDE).await,
            "country_code",
            &reference("comtrade", "normal"),
            &fields,
        );
    }
}

#[tokio::test]
async fn gas_storage_from_agsi() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::GAS_STORAGE];
    let fields = [("fillPct", "fill_pct"), ("gasTwh", "gas_twh"), ("trend", "trend"), ("date", "date")];
    let report = replay_runner(lake.clone(), &[("gie", "normal")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    assert_reference(&rows(&lake, DatasetId::GAS_STORAGE).await, "country_code", &reference("gie", "normal"), &fields);

    let report = replay_runner(lake.clone(), &[("gie", "normal"), ("gie", "down")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    let commit = lake.latest_commit().await.unwrap();
    let error = commit.dataset(DatasetId::GAS_STORAGE).unwrap().freshness.last_error.clone().unwrap_or_default();
    assert!(error.contains("DE") && error.contains("401"), "{error}");
    assert_reference(&rows(&lake, DatasetId::GAS_STORAGE).await, "country_code", &reference("gie", "normal"), &fields);
}

#[tokio::test]
async fn spr_registry_from_our_file() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let report = replay_runner(lake.clone(), &[]).await.run(&[DatasetId::SPR_REGISTRY]).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    let b = rows(&lake, DatasetId::SPR_REGISTRY).await;
    let csv = std::fs::read_to_string(sitrep_tests::repo_root().join("data/reference/spr_registry.csv")).unwrap();
    assert_eq!(b.num_rows(), csv.lines().count() - 1, "one row per registry line");
    let at = |cc: &str| (0..b.num_rows()).find(|i| cell(&b, "country_code", *i) == json!(cc)).unwrap();
    let india = at("IN");
    assert_eq!(
        ["regime", "operator", "capacity_mb", "iea_member"].map(|c| cell(&b, c, india)),
        [json!("government_spr"), json!("ISPRL"), json!(39.0), json!(false)]
    );
    assert_eq!(cell(&b, "iea_member", at("JP")), json!(true));
}

#[tokio::test]
async fn jodi_gas_from_the_world_zip() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::JODI_GAS];
    let fields = [
        ("dataMonth", "data_month"),
        ("lngImportsTj", "lng_imports_tj"),
        ("pipeImportsTj", "pipe_imports_tj"),
        ("totalImportsTj", "total_imports_tj"),
        ("totalDemandTj", "total_demand_tj"),
        ("productionTj", "production_tj"),
        ("closingStockTj", "closing_stock_tj"),
        ("lngShareOfImports", "lng_share_of_imports"),
    ];
    let report = replay_runner(lake.clone(), &[("jodi-gas", "normal")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    assert_reference(
        &rows(&lake, DatasetId::JODI_GAS).await,
        "country_code",
        &reference("jodi-gas", "normal"),
        &fields,
    );
    for (scenario, why) in [("too-few", "20 countries"), ("down", "503")] {
        let scenarios = [("jodi-gas", "normal"), ("jodi-gas", scenario)];
        let report = replay_runner(lake.clone(), &scenarios).await.run(&only).await.unwrap();
        let error = report.datasets[0].error.as_deref().unwrap_or("");
        assert!(!report.datasets[0].ok && error.contains(why), "{scenario}: {error}");
        assert_eq!(rows(&lake, DatasetId::JODI_GAS).await.num_rows(), 55, "{scenario}: the last version keeps serving");
    }
}

#[tokio::test]
async fn ember_fossil_share_per_country() {
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_ingest::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let only = [DatasetId::EMBER_MIX];
    let report = replay_runner(lake.clone(), &[("ember", "normal")]).await.run(&only).await.unwrap();
    assert!(report.datasets[0].ok, "{:?}", report.datasets);
    // The reference is keyed by ISO 3 code; the dataset by alpha-2.
    let by_alpha2: serde_json::Map<String, Value> = reference("ember", "normal")
        .into_iter()
        .map(|(iso3, v)| (sitrep_schemas::countries::alpha2_from_alpha3(&iso3).unwrap().to_string(), v))
        .collect();
    let fields = [("dataMonth", "data_month"), ("fossilShare", "fossil_share")];
    assert_reference(&rows(&lake, DatasetId::EMBER_MIX).await, "country_code", &by_alpha2, &fields);
    let report = replay_runner(lake.clone(), &[("ember", "normal"), ("ember", "down")]).await.run(&only).await.unwrap();
    let error = report.datasets[0].error.as_deref().unwrap_or("");
    assert!(!report.datasets[0].ok && error.contains("500"), "{error}");
    assert_eq!(rows(&lake, DatasetId::EMBER_MIX).await.num_rows(), 42, "the last version keeps serving");
}
