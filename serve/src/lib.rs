//! The serving side of sitrep: generation loader + DuckDB, the REST groups, jmespath, auth and the
//! state store.
//!
//! Architecture invariant: only this crate knows HTTP, poem and JSON response shapes, and only it
//! links DuckDB. It reads the lake, never writes it.

pub mod api;
pub mod app;
pub mod app_state;
pub mod auth;
pub mod config;
pub mod dashboard;
pub mod dispatch;
pub mod edge;
pub mod html;
pub mod mcp;
pub mod metrics;
pub mod oauth;
pub mod per_thread;
pub mod read_through;
pub mod registry;
pub mod snapshot;
pub mod state;

pub use app::build;
pub use app_state::{AppState, Settings};
