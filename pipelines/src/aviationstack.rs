//! AviationStack `/v1/flights` (SUPPLEMENT 2.1.2, 2.1.4): flight rows and the Flight record
//! mapping shared by the airport-flights, carrier-ops and flight-status operations. The access key
//! travels as a query parameter (`access_key`), so URLs are redacted in every error.

use chrono::DateTime;
use reqwest::{header::HeaderMap, Method};
use serde::Deserialize;
use sitrep_schemas::aviation::FlightStatus;
use url::Url;

use crate::{http::Http, SourceError};

pub const BASE: &str = "https://api.aviationstack.com";

#[derive(Debug, Deserialize)]
struct Page {
    #[serde(default)]
    data: Option<Vec<Row>>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Row {
    pub flight_date: Option<String>,
    pub flight_status: Option<String>,
    pub departure: Endpoint,
    pub arrival: Endpoint,
    pub airline: Airline,
    pub flight: FlightNumber,
    pub aircraft: Option<Aircraft>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Endpoint {
    pub airport: Option<String>,
    pub timezone: Option<String>,
    pub iata: Option<String>,
    pub icao: Option<String>,
    pub terminal: Option<String>,
    pub gate: Option<String>,
    pub delay: Option<i64>,
    pub scheduled: Option<String>,
    pub estimated: Option<String>,
    pub actual: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Airline {
    pub name: Option<String>,
    pub iata: Option<String>,
    pub icao: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct FlightNumber {
    pub iata: Option<String>,
    pub codeshared: Option<Codeshared>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Codeshared {
    pub flight_iata: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Aircraft {
    pub iata: Option<String>,
    pub icao24: Option<String>,
}

/// A carrier or airport reference, as the Flight record carries it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Place {
    pub iata: String,
    pub icao: String,
    pub name: String,
    pub timezone: String,
}

/// The Flight record of 2.1.4 (times in epoch ms, 0 = unknown).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlightRecord {
    pub flight_number: String,
    pub date: String,
    pub carrier: Place,
    pub origin: Place,
    pub destination: Place,
    pub scheduled_departure: i64,
    pub estimated_departure: i64,
    pub actual_departure: i64,
    pub scheduled_arrival: i64,
    pub estimated_arrival: i64,
    pub actual_arrival: i64,
    /// FlightInstanceStatus name.
    pub status: FlightStatus,
    pub delay_minutes: i64,
    pub cancelled: bool,
    pub diverted: bool,
    pub gate: String,
    pub terminal: String,
    pub aircraft_icao24: String,
    pub aircraft_type: String,
    pub codeshare_flight_numbers: Vec<String>,
}

fn ms(t: &Option<String>) -> i64 {
    t.as_deref().and_then(|t| DateTime::parse_from_rfc3339(t).ok()).map(|t| t.timestamp_millis()).unwrap_or(0)
}

fn text(s: &Option<String>) -> String {
    s.clone().unwrap_or_default()
}

fn place(e: &Endpoint) -> Place {
    Place {
        iata: text(&e.iata),
        icao: text(&e.icao),
        name: text(&e.airport),
        timezone: e.timezone.clone().filter(|t| !t.is_empty()).unwrap_or_else(|| "UTC".into()),
    }
}

/// 2.1.4's status mapping.
pub fn status(s: Option<&str>) -> FlightStatus {
    match s {
        Some("scheduled") => FlightStatus::Scheduled,
        Some("active") => FlightStatus::Airborne,
        Some("landed") => FlightStatus::Landed,
        Some("cancelled") => FlightStatus::Cancelled,
        Some("diverted") => FlightStatus::Diverted,
        _ => FlightStatus::Unknown,
    }
}

/// One row as a Flight record (2.1.4).
pub fn record(r: &Row) -> FlightRecord {
    let delay = r.departure.delay.unwrap_or(0);
    let scheduled_departure = ms(&r.departure.scheduled);
    let estimated = ms(&r.departure.estimated);
    let flight_status = r.flight_status.as_deref();
    FlightRecord {
        flight_number: text(&r.flight.iata),
        date: r
            .departure
            .scheduled
            .as_deref()
            .map(|s| s.chars().take(10).collect())
            .or_else(|| r.flight_date.clone())
            .unwrap_or_default(),
        carrier: Place {
            iata: text(&r.airline.iata),
            icao: text(&r.airline.icao),
            name: text(&r.airline.name),
            timezone: String::new(),
        },
        origin: place(&r.departure),
        destination: place(&r.arrival),
        scheduled_departure,
        // Falls back to scheduled + delay when no estimate is given.
        estimated_departure: if estimated != 0 || scheduled_departure == 0 {
            estimated
        } else {
            scheduled_departure + delay * 60_000
        },
        actual_departure: ms(&r.departure.actual),
        scheduled_arrival: ms(&r.arrival.scheduled),
        estimated_arrival: ms(&r.arrival.estimated),
        actual_arrival: ms(&r.arrival.actual),
        status: status(flight_status),
        delay_minutes: delay,
        cancelled: flight_status == Some("cancelled"),
        diverted: flight_status == Some("diverted"),
        gate: text(&r.departure.gate),
        terminal: text(&r.departure.terminal),
        aircraft_icao24: r.aircraft.as_ref().and_then(|a| a.icao24.clone()).unwrap_or_default().to_ascii_lowercase(),
        aircraft_type: r.aircraft.as_ref().and_then(|a| a.iata.clone()).unwrap_or_default(),
        codeshare_flight_numbers: r
            .flight
            .codeshared
            .as_ref()
            .and_then(|c| c.flight_iata.clone())
            .into_iter()
            .collect(),
    }
}

/// The rows of a `/v1/flights` answer; an `{"error": …}` body (HTTP 200 or 4xx) is a failure.
pub fn parse_page(body: &[u8]) -> Result<Vec<Row>, SourceError> {
    let page: Page = serde_json::from_slice(body).map_err(|e| SourceError::parse("aviationstack flights", e))?;
    if let Some(e) = page.error {
        let code = e.get("code").and_then(|c| c.as_str()).unwrap_or("error").to_string();
        return Err(SourceError::Upstream(format!("aviationstack: {code}")));
    }
    Ok(page.data.unwrap_or_default())
}

/// `GET {base}/v1/flights?access_key=…&<query>`.
pub async fn flights(
    http: &Http,
    base: &str,
    access_key: &str,
    query: &[(&str, &str)],
    timeout: Option<std::time::Duration>,
) -> Result<Vec<Row>, SourceError> {
    let mut url = Url::parse(&format!("{}/v1/flights", base.trim_end_matches('/')))
        .map_err(|e| SourceError::parse("aviationstack url", e))?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("access_key", access_key);
        for (k, v) in query {
            q.append_pair(k, v);
        }
    }
    let reply = http.send(Method::GET, &url, HeaderMap::new(), None, timeout).await?;
    // Errors come as JSON bodies on 200 and 4xx alike: read the body first.
    if reply.content_type.contains("json") {
        let rows = parse_page(&reply.body);
        if rows.is_ok() && !reply.status.is_success() {
            return Err(SourceError::Status {
                url: crate::transport::redact(&url),
                status: reply.status.as_u16(),
                snippet: String::new(),
            });
        }
        return rows;
    }
    let reply = crate::http::ensure_ok(&url, reply)?;
    parse_page(&reply.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flight_record_of_2_1_4() {
        let rows = parse_page(br#"{"pagination":{"limit":5,"offset":0,"count":1,"total":1},"data":[{
            "flight_date":"2026-11-20","flight_status":"active",
            "departure":{"airport":"Istanbul Airport","timezone":"Europe/Istanbul","iata":"IST","icao":"LTFM","terminal":"1","gate":"F4","delay":25,
                         "scheduled":"2026-11-20T07:35:00+00:00","estimated":null,"actual":"2026-11-20T08:02:00+00:00"},
            "arrival":{"airport":"Esenboga","timezone":null,"iata":"ESB","icao":"LTAC","delay":null,"scheduled":"2026-11-20T08:50:00+00:00","estimated":null,"actual":null},
            "airline":{"name":"Turkish Airlines","iata":"TK","icao":"THY"},
            "flight":{"number":"2120","iata":"TK2120","icao":"THY2120","codeshared":{"airline_iata":"a3","flight_iata":"a38370"}},
            "aircraft":{"registration":"TC-JTR","iata":"A321","icao":"A321","icao24":"4BB1C4"}}]}"#)
        .unwrap();
        let f = record(&rows[0]);
        assert_eq!((f.flight_number.as_str(), f.date.as_str()), ("TK2120", "2026-11-20"));
        assert_eq!(f.status.as_str(), "FLIGHT_INSTANCE_STATUS_AIRBORNE");
        assert_eq!(f.estimated_departure - f.scheduled_departure, 25 * 60_000, "estimate = scheduled + delay");
        assert_eq!(f.destination.timezone, "UTC", "missing timezone defaults to UTC");
        assert_eq!((f.aircraft_icao24.as_str(), f.aircraft_type.as_str()), ("4bb1c4", "A321"));
        assert_eq!(f.codeshare_flight_numbers, ["a38370"]);
        assert_eq!((f.gate.as_str(), f.terminal.as_str(), f.delay_minutes), ("F4", "1", 25));
        assert!(parse_page(br#"{"error":{"code":"usage_limit_reached","message":"..."}}"#).is_err());
    }
}
