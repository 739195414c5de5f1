//! Flight-delay severity and the three bands of SUPPLEMENT 2.1.0, shared by the `airport-delays`
//! ingest (alerts) and the serving of GetAirportOpsSummary (its severity is recomputed per airport).

/// FlightDelaySeverity. The derived order is the "max" order of 2.1.0 with `Unknown` lowest: it
/// stands only when nothing is known, so any known severity outranks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Unknown,
    Normal,
    Minor,
    Moderate,
    Major,
    Severe,
}

impl Severity {
    pub const ALL: [Severity; 6] =
        [Severity::Unknown, Severity::Normal, Severity::Minor, Severity::Moderate, Severity::Major, Severity::Severe];

    /// The enum value's API name (`FLIGHT_DELAY_SEVERITY_MAJOR`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Unknown => "FLIGHT_DELAY_SEVERITY_UNKNOWN",
            Severity::Normal => "FLIGHT_DELAY_SEVERITY_NORMAL",
            Severity::Minor => "FLIGHT_DELAY_SEVERITY_MINOR",
            Severity::Moderate => "FLIGHT_DELAY_SEVERITY_MODERATE",
            Severity::Major => "FLIGHT_DELAY_SEVERITY_MAJOR",
            Severity::Severe => "FLIGHT_DELAY_SEVERITY_SEVERE",
        }
    }

    pub fn from_name(name: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl crate::closed_set::ClosedSet for Severity {
    const NAME: &'static str = "FlightDelaySeverity";
    const VALUES: &'static [Self] = &Severity::ALL;
    fn wire_name(self) -> std::borrow::Cow<'static, str> {
        self.name().into()
    }
}

/// Picks the band of `value` from thresholds for SEVERE, MAJOR, MODERATE and MINOR (each `≥`).
fn band(value: f64, [severe, major, moderate, minor]: [f64; 4]) -> Severity {
    if value >= severe {
        Severity::Severe
    } else if value >= major {
        Severity::Major
    } else if value >= moderate {
        Severity::Moderate
    } else if value >= minor {
        Severity::Minor
    } else {
        Severity::Normal
    }
}

/// FAA band: average delay in minutes.
pub fn faa_band(avg_delay_minutes: f64) -> Severity {
    band(avg_delay_minutes, [90.0, 60.0, 30.0, 15.0])
}

/// Hub band: max(average delay minutes, delayed-flights percentage).
pub fn hub_band(avg_delay_minutes: f64, delayed_pct: f64) -> Severity {
    band(avg_delay_minutes.max(delayed_pct), [60.0, 45.0, 30.0, 15.0])
}

/// Cancel band: cancellation rate in percent.
pub fn cancel_band(cancel_pct: f64) -> Severity {
    band(cancel_pct, [80.0, 50.0, 20.0, 10.0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_at_their_edges() {
        use Severity::*;
        let faa: Vec<_> = [90.0, 89.9, 60.0, 59.9, 30.0, 29.9, 15.0, 14.9, 0.0].map(faa_band).into();
        assert_eq!(faa, [Severe, Major, Major, Moderate, Moderate, Minor, Minor, Normal, Normal]);
        let hub: Vec<_> = [60.0, 59.9, 45.0, 44.9, 30.0, 29.9, 15.0, 14.9].map(|v| hub_band(v, 0.0)).into();
        assert_eq!(hub, [Severe, Major, Major, Moderate, Moderate, Minor, Minor, Normal]);
        assert_eq!(hub_band(10.0, 45.0), Major, "the larger of delay minutes and delayed %");
        let cancel: Vec<_> = [80.0, 79.9, 50.0, 49.9, 20.0, 19.9, 10.0, 9.9].map(cancel_band).into();
        assert_eq!(cancel, [Severe, Major, Major, Moderate, Moderate, Minor, Minor, Normal]);
        assert!(Unknown < Normal && Normal < Minor && Major < Severe);
        assert_eq!(Severity::from_name("FLIGHT_DELAY_SEVERITY_MINOR"), Some(Minor));
    }
}
