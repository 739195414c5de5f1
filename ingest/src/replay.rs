//! Source environment of a run: in replay mode a fixture server over the `normal` scenario of each
//! upstream (and the scenarios chosen over it) and the recordings' capture time as the clock; in live mode the upstreams and the wall clock.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sitrep_pipelines::{
    budget::CallBudget,
    http::{Http, RetryPolicy},
    replay::FixtureServer,
    transport::Transport,
    FetchContext, UpstreamConfig,
};

use crate::{
    config::{Mode, SourceArgs},
    IngestError,
};

/// Upstreams the worker calls outside the dataset sources: company monitoring's SEARCH and
/// FILINGS providers.
pub const WORKER_UPSTREAMS: [&str; 2] = ["web-search", "sec-edgar"];

pub struct SourceEnv {
    http: Http,
    config: UpstreamConfig,
    /// Fixed clock of replay mode.
    replay_now: Option<DateTime<Utc>>,
    /// Where metered calls are counted (the state store); without one they are skipped.
    budget: Option<Arc<dyn CallBudget>>,
    _server: Option<Arc<FixtureServer>>,
}

impl SourceEnv {
    pub async fn prepare(args: &SourceArgs) -> Result<Self, IngestError> {
        match args.mode {
            Mode::Live => Ok(SourceEnv {
                http: Http::new(Transport::Live, RetryPolicy::default())?,
                config: UpstreamConfig::from_env().map_err(IngestError::Usage)?,
                replay_now: None,
                budget: None,
                _server: None,
            }),
            Mode::Replay => {
                let upstreams: Vec<&str> =
                    sitrep_pipelines::registry::recorded_upstreams().iter().chain(&WORKER_UPSTREAMS).copied().collect();
                let mut dirs: Vec<_> = upstreams.iter().map(|u| args.fixtures.join(u).join("normal")).collect();
                for chosen in &args.scenarios {
                    let dir = chosen
                        .split_once('=')
                        .filter(|(upstream, _)| upstreams.contains(upstream))
                        .map(|(upstream, scenario)| args.fixtures.join(upstream).join(scenario))
                        .filter(|dir| dir.is_dir())
                        .ok_or_else(|| {
                            IngestError::Usage(format!(
                                "--scenario {chosen}: expected upstream=scenario, a recorded one"
                            ))
                        })?;
                    // Later directories' recordings replace earlier ones of the same request.
                    dirs.push(dir);
                }
                let server = FixtureServer::start_dirs(&dirs).await?;
                Self::replay(server, UpstreamConfig::replay(&args.fixtures), RetryPolicy::default())
            }
        }
    }

    /// Replay against an already started fixture server (tests pick other scenarios this way).
    pub fn replay(server: FixtureServer, config: UpstreamConfig, retry: RetryPolicy) -> Result<Self, IngestError> {
        let replay_now = server.recorded_at();
        Ok(SourceEnv {
            http: Http::new(server.transport(), retry)?,
            config,
            replay_now,
            budget: None,
            _server: Some(Arc::new(server)),
        })
    }

    /// Counts metered upstream calls (AviationStack) in `budget`.
    pub fn with_budget(mut self, budget: Arc<dyn CallBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The HTTP client of this environment (the fixture server's in replay mode).
    pub fn http(&self) -> &Http {
        &self.http
    }

    /// This environment's clock: the recordings' time in replay mode, else the wall clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.replay_now.unwrap_or_else(Utc::now)
    }

    /// A fetch context for one run, with that run's clock.
    pub fn context(&self) -> FetchContext {
        FetchContext {
            http: self.http.clone(),
            now: self.replay_now.unwrap_or_else(Utc::now),
            config: self.config.clone(),
            budget: self.budget.clone(),
            previous: None,
            inputs: Vec::new(),
        }
    }

    pub fn mode(&self) -> sitrep_schemas::DataMode {
        if self.is_replay() {
            sitrep_schemas::DataMode::Replay
        } else {
            sitrep_schemas::DataMode::Live
        }
    }

    pub fn is_replay(&self) -> bool {
        self.replay_now.is_some()
    }
}
