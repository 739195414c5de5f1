//! The Intelligence group (API.md 4.8, SUPPLEMENT 2.5): ComputeEnergyShockScenario, computed per
//! request from the current versions of its eight input datasets (`inputs`) by a pure function
//! (`energy_shock`). The body cache holds each answer under its normalised parameters, every
//! input's version and a 300 s window.

pub mod energy_shock;
pub mod inputs;
pub mod params;

use std::{sync::Arc, time::Duration};

use poem::Request;
use poem_openapi::{OpenApi, Tags};
use sitrep_schemas::DatasetId;

use self::{
    energy_shock::{EnergyShockScenario, FuelMode},
    params::ScenarioQuery,
};
use super::{
    answer::Answer,
    dataset_read::{inputs_get, InputSet},
    error::ApiError,
};
use crate::app_state::AppState;

/// The eight inputs; an answer is reused for 300 s at most (2.5's result cache).
const INPUTS: InputSet<ScenarioQuery> = InputSet { datasets: inputs::DATASETS, primary, ttl: Duration::from_secs(300) };

#[derive(Tags)]
enum ApiTags {
    /// Energy supply shock scenarios for chokepoint disruptions.
    Intelligence,
}

pub struct IntelligenceApi {
    pub state: Arc<AppState>,
}

/// The dataset whose absence makes the answer unavailable: JODI gas in gas mode, else JODI oil.
fn primary(q: &ScenarioQuery) -> DatasetId {
    match q.0.fuel_mode {
        FuelMode::Gas => DatasetId::JODI_GAS,
        _ => DatasetId::JODI_OIL,
    }
}

#[OpenApi(prefix_path = "/api/intelligence/v1", tag = "ApiTags::Intelligence")]
impl IntelligenceApi {
    /// ComputeEnergyShockScenario — the oil and LNG effect on a country of a disruption at a chokepoint: crude loss, product deficits, stock cover, gas storage buffer, with coverage and limitations.
    #[oai(path = "/compute-energy-shock", method = "get", operation_id = "ComputeEnergyShockScenario")]
    async fn compute_energy_shock(&self, req: &Request) -> Answer<EnergyShockScenario> {
        inputs_get(
            &self.state,
            req,
            "compute-energy-shock",
            params::ENERGY_SHOCK,
            &INPUTS,
            |dbs, q: ScenarioQuery| async move {
                let s = q.0;
                let found = inputs::read(dbs, s.country_code.clone(), s.chokepoint_id.clone())
                    .await
                    .map_err(ApiError::internal)?;
                Ok(energy_shock::compute(&s, &found))
            },
        )
        .await
    }
}
