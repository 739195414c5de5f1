//! The serving platform: everything an operation runs on, and no operation. The state store, the
//! snapshot engine over DuckDB, authentication, the per-operation edge pipeline, metrics, the
//! registry's types, the answer kit every handler uses, and dispatch (how batch and MCP call
//! operations in process). The groups of operations live in `sitrep-api`, the agents' surfaces
//! in `sitrep-agents`; both depend on this crate, never the other way (ARCHITECTURE.md).
//!
//! Architecture invariant: the serving crates are the only ones that know HTTP, poem and JSON
//! response shapes, and this is the only one that links DuckDB. It reads the lake, never writes it.

pub mod access;
pub mod app_state;
pub mod auth;
pub mod dataset_health;
pub mod dispatch;
pub mod edge;
pub mod kit;
pub mod meta;
pub mod metrics;
pub mod openapi_doc;
pub mod per_thread;
pub mod registry;
pub mod snapshot;
pub mod state;

pub use app_state::{AppState, Settings};
