//! The Aviation group's SQL over a dataset version's serving table (qualified `table`, from the
//! version itself; values are never interpolated).

use duckdb::{params, Connection};

use super::model::{
    AircraftPosition, AirportDelayAlert, AirportRef, Carrier, EmergencyFeed, EmergencyObservation, Flight,
    GeoCoordinates,
};
use crate::sql_values::text_list;
use sitrep_platform::kit::{paged_list::Page, wire_name::WireName};
use sitrep_schemas::aviation::{AirportOpsSource, NotamFlag};

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

const ALERT_COLUMNS: &str = "id, iata, icao, name, city, country, latitude, longitude, region, delay_type, severity, \
     avg_delay_minutes, delayed_flights_pct, cancelled_flights, total_flights, reason, source, updated_at";

fn alert(r: &duckdb::Row) -> duckdb::Result<AirportDelayAlert> {
    Ok(AirportDelayAlert {
        id: r.get(0)?,
        iata: r.get(1)?,
        icao: r.get(2)?,
        name: r.get(3)?,
        city: r.get(4)?,
        country: r.get(5)?,
        location: GeoCoordinates { latitude: r.get(6)?, longitude: r.get(7)? },
        region: r.get(8)?,
        delay_type: r.get(9)?,
        severity: r.get(10)?,
        avg_delay_minutes: r.get(11)?,
        delayed_flights_pct: r.get(12)?,
        cancelled_flights: r.get(13)?,
        total_flights: r.get(14)?,
        reason: r.get(15)?,
        source: r.get(16)?,
        updated_at: r.get(17)?,
    })
}

/// A page of the alerts in dataset order, and how many there are.
pub fn airport_delay_alerts(
    conn: &Connection,
    table: &str,
    page: Page,
) -> duckdb::Result<(Vec<AirportDelayAlert>, i64)> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {ALERT_COLUMNS} FROM {table} WHERE row_kind = 'alert' ORDER BY position LIMIT ? OFFSET ?"
    ))?;
    let alerts = stmt.query_map(params![page.limit, page.offset], alert)?.collect::<duckdb::Result<Vec<_>>>()?;
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM {table} WHERE row_kind = 'alert'"))?
        .query_row([], |r| r.get(0))?;
    Ok((alerts, total))
}

/// An airport's alert with what GetAirportOpsSummary derives from it.
pub struct AlertFacts {
    pub alert: AirportDelayAlert,
    /// `faa`, `aviationstack`, `notam` or `filler`.
    pub component: String,
    /// `CLOSED` or `RESTRICTED`.
    pub notam_flag: Option<WireName<NotamFlag>>,
    pub notam_text: Option<String>,
    /// `faa`, `aviationstack` or `degraded`.
    pub coverage: WireName<AirportOpsSource>,
}

/// Every airport's alert (one per registry airport), in dataset order.
pub fn airport_alert_facts(conn: &Connection, table: &str) -> duckdb::Result<Vec<AlertFacts>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {ALERT_COLUMNS}, component, notam_flag, notam_text, coverage FROM {table}
         WHERE row_kind = 'alert' ORDER BY position"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(AlertFacts {
            alert: alert(r)?,
            component: r.get(18)?,
            notam_flag: r.get(19)?,
            notam_text: r.get(20)?,
            coverage: r.get(21)?,
        })
    })?;
    rows.collect()
}

/// A watch-list page of `airport-flights`: whether it was fetched, when, and its flights in order.
pub struct WatchPage {
    pub ok: bool,
    pub fetched_at: i64,
    pub flights: Vec<Flight>,
}

const FLIGHT_COLUMNS: &str = "flight_number, date, carrier_iata, carrier_icao, carrier_name, \
     origin_iata, origin_icao, origin_name, origin_timezone, destination_iata, destination_icao, destination_name, \
     destination_timezone, scheduled_departure, estimated_departure, actual_departure, scheduled_arrival, \
     estimated_arrival, actual_arrival, flight_status, delay_minutes, cancelled, diverted, gate, terminal, \
     aircraft_icao24, aircraft_type, codeshare_flight_numbers, fetched_at";

fn flight_row(r: &duckdb::Row) -> duckdb::Result<Flight> {
    let time = |i: usize| -> duckdb::Result<i64> { Ok(r.get::<_, Option<i64>>(i)?.unwrap_or(0)) };
    let airport = |i: usize| -> duckdb::Result<AirportRef> {
        Ok(AirportRef { iata: r.get(i)?, icao: r.get(i + 1)?, name: r.get(i + 2)?, timezone: r.get(i + 3)? })
    };
    Ok(Flight {
        flight_number: r.get(0)?,
        date: r.get(1)?,
        operating_carrier: Carrier { iata_code: r.get(2)?, icao_code: r.get(3)?, name: r.get(4)? },
        origin: airport(5)?,
        destination: airport(9)?,
        scheduled_departure: time(13)?,
        estimated_departure: time(14)?,
        actual_departure: time(15)?,
        scheduled_arrival: time(16)?,
        estimated_arrival: time(17)?,
        actual_arrival: time(18)?,
        status: r.get(19)?,
        delay_minutes: r.get(20)?,
        cancelled: r.get(21)?,
        diverted: r.get(22)?,
        gate: r.get(23)?,
        terminal: r.get(24)?,
        aircraft_icao24: r.get(25)?,
        aircraft_type: r.get(26)?,
        codeshare_flight_numbers: text_list(r, 27)?,
        source: "aviationstack".into(),
        updated_at: r.get(28)?,
    })
}

/// The page of `airport` in `direction` (`DEPARTURE`, `ARRIVAL`), if the watch list has it.
pub fn watch_page(conn: &Connection, table: &str, airport: &str, direction: &str) -> duckdb::Result<Option<WatchPage>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT status, fetched_at FROM {table} WHERE row_kind = 'page' AND airport = ? AND direction = ?"
    ))?;
    let page: Option<(String, i64)> =
        stmt.query_map(params![airport, direction], |r| Ok((r.get(0)?, r.get(1)?)))?.next().transpose()?;
    let Some((status, fetched_at)) = page else { return Ok(None) };
    if status != "ok" {
        return Ok(Some(WatchPage { ok: false, fetched_at, flights: Vec::new() }));
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {FLIGHT_COLUMNS} FROM {table} WHERE row_kind = 'flight' AND airport = ? AND direction = ? ORDER BY position"
    ))?;
    let flights = stmt.query_map(params![airport, direction], flight_row)?.collect::<duckdb::Result<Vec<_>>>()?;
    Ok(Some(WatchPage { ok: true, fetched_at, flights }))
}

/// A watched route's fare on one departure date, as the lake holds it.
pub struct WatchedFare {
    pub airline: String,
    pub price: f64,
    pub currency: String,
    pub transfers: i32,
    pub duration_minutes: i32,
    pub link: String,
    pub expires_at: i64,
}

/// The watch list's fares of a route on `date` (`YYYY-MM-DD`), cheapest first, with their fetch
/// time — `None` unless the route's month was fetched and the date is inside its window.
pub fn watched_fares(
    conn: &Connection,
    table: &str,
    origin: &str,
    destination: &str,
    date: &str,
) -> duckdb::Result<Option<(i64, Vec<WatchedFare>)>> {
    let month = date.get(..7).unwrap_or("");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT fetched_at FROM {table} WHERE row_kind = 'month' AND status = 'ok' AND origin = ? AND destination = ?
         AND month = ? AND ? BETWEEN window_start AND window_end"
    ))?;
    let fetched: Option<i64> =
        stmt.query_map(params![origin, destination, month, date], |r| r.get(0))?.next().transpose()?;
    let Some(fetched_at) = fetched else { return Ok(None) };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT airline, price, currency, transfers, duration_minutes, link, expires_at FROM {table}
         WHERE row_kind = 'fare' AND origin = ? AND destination = ? AND departure_date = ? ORDER BY price, position"
    ))?;
    let fares = stmt
        .query_map(params![origin, destination, date], |r| {
            Ok(WatchedFare {
                airline: r.get(0)?,
                price: r.get(1)?,
                currency: r.get(2)?,
                transfers: r.get(3)?,
                duration_minutes: r.get(4)?,
                link: r.get(5)?,
                expires_at: r.get(6)?,
            })
        })?
        .collect::<duckdb::Result<Vec<_>>>()?;
    Ok(Some((fetched_at, fares)))
}

/// A watched box's aircraft and their fetch time, if the box was fetched.
pub fn watched_aircraft(
    conn: &Connection,
    table: &str,
    bbox: &str,
) -> duckdb::Result<Option<(i64, Vec<AircraftPosition>)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT fetched_at FROM {table} WHERE row_kind = 'box' AND status = 'ok' AND box = ?"
    ))?;
    let fetched: Option<i64> = stmt.query_map(params![bbox], |r| r.get(0))?.next().transpose()?;
    let Some(fetched_at) = fetched else { return Ok(None) };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT icao24, callsign, lat, lon, altitude_m, ground_speed_kts, track_deg, vertical_rate, on_ground, source,
         observed_at FROM {table} WHERE row_kind = 'position' AND box = ? ORDER BY icao24"
    ))?;
    let positions = stmt
        .query_map(params![bbox], |r| {
            Ok(AircraftPosition {
                icao24: r.get(0)?,
                callsign: r.get(1)?,
                lat: r.get(2)?,
                lon: r.get(3)?,
                altitude_m: r.get(4)?,
                ground_speed_kts: r.get(5)?,
                track_deg: r.get(6)?,
                vertical_rate: r.get(7)?,
                on_ground: r.get(8)?,
                source: r.get(9)?,
                observed_at: r.get(10)?,
            })
        })?
        .collect::<duckdb::Result<Vec<_>>>()?;
    Ok(Some((fetched_at, positions)))
}
