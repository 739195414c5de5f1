//! AviationStack hubs (SUPPLEMENT 2.1.2, upstream 2): today's departures per hub → counts, a
//! coverage status and, when disrupted, an alert classification.

use sitrep_schemas::{
    delay_severity::{hub_band, Severity},
    numbers::round_to,
};

use super::faa::{CLOSURE, GENERAL, GROUND_DELAY, GROUND_STOP};
use crate::aviationstack::Row;

/// What a hub's call produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HubStatus {
    /// Data received, no alert.
    Normal,
    /// Data received, an alert.
    Disruption,
    /// Zero rows.
    Omitted,
    /// The call failed (or could not be paid for).
    Failed,
}

impl HubStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            HubStatus::Normal => "normal",
            HubStatus::Disruption => "disruption",
            HubStatus::Omitted => "omitted",
            HubStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> HubStatus {
        match s {
            "normal" => HubStatus::Normal,
            "disruption" => HubStatus::Disruption,
            "omitted" => HubStatus::Omitted,
            _ => HubStatus::Failed,
        }
    }

    /// Whether the hub's data was received (a filler then says "Normal operations").
    pub fn covered(self) -> bool {
        matches!(self, HubStatus::Normal | HubStatus::Disruption)
    }
}

/// One hub's figures over the flights counted.
#[derive(Debug, Clone, PartialEq)]
pub struct HubStats {
    pub iata: String,
    pub status: HubStatus,
    pub total_flights: i32,
    pub cancelled_flights: i32,
    pub delayed_flights_pct: f64,
    pub avg_delay_minutes: i32,
    /// Epoch ms of the call.
    pub fetched_at: i64,
    /// Why a failed hub failed (`HTTP 503`, `budget`, …); "" otherwise.
    pub message: String,
}

/// A hub alert's classification: severity, delay type and reason.
pub type Classification = (Severity, &'static str, String);

fn percent(part: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 * 100.0 / total as f64
    }
}

/// The counts of 2.1.2: the resolved flights when there are at least 10 of them, else every row.
pub fn stats(iata: &str, rows: &[Row], fetched_at: i64) -> HubStats {
    let resolved: Vec<&Row> = rows
        .iter()
        .filter(|r| matches!(r.flight_status.as_deref(), Some("cancelled" | "landed" | "active" | "diverted")))
        .collect();
    let counted: Vec<&Row> = if resolved.len() >= 10 { resolved } else { rows.iter().collect() };
    let total = counted.len();
    let cancelled = counted.iter().filter(|r| r.flight_status.as_deref() == Some("cancelled")).count();
    let delays: Vec<i64> = counted.iter().filter_map(|r| r.departure.delay).filter(|d| *d > 0).collect();
    let avg =
        if delays.is_empty() { 0 } else { (delays.iter().sum::<i64>() as f64 / delays.len() as f64).round() as i32 };
    let mut s = HubStats {
        iata: iata.to_string(),
        status: if total == 0 { HubStatus::Omitted } else { HubStatus::Normal },
        total_flights: total as i32,
        cancelled_flights: cancelled as i32,
        delayed_flights_pct: round_to(percent(delays.len(), total), 1),
        avg_delay_minutes: avg,
        fetched_at,
        message: String::new(),
    };
    if total > 0 && classify(&s).is_some() {
        s.status = HubStatus::Disruption;
    }
    s
}

/// The hub's cancellation rate in percent.
pub fn cancel_pct(s: &HubStats) -> f64 {
    if s.total_flights == 0 {
        0.0
    } else {
        s.cancelled_flights as f64 * 100.0 / s.total_flights as f64
    }
}

/// The first matching rule of 2.1.2's classification; `None` when the hub is normal.
pub fn classify(s: &HubStats) -> Option<Classification> {
    if s.total_flights == 0 {
        return None;
    }
    let cancel = cancel_pct(s);
    let cancelled_reason = || format!("{}% flights cancelled", cancel.round() as i64);
    if cancel >= 80.0 && s.total_flights >= 10 {
        return Some((Severity::Severe, CLOSURE, "Airport closure / airspace restrictions".into()));
    }
    if cancel >= 50.0 {
        return Some((Severity::Major, GROUND_STOP, cancelled_reason()));
    }
    if cancel >= 20.0 {
        return Some((Severity::Moderate, GROUND_DELAY, cancelled_reason()));
    }
    if cancel >= 10.0 {
        return Some((Severity::Minor, GENERAL, cancelled_reason()));
    }
    if s.avg_delay_minutes > 0 {
        let severity = hub_band(s.avg_delay_minutes as f64, s.delayed_flights_pct);
        if severity == Severity::Normal {
            return None;
        }
        let delay_type = if s.avg_delay_minutes >= 60 { GROUND_DELAY } else { GENERAL };
        let reason = format!("Avg {}min delay, {}% delayed", s.avg_delay_minutes, s.delayed_flights_pct.round() as i64);
        return Some((severity, delay_type, reason));
    }
    None
}

/// The component is published only when failed + omitted ≤ succeeded.
pub fn publishable(hubs: &[HubStats]) -> bool {
    let succeeded = hubs.iter().filter(|h| h.status.covered()).count();
    hubs.len() - succeeded <= succeeded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aviationstack::Endpoint;

    fn row(status: &str, delay: Option<i64>) -> Row {
        Row {
            flight_status: Some(status.into()),
            departure: Endpoint { delay, ..Default::default() },
            ..Default::default()
        }
    }

    fn rows(spec: &[(&str, Option<i64>, usize)]) -> Vec<Row> {
        spec.iter().flat_map(|(s, d, n)| (0..*n).map(|_| row(s, *d))).collect()
    }

    #[test]
    fn resolved_flights_are_counted_when_there_are_ten() {
        let s = stats("IST", &rows(&[("landed", Some(20), 4), ("active", None, 6), ("scheduled", None, 30)]), 0);
        assert_eq!(s.total_flights, 10, "the 30 scheduled flights are not counted");
        assert_eq!((s.delayed_flights_pct, s.avg_delay_minutes), (40.0, 20));
        let s = stats("IST", &rows(&[("landed", Some(20), 4), ("scheduled", Some(10), 6)]), 0);
        assert_eq!(s.total_flights, 10, "fewer than ten resolved: every row counts");
        assert_eq!(s.avg_delay_minutes, 14, "round(mean of 4 × 20 and 6 × 10)");
        assert_eq!(stats("IST", &[], 0).status, HubStatus::Omitted);
    }

    #[test]
    fn classification_rules_in_order() {
        let c = |cancelled: usize, other: usize, delay: Option<i64>| {
            let s = stats("X", &rows(&[("cancelled", None, cancelled), ("landed", delay, other)]), 0);
            classify(&s)
        };
        assert_eq!(c(8, 2, None), Some((Severity::Severe, CLOSURE, "Airport closure / airspace restrictions".into())));
        assert_eq!(c(4, 1, None).unwrap().0, Severity::Major, "80% of fewer than 10 flights is not a closure");
        assert_eq!(c(5, 5, None), Some((Severity::Major, GROUND_STOP, "50% flights cancelled".into())));
        assert_eq!(c(2, 8, None), Some((Severity::Moderate, GROUND_DELAY, "20% flights cancelled".into())));
        assert_eq!(c(1, 9, None), Some((Severity::Minor, GENERAL, "10% flights cancelled".into())));
        assert_eq!(
            c(0, 10, Some(65)),
            Some((Severity::Severe, GROUND_DELAY, "Avg 65min delay, 100% delayed".into())),
            "hub band on max(65, 100)"
        );
        let s = stats("X", &rows(&[("landed", Some(10), 1), ("landed", None, 19)]), 0);
        assert_eq!(classify(&s), None, "max(10 min, 5%) is NORMAL: no alert");
        assert_eq!(s.status, HubStatus::Normal);
    }

    #[test]
    fn publish_rule() {
        let h = |status| HubStats {
            iata: "X".into(),
            status,
            total_flights: 0,
            cancelled_flights: 0,
            delayed_flights_pct: 0.0,
            avg_delay_minutes: 0,
            fetched_at: 0,
            message: String::new(),
        };
        assert!(publishable(&[h(HubStatus::Normal), h(HubStatus::Failed)]));
        assert!(publishable(&[h(HubStatus::Disruption), h(HubStatus::Omitted)]));
        assert!(!publishable(&[h(HubStatus::Normal), h(HubStatus::Failed), h(HubStatus::Omitted)]));
    }
}
