//! `/metrics` (DESIGN §6): requests and latency per operation and status, body-cache hits, misses
//! and bytes, the loaded generation, each dataset's age, content age and state, DuckDB connections in use and
//! memory, resident memory and rate-limit refusals, in the OpenMetrics text format Prometheus scrapes. Gauges that describe
//! the current state are set when scraped, so nothing on the request path maintains them.

use std::time::Duration;

use chrono::Utc;
use prometheus_client::{
    encoding::EncodeLabelSet,
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{exponential_buckets, Histogram},
    },
    registry::Registry,
};
use sitrep_schemas::{DatasetId, RunOutcome, StaleReason};

use crate::{
    dataset_health::DatasetHealth,
    edge::rate_limit::Policy,
    kit::answer::{BodyCache, DataState},
    snapshot::Snapshots,
};

mod requests;

use requests::RequestMeter;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DatasetLabel {
    dataset: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DatasetStateLabels {
    dataset: String,
    state: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PolicyLabel {
    policy: &'static str,
}

pub struct Metrics {
    registry: Registry,
    requests: RequestMeter,
    refusals: Family<PolicyLabel, Counter>,
    cache_hits: Counter,
    cache_misses: Counter,
    cache_bytes: Gauge,
    generation: Gauge,
    dataset_age: Family<DatasetLabel, Gauge>,
    dataset_state: Family<DatasetStateLabels, Gauge>,
    content_age: Family<DatasetLabel, Gauge>,
    frozen: Family<DatasetLabel, Gauge>,
    duckdb_in_use: Gauge,
    duckdb_interrupted: Gauge,
    duckdb_memory: Gauge,
    builds_pending: Gauge,
    resident: Gauge,
    run_rows: Family<DatasetLabel, Gauge>,
    run_bytes: Family<DatasetLabel, Gauge>,
    run_seconds: Family<DatasetLabel, Gauge<f64, std::sync::atomic::AtomicU64>>,
    run_outcome: Family<RunOutcomeLabels, Gauge>,
    webhook_attempts: Family<OutcomeLabel, Counter>,
    webhook_attempt_seconds: Histogram,
    webhook_deliveries_fanned_out: Counter,
    webhook_endpoints_disabled: Counter,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabel {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunOutcomeLabels {
    dataset: String,
    outcome: &'static str,
}

/// A new metric (its type is the field it goes into), registered under `name` with `help`.
fn registered<M: prometheus_client::registry::Metric + Default + Clone>(
    registry: &mut Registry,
    name: &str,
    help: &str,
) -> M {
    let metric = M::default();
    registry.register(name, help, metric.clone());
    metric
}

/// Resident memory from `/proc/self/statm` (Linux; pages of 4 KiB there).
fn resident_bytes() -> Option<i64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: i64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

impl Metrics {
    /// The metrics of a server answering the operations of these ids.
    pub fn new(operations: impl IntoIterator<Item = &'static str>) -> Self {
        let mut registry = Registry::with_prefix("sitrep");
        // Every operation the registry declares, `/mcp`, and undeclared `/api/*` paths.
        let requests = RequestMeter::new(operations.into_iter().chain(["mcp", "unknown"]));
        registry.register_collector(Box::new(requests.clone()));
        let r = &mut registry;
        let refusals = registered(r, "rate_limit_refusals", "Requests refused with 429 by rate-limit policy");
        let cache_hits = registered(r, "body_cache_hits", "Answers served from the rendered-body cache");
        let cache_misses = registered(r, "body_cache_misses", "Answers that had to be rendered");
        let cache_bytes = registered(r, "body_cache_bytes", "Bytes charged to the rendered-body cache");
        let generation = registered(r, "loaded_generation", "The lake generation being served (0: none)");
        let dataset_age = registered(r, "dataset_age_seconds", "Seconds since each dataset's data was fetched");
        let dataset_state =
            registered(r, "dataset_state", "1 for each dataset's current state (fresh, stale, unavailable)");
        let content_age = registered(
            r,
            "dataset_content_age_seconds",
            "Seconds since each dataset's newest content time by its content clock (-1: none)",
        );
        let frozen = registered(
            r,
            "dataset_frozen_upstream",
            "1 when a dataset's fetches succeed but its content stopped advancing (served as stale)",
        );
        let duckdb_in_use = registered(r, "duckdb_connections_in_use", "Pooled DuckDB connections running a query");
        let duckdb_interrupted = registered(
            r,
            "duckdb_queries_interrupted",
            "Queries interrupted since start because their request was cancelled or ran past its deadline",
        );
        let duckdb_memory =
            registered(r, "duckdb_memory_bytes", "Bytes DuckDB's buffer manager holds (cached pages, query state)");
        let builds_pending = registered(
            r,
            "serving_builds_pending",
            "Loaded dataset versions read from their Parquet files until their serving file is built (after a start)",
        );
        let resident = registered(r, "process_resident_bytes", "This process's resident memory");
        // The ingest runs' counters, as the commits record them (`lastRun`): whichever process ran
        // the ingest, the server that reads the lake exposes them.
        let run_rows = registered(r, "ingest_last_run_rows", "Rows the last ingest run fetched, per dataset");
        let run_bytes = registered(r, "ingest_last_run_bytes", "Parquet bytes the last ingest run wrote, per dataset");
        let run_seconds = registered(r, "ingest_last_run_seconds", "Duration of the last ingest run, per dataset");
        let run_outcome = registered(
            r,
            "ingest_last_run_outcome",
            "1 for the last ingest run's outcome per dataset (published, unchanged, failed)",
        );
        let webhook_attempts = registered(
            r,
            "webhook_attempts",
            "Webhook delivery attempts by outcome (delivered, retryable_status, refused_status, timeout, connection_failed, address_refused)",
        );
        // 10 ms to about 20 s: an attempt's timeout is 10 s.
        let webhook_attempt_seconds = Histogram::new(exponential_buckets(0.01, 2.0, 12));
        r.register("webhook_attempt_seconds", "Webhook delivery attempts' duration", webhook_attempt_seconds.clone());
        let webhook_deliveries_fanned_out =
            registered(r, "webhook_deliveries_created", "Webhook deliveries created (one per event and endpoint)");
        let webhook_endpoints_disabled =
            registered(r, "webhook_endpoints_disabled", "Webhook endpoints disabled after failing for 5 days");
        Metrics {
            registry,
            webhook_attempts,
            webhook_attempt_seconds,
            webhook_deliveries_fanned_out,
            webhook_endpoints_disabled,
            run_rows,
            run_bytes,
            run_seconds,
            run_outcome,
            requests,
            refusals,
            cache_hits,
            cache_misses,
            cache_bytes,
            generation,
            dataset_age,
            dataset_state,
            content_age,
            frozen,
            duckdb_in_use,
            duckdb_interrupted,
            duckdb_memory,
            builds_pending,
            resident,
        }
    }

    /// One answered `/api/*` or `/mcp` request (`operation`: the registry id, `unknown` or `mcp`).
    pub fn observe(&self, operation: &'static str, status: u16, elapsed: Duration) {
        self.requests.observe(operation, status, elapsed);
    }

    /// One webhook delivery attempt, by its outcome's name.
    pub fn webhook_attempt(&self, outcome: &'static str, elapsed: Duration) {
        self.webhook_attempts.get_or_create(&OutcomeLabel { outcome }).inc();
        self.webhook_attempt_seconds.observe(elapsed.as_secs_f64());
    }

    pub fn webhook_deliveries_created(&self, n: u64) {
        self.webhook_deliveries_fanned_out.inc_by(n);
    }

    pub fn webhook_endpoint_disabled(&self) {
        self.webhook_endpoints_disabled.inc();
    }

    pub fn refused(&self, policy: Policy) {
        self.refusals.get_or_create(&PolicyLabel { policy: policy.name() }).inc();
    }

    /// The exposition, with the state gauges read now.
    pub fn render(&self, cache: &BodyCache, snapshots: &Snapshots) -> String {
        let (hits, misses, bytes) = cache.stats();
        self.cache_hits.inner().store(hits, std::sync::atomic::Ordering::Relaxed);
        self.cache_misses.inner().store(misses, std::sync::atomic::Ordering::Relaxed);
        self.cache_bytes.set(bytes as i64);
        let current = snapshots.current();
        self.generation.set(current.as_ref().map(|g| g.number as i64).unwrap_or(0));
        let now = Utc::now();
        for id in DatasetId::ALL {
            let entry = current.as_ref().and_then(|g| g.commit.dataset(id));
            let freshness = entry.map(|e| &e.freshness);
            let age = freshness.and_then(|f| f.fetched_at).map(|t| (now - t).num_seconds()).unwrap_or(-1);
            self.dataset_age.get_or_create(&DatasetLabel { dataset: id.to_string() }).set(age);
            if let Some(run) = entry.and_then(|e| e.last_run.as_ref()) {
                let label = DatasetLabel { dataset: id.to_string() };
                self.run_rows.get_or_create(&label).set(run.rows as i64);
                self.run_bytes.get_or_create(&label).set(run.bytes as i64);
                self.run_seconds.get_or_create(&label).set(run.millis as f64 / 1e3);
                for outcome in [RunOutcome::Published, RunOutcome::Unchanged, RunOutcome::Failed] {
                    let labels = RunOutcomeLabels { dataset: id.to_string(), outcome: outcome.as_str() };
                    self.run_outcome.get_or_create(&labels).set(i64::from(outcome == run.outcome));
                }
            }
            let health = DatasetHealth::of(id, entry, now);
            for s in [DataState::Fresh, DataState::Stale, DataState::Unavailable] {
                let labels = DatasetStateLabels { dataset: id.to_string(), state: s.as_str().to_string() };
                self.dataset_state.get_or_create(&labels).set(i64::from(s == health.state));
            }
            let label = DatasetLabel { dataset: id.to_string() };
            self.content_age.get_or_create(&label).set(health.content_age_seconds.unwrap_or(-1));
            self.frozen.get_or_create(&label).set(i64::from(health.stale_reason == Some(StaleReason::FrozenUpstream)));
        }
        self.duckdb_in_use.set(snapshots.engine().connections_in_use() as i64);
        self.duckdb_interrupted.set(snapshots.engine().interrupted_queries() as i64);
        if let Some(bytes) = snapshots.engine().memory_bytes() {
            self.duckdb_memory.set(bytes);
        }
        self.builds_pending.set(snapshots.pending_builds() as i64);
        if let Some(bytes) = resident_bytes() {
            self.resident.set(bytes);
        }
        let mut out = String::new();
        if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            tracing::error!(error = %e, "could not encode metrics");
        }
        out
    }
}
