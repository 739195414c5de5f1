//! The Aviation group's SQL over a dataset version's serving table (qualified `table`, from the
//! version itself; values are never interpolated).

use duckdb::Connection;

use super::model::{EmergencyFeed, EmergencyObservation};

pub fn emergency_feeds(conn: &Connection, table: &str) -> duckdb::Result<Vec<EmergencyFeed>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT squawk, source, feed_status, feed_message, fetched_at FROM {table} WHERE row_kind = 'feed' ORDER BY squawk"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(EmergencyFeed {
            squawk: r.get(0)?,
            source: r.get(1)?,
            status: r.get(2)?,
            message: r.get(3)?,
            fetched_at: r.get(4)?,
        })
    })?;
    rows.collect()
}

pub fn emergency_observations(conn: &Connection, table: &str) -> duckdb::Result<Vec<EmergencyObservation>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT address, callsign, description, squawk, observed_at, source, military_flag FROM {table}
         WHERE row_kind = 'observation' ORDER BY squawk, observed_at DESC, address"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(EmergencyObservation {
            address: r.get(0)?,
            callsign: r.get(1)?,
            description: r.get(2)?,
            squawk: r.get(3)?,
            observed_at: r.get(4)?,
            source: r.get(5)?,
            military_flag: r.get(6)?,
        })
    })?;
    rows.collect()
}
