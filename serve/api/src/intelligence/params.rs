//! ComputeEnergyShockScenario's parameters (SUPPLEMENT 2.5.1). Only `disruption_pct` can be
//! refused (outside 0–100); the others are normalised, and an unusable country or chokepoint gets
//! the EMPTY answer instead of a 400.

use super::energy_shock::{FuelMode, Scenario};
use sitrep_platform::kit::{
    canonical::Canonical,
    error::Violations,
    paged_list::{ListParams, QueryParams},
    params::{Param, ParamKind, RawQuery},
};

pub const COUNTRY_CODE: Param = Param {
    name: "country_code",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description:
        "ISO 3166-1 alpha-2 code of the importing country, any case; anything else answers the EMPTY scenario.",
};

pub const CHOKEPOINT_ID: Param = Param {
    name: "chokepoint_id",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "hormuz_strait (default), malacca_strait, suez or bab_el_mandeb, any case.",
};

pub const DISRUPTION_PCT: Param = Param {
    name: "disruption_pct",
    kind: ParamKind::Int32 { min: 0, max: 100, default: 10 },
    required: false,
    description:
        "Share of the chokepoint's flow lost, 0–100; 0 or absent means 10, and 1–9 are raised to 10 (the model floor).",
};

pub const FUEL_MODE: Param = Param {
    name: "fuel_mode",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "oil (default), gas or both; any other value means oil.",
};

pub const ENERGY_SHOCK: &[Param] = &[COUNTRY_CODE, CHOKEPOINT_ID, DISRUPTION_PCT, FUEL_MODE];

/// The scenario of a request, normalised (2.5.1).
pub struct ScenarioQuery(pub Scenario);

impl QueryParams for ScenarioQuery {
    fn parse(q: &RawQuery, v: &mut Violations) -> Self {
        let pct = DISRUPTION_PCT.int32(q, v);
        ScenarioQuery(Scenario::normalise(COUNTRY_CODE.raw(q), CHOKEPOINT_ID.raw(q), Some(pct), FUEL_MODE.raw(q)))
    }
}

impl ListParams for ScenarioQuery {
    fn canonical(&self) -> Canonical {
        let s = &self.0;
        let mode = match s.fuel_mode {
            FuelMode::Oil => "oil",
            FuelMode::Gas => "gas",
            FuelMode::Both => "both",
        };
        Canonical::new(vec![
            ("country_code", s.country_code.clone()),
            ("chokepoint_id", s.chokepoint_id.clone()),
            ("disruption_pct", s.disruption_pct.to_string()),
            ("fuel_mode", mode.to_string()),
        ])
    }
}
