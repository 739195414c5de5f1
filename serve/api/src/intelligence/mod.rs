//! The Intelligence group (API.md 4.8, SUPPLEMENT 2.5): ComputeEnergyShockScenario, computed per
//! request from the current versions of its eight input datasets (`inputs`) by a pure function
//! (`energy_shock`). The body cache holds each answer under its normalised parameters, every
//! input's version and a 300 s window.

pub mod energy_shock;
pub mod inputs;
pub mod params;

use std::time::Duration;

use poem::Request;
use sitrep_schemas::DatasetId;

use self::{
    energy_shock::{EnergyShockScenario, FuelMode},
    params::ScenarioQuery,
};
use sitrep_platform::{
    answered_by,
    app_state::AppState,
    kit::{
        answer::Answer,
        dataset_read::{inputs_get, InputSet},
        error::ApiError,
    },
    registry::{Group, McpTool, Operation},
};

pub static GROUP: Group = Group {
    tag: "Intelligence",
    description: "Energy supply shock scenarios for chokepoint disruptions.",
    operations: &[&COMPUTE_ENERGY_SHOCK],
};

pub static COMPUTE_ENERGY_SHOCK: Operation = Operation {
    id: "ComputeEnergyShockScenario",
    path: "/api/intelligence/v1/compute-energy-shock",
    summary: "the oil and LNG effect on a country of a disruption at a chokepoint: crude loss, product deficits, stock cover, gas storage buffer, with coverage and limitations.",
    // Read in this order by `inputs::read`.
    datasets: inputs::DATASETS,
    params: params::ENERGY_SHOCK,
    mcp: Some(McpTool {
        title: "Compute an energy shock scenario",
        description: "Oil and LNG impact on a country of a chokepoint disruption: crude loss, product deficits, IEA stock cover, gas storage buffer, with coverage and limitations.",
        open_world: false,
    }),
    answer: answered_by!(EnergyShockScenario, compute_energy_shock),
    ..Operation::GET
};

/// An answer is reused for 300 s at most (2.5's result cache).
const INPUTS: InputSet<ScenarioQuery> = InputSet { primary, ttl: Duration::from_secs(300) };

/// The dataset whose absence makes the answer unavailable: JODI gas in gas mode, else JODI oil.
fn primary(q: &ScenarioQuery) -> DatasetId {
    match q.0.fuel_mode {
        FuelMode::Gas => DatasetId::JODI_GAS,
        _ => DatasetId::JODI_OIL,
    }
}

async fn compute_energy_shock(state: &AppState, req: &Request, op: &'static Operation) -> Answer<EnergyShockScenario> {
    inputs_get(state, req, op, &INPUTS, |dbs, q: ScenarioQuery| async move {
        let s = q.0;
        let found =
            inputs::read(dbs, s.country_code.clone(), s.chokepoint_id.clone()).await.map_err(ApiError::internal)?;
        Ok(energy_shock::compute(&s, &found))
    })
    .await
}
