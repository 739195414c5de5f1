//! The Climate group's query parameters (SUPPLEMENT 2.2).

use crate::api::params::{Param, ParamKind, CURSOR, PAGE_SIZE};

pub const MIN_SEVERITY: Param = Param {
    name: "min_severity",
    kind: ParamKind::Enum { prefix: "ANOMALY_SEVERITY", values: &["NORMAL", "MODERATE", "EXTREME"] },
    required: false,
    description: "AnomalySeverity. Accepted and ignored, as the contract says: every zone is returned.",
};

pub const CLIMATE_ANOMALIES: &[Param] = &[PAGE_SIZE, CURSOR, MIN_SEVERITY];

pub const CLIMATE_DISASTERS: &[Param] = &[PAGE_SIZE, CURSOR];
