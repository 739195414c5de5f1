//! HTTP load with `wrk` (a real load generator), driven through Lua scripts: throughput and p99 of
//! the cached request, of distinct uncached requests, and of the ceiling route.

use std::{path::PathBuf, time::Duration};

/// Connections held open by wrk, as the issue asks.
const CONCURRENCY: u32 = 32;
/// Rounds of the ceilings and of the cached request, alternating (an odd number: a median).
const ROUNDS: usize = 5;
/// Synthetic events come from these countries (see `sitrep_pipelines::synthetic`).
const COUNTRIES: &str = "YE SD UA SY MM CD ML SO PK MX PS NG BF AF ET CO";

/// The distinct ListArmedEvents pages: `%s` country, `%d` start.
const UNCACHED_TEMPLATE: &str = "/api/conflict/v1/list-armed-events?page_size=100&country=%s&start=%d";

pub struct Wrk {
    path: PathBuf,
    duration: Duration,
}

/// One wrk run.
#[derive(Debug)]
pub struct Run {
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

pub struct Figures {
    pub ceiling: Run,
    /// The ceiling's body with the headers of the cached answer.
    pub headers_ceiling: Run,
    pub cached: Run,
    pub uncached: Run,
    /// Distinct uncached requests one at a time (one connection): latency without queueing, to
    /// set beside the engine's floor.
    pub sequential: Run,
    /// The same distinct pages answered by datasette over the same rows in SQLite.
    pub datasette: Option<Run>,
    /// MCP `tools/call` of the same (cached) page, under the same load, and a ceiling serving
    /// the bytes of its reply (the round with the median ratio of the two).
    pub mcp_tool: Run,
    pub mcp_ceiling: Run,
    /// The cached request one at a time, and a 20-operation batch of it one at a time.
    pub cached_sequential: Run,
    pub batch_sequential: Run,
}

/// Prints one machine-readable line at the end of a run (latency in µs, duration in µs).
const DONE: &str = r#"
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("SITREP %d %d %d %.1f %.1f %d %d %d %d %d\n", summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout, latency:percentile(99), latency:percentile(50),
    e.connect, e.read, e.write, e.status, e.timeout))
end
"#;

/// The page of `request` (a REST path with a query) as an MCP `tools/call` body: its query
/// becomes the tool's arguments.
pub fn mcp_call(request: &str) -> String {
    let args: serde_json::Map<String, serde_json::Value> =
        url::form_urlencoded::parse(request.split_once('?').map_or("", |(_, q)| q).as_bytes())
            .map(|(k, v)| (k.into_owned(), v.parse::<i64>().map(Into::into).unwrap_or_else(|_| v.into_owned().into())))
            .collect();
    let tool = request.split_once('?').map_or(request, |(p, _)| p).rsplit('/').next().unwrap_or("").replace('-', "_");
    serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        .to_string()
}

impl Wrk {
    /// `wrk` on PATH; each run lasts `BENCH_HTTP_SECONDS` (default 5).
    pub fn find() -> Option<Wrk> {
        let secs = std::env::var("BENCH_HTTP_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
        std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).map(|d| d.join("wrk")).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .find(|p| p.is_file())
            .map(|path| Wrk { path, duration: Duration::from_secs(secs) })
    }

    /// One request repeated: `key` (if any) as X-Service-Key.
    fn repeated_script(key: Option<&str>) -> String {
        let header = key.map(|k| format!("wrk.headers[\"X-Service-Key\"] = \"{k}\"\n")).unwrap_or_default();
        format!("{header}{DONE}")
    }

    /// One GET repeated with `key` as X-Service-Key.
    pub fn repeated(key: &str) -> String {
        Self::repeated_script(Some(key))
    }

    /// One GET repeated without a credential.
    pub fn repeated_anonymous() -> String {
        Self::repeated_script(None)
    }

    /// One POST repeated: `body` (JSON) with `key` as X-Service-Key.
    fn post_script(key: &str, body: &str) -> String {
        format!(
            "wrk.method = \"POST\"\nwrk.body = [[{body}]]\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"X-Service-Key\"] = \"{key}\"\n{DONE}"
        )
    }

    /// Every request distinct, so none is answered from a cache: the country cycles and the start
    /// (epoch ms, same UTC day) carries a counter unique across wrk's threads. `template` is a
    /// path with `%s` for the country and `%d` for the start.
    fn distinct_script(key: Option<&str>, template: &str, start_ms: i64) -> String {
        let countries: Vec<String> = COUNTRIES.split(' ').map(|c| format!("\"{c}\"")).collect();
        let header = key.map(|k| format!("wrk.headers[\"X-Service-Key\"] = \"{k}\"\n")).unwrap_or_default();
        format!(
            r#"{header}local countries = {{{countries}}}
local next_id = 0
function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
end
function init(args)
  n = 0
end
function request()
  n = n + 1
  local k = n * 16 + tid
  local c = countries[(k % #countries) + 1]
  return wrk.format(nil, string.format("{template}", c, {start_ms} + k))
end
{DONE}"#,
            countries = countries.join(", ")
        )
    }

    /// Runs wrk with `script` against `url` at the benchmark's concurrency.
    pub async fn run(&self, url: &str, script: &str) -> Run {
        self.run_with(url, script, 2, CONCURRENCY).await
    }

    /// Runs wrk with `threads` threads holding `connections` connections.
    pub async fn run_with(&self, url: &str, script: &str, threads: u32, connections: u32) -> Run {
        let file = tempfile::Builder::new().suffix(".lua").tempfile().expect("script file");
        std::fs::write(file.path(), script).expect("write script");
        let out = tokio::process::Command::new(&self.path)
            .args([&format!("-t{threads}"), &format!("-c{connections}"), &format!("-d{}s", self.duration.as_secs())])
            // A slow peer must count as slow, not as failed: wrk's default timeout is 2 s.
            .args(["--timeout", "30s", "--latency", "-s"])
            .arg(file.path())
            .arg(url)
            .output()
            .await
            .expect("run wrk");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix("SITREP "))
            .unwrap_or_else(|| panic!("wrk printed no summary: {stdout}{}", String::from_utf8_lossy(&out.stderr)));
        let f: Vec<f64> = line.split_whitespace().filter_map(|v| v.parse().ok()).collect();
        let (requests, duration_us, errors, p99_us, p50_us) = (f[0], f[1], f[2], f[3], f[4]);
        if errors > 0.0 {
            let [connect, read, write, status, timeout] = [f[5], f[6], f[7], f[8], f[9]];
            eprintln!(
                "wrk: {errors} failed or non-2xx responses of {requests} against {url} \
                 (connect {connect}, read {read}, write {write}, status {status}, timeout {timeout})"
            );
        }
        Run { rps: requests / (duration_us / 1e6), p50_ms: p50_us / 1e3, p99_ms: p99_us / 1e3 }
    }

    /// Ceiling, cached and uncached figures for `request` (a path with a query string) on a
    /// dataset as of `as_of`.
    pub async fn figures(
        &self,
        base: &str,
        key: &str,
        request: &str,
        [ceiling_path, headers_ceiling_path, mcp_ceiling_path]: [&str; 3],
        as_of: chrono::DateTime<chrono::Utc>,
    ) -> Figures {
        // In alternating rounds, so that a slow patch of the VM falls on both sides of a ratio: the
        // round with the median cached ÷ ceiling is reported.
        let (anonymous, keyed) = (Self::repeated_script(None), Self::repeated_script(Some(key)));
        let [ceiling, headers_ceiling, cached] = self
            .alternating([
                (&format!("{base}{ceiling_path}"), &anonymous),
                (&format!("{base}{headers_ceiling_path}"), &anonymous),
                (&format!("{base}{request}"), &keyed),
            ])
            .await;
        let uncached = self.uncached(base, key, as_of).await;
        let (start, _) = Self::window(as_of);
        let script = Self::distinct_script(Some(key), UNCACHED_TEMPLATE, start + 7_000_000);
        let sequential = self.run_with(base, &script, 1, 1).await;
        // The same request to both (a POST of the call, with the key), so the ratio is what the
        // server does between reading it and sending the reply.
        let script = Self::post_script(key, &mcp_call(request));
        let (mcp_ceiling, mcp_tool) =
            self.paired((&format!("{base}{mcp_ceiling_path}"), &script), (&format!("{base}/mcp"), &script)).await;
        let cached_sequential =
            self.run_with(&format!("{base}{request}"), &Self::repeated_script(Some(key)), 1, 1).await;
        let ops: Vec<serde_json::Value> =
            (0..20).map(|i| serde_json::json!({"id": format!("op{i}"), "path": request})).collect();
        let batch = serde_json::json!({ "operations": ops }).to_string();
        let batch_sequential =
            self.run_with(&format!("{base}/api/batch/v1/execute"), &Self::post_script(key, &batch), 1, 1).await;
        Figures {
            ceiling,
            headers_ceiling,
            cached,
            uncached,
            sequential,
            datasette: None,
            mcp_tool,
            mcp_ceiling,
            cached_sequential,
            batch_sequential,
        }
    }

    /// A ceiling `(url, script)` and a measured `(url, script)` run in alternating rounds, so that
    /// a slow patch of the VM falls on both sides of the ratio: the round with the median
    /// measured ÷ ceiling, as (ceiling, measured).
    pub async fn paired(&self, ceiling: (&str, &str), measured: (&str, &str)) -> (Run, Run) {
        let [ceiling, measured] = self.alternating([ceiling, measured]).await;
        (ceiling, measured)
    }

    /// `(url, script)` targets, the first a ceiling and the last the measured request, run in
    /// that order in each of the alternating rounds: the runs of the round with the median last
    /// ÷ first.
    pub async fn alternating<const N: usize>(&self, targets: [(&str, &str); N]) -> [Run; N] {
        let mut rounds: Vec<Vec<Run>> = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            let mut round = Vec::with_capacity(N);
            for (url, script) in targets {
                round.push(self.run(url, script).await);
            }
            rounds.push(round);
        }
        let ratio = |round: &Vec<Run>| round[N - 1].rps / round[0].rps;
        rounds.sort_by(|a, b| ratio(a).total_cmp(&ratio(b)));
        rounds.swap_remove(ROUNDS / 2).try_into().expect("one run per target")
    }

    /// The first day of the 30-day window the distinct pages start in, and the as-of (epoch ms).
    fn window(as_of: chrono::DateTime<chrono::Utc>) -> (i64, i64) {
        let start = (as_of - chrono::Duration::days(30)).timestamp_millis().div_euclid(86_400_000) * 86_400_000;
        (start, as_of.timestamp_millis())
    }

    /// The same distinct pages from datasette: country, time range, 100 rows newest first, count.
    pub async fn datasette(&self, base: &str, as_of: chrono::DateTime<chrono::Utc>) -> Run {
        let (start, end) = Self::window(as_of);
        let template = format!(
            "/bench/armed_events.json?_shape=objects&_size=100&_sort_desc=occurred_at&country_iso2=%s&occurred_at__gte=%d&occurred_at__lte={end}"
        );
        self.run(base, &Self::distinct_script(None, &template, start)).await
    }

    /// Distinct ListArmedEvents pages (the 30 days before `as_of`, each country) with no body-cache hit.
    pub async fn uncached(&self, base: &str, key: &str, as_of: chrono::DateTime<chrono::Utc>) -> Run {
        let (start, _) = Self::window(as_of);
        self.run(base, &Self::distinct_script(Some(key), UNCACHED_TEMPLATE, start)).await
    }
}
