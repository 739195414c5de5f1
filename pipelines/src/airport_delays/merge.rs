//! The merge of 2.1.2: FAA alerts, then AviationStack alerts, then NOTAMs (replacing a counted
//! alert in place or appending), then a filler for every registry airport still without one.

use sitrep_schemas::{
    airports::{self, Airport},
    aviation::{AirportOpsSource, FlightDelaySource},
    delay_severity::{cancel_band, Severity},
};

use super::{
    faa::{FaaEntry, CLOSURE, GENERAL},
    hubs::{self, HubStats},
    notam::{AirportNotam, NotamKind},
};

// The FlightDelaySource names, as the alerts carry them.
pub const SOURCE_FAA: &str = FlightDelaySource::Faa.as_str();
pub const SOURCE_AVIATIONSTACK: &str = FlightDelaySource::Aviationstack.as_str();
pub const SOURCE_NOTAM: &str = FlightDelaySource::Notam.as_str();
pub const SOURCE_UNSPECIFIED: &str = FlightDelaySource::Unspecified.as_str();

/// One AirportDelayAlert, plus what GetAirportOpsSummary derives from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Alert {
    pub airport: &'static Airport,
    pub id: String,
    pub delay_type: &'static str,
    pub severity: Severity,
    pub avg_delay_minutes: i32,
    pub delayed_flights_pct: f64,
    pub cancelled_flights: i32,
    pub total_flights: i32,
    pub reason: String,
    pub source: &'static str,
    /// `faa`, `aviationstack`, `notam` or `filler`.
    pub component: &'static str,
    /// Epoch ms: the fetch time of the component that produced the row.
    pub updated_at: i64,
    /// The NOTAM that applies to the airport, if any.
    pub notam: Option<(NotamKind, String)>,
    /// GetAirportOpsSummary's source: `faa`, `aviationstack` or `degraded`.
    pub coverage: &'static str,
}

/// The components of one run; `None` = unavailable (failed and nothing to reuse).
pub struct Components<'a> {
    /// FAA entries (one per airport) and their fetch time.
    pub faa: Option<(&'a [FaaEntry], i64)>,
    pub hubs: Option<&'a [HubStats]>,
    pub notams: Option<(&'a [AirportNotam], i64)>,
    /// Epoch ms of the run (fillers of uncovered airports).
    pub now: i64,
}

/// API reasons are at most 200 characters: longer text is cut to 199 and an ellipsis.
pub fn cap_reason(reason: &str) -> String {
    if reason.chars().count() <= 200 {
        return reason.to_string();
    }
    let mut cut: String = reason.chars().take(199).collect();
    cut.push('…');
    cut
}

fn alert(airport: &'static Airport, id_prefix: &str, component: &'static str, updated_at: i64) -> Alert {
    Alert {
        airport,
        id: format!("{id_prefix}-{}", airport.iata),
        delay_type: GENERAL,
        severity: Severity::Normal,
        avg_delay_minutes: 0,
        delayed_flights_pct: 0.0,
        cancelled_flights: 0,
        total_flights: 0,
        reason: String::new(),
        source: SOURCE_UNSPECIFIED,
        component,
        updated_at,
        notam: None,
        coverage: AirportOpsSource::Degraded.as_str(),
    }
}

fn hub<'a>(c: &Components<'a>, iata: &str) -> Option<&'a HubStats> {
    c.hubs.and_then(|h| h.iter().find(|s| s.iata == iata))
}

fn notam<'a>(c: &Components<'a>, airport: &Airport) -> Option<&'a AirportNotam> {
    c.notams.and_then(|(n, _)| n.iter().find(|n| n.icao == airport.icao))
}

/// Whether a component delivered data for the airport (its filler then reads "Normal operations").
fn coverage(c: &Components, airport: &Airport) -> Option<(&'static str, &'static str, i64)> {
    if airport.country == "US" {
        return c.faa.map(|(_, at)| (AirportOpsSource::Faa.as_str(), SOURCE_FAA, at));
    }
    hub(c, airport.iata)
        .filter(|h| h.status.covered())
        .map(|h| (AirportOpsSource::Aviationstack.as_str(), SOURCE_AVIATIONSTACK, h.fetched_at))
}

/// The alerts in dataset order.
pub fn merge(c: &Components) -> Vec<Alert> {
    let registry = airports::all();
    let mut alerts: Vec<Alert> = Vec::new();
    if let Some((entries, at)) = c.faa {
        for airport in registry.iter().filter(|a| a.country == "US") {
            if let Some(e) = entries.iter().find(|e| e.airport == airport.iata) {
                alerts.push(Alert {
                    delay_type: e.delay_type,
                    severity: e.severity,
                    avg_delay_minutes: e.avg_delay_minutes,
                    reason: e.reason.clone(),
                    source: SOURCE_FAA,
                    ..alert(airport, "faa", "faa", at)
                });
            }
        }
    }
    for airport in registry {
        let Some(h) = hub(c, airport.iata) else { continue };
        if let Some((severity, delay_type, reason)) = hubs::classify(h) {
            alerts.push(Alert {
                delay_type,
                severity,
                avg_delay_minutes: h.avg_delay_minutes,
                delayed_flights_pct: h.delayed_flights_pct,
                cancelled_flights: h.cancelled_flights,
                total_flights: h.total_flights,
                reason,
                source: SOURCE_AVIATIONSTACK,
                ..alert(airport, "avstack", "aviationstack", h.fetched_at)
            });
        }
    }
    if let Some((_, at)) = c.notams {
        for airport in registry {
            let Some(n) = notam(c, airport) else { continue };
            let text_head = |max: usize| n.text.chars().take(max).collect::<String>();
            match alerts.iter_mut().find(|a| a.airport.iata == airport.iata && a.total_flights > 0) {
                Some(existing) => {
                    let cancel = existing.cancelled_flights as f64 * 100.0 / existing.total_flights as f64;
                    existing.id = format!("notam-{}", airport.iata);
                    existing.severity = existing.severity.max(cancel_band(cancel)).max(Severity::Moderate);
                    existing.reason = format!("NOTAM: {} — {}% cxl", text_head(120), cancel.round() as i64);
                    existing.source = SOURCE_NOTAM;
                    existing.component = "notam";
                    existing.updated_at = at;
                }
                None => {
                    let (severity, delay_type, fallback) = match n.kind {
                        NotamKind::Closure => (Severity::Severe, CLOSURE, "Airport closure (NOTAM)"),
                        NotamKind::Restriction => (Severity::Major, GENERAL, "Airspace restriction (NOTAM)"),
                    };
                    let reason = if n.text.is_empty() { fallback.to_string() } else { n.text.clone() };
                    alerts.push(Alert {
                        delay_type,
                        severity,
                        reason,
                        source: SOURCE_NOTAM,
                        ..alert(airport, "notam", "notam", at)
                    });
                }
            }
        }
    }
    for airport in registry {
        if alerts.iter().any(|a| a.airport.iata == airport.iata) {
            continue;
        }
        alerts.push(match coverage(c, airport) {
            Some((_, source, at)) => Alert {
                severity: Severity::Normal,
                reason: "Normal operations".into(),
                source,
                ..alert(airport, "status", "filler", at)
            },
            None => Alert {
                severity: Severity::Unknown,
                reason: "Coverage unavailable".into(),
                ..alert(airport, "unknown", "filler", c.now)
            },
        });
    }
    for a in &mut alerts {
        a.reason = cap_reason(&a.reason);
        a.notam = notam(c, a.airport).map(|n| (n.kind, n.text.clone()));
        a.coverage = coverage(c, a.airport).map(|(name, _, _)| name).unwrap_or(AirportOpsSource::Degraded.as_str());
    }
    alerts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::airport_delays::{
        faa::{GROUND_DELAY, GROUND_STOP},
        hubs::HubStatus,
    };

    fn hub_stats(iata: &str, status: HubStatus, total: i32, cancelled: i32, delayed_pct: f64, avg: i32) -> HubStats {
        HubStats {
            iata: iata.into(),
            status,
            total_flights: total,
            cancelled_flights: cancelled,
            delayed_flights_pct: delayed_pct,
            avg_delay_minutes: avg,
            fetched_at: 2_000,
            message: String::new(),
        }
    }

    fn faa(airport: &str, delay_type: &'static str, avg: i32) -> FaaEntry {
        FaaEntry {
            airport: airport.into(),
            delay_type,
            avg_delay_minutes: avg,
            severity: sitrep_schemas::delay_severity::faa_band(avg as f64),
            reason: "WX".into(),
        }
    }

    fn find<'a>(alerts: &'a [Alert], iata: &str) -> &'a Alert {
        alerts.iter().find(|a| a.airport.iata == iata).unwrap()
    }

    #[test]
    fn order_replacement_in_place_and_fillers() {
        let faa_entries = [faa("ORD", GROUND_DELAY, 45), faa("JFK", GROUND_STOP, 60)];
        let hubs = [
            hub_stats("IST", HubStatus::Disruption, 100, 30, 40.0, 35),
            hub_stats("LHR", HubStatus::Disruption, 50, 0, 50.0, 20),
            hub_stats("FRA", HubStatus::Normal, 80, 0, 5.0, 5),
            hub_stats("CDG", HubStatus::Failed, 0, 0, 0.0, 0),
        ];
        let notams = [
            AirportNotam { icao: "LTFM".into(), kind: NotamKind::Restriction, text: "DANGER AREA ACTIVE".into() },
            AirportNotam { icao: "OLBA".into(), kind: NotamKind::Closure, text: String::new() },
        ];
        let c = Components {
            faa: Some((&faa_entries, 1_000)),
            hubs: Some(&hubs),
            notams: Some((&notams, 3_000)),
            now: 4_000,
        };
        let alerts = merge(&c);
        assert_eq!(alerts.len(), 115, "one row per registry airport");
        let ids: Vec<&str> = alerts.iter().take(5).map(|a| a.id.as_str()).collect();
        assert_eq!(
            ids,
            ["faa-JFK", "faa-ORD", "avstack-LHR", "notam-IST", "notam-BEY"],
            "FAA, hubs (registry order), NOTAM appends"
        );

        let ist = find(&alerts, "IST");
        assert_eq!(ist.severity, Severity::Moderate, "max(MODERATE hub alert, cancel band of 30%, MODERATE)");
        assert_eq!((ist.total_flights, ist.cancelled_flights), (100, 30), "counts kept");
        assert_eq!(ist.reason, "NOTAM: DANGER AREA ACTIVE — 30% cxl");
        assert_eq!((ist.source, ist.updated_at), (SOURCE_NOTAM, 3_000));
        assert_eq!(ist.notam, Some((NotamKind::Restriction, "DANGER AREA ACTIVE".into())));
        assert_eq!(ist.coverage, "aviationstack");

        let bey = find(&alerts, "BEY");
        assert_eq!(
            (bey.severity, bey.delay_type, bey.reason.as_str()),
            (Severity::Severe, CLOSURE, "Airport closure (NOTAM)")
        );
        assert_eq!((bey.total_flights, bey.coverage), (0, "degraded"));

        let fra = find(&alerts, "FRA");
        assert_eq!(
            (fra.id.as_str(), fra.severity, fra.reason.as_str()),
            ("status-FRA", Severity::Normal, "Normal operations")
        );
        assert_eq!((fra.source, fra.updated_at), (SOURCE_AVIATIONSTACK, 2_000));
        let atl = find(&alerts, "ATL");
        assert_eq!((atl.id.as_str(), atl.source, atl.coverage), ("status-ATL", SOURCE_FAA, "faa"));
        let cdg = find(&alerts, "CDG");
        assert_eq!((cdg.id.as_str(), cdg.severity, cdg.source), ("unknown-CDG", Severity::Unknown, SOURCE_UNSPECIFIED));
        assert_eq!((cdg.reason.as_str(), cdg.updated_at, cdg.coverage), ("Coverage unavailable", 4_000, "degraded"));
    }

    #[test]
    fn without_faa_us_airports_are_unknown() {
        let c = Components { faa: None, hubs: None, notams: None, now: 1 };
        let alerts = merge(&c);
        assert!(alerts.iter().all(|a| a.id.starts_with("unknown-")));
    }

    #[test]
    fn reasons_are_capped_at_200_characters() {
        assert_eq!(cap_reason(&"x".repeat(200)).chars().count(), 200);
        let cut = cap_reason(&"é".repeat(250));
        assert_eq!(cut.chars().count(), 200);
        assert!(cut.ends_with("é…"));
    }
}
