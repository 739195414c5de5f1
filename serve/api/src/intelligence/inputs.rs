//! The energy-shock inputs of one country and chokepoint, read from the current generation's
//! eight input versions in one trip to the engine (one pooled connection, one point lookup per
//! table; the tables are a few hundred rows each).

use std::sync::Arc;

use duckdb::{Connection, Row};
use sitrep_schemas::{energy::GAS_STORAGE_COUNTRIES, DatasetId};

use super::energy_shock::{ChokepointFlow, Comtrade, GasStorageRow, IeaStocks, Inputs, JodiGas, JodiOil, SprEntry};
use sitrep_platform::snapshot::{DatasetDb, DbError};

/// The input datasets, in the order [`read`] takes their versions. jodi-oil first: MCP names the
/// first dataset of an unavailable answer.
pub const DATASETS: &[DatasetId] = &[
    DatasetId::JODI_OIL,
    DatasetId::CHOKEPOINT_FLOWS,
    DatasetId::JODI_GAS,
    DatasetId::IEA_STOCKS,
    DatasetId::COMTRADE_CRUDE,
    DatasetId::EMBER_MIX,
    DatasetId::GAS_STORAGE,
    DatasetId::SPR_REGISTRY,
];

/// The inputs of `country` and `chokepoint` from `dbs` (in [`DATASETS`] order; None = never published).
pub async fn read(dbs: Vec<Option<Arc<DatasetDb>>>, country: String, chokepoint: String) -> Result<Inputs, DbError> {
    let Some(engine_user) = dbs.iter().flatten().next().cloned() else { return Ok(Inputs::default()) };
    let tables: Vec<Option<String>> = dbs.iter().map(|d| d.as_ref().map(|d| d.table().to_string())).collect();
    // The versions move into the query: a cancelled request cannot detach a table mid-read.
    engine_user
        .query(move |c| {
            let _attached = &dbs;
            read_all(c, &tables, &country, &chokepoint)
        })
        .await
}

/// The one row of `table` whose `key_column` is `key`, mapped; None without a table or a row.
fn one<T>(
    c: &Connection,
    table: &Option<String>,
    columns: &str,
    key_column: &str,
    key: &str,
    map: impl FnOnce(&Row) -> duckdb::Result<T>,
) -> duckdb::Result<Option<T>> {
    let Some(table) = table else { return Ok(None) };
    let mut stmt = c.prepare_cached(&format!("SELECT {columns} FROM {table} WHERE {key_column} = ? LIMIT 1"))?;
    let mut rows = stmt.query([key])?;
    rows.next()?.map(map).transpose()
}

fn read_all(c: &Connection, t: &[Option<String>], country: &str, chokepoint: &str) -> duckdb::Result<Inputs> {
    const CC: &str = "country_code";
    let oil_columns =
        "crude_imports_kbd, crude_exports_kbd, gasoline_demand_kbd, diesel_demand_kbd, jet_demand_kbd, lpg_demand_kbd";
    let jodi_oil = one(c, &t[0], oil_columns, CC, country, |r| {
        Ok(JodiOil {
            crude_imports_kbd: r.get(0)?,
            crude_exports_kbd: r.get(1)?,
            demand_kbd: [r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?],
        })
    })?;
    let flow =
        one(c, &t[1], "flow_ratio", "chokepoint_id", chokepoint, |r| Ok(ChokepointFlow { flow_ratio: r.get(0)? }))?;
    let jodi_gas = one(c, &t[2], "lng_imports_tj, total_demand_tj, lng_share_of_imports", CC, country, |r| {
        // A flow JODI does not report counts as none.
        let zero = |v: Option<f64>| v.unwrap_or(0.0);
        Ok(JodiGas {
            lng_imports_tj: zero(r.get(0)?),
            total_demand_tj: zero(r.get(1)?),
            lng_share_of_imports: zero(r.get(2)?),
        })
    })?;
    let iea = one(c, &t[3], "days_of_cover, net_exporter, anomaly", CC, country, |r| {
        Ok(IeaStocks {
            days_of_cover: r.get::<_, Option<i32>>(0)?.map(i64::from),
            net_exporter: r.get(1)?,
            anomaly: r.get(2)?,
        })
    })?;
    let comtrade = one(c, &t[4], "gulf_value_usd, total_value_usd", CC, country, |r| {
        Ok(Comtrade { gulf_value_usd: r.get(0)?, total_value_usd: r.get(1)? })
    })?;
    let fossil_share = one(c, &t[5], "fossil_share", CC, country, |r| r.get::<_, f64>(0))?;
    let storage = match GAS_STORAGE_COUNTRIES.contains(&country) {
        true => one(c, &t[6], "fill_pct, gas_twh, trend, date", CC, country, |r| {
            Ok(GasStorageRow { fill_pct: r.get(0)?, gas_twh: r.get(1)?, trend: r.get(2)?, date: r.get(3)? })
        })?,
        false => None,
    };
    let spr = one(c, &t[7], "regime, operator, capacity_mb, iea_member", CC, country, |r| {
        Ok(SprEntry { regime: r.get(0)?, operator: r.get(1)?, capacity_mb: r.get(2)?, iea_member: r.get(3)? })
    })?;
    Ok(Inputs { flow, jodi_oil, comtrade, iea, fossil_share, spr, jodi_gas, storage })
}
