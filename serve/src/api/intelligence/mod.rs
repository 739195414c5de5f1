//! The Intelligence group (API.md 4.8, SUPPLEMENT 2.5). So far the energy-shock computation
//! itself (`energy_shock`), a pure function of the scenario and its inputs; the input datasets
//! and the operation that reads them from one generation come next.

pub mod energy_shock;
