//! The Climate group's SQL over a dataset version's serving table (qualified `table`, from the
//! version itself; values are never interpolated).

use duckdb::{params, Connection};

use super::model::{
    AirQualityStation, ClimateAnomaly, ClimateDisaster, ClimateNewsItem, Co2Monitoring, Co2TrendPoint, GeoCoordinates,
    IceMonth, OceanIceData,
};
use sitrep_platform::kit::paged_list::{Page, PageOf};

/// The summary row and the trend rows of `co2-monitoring`.
pub fn co2_monitoring(conn: &Connection, table: &str) -> duckdb::Result<Option<Co2Monitoring>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT month, ppm, anomaly FROM {table} WHERE row_kind = 'trend' ORDER BY position"
    ))?;
    let trend12m = stmt
        .query_map([], |r| Ok(Co2TrendPoint { month: r.get(0)?, ppm: r.get(1)?, anomaly: r.get(2)? }))?
        .collect::<duckdb::Result<Vec<_>>>()?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT current_ppm, year_ago_ppm, annual_growth_rate, pre_industrial_baseline, monthly_average, methane_ppb,
         nitrous_oxide_ppb, measured_at, station FROM {table} WHERE row_kind = 'summary'"
    ))?;
    let mut rows = stmt.query_map([], |r| {
        Ok(Co2Monitoring {
            current_ppm: r.get(0)?,
            year_ago_ppm: r.get(1)?,
            annual_growth_rate: r.get(2)?,
            pre_industrial_baseline: r.get(3)?,
            monthly_average: r.get(4)?,
            trend12m: Vec::new(),
            methane_ppb: r.get(5)?,
            nitrous_oxide_ppb: r.get(6)?,
            measured_at: r.get::<_, i64>(7)?.to_string(),
            station: r.get(8)?,
        })
    })?;
    Ok(rows.next().transpose()?.map(|m| Co2Monitoring { trend12m, ..m }))
}

/// Every station of `air-quality`, in dataset order.
pub fn air_quality_stations(conn: &Connection, table: &str) -> duckdb::Result<Vec<AirQualityStation>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT city, country_code, lat, lng, pm25, aqi, risk_level, pollutant, measured_at, source FROM {table}
         ORDER BY position"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(AirQualityStation {
            city: r.get(0)?,
            country_code: r.get(1)?,
            lat: r.get(2)?,
            lng: r.get(3)?,
            pm25: r.get(4)?,
            aqi: r.get(5)?,
            risk_level: r.get(6)?,
            pollutant: r.get(7)?,
            measured_at: r.get(8)?,
            source: r.get(9)?,
        })
    })?;
    rows.collect()
}

/// Every item of `climate-news`, newest first.
pub fn climate_news(conn: &Connection, table: &str) -> duckdb::Result<Vec<ClimateNewsItem>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, title, url, source_name, summary, published_at FROM {table} ORDER BY position"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(ClimateNewsItem {
            id: r.get(0)?,
            title: r.get(1)?,
            url: r.get(2)?,
            source_name: r.get(3)?,
            summary: r.get(4)?,
            published_at: r.get(5)?,
        })
    })?;
    rows.collect()
}

/// The summary and the 12 ice months of `ocean-ice` (null values: sources that never answered).
pub fn ocean_ice(conn: &Connection, table: &str) -> duckdb::Result<Option<OceanIceData>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT month, extent_mkm2, anomaly_mkm2 FROM {table} WHERE row_kind = 'ice_month' ORDER BY position"
    ))?;
    let ice_trend12m = stmt
        .query_map([], |r| Ok(IceMonth { month: r.get(0)?, extent_mkm2: r.get(1)?, anomaly_mkm2: r.get(2)? }))?
        .collect::<duckdb::Result<Vec<_>>>()?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT arctic_extent_mkm2, arctic_extent_anomaly_mkm2, arctic_trend, sea_level_mm_above_1993,
         sea_level_annual_rise_mm, ohc_0700m_zj, sst_anomaly_c,
         greatest(ice_measured_at, ohc_measured_at, sst_measured_at) FROM {table} WHERE row_kind = 'summary'"
    ))?;
    let mut rows = stmt.query_map([], |r| {
        Ok(OceanIceData {
            arctic_extent_mkm2: r.get(0)?,
            arctic_extent_anomaly_mkm2: r.get(1)?,
            arctic_trend: r.get(2)?,
            sea_level_mm_above1993: r.get(3)?,
            sea_level_annual_rise_mm: r.get(4)?,
            ohc0700m_zj: r.get(5)?,
            sst_anomaly_c: r.get(6)?,
            measured_at: r.get(7)?,
            ice_trend12m: Vec::new(),
        })
    })?;
    Ok(rows.next().transpose()?.map(|d| OceanIceData { ice_trend12m, ..d }))
}

/// A page of `climate-anomalies` in zone order, and the zone count.
pub fn climate_anomalies(conn: &Connection, table: &str, page: Page) -> PageOf<ClimateAnomaly> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT zone, lat, lng, temp_delta, precip_delta, severity, type, period FROM {table}
         ORDER BY position LIMIT ? OFFSET ?"
    ))?;
    let rows = stmt
        .query_map(params![page.limit, page.offset], |r| {
            Ok(ClimateAnomaly {
                zone: r.get(0)?,
                location: GeoCoordinates { latitude: r.get(1)?, longitude: r.get(2)? },
                temp_delta: r.get(3)?,
                precip_delta: r.get(4)?,
                severity: r.get(5)?,
                kind: r.get(6)?,
                period: r.get(7)?,
            })
        })?
        .collect::<duckdb::Result<Vec<_>>>()?;
    Ok((rows, count(conn, table)?))
}

/// A page of `climate-disasters`, newest first, and the disaster count.
pub fn climate_disasters(conn: &Connection, table: &str, page: Page) -> PageOf<ClimateDisaster> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, type, name, country, country_code, lat, lng, severity, started_at, status,
         affected_population, source, source_url FROM {table} ORDER BY position LIMIT ? OFFSET ?"
    ))?;
    let rows = stmt
        .query_map(params![page.limit, page.offset], |r| {
            Ok(ClimateDisaster {
                id: r.get(0)?,
                kind: r.get(1)?,
                name: r.get(2)?,
                country: r.get(3)?,
                country_code: r.get(4)?,
                lat: r.get(5)?,
                lng: r.get(6)?,
                severity: r.get(7)?,
                started_at: r.get(8)?,
                status: r.get(9)?,
                affected_population: r.get(10)?,
                source: r.get(11)?,
                source_url: r.get(12)?,
            })
        })?
        .collect::<duckdb::Result<Vec<_>>>()?;
    Ok((rows, count(conn, table)?))
}

fn count(conn: &Connection, table: &str) -> duckdb::Result<i64> {
    conn.prepare_cached(&format!("SELECT count(*) FROM {table}"))?.query_row([], |r| r.get(0))
}
