//! The ingest side of sitrep: the runner (fetch → validate → write Parquet → commit through
//! `sitrep-lake`), the scheduler and backfill.
//!
//! Architecture invariant: only this crate writes the lake, and it never overwrites a commit or a
//! data file. Readers (the server, analysts) use [`lake::Lake`]'s read side only.

pub mod backfill;
pub mod company_scan;
pub mod config;
pub mod content_hash;
pub mod content_time;
pub mod error;
pub mod memory;
pub mod replay;
pub mod runner;
pub mod scheduler;
pub mod writer;

pub use error::IngestError;
pub use sitrep_lake::{self as lake, Lake};
