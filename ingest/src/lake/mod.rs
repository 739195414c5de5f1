//! The lake on object storage (DESIGN.md §3):
//!
//! ```text
//! data/<run-ulid>/<dataset>/part-<n>.parquet   immutable, written once by one run
//! commits/<generation, 20 digits>.json         immutable, one per generation, PutMode::Create
//! latest.json                                  a hint only; readers confirm by probing
//! staging/<name>.json                          backfill checkpoints (resumable runs)
//! ```

mod gc;
mod log;
mod publish;
mod read;
mod store;
mod validate;
mod views;

pub use gc::{GcOptions, GcReport};
pub use log::describe_changes;
pub use publish::{Outcome, Staged};
pub use store::Lake;
pub use views::{views_json, views_sql};
