//! The ingest side of sitrep: the lake commit protocol on object storage, the runner
//! (fetch → validate → write Parquet → commit), the scheduler and backfill.
//!
//! Architecture invariant: only this crate writes the lake, and it never overwrites a commit or a
//! data file. Readers (the server, analysts) use [`lake::Lake`]'s read side only.

pub mod backfill;
pub mod config;
pub mod error;
pub mod lake;
pub mod replay;
pub mod runner;
pub mod scheduler;
pub mod writer;

pub use error::IngestError;
pub use lake::Lake;
