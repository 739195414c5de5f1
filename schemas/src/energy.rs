//! The energy-shock input datasets (SUPPLEMENT 2.5.3): chokepoint flows (IMF PortWatch), JODI oil
//! and gas balances, IEA stock cover, Comtrade's Gulf crude share, Ember's fossil share, EU gas
//! storage (GIE AGSI+) and our SPR registry. ComputeEnergyShockScenario reads them all from one
//! generation.

use std::{sync::OnceLock, time::Duration};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::content_clock::{days, ContentClock};
use crate::{
    descriptor::{DatasetDescriptor, Partitioning},
    fields::{cached, date, float64_or_null, int32_or_null, utf8, utf8_or_null},
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
    row_key: &["chokepoint_id"],
    content_clock: ContentClock::Column { column: "last_day", frozen_after: days(7) },
    schema: chokepoint_flows_schema,
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
    row_key: &["country_code"],
    content_clock: ContentClock::Column { column: "data_month", frozen_after: days(150) },
    schema: jodi_oil_schema,
};

/// One row per country: its JODI gas month (the newest with a kept TJ row) and that month's flows
/// in TJ; `lng_share_of_imports` = LNG imports over total imports (null without both).
pub fn jodi_gas_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("country_code"),
            utf8("data_month"),
            float64_or_null("lng_imports_tj"),
            float64_or_null("pipe_imports_tj"),
            float64_or_null("total_imports_tj"),
            float64_or_null("total_demand_tj"),
            float64_or_null("production_tj"),
            float64_or_null("closing_stock_tj"),
            float64_or_null("lng_share_of_imports"),
        ])
    })
}

/// `jodi-gas`: JODI Gas World Database (the world ZIP), checked daily, published weekly at most.
pub static JODI_GAS: DatasetDescriptor = DatasetDescriptor {
    id: "jodi-gas",
    table: "jodi_gas",
    group: "intelligence",
    provider: "JODI Gas World Database",
    license: "JODI terms (free use with attribution)",
    cadence: Duration::from_secs(7 * 24 * 3600),
    // Checked daily like jodi-oil: an unchanged file publishes no new version.
    cron: "0 55 4 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "country_code",
    row_key: &["country_code"],
    content_clock: ContentClock::Column { column: "data_month", frozen_after: days(150) },
    schema: jodi_gas_schema,
};

/// One row per IEA member in the newest month of IEA's net-imports cover: days of cover (null for
/// a net exporter), whether IEA calls it a net exporter, and whether the figure is an anomaly (> 500).
pub fn iea_stocks_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("country_code"),
            utf8("data_month"),
            int32_or_null("days_of_cover"),
            Field::new("net_exporter", DataType::Boolean, false),
            Field::new("anomaly", DataType::Boolean, false),
        ])
    })
}

/// `iea-stocks`: IEA's monthly oil stocks in days of net imports.
pub static IEA_STOCKS: DatasetDescriptor = DatasetDescriptor {
    id: "iea-stocks",
    table: "iea_stocks",
    group: "intelligence",
    provider: "IEA Oil Stocks (net-imports cover)",
    license: "IEA terms of use",
    cadence: Duration::from_secs(7 * 24 * 3600),
    cron: "0 0 5 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "country_code",
    row_key: &["country_code"],
    content_clock: ContentClock::Column { column: "data_month", frozen_after: days(120) },
    schema: iea_stocks_schema,
};

/// One row per importing country: its crude imports (HS 2709) in the newest of the last three
/// years Comtrade has, from the six Gulf partners and in total.
pub fn comtrade_crude_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("country_code"),
            Field::new("year", DataType::Int32, false),
            Field::new("gulf_value_usd", DataType::Float64, false),
            Field::new("total_value_usd", DataType::Float64, false),
        ])
    })
}

/// `comtrade-crude`: UN Comtrade's public preview, one reporter per jodi-oil importer.
pub static COMTRADE_CRUDE: DatasetDescriptor = DatasetDescriptor {
    id: "comtrade-crude",
    table: "comtrade_crude",
    group: "intelligence",
    provider: "UN Comtrade (public preview API)",
    license: "UN Comtrade terms of use",
    cadence: Duration::from_secs(7 * 24 * 3600),
    // About weekly, in numeric fields: the 1st, 8th, 15th, 22nd and 29th of the month.
    cron: "0 10 5 1,8,15,22,29 * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "country_code",
    row_key: &["country_code"],
    content_clock: ContentClock::Hash { frozen_after: days(400) },
    schema: comtrade_crude_schema,
};

/// One row per country: Ember's fossil share of electricity generation (%) in its newest month.
pub fn ember_mix_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("country_code"),
            utf8("data_month"),
            Field::new("fossil_share", DataType::Float64, false),
        ])
    })
}

/// `ember-mix`: Ember's monthly electricity data (long format), daily.
pub static EMBER_MIX: DatasetDescriptor = DatasetDescriptor {
    id: "ember-mix",
    table: "ember_mix",
    group: "intelligence",
    provider: "Ember (monthly electricity data)",
    license: "CC-BY-4.0",
    cadence: Duration::from_secs(24 * 3600),
    cron: "0 20 5 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "country_code",
    row_key: &["country_code"],
    content_clock: ContentClock::Column { column: "data_month", frozen_after: days(120) },
    schema: ember_mix_schema,
};

/// The countries AGSI+ is asked for and whose storage the scenario uses (2.5.3's EU set, with GB).
pub const GAS_STORAGE_COUNTRIES: [&str; 28] = [
    "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU", "MT",
    "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "GB",
];

/// One row per EU-set country with gas storage: AGSI+'s newest gas day, fill level, gas in storage
/// and the day-on-day trend of the fill level.
pub fn gas_storage_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("country_code"),
            Field::new("fill_pct", DataType::Float64, false),
            Field::new("gas_twh", DataType::Float64, false),
            utf8("trend"),
            date("date"),
        ])
    })
}

/// `gas-storage`: GIE AGSI+ (needs `GIE_API_KEY`), daily.
pub static GAS_STORAGE: DatasetDescriptor = DatasetDescriptor {
    id: "gas-storage",
    table: "gas_storage",
    group: "intelligence",
    provider: "GIE AGSI+",
    license: "GIE AGSI+ terms (attribution)",
    cadence: Duration::from_secs(24 * 3600),
    cron: "0 30 19 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "country_code",
    row_key: &["country_code"],
    content_clock: ContentClock::Column { column: "date", frozen_after: days(3) },
    schema: gas_storage_schema,
};

/// One row per classified country: its strategic reserve regime (government_spr,
/// mandatory_stockholding, commercial_only, none, spare_capacity), operator, capacity in Mb and
/// IEA membership.
pub fn spr_registry_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("country_code"),
            utf8("regime"),
            utf8_or_null("operator"),
            float64_or_null("capacity_mb"),
            Field::new("iea_member", DataType::Boolean, false),
        ])
    })
}

/// `spr-registry`: our registry of strategic petroleum reserves (`data/reference/spr_registry.csv`).
pub static SPR_REGISTRY: DatasetDescriptor = DatasetDescriptor {
    id: "spr-registry",
    table: "spr_registry",
    group: "intelligence",
    provider: "sitrep SPR registry (authored from public sources)",
    license: "CC-BY-4.0",
    cadence: Duration::from_secs(24 * 3600),
    cron: "0 0 6 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "country_code",
    row_key: &["country_code"],
    content_clock: ContentClock::Static,
    schema: spr_registry_schema,
};

crate::closed_set!(
    /// Which way a country's gas storage fill level moved the last day (2.5.3).
    GasStorageTrend,
    "GasStorageTrend",
    [Injecting = "injecting", Withdrawing = "withdrawing", Stable = "stable"]
);
