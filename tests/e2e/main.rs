//! The one end-to-end test binary: real pipelines over recorded fixtures, the real lake protocol,
//! the real server on 127.0.0.1:0. One module per feature.

mod airport_delays;
mod airport_flights;
mod auth_and_errors;
mod aviation;
mod batch;
mod client_metadata;
mod climate;
mod climate_anomalies;
mod climate_disasters;
mod cluster;
mod company_concurrency;
mod company_impacts;
mod company_monitoring;
mod company_scan;
mod concurrency;
mod conflict;
mod connectors;
mod consumer_prices;
mod crash;
mod dashboard;
mod energy_inputs;
mod energy_shock;
mod flight_prices;
mod frozen_upstream;
mod idempotency;
mod lake;
mod mcp;
mod oauth;
mod openapi;
mod platform;
mod provider_search;
mod read_through;
mod s3_lake;
mod state_store;
mod track_aircraft;
