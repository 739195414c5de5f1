//! FAA NAS Status (SUPPLEMENT 2.1.2, upstream 1): the airport-status XML → one delay entry per US
//! registry airport, the strongest type winning.

use sitrep_schemas::{
    aviation::FlightDelayType,
    delay_severity::{faa_band, Severity},
};

use crate::{xml_tree, SourceError};

pub const URL: &str = "https://nasstatus.faa.gov/api/airport-status-information";

// The FlightDelayType names, as the alerts carry them.
pub const GROUND_STOP: &str = FlightDelayType::GroundStop.as_str();
pub const GROUND_DELAY: &str = FlightDelayType::GroundDelay.as_str();
pub const DEPARTURE_DELAY: &str = FlightDelayType::DepartureDelay.as_str();
pub const ARRIVAL_DELAY: &str = FlightDelayType::ArrivalDelay.as_str();
pub const GENERAL: &str = FlightDelayType::General.as_str();
pub const CLOSURE: &str = FlightDelayType::Closure.as_str();

/// One airport's FAA entry.
#[derive(Debug, Clone, PartialEq)]
pub struct FaaEntry {
    /// The FAA airport code as given (`JFK`).
    pub airport: String,
    pub delay_type: &'static str,
    pub avg_delay_minutes: i32,
    pub severity: Severity,
    pub reason: String,
}

/// How strong a delay type is when one airport appears in several lists: a closure or a ground
/// stop is never replaced by a lesser program.
fn strength(delay_type: &str) -> u8 {
    match delay_type {
        CLOSURE => 5,
        GROUND_STOP => 4,
        GROUND_DELAY => 3,
        DEPARTURE_DELAY | ARRIVAL_DELAY => 2,
        _ => 1,
    }
}

/// Minutes in FAA prose: the sum of `<n> hour(s)` × 60 and `<n> minute(s)`; `None` when neither
/// appears (`"1 hour and 20 minutes"` → 80, `"2 hours"` → 120).
pub fn prose_minutes(text: &str) -> Option<i32> {
    let words: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
    let mut total = None;
    for pair in words.windows(2) {
        let Ok(n) = pair[0].parse::<i32>() else { continue };
        let unit = pair[1].to_ascii_lowercase();
        let factor = if unit.starts_with("hour") || unit.starts_with("hr") {
            60
        } else if unit.starts_with("min") {
            1
        } else {
            continue;
        };
        total = Some(total.unwrap_or(0) + n * factor);
    }
    total
}

/// The type of an arrival/departure delay, from its reason text first, else the element's `Type`.
fn arrival_departure_type(reason: &str, element_type: &str) -> &'static str {
    let r = reason.to_ascii_lowercase();
    if r.contains("ground stop") {
        GROUND_STOP
    } else if r.contains("ground delay") || r.contains("gdp") {
        GROUND_DELAY
    } else if r.contains("departure") {
        DEPARTURE_DELAY
    } else if r.contains("arrival") {
        ARRIVAL_DELAY
    } else if r.contains("clos") {
        GROUND_STOP
    } else if element_type.eq_ignore_ascii_case("departure") {
        DEPARTURE_DELAY
    } else {
        ARRIVAL_DELAY
    }
}

fn entry(airport: &str, delay_type: &'static str, avg: i32, severity: Severity, reason: &str) -> FaaEntry {
    FaaEntry {
        airport: airport.trim().to_ascii_uppercase(),
        delay_type,
        avg_delay_minutes: avg,
        severity,
        reason: reason.trim().to_string(),
    }
}

/// Every entry of the document, in document order (several per airport possible).
pub fn parse(body: &[u8]) -> Result<Vec<FaaEntry>, SourceError> {
    let root = xml_tree::parse(body)?;
    if root.name != "AIRPORT_STATUS_INFORMATION" {
        return Err(SourceError::parse("faa nas status", format!("unexpected root <{}>", root.name)));
    }
    let mut out = Vec::new();
    for block in root.children_named("Delay_type") {
        for list in &block.children {
            match list.name.as_str() {
                "Ground_Stop_List" => {
                    for p in list.children_named("Program") {
                        out.push(entry(p.child_text("ARPT"), GROUND_STOP, 60, faa_band(60.0), p.child_text("Reason")));
                    }
                }
                "Ground_Delay_List" => {
                    for g in list.children_named("Ground_Delay") {
                        let avg = prose_minutes(g.child_text("Avg")).unwrap_or(30);
                        let reason = g.child_text("Reason");
                        out.push(entry(g.child_text("ARPT"), GROUND_DELAY, avg, faa_band(avg as f64), reason));
                    }
                }
                "Arrival_Departure_Delay_List" => {
                    for d in list.children_named("Delay") {
                        let reason = d.child_text("Reason");
                        let ad = d.child("Arrival_Departure");
                        let element_type = ad.and_then(|a| a.attr("Type")).unwrap_or("");
                        let min = ad.and_then(|a| prose_minutes(a.child_text("Min"))).unwrap_or(15);
                        let max = ad.and_then(|a| prose_minutes(a.child_text("Max"))).unwrap_or(30);
                        let avg = ((min + max) as f64 / 2.0).round() as i32;
                        let delay_type = arrival_departure_type(reason, element_type);
                        out.push(entry(d.child_text("ARPT"), delay_type, avg, faa_band(avg as f64), reason));
                    }
                }
                "Airport_Closure_List" => {
                    for a in list.children_named("Airport") {
                        out.push(entry(a.child_text("ARPT"), CLOSURE, 120, Severity::Severe, a.child_text("Reason")));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

/// One entry per airport: the strongest type wins; of equal types, the longer delay.
pub fn strongest_per_airport(entries: Vec<FaaEntry>) -> Vec<FaaEntry> {
    let mut kept: Vec<FaaEntry> = Vec::new();
    for e in entries {
        match kept.iter_mut().find(|k| k.airport == e.airport) {
            Some(k) => {
                let stronger =
                    (strength(e.delay_type), e.avg_delay_minutes) > (strength(k.delay_type), k.avg_delay_minutes);
                if stronger {
                    *k = e;
                }
            }
            None => kept.push(e),
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_durations() {
        assert_eq!(prose_minutes("1 hour and 20 minutes"), Some(80));
        assert_eq!(prose_minutes("2 hours"), Some(120));
        assert_eq!(prose_minutes("57 minutes"), Some(57));
        assert_eq!(prose_minutes("1 hour and 47 minutes"), Some(107));
        assert_eq!(prose_minutes("soon"), None);
        assert_eq!(prose_minutes(""), None);
    }

    #[test]
    fn arrival_departure_types_come_from_the_reason_first() {
        assert_eq!(arrival_departure_type("WX:Thunderstorms / ground stop", "Arrival"), GROUND_STOP);
        assert_eq!(arrival_departure_type("GDP in effect", "Departure"), GROUND_DELAY);
        assert_eq!(arrival_departure_type("departure delays", "Arrival"), DEPARTURE_DELAY);
        assert_eq!(arrival_departure_type("arrival rate reduced", "Departure"), ARRIVAL_DELAY);
        assert_eq!(arrival_departure_type("RWY CLOSURE", "Departure"), GROUND_STOP);
        assert_eq!(arrival_departure_type("WX:Wind", "Departure"), DEPARTURE_DELAY);
        assert_eq!(arrival_departure_type("WX:Wind", "Arrival"), ARRIVAL_DELAY);
    }

    #[test]
    fn a_ground_stop_is_never_downgraded() {
        let e = |a: &str, t, avg| entry(a, t, avg, faa_band(avg as f64), "r");
        let kept = strongest_per_airport(vec![
            e("JFK", GROUND_STOP, 60),
            e("JFK", GROUND_DELAY, 107),
            e("EWR", ARRIVAL_DELAY, 20),
            e("EWR", DEPARTURE_DELAY, 45),
        ]);
        assert_eq!(kept.len(), 2);
        assert_eq!((kept[0].delay_type, kept[0].avg_delay_minutes), (GROUND_STOP, 60));
        assert_eq!((kept[1].delay_type, kept[1].avg_delay_minutes), (DEPARTURE_DELAY, 45));
    }
}
