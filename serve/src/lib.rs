//! `sitrep-serve`: configuration and assembly. The server is the platform (`sitrep-platform`)
//! with the API's groups (`sitrep-api`) registered and the agents' surfaces (`sitrep-agents`)
//! mounted; this crate is the only one that knows all three.

pub mod app;
pub mod config;
pub mod http_server;
pub mod send_rate;

pub use app::build;
