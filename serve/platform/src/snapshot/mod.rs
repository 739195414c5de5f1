//! Serving snapshots of the lake. The server follows `latest.json` (poll + probe), downloads a new
//! generation's files into the local cache, builds one DuckDB database file per dataset VERSION
//! (sorted tables, so carried-forward datasets are reused, not rebuilt), attaches it read-only to
//! the server's one DuckDB instance (`Engine`), smoke-tests it, then swaps an
//! `Arc<Generation>`. In-flight requests keep the generation they started with. A failed load never
//! replaces a good generation. Recent dataset versions stay queryable for pinned cursors.

mod cache_prune;
mod dataset_db;
mod derived;
mod engine;
mod fair_eviction;
mod instance;
mod manager;
mod position_index;
mod running;
mod shares;
pub mod work_time;

pub use dataset_db::{Backing, BuildOptions, DatasetDb, DbError, VersionSpec};
pub use engine::Engine;
pub use fair_eviction::{evictions, Budget, Held};
pub use instance::{configure_duckdb_allocator, open_duckdb, DUCKDB_ALLOCATOR_CONF, SPILL_LIMIT};
pub use manager::{Generation, SnapshotError, Snapshots, DIFF_MEMORY};
pub use position_index::PositionRange;
pub use running::Running;
pub use shares::{OwnerShares, QUERY_OWNER};
pub use work_time::{Charged, Payer, TimeSpent, WorkTime};
