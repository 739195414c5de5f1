//! Requests and their latency per operation and status, counted by each thread in a shard of its
//! own and summed when scraped. A shared counter and prometheus-client's histogram (a mutex around
//! its buckets) were cache lines both worker threads wrote on every request.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use prometheus_client::{
    collector::Collector,
    encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric},
    metrics::{counter::ConstCounter, MetricType},
};
use thread_local::ThreadLocal;

use crate::per_thread::Padded;

/// Upper bounds of the latency buckets: 100 µs … ~3 s (cached answers sit in the first buckets,
/// cold queries further up), then +Inf.
const BOUNDS: [f64; 16] = {
    let mut b = [0.0; 16];
    let mut i = 0;
    let mut v = 0.0001;
    while i < 16 {
        b[i] = v;
        v *= 2.0;
        i += 1;
    }
    b
};
const BUCKETS: usize = BOUNDS.len() + 1;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    operation: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabel {
    operation: &'static str,
}

/// One operation's counts in one thread.
#[derive(Clone, Copy)]
struct Counts {
    ok: u64,
    not_modified: u64,
    sum: f64,
    buckets: [u64; BUCKETS],
}

impl Default for Counts {
    fn default() -> Self {
        Counts { ok: 0, not_modified: 0, sum: 0.0, buckets: [0; BUCKETS] }
    }
}

/// One thread's counts: per operation (by index), and the rarer statuses by (index, status).
/// Its mutex is taken by its own thread, and by a scrape.
#[derive(Default)]
struct Shard {
    operations: Vec<Counts>,
    other_statuses: HashMap<(usize, u16), u64>,
}

/// The request series of every operation known at start.
#[derive(Clone)]
pub struct RequestMeter {
    operations: Arc<[&'static str]>,
    index: Arc<foldhash::HashMap<&'static str, usize>>,
    shards: Arc<ThreadLocal<Padded<Mutex<Shard>>>>,
}

impl std::fmt::Debug for RequestMeter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestMeter").field("operations", &self.operations.len()).finish()
    }
}

impl RequestMeter {
    /// Series for `operations` (their registry ids, `mcp`, `unknown`); a request of another
    /// operation is not counted.
    pub fn new(operations: impl IntoIterator<Item = &'static str>) -> Self {
        let operations: Arc<[&'static str]> = operations.into_iter().collect();
        let index = operations.iter().enumerate().map(|(i, op)| (*op, i)).collect();
        RequestMeter { operations, index: Arc::new(index), shards: Arc::new(ThreadLocal::new()) }
    }

    pub fn observe(&self, operation: &'static str, status: u16, elapsed: Duration) {
        let Some(&i) = self.index.get(operation) else {
            tracing::warn!(operation, "request of an operation without series");
            return;
        };
        let shard = self.shards.get_or(|| {
            Padded(Mutex::new(Shard { operations: vec![Counts::default(); self.operations.len()], ..Shard::default() }))
        });
        let Ok(mut shard) = shard.0.lock() else { return };
        let seconds = elapsed.as_secs_f64();
        let counts = &mut shard.operations[i];
        counts.sum += seconds;
        counts.buckets[BOUNDS.iter().position(|b| seconds <= *b).unwrap_or(BOUNDS.len())] += 1;
        match status {
            200 => counts.ok += 1,
            304 => counts.not_modified += 1,
            _ => *shard.other_statuses.entry((i, status)).or_default() += 1,
        }
    }

    /// Every thread's counts, added up.
    fn totals(&self) -> Shard {
        let mut total = Shard { operations: vec![Counts::default(); self.operations.len()], ..Shard::default() };
        for shard in self.shards.iter() {
            let Ok(shard) = shard.0.lock() else { continue };
            for (t, c) in total.operations.iter_mut().zip(&shard.operations) {
                t.ok += c.ok;
                t.not_modified += c.not_modified;
                t.sum += c.sum;
                t.buckets.iter_mut().zip(&c.buckets).for_each(|(t, c)| *t += c);
            }
            for (k, n) in &shard.other_statuses {
                *total.other_statuses.entry(*k).or_default() += n;
            }
        }
        total
    }
}

impl Collector for RequestMeter {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let totals = self.totals();
        let mut requests: Vec<(RequestLabels, u64)> = Vec::new();
        for (i, c) in totals.operations.iter().enumerate() {
            let operation = self.operations[i];
            requests.push((RequestLabels { operation, status: 200 }, c.ok));
            requests.push((RequestLabels { operation, status: 304 }, c.not_modified));
        }
        for ((i, status), n) in &totals.other_statuses {
            requests.push((RequestLabels { operation: self.operations[*i], status: *status }, *n));
        }
        let mut family = encoder.encode_descriptor(
            "http_requests",
            "API requests by operation and status",
            None,
            MetricType::Counter,
        )?;
        for (labels, n) in &requests {
            ConstCounter::new(*n).encode(family.encode_family(labels)?)?;
        }
        let mut family = encoder.encode_descriptor(
            "http_request_duration_seconds",
            "API request latency by operation",
            None,
            MetricType::Histogram,
        )?;
        for (i, c) in totals.operations.iter().enumerate() {
            let count = c.buckets.iter().sum();
            let buckets: Vec<(f64, u64)> =
                BOUNDS.iter().copied().chain([f64::INFINITY]).zip(c.buckets.iter().copied()).collect();
            family
                .encode_family(&OperationLabel { operation: self.operations[i] })?
                .encode_histogram::<OperationLabel>(c.sum, count, &buckets, None)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_every_thread_are_added_up() {
        let meter = RequestMeter::new(["A", "B"]);
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let m = meter.clone();
                std::thread::spawn(move || {
                    m.observe("A", 200, Duration::from_micros(50));
                    m.observe("A", 429, Duration::from_millis(1));
                    m.observe("B", 304, Duration::from_secs(10));
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let t = meter.totals();
        assert_eq!((t.operations[0].ok, t.operations[0].not_modified), (3, 0));
        assert_eq!(t.other_statuses[&(0, 429)], 3);
        assert_eq!(t.operations[1].not_modified, 3);
        assert_eq!(t.operations[0].buckets[0], 3, "50 µs falls in the first bucket");
        assert_eq!(t.operations[1].buckets[BUCKETS - 1], 3, "10 s is past the last bound");
        assert!((t.operations[0].sum - 3.0 * 0.00105).abs() < 1e-9);
    }
}
