//! The lake on object storage (DESIGN.md §3), for its one writer (`ingest`) and its readers
//! (`serve`, analysts' tools through `lake views`):
//!
//! ```text
//! data/<dataset>/<run-ulid>/part-<n>.parquet   immutable, written once by one run (layout.rs)
//! data/<dataset>/_delta_log/…                  the dataset's Delta Lake table (delta/)
//! data/<dataset>/metadata/…                    the dataset's Apache Iceberg table (iceberg/)
//! commits/<generation, 20 digits>.json         immutable, one per generation, PutMode::Create
//! latest.json                                  a hint only; readers confirm by probing
//! tables.json                                  a hint: the generation the open tables are up to date through
//! staging/<name>.json                          backfill checkpoints (resumable runs)
//! ```
//!
//! Architecture invariant: this crate knows the commit protocol and nothing of connectors,
//! scheduling or HTTP. Only `ingest` calls its write side (`publish`, `rollback`, `put_data`, `gc`, `migrate`).

mod delta;
mod error;
mod gc;
mod history;
mod iceberg;
pub mod layout;
mod log;
mod migrate;
mod publish;
mod read;
mod store;
mod tables;
mod validate;
mod views;

pub use delta::{log_key as delta_log_key, table_id as delta_table_id, table_location};
pub use error::LakeError;
pub use gc::{GcOptions, GcReport};
pub use history::{parse_as_of, published_by, PublishedVersion, Retention, AS_OF_PATTERN, NEWEST_VERSIONS_KEPT};
pub use iceberg::{metadata_key as iceberg_metadata_key, IcebergMetadata};
pub use log::describe_changes;
pub use migrate::MigrateReport;
pub use publish::{Outcome, Staged};
pub use store::Lake;
pub use views::{views_json, views_sql};
