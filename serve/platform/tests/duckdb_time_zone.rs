//! DuckDB's time zone is UTC whatever the process's `TZ` says. A test binary of its own: `TZ` is
//! set before any DuckDB instance of the process opens (ICU reads it once, at the first).

use sitrep_platform::snapshot::open_duckdb;

#[test]
fn instants_render_in_utc_under_a_process_in_berlin() {
    // Safe here: this binary's only test, before any thread reads the environment.
    std::env::set_var("TZ", "Europe/Berlin");
    // A connection of the pool: cloned from the instance's first.
    let conn = open_duckdb().unwrap().try_clone().unwrap();
    let (zone, rendered, day): (String, String, String) = conn
        .query_row(
            "SELECT current_setting('TimeZone'), \
                    CAST(TIMESTAMPTZ '2026-07-01 23:30:00+00' AS VARCHAR), \
                    CAST(CAST(TIMESTAMPTZ '2026-07-01 23:30:00+00' AS DATE) AS VARCHAR)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(zone, "UTC");
    assert_eq!(rendered, "2026-07-01 23:30:00+00");
    assert_eq!(day, "2026-07-01");
}
