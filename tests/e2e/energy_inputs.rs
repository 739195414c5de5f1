//! The energy-shock input datasets built so far, end to end from their recordings:
//! `chokepoint-flows` (IMF PortWatch, paged) and `jodi-oil` (JODI's annual CSVs). Expected values
//! come from the reference computations in each fixture generator.

use arrow::array::AsArray;
use arrow::datatypes::Float64Type;
use sitrep_schemas::DatasetId;
use sitrep_tests::replay_runner;

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
