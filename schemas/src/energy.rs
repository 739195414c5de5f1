//! The energy-shock input datasets (SUPPLEMENT 2.5.3) built so far: `chokepoint-flows` (IMF
//! PortWatch) and `jodi-oil` (JODI's annual oil CSVs). ComputeEnergyShockScenario will read them,
//! with the other inputs, from one generation.

use std::{sync::OnceLock, time::Duration};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::{
    dataset::{DatasetDescriptor, Partitioning},
    fields::{cached, date, float64_or_null, utf8},
};

/// One row per chokepoint with at least 40 days of PortWatch transits: the last 7 days against the
/// 90 before them, in DWT when the baseline has tanker capacity on at least half of its days, else
/// in tanker counts (`basis`).
pub fn chokepoint_flows_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("chokepoint_id"),
            Field::new("flow_ratio", DataType::Float64, false),
            Field::new("current_mbd", DataType::Float64, false),
            Field::new("baseline_mbd", DataType::Float64, false),
            Field::new("disrupted", DataType::Boolean, false),
            utf8("basis"),
            Field::new("days", DataType::Int32, false),
            date("last_day"),
        ])
    })
}

/// `chokepoint-flows`: IMF PortWatch daily chokepoint transits, every 6 hours.
pub static CHOKEPOINT_FLOWS: DatasetDescriptor = DatasetDescriptor {
    id: "chokepoint-flows",
    table: "chokepoint_flows",
    group: "intelligence",
    provider: "IMF PortWatch (daily chokepoint transits)",
    license: "IMF PortWatch terms (attribution)",
    cadence: Duration::from_secs(6 * 3600),
    cron: "0 40 */6 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "chokepoint_id",
    schema: chokepoint_flows_schema,
    operations: &[],
};

/// The products of a JODI oil record, as column prefixes, in 2.5.3's order.
pub const JODI_PRODUCTS: [&str; 5] = ["gasoline", "diesel", "jet", "fuel_oil", "lpg"];
/// Their flows, as column suffixes.
pub const JODI_PRODUCT_FLOWS: [&str; 4] = ["demand_kbd", "ref_output_kbd", "imports_kbd", "exports_kbd"];
/// Crude's flows, as columns.
pub const JODI_CRUDE_COLUMNS: [&str; 4] =
    ["crude_production_kbd", "crude_refinery_intake_kbd", "crude_imports_kbd", "crude_exports_kbd"];

/// One row per country: its JODI month (`data_month`, the newest month with an assessed
/// secondary-product row) and that month's crude and product balances in kb/d (null = not reported).
pub fn jodi_oil_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        let mut fields = vec![utf8("country_code"), utf8("data_month")];
        fields.extend(JODI_CRUDE_COLUMNS.iter().map(|c| float64_or_null(c)));
        for p in JODI_PRODUCTS {
            fields.extend(JODI_PRODUCT_FLOWS.iter().map(|f| float64_or_null(&format!("{p}_{f}"))));
        }
        Schema::new(fields)
    })
}

/// `jodi-oil`: JODI Oil World Database annual CSVs, checked weekly.
pub static JODI_OIL: DatasetDescriptor = DatasetDescriptor {
    id: "jodi-oil",
    table: "jodi_oil",
    group: "intelligence",
    provider: "JODI Oil World Database",
    license: "JODI terms (free use with attribution)",
    cadence: Duration::from_secs(7 * 24 * 3600),
    // Checked daily: an unchanged file publishes no new version (the content hash).
    cron: "0 50 4 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "country_code",
    schema: jodi_oil_schema,
    operations: &[],
};
