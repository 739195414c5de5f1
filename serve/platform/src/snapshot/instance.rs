//! Every DuckDB instance of the process opens here, with the settings that must not depend on how
//! the library was built or on the process's environment.
//!
//! The default build links DuckDB Labs' prebuilt library, which has ICU and extension autoloading
//! built in; the bundled build (`DUCKDB=bundled`) has neither. So:
//! - `TimeZone` is UTC: with ICU, a `TIMESTAMPTZ` cast, compared or truncated follows the process's
//!   `TZ`, and a server started under `TZ=Europe/Berlin` would shift instants by an hour or two.
//! - Known extensions are neither installed nor autoloaded: the prebuilt library would otherwise
//!   download one from the internet the first time a statement names it. What the server needs
//!   (Parquet, JSON) is built into both builds.

use duckdb::{Config, Connection};

/// What one DuckDB instance may write where it spills (the serving engine, a serving file's
/// build, a diff): past it the query fails (a diff's first page, a build retried at the next
/// poll) rather than fill the cache directory's disk, which DuckDB would by default allow to 90 %
/// of its free space — one caller's diff of a huge pair could otherwise starve every other
/// version's files of room.
pub const SPILL_LIMIT: &str = "4GB";

/// The variable DuckDB Labs' library reads its own jemalloc's options from (its symbols are
/// prefixed `duckdb_je_`, and so is the variable).
pub const DUCKDB_ALLOCATOR_CONF: &str = "DUCKDB_JE_MALLOC_CONF";

/// Gives the jemalloc inside DuckDB Labs' library — which holds DuckDB's buffers (the binaries'
/// own jemalloc holds everything else) — the purge policy of the binaries' allocator: allocations
/// of 8 MB and more in an arena of their own that frees at once (jemalloc's default; DuckDB sets
/// 256 MB), and decayed pages handed back at once rather than lazily (`MADV_FREE` pages stay
/// resident). Under DuckDB's own options a 1M-event serving-file build peaked 30 MB higher than
/// the same build in the bundled binary; under these, 17 MB, most of it the library's own pages
/// (ARCHITECTURE.md). An operator's own
/// `DUCKDB_JE_MALLOC_CONF` is kept. A build that compiles DuckDB in (`DUCKDB=bundled`) has no
/// such allocator and ignores it. Call it first thing in `main`, before any thread starts: it sets
/// the process's environment, which jemalloc reads when DuckDB first allocates.
pub fn configure_duckdb_allocator() {
    if std::env::var_os(DUCKDB_ALLOCATOR_CONF).is_none() {
        std::env::set_var(DUCKDB_ALLOCATOR_CONF, "oversize_threshold:8388608,muzzy_decay_ms:0");
    }
}

/// An in-memory DuckDB instance with the process-independent settings above (for every
/// connection cloned from the one returned too).
pub fn open_duckdb() -> Result<Connection, duckdb::Error> {
    let config = Config::default().with("autoinstall_known_extensions", "false")?.enable_autoload_extension(false)?;
    let conn = Connection::open_in_memory_with_flags(config)?;
    // `TimeZone` is ICU's setting: set once ICU has loaded (not in the startup config, which knows
    // only the core's settings); a build without ICU has no time zone but UTC.
    let has_time_zones: bool =
        conn.query_row("SELECT count(*) > 0 FROM duckdb_settings() WHERE name = 'TimeZone'", [], |r| r.get(0))?;
    if has_time_zones {
        conn.execute_batch("SET GLOBAL TimeZone = 'UTC'")?;
    }
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libduckdb-sys's version encodes the DuckDB release its bindings were generated from
    /// (1.MMmmpp.n: 1.10506.1 is v1.5.6); the library linked at run time must be that release.
    fn bindings_release() -> String {
        let lock = include_str!("../../../../Cargo.lock");
        let version = lock
            .split("[[package]]")
            .find(|p| p.contains("name = \"libduckdb-sys\""))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
            .map(|v| v.trim_end_matches('"'))
            .expect("libduckdb-sys in Cargo.lock");
        let encoded: u32 = version.split('.').nth(1).and_then(|m| m.parse().ok()).expect("1.MMmmpp.n");
        format!("v{}.{}.{}", encoded / 10000, encoded / 100 % 100, encoded % 100)
    }

    #[test]
    fn the_linked_library_is_the_release_the_bindings_were_generated_for() {
        let conn = open_duckdb().unwrap();
        let linked: String = conn.query_row("SELECT library_version FROM pragma_version()", [], |r| r.get(0)).unwrap();
        assert_eq!(linked, bindings_release());
    }

    #[test]
    fn parquet_and_json_are_built_in_and_nothing_is_fetched() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.parquet");
        let conn = open_duckdb().unwrap();
        conn.execute_batch(&format!(
            "COPY (SELECT 1 AS a, to_json([1, 2]) AS j) TO '{}' (FORMAT parquet)",
            file.display()
        ))
        .unwrap();
        let (a, j): (i64, String) = conn
            .query_row(&format!("SELECT a, CAST(j AS VARCHAR) FROM read_parquet('{}')", file.display()), [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((a, j.as_str()), (1, "[1,2]"));
        let (install, autoload): (String, String) = conn
            .query_row(
                "SELECT current_setting('autoinstall_known_extensions')::VARCHAR, \
                 current_setting('autoload_known_extensions')::VARCHAR",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((install.as_str(), autoload.as_str()), ("false", "false"));
    }
}
