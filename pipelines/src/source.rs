//! The connector abstraction: a `Source` turns an upstream into one Arrow record batch of its
//! dataset's schema, for a scheduled run or for one backfill window.

use arrow::record_batch::RecordBatch;
use chrono::{DateTime, Utc};
use sitrep_schemas::DatasetId;

use std::sync::Arc;

use crate::{budget::CallBudget, http::Http, time::YearMonth, SourceError, UpstreamConfig};

/// What a fetch covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The dataset's regular scheduled window (e.g. ACLED's rolling 90 days).
    Scheduled,
    /// One historical month (backfill).
    Month(YearMonth),
}

pub use sitrep_schemas::partition::Scope;

#[derive(Debug)]
pub struct Fetched {
    pub batch: RecordBatch,
    pub scope: Scope,
    /// The instant the data describes: wall clock when live, recording time when replayed.
    pub as_of: DateTime<Utc>,
    pub upstream_version: Option<String>,
    /// Parts of the dataset that failed while the rest was fetched and the failed parts kept
    /// from the previous version (ocean-ice's sources): recorded as the dataset's `lastError`.
    pub partial_error: Option<String>,
}

impl Fetched {
    /// The whole dataset as of `as_of`, nothing kept from before.
    pub fn all(batch: RecordBatch, as_of: DateTime<Utc>) -> Self {
        Fetched { batch, scope: Scope::All, as_of, upstream_version: None, partial_error: None }
    }
}

impl Window {
    /// Refuses a backfill window for a dataset that only keeps its current state (`what`).
    pub fn scheduled_only(self, what: &str) -> Result<(), SourceError> {
        match self {
            Window::Scheduled => Ok(()),
            Window::Month(_) => Err(SourceError::Unsupported(what.to_string())),
        }
    }
}

/// The parts of a dataset fetched one call each (Comtrade reporters, AGSI+ countries): a part
/// whose call fails keeps its row from the previous version and is named in `lastError`; the run
/// fails only if every part fails.
pub struct KeptParts<T> {
    previous: std::collections::BTreeMap<String, T>,
    pub found: std::collections::BTreeMap<String, T>,
    failed: Vec<String>,
    tried: usize,
}

impl<T: Clone> KeptParts<T> {
    pub fn new(previous: std::collections::BTreeMap<String, T>) -> Self {
        KeptParts { previous, found: Default::default(), failed: Vec::new(), tried: 0 }
    }

    /// One part's outcome: found, legitimately absent (`Ok(None)`), or failed.
    pub fn record(&mut self, key: &str, outcome: Result<Option<T>, SourceError>) {
        self.tried += 1;
        match outcome {
            Ok(Some(v)) => {
                self.found.insert(key.to_string(), v);
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(part = key, error = %e, "part failed; its previous row is kept");
                if let Some(kept) = self.previous.get(key) {
                    self.found.insert(key.to_string(), kept.clone());
                }
                self.failed.push(format!("{key}: {e}"));
            }
        }
    }

    /// The parts and the partial error (`what`: the dataset's parts, e.g. "comtrade reporters"),
    /// or the run's error when every part failed.
    pub fn finish(self, what: &str) -> Result<(std::collections::BTreeMap<String, T>, Option<String>), SourceError> {
        if self.tried > 0 && self.failed.len() == self.tried {
            return Err(SourceError::Upstream(format!("every one of the {what} failed ({})", self.failed.join("; "))));
        }
        let error = (!self.failed.is_empty()).then(|| format!("{what} failed: {}", self.failed.join("; ")));
        Ok((self.found, error))
    }
}

/// Everything a fetch may use. `now` is the as-of clock: live runs pass the wall clock, replay runs
/// the fixtures' recording time, so windows ("the last 90 days") match what was recorded.
pub struct FetchContext {
    pub http: Http,
    pub now: DateTime<Utc>,
    pub config: UpstreamConfig,
    /// Where metered upstream calls are counted; `None` = no store, so metered calls are skipped.
    pub budget: Option<Arc<dyn CallBudget>>,
    /// The rows of the dataset's current version, for sources that reuse a component of it
    /// ([`Source::reads_previous`]); `None` for the others and before the first publish.
    pub previous: Option<RecordBatch>,
    /// The rows of the datasets this source declares as [`Source::inputs`]: the version fetched
    /// earlier in the same run, else the lake's current one; absent if neither exists.
    pub inputs: Vec<(DatasetId, RecordBatch)>,
}

impl FetchContext {
    /// The rows of an input dataset, if it has a version.
    pub fn input(&self, dataset: DatasetId) -> Option<&RecordBatch> {
        self.inputs.iter().find(|(d, _)| *d == dataset).map(|(_, b)| b)
    }

    /// The pause an upstream's fair use asks for between two calls; none when the config does not
    /// pace calls (replay).
    pub async fn pace(&self, spacing: std::time::Duration) {
        if self.config.pace_calls {
            tokio::time::sleep(spacing).await;
        }
    }
}

#[async_trait::async_trait]
pub trait Source: Send + Sync {
    fn dataset(&self) -> DatasetId;

    /// The recorded upstreams it calls: folders of `data/fixtures` (`faa`, `aviationstack`), each
    /// with a `normal` scenario, that replay mode serves. Declared here only.
    fn upstreams(&self) -> &'static [&'static str];

    /// Whether [`Window::Month`] is meaningful for this upstream.
    fn supports_backfill(&self) -> bool {
        false
    }

    /// Whether a run needs [`FetchContext::previous`] (components kept across runs).
    fn reads_previous(&self) -> bool {
        false
    }

    /// Other datasets whose rows a run reads ([`FetchContext::inputs`]): climate-anomalies reads
    /// climate-normals. A run fetches its inputs first when they are part of it or have never
    /// been published.
    fn inputs(&self) -> &'static [DatasetId] {
        &[]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError>;
}
