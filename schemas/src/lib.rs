//! The lake contract: dataset ids, their Arrow schemas and partitioning, schema fingerprints,
//! the commit document, country reference tables and shared enums.
//!
//! Architecture invariant: this crate does no IO. Reference tables are compiled in with
//! `include_str!`, so every other crate can depend on it without pulling a runtime.

pub mod airports;
pub mod aviation;
pub mod climate;
pub mod closed_set;
pub mod commit;
pub mod conflict;
pub mod consumer_prices;
pub mod content_clock;
pub mod countries;
pub mod dataset;
pub mod delay_severity;
pub mod descriptor;
pub mod energy;
mod fields;
pub mod fingerprint;
pub mod numbers;
pub mod partition;
pub mod sql;

pub use commit::{
    time_ranges, ColumnRange, Commit, DataMode, DatasetEntry, DatasetStatus, FileEntry, Freshness, RunOutcome, RunStats,
};
pub use content_clock::{ContentClock, StaleReason};
pub use dataset::{DatasetDescriptor, DatasetId, Partitioning};
