//! The Climate group's query parameters (SUPPLEMENT 2.2).

use sitrep_platform::kit::params::{Param, ParamKind, CURSOR, PAGE_SIZE};

pub const MIN_SEVERITY: Param = Param {
    name: "min_severity",
    // Declared as text, not an enum: an ignored parameter accepts any value (SUPPLEMENT 1.2), so a
    // contract tester must not expect a 400 for a value outside the enum.
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Accepted and ignored, as the contract says: any value, every zone is returned (the contract names AnomalySeverity values: ANOMALY_SEVERITY_NORMAL, _MODERATE, _EXTREME).",
};

pub const CLIMATE_ANOMALIES: &[Param] = &[PAGE_SIZE, CURSOR, MIN_SEVERITY];

pub const CLIMATE_DISASTERS: &[Param] = &[PAGE_SIZE, CURSOR];
