//! Property tests of every decoder that reads a caller's bytes: jmespath expressions, data and
//! company-monitoring cursors, query parameters, the JSON bodies of the POST operations, MCP's
//! JSON-RPC envelope and the OAuth forms. Each runs with a fixed seed and a fixed number of cases
//! in `make test`; `make fuzz` runs them with a random seed and `SITREP_FUZZ_CASES` cases each.
//!
//! The requests go through the real application in this process (routing, authentication, the
//! edge, the handlers), without sockets, so thousands of cases take seconds.

mod jmespath;

use std::sync::{LazyLock, OnceLock};

use proptest::test_runner::{Config, RngSeed};
use sitrep_tests::TestApp;

/// The seed of `make test`'s runs: the same cases every time.
const SEED: u64 = 20_261_127;

/// `cases` cases with the fixed seed, or under `make fuzz` (`SITREP_FUZZ_CASES`) that many with a
/// random seed (printed by proptest with any failure, to replay it with `PROPTEST_RNG_SEED`).
pub fn config(cases: u32) -> Config {
    let fuzz = std::env::var("SITREP_FUZZ_CASES").ok().and_then(|n| n.parse().ok());
    Config {
        cases: fuzz.unwrap_or(cases),
        rng_seed: if fuzz.is_some() { RngSeed::Random } else { RngSeed::Fixed(SEED) },
        // Failures are reported with their seed; no regression files in the source tree.
        failure_persistence: None,
        max_shrink_iters: 2_000,
        ..Config::default()
    }
}

/// One runtime for every property: the application's tasks live in it.
pub static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
});

/// The real application over the replayed lake, started once for every property.
pub fn app() -> &'static TestApp {
    static APP: OnceLock<TestApp> = OnceLock::new();
    APP.get_or_init(|| RUNTIME.block_on(TestApp::start()))
}
