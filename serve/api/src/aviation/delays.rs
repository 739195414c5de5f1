//! ListAirportDelays (2.1.2), a paged list over `airport-delays`, and GetAirportOpsSummary
//! (2.1.3), derived per airport from the same version's alerts: no upstream call.

use poem::Request;
use sitrep_schemas::{
    airports,
    aviation::{AirportOpsSource, NotamFlag},
    delay_severity::{cancel_band, hub_band, Severity},
    numbers::round_to,
};

use sitrep_platform::kit::wire_name::WireName;

use super::{
    model::*,
    params::AIRPORTS,
    queries::{self, AlertFacts},
};
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{dataset_get, Answer},
        canonical::Canonical,
        dataset_read,
        error::Violations,
        paged_list::{NoFilters, PagedList},
        params::RawQuery,
        parse::{parse_with, Parsed},
    },
    registry::Operation,
};

/// The default ops watch list (2.1.0).
pub const DEFAULT_WATCH_LIST: [&str; 6] = ["IST", "ESB", "SAW", "LHR", "FRA", "CDG"];

pub static ALERTS: PagedList<NoFilters, AirportDelayAlert, ListAirportDelaysResponse> = PagedList {
    bounds: None,
    page: |conn, db, _, _, page| queries::airport_delay_alerts(conn, db.table(), page),
    respond: |alerts, pagination| ListAirportDelaysResponse { alerts, pagination },
};

/// The summary of a code outside the registry: zeros, NORMAL, source "unknown".
fn unknown(code: &str) -> AirportOpsSummary {
    AirportOpsSummary {
        iata: code.to_string(),
        icao: String::new(),
        name: code.to_string(),
        timezone: "UTC".into(),
        delay_pct: 0.0,
        avg_delay_minutes: 0,
        cancellation_rate: 0.0,
        total_flights: 0,
        closure_status: false,
        notam_flags: Vec::new(),
        severity: WireName(Severity::Normal),
        top_delay_reasons: Vec::new(),
        source: WireName(AirportOpsSource::Unknown),
        updated_at: 0,
    }
}

/// One registry airport's summary from its alert (2.1.3's mapping).
pub fn summary(facts: &AlertFacts, timezone: &str) -> AirportOpsSummary {
    let a = &facts.alert;
    let cancellation_rate =
        if a.total_flights > 0 { a.cancelled_flights as f64 * 100.0 / a.total_flights as f64 } else { 0.0 };
    let closed = facts.notam_flag == Some(WireName(NotamFlag::Closed));
    let restricted = facts.notam_flag == Some(WireName(NotamFlag::Restricted));
    let notam_floor = if closed {
        if a.total_flights == 0 {
            Severity::Severe
        } else {
            Severity::Moderate
        }
    } else if restricted {
        Severity::Minor
    } else {
        Severity::Unknown
    };
    // An airport without telemetry stays UNKNOWN (never read as normal) unless a NOTAM says more.
    let measured = if a.severity.0 == Severity::Unknown {
        Severity::Unknown
    } else {
        cancel_band(cancellation_rate).max(hub_band(a.avg_delay_minutes as f64, a.delayed_flights_pct))
    };
    let mut notam_flags: Vec<WireName<NotamFlag>> = facts.notam_flag.into_iter().collect();
    if !notam_flags.is_empty() {
        notam_flags.push(WireName(NotamFlag::Notam));
    }
    let mut top_delay_reasons = Vec::new();
    if facts.component != "filler" {
        top_delay_reasons.push(a.reason.clone());
    }
    if let Some(text) = facts.notam_text.as_deref().filter(|t| !t.is_empty()) {
        top_delay_reasons.push(text.chars().take(80).collect());
    }
    AirportOpsSummary {
        iata: a.iata.clone(),
        icao: a.icao.clone(),
        name: a.name.clone(),
        timezone: timezone.to_string(),
        delay_pct: round_to(a.delayed_flights_pct, 1),
        avg_delay_minutes: a.avg_delay_minutes,
        cancellation_rate: round_to(cancellation_rate, 1),
        total_flights: a.total_flights,
        closure_status: closed,
        notam_flags,
        severity: WireName(measured.max(notam_floor)),
        top_delay_reasons,
        source: facts.coverage,
        updated_at: a.updated_at,
    }
}

/// The requested codes: upper-cased, duplicates removed, in request order; absent = the watch list.
fn requested(q: &RawQuery, v: &mut Violations) -> Vec<String> {
    let mut codes: Vec<String> = Vec::new();
    for code in AIRPORTS.repeated(q, v) {
        let code = code.to_ascii_uppercase();
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    if codes.is_empty() {
        codes = DEFAULT_WATCH_LIST.iter().map(|c| c.to_string()).collect();
    }
    codes
}

pub async fn ops_summary(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<GetAirportOpsSummaryResponse> {
    let Parsed { params: codes, jmespath, as_of } =
        match parse_with::<GetAirportOpsSummaryResponse, _>(req, op, requested) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    let (provenance, db) = match dataset_read::read_at(state, op.dataset(), as_of).await {
        Ok(read) => read,
        Err(e) => return e.into(),
    };
    let canonical = Canonical::default().with_list("airports", codes.clone());
    let key = db.as_ref().map(|d| canonical.answer_key(op.segment(), &[d.version as i64]));
    dataset_get(&state.cache, req, key, jmespath, provenance, async move {
        let Some(db) = db else { return Ok(GetAirportOpsSummaryResponse { summaries: Vec::new(), cache_hit: false }) };
        let facts = db.query_table(queries::airport_alert_facts).await?;
        let summaries = codes
            .iter()
            .map(|code| match (airports::by_iata(code), facts.iter().find(|f| &f.alert.iata == code)) {
                (Some(airport), Some(f)) => summary(f, airport.timezone),
                _ => unknown(code),
            })
            .collect();
        Ok(GetAirportOpsSummaryResponse { summaries, cache_hit: true })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitrep_schemas::{
        aviation::{AirportRegion, FlightDelaySource, FlightDelayType},
        closed_set::ClosedSet,
    };

    fn facts(severity: Severity, total: i32, cancelled: i32, pct: f64, avg: i32, notam: Option<&str>) -> AlertFacts {
        AlertFacts {
            alert: AirportDelayAlert {
                id: "x".into(),
                iata: "IST".into(),
                icao: "LTFM".into(),
                name: "Istanbul Airport".into(),
                city: "Istanbul".into(),
                country: "TR".into(),
                location: GeoCoordinates { latitude: 41.26, longitude: 28.74 },
                region: WireName(AirportRegion::Europe),
                delay_type: WireName(FlightDelayType::General),
                severity: WireName(severity),
                avg_delay_minutes: avg,
                delayed_flights_pct: pct,
                cancelled_flights: cancelled,
                total_flights: total,
                reason: "Avg 20min delay".into(),
                source: WireName(FlightDelaySource::Aviationstack),
                updated_at: 7,
            },
            component: "aviationstack".into(),
            notam_flag: notam.map(|n| WireName(NotamFlag::from_wire_name(n).unwrap())),
            notam_text: notam.map(|_| "X".repeat(100)),
            coverage: WireName(AirportOpsSource::Aviationstack),
        }
    }

    #[test]
    fn severity_is_the_max_of_the_bands_and_the_notam_floor() {
        let s = summary(&facts(Severity::Minor, 40, 10, 20.0, 20, None), "Europe/Istanbul");
        assert_eq!((s.cancellation_rate, s.severity.0), (25.0, Severity::Moderate));
        let s = summary(&facts(Severity::Normal, 40, 0, 5.0, 5, Some("RESTRICTED")), "UTC");
        assert_eq!(s.severity.0, Severity::Minor, "restricted → at least MINOR");
        assert_eq!(s.notam_flags, [WireName(NotamFlag::Restricted), WireName(NotamFlag::Notam)]);
        assert_eq!(s.top_delay_reasons.len(), 2);
        assert_eq!(s.top_delay_reasons[1].chars().count(), 80);
        let s = summary(&facts(Severity::Severe, 0, 0, 0.0, 0, Some("CLOSED")), "UTC");
        assert_eq!((s.severity.0, s.closure_status), (Severity::Severe, true));
        let s = summary(&facts(Severity::Minor, 30, 0, 0.0, 0, Some("CLOSED")), "UTC");
        assert_eq!(s.severity.0, Severity::Moderate, "closed with traffic → MODERATE floor");
        let s = summary(&facts(Severity::Unknown, 0, 0, 0.0, 0, None), "UTC");
        assert_eq!(s.severity.0, Severity::Unknown, "no telemetry is not normal");
    }
}
