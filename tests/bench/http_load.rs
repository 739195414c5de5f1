//! HTTP load with `wrk` (a real load generator), driven through Lua scripts: throughput and p99 of
//! the cached request, of distinct uncached requests, and of the ceiling route.

use std::{path::PathBuf, time::Duration};

/// Connections held open by wrk, as the issue asks.
const CONCURRENCY: u32 = 32;
/// Rounds of the ceilings and of the cached request, alternating (an odd number: a median; one in
/// the short pass).
fn rounds() -> usize {
    crate::scaled(5, 1)
}
/// Synthetic events come from these countries (see `sitrep_pipelines::synthetic`).
const COUNTRIES: &str = "YE SD UA SY MM CD ML SO PK MX PS NG BF AF ET CO";

/// The distinct ListArmedEvents pages: `%s` country, `%d` start.
const UNCACHED_TEMPLATE: &str = "/api/conflict/v1/list-armed-events?page_size=100&country=%s&start=%d";

pub struct Wrk {
    path: PathBuf,
    duration: Duration,
}

/// One wrk run, every answer of it a 2xx (a run with another answer fails the bench: see
/// [`Wrk::run_with`]).
#[derive(Debug)]
pub struct Run {
    /// Answers (every one a 2xx).
    pub requests: f64,
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// The server's CPU (user + system) per answer, in µs: this process's, which serves every
    /// target but a peer's (`None` for a peer in its own process).
    pub cpu_us: Option<f64>,
}

/// The server CPU columns of a measured run beside its ceiling: the run's µs per answer, the
/// ceiling's, and their ratio (issue 58's goals are on it), formatted ("n/a" without wrk).
pub fn cpu_cells(run: Option<&Run>, ceiling: Option<&Run>) -> [String; 3] {
    let us = |r: Option<&Run>| r.and_then(|r| r.cpu_us);
    let fmt = |v: Option<f64>, d: usize| v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.d$}"));
    [fmt(us(run), 1), fmt(us(ceiling), 1), fmt(us(run).zip(us(ceiling)).map(|(a, b)| a / b), 2)]
}

/// CPU time this process has used (user + system, all threads), in µs: /proc/self/stat's utime and
/// stime, in the kernel's USER_HZ ticks (100 a second on Linux; 10 ms — a 5 s round at full load
/// is about a thousand ticks).
pub fn process_cpu_us() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis start at the third (the state).
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<f64> = after.split_whitespace().map(|f| f.parse().unwrap_or(0.0)).collect();
    let ticks = fields.get(11).copied().unwrap_or(0.0) + fields.get(12).copied().unwrap_or(0.0);
    ticks * 10_000.0
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

/// Every script's threads, kept for the probe's `done` (which reads each thread's tally), and a
/// number per thread (`tid`) for the distinct scripts' counters. Then one machine-readable line
/// at the end of a run (latency in µs, duration in µs).
const DONE: &str = r#"
local threads = {}
function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end
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

/// Appended to a failed run's script for a second's probe: each thread tallies the statuses it is
/// answered and keeps the first body of a non-2xx; `done` prints the tallies summed and a sample.
/// (A `response` function makes wrk read every answer into Lua: never in a measured run.)
const PROBE: &str = r#"
statuses = {}
sample = ""
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if (status < 200 or status > 299) and sample == "" then sample = string.sub(body, 1, 400) end
end
function done(summary, latency, requests)
  local total, s = {}, ""
  for _, t in ipairs(threads) do
    for code, n in pairs(t:get("statuses")) do total[code] = (total[code] or 0) + n end
    local b = t:get("sample")
    if s == "" and b ~= "" then s = b end
  end
  for code, n in pairs(total) do io.write(string.format("SITREP-STATUS %d %d\n", code, n)) end
  local e = summary.errors
  io.write(string.format("SITREP-ERRORS connect %d read %d write %d timeout %d\n", e.connect, e.read, e.write, e.timeout))
  io.write("SITREP-SAMPLE " .. string.gsub(s, "%s+", " ") .. "\n")
end
"#;

impl Wrk {
    /// `wrk` on PATH; each run lasts `BENCH_HTTP_SECONDS` (default 5; 1 in the short pass).
    pub fn find() -> Option<Wrk> {
        let default = crate::scaled(5, 1) as u64;
        let secs = std::env::var("BENCH_HTTP_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(default);
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

    /// Runs wrk with `threads` threads holding `connections` connections, against a server in
    /// this process (its CPU is measured).
    pub async fn run_with(&self, url: &str, script: &str, threads: u32, connections: u32) -> Run {
        let cpu_before = process_cpu_us();
        let mut run = self.run_against(url, script, threads, connections).await;
        run.cpu_us = Some((process_cpu_us() - cpu_before) / run.requests.max(1.0));
        run
    }

    /// Runs wrk against a server in another process (a peer: no CPU figure).
    pub async fn run_peer(&self, url: &str, script: &str) -> Run {
        self.run_against(url, script, 2, CONCURRENCY).await
    }

    /// One wrk run. A figure is never made of refusals: any failed request or non-2xx answer fails
    /// the bench here, with wrk's count of each kind of failure and, from a second's probe of the
    /// same script, the statuses counted and a sample body.
    async fn run_against(&self, url: &str, script: &str, threads: u32, connections: u32) -> Run {
        let (stdout, _) = self.wrk(url, script, threads, connections, self.duration).await;
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix("SITREP "))
            .unwrap_or_else(|| panic!("wrk printed no summary: {stdout}"));
        let f: Vec<f64> = line.split_whitespace().filter_map(|v| v.parse().ok()).collect();
        let (requests, duration_us, errors, p99_us, p50_us) = (f[0], f[1], f[2], f[3], f[4]);
        if errors > 0.0 {
            let [connect, read, write, status, timeout] = [f[5], f[6], f[7], f[8], f[9]];
            let probe = format!("{script}{PROBE}");
            let (probed, _) = self.wrk(url, &probe, threads, connections, Duration::from_secs(1)).await;
            let said: Vec<&str> = probed.lines().filter(|l| l.starts_with("SITREP-")).collect();
            panic!(
                "refused: {errors} of {requests} requests to {url} failed or were not 2xx (connect {connect}, \
                 read {read}, write {write}, non-2xx {status}, timeout {timeout}); no figure is printed from \
                 them. A second's probe of the same requests:\n  {}",
                said.join("\n  ")
            );
        }
        let rps = requests / (duration_us / 1e6);
        Run { requests, rps, p50_ms: p50_us / 1e3, p99_ms: p99_us / 1e3, cpu_us: None }
    }

    /// wrk's output for `script` against `url` for `duration`: (stdout, stderr).
    async fn wrk(
        &self,
        url: &str,
        script: &str,
        threads: u32,
        connections: u32,
        duration: Duration,
    ) -> (String, String) {
        let file = tempfile::Builder::new().suffix(".lua").tempfile().expect("script file");
        std::fs::write(file.path(), script).expect("write script");
        let out = tokio::process::Command::new(&self.path)
            .args([&format!("-t{threads}"), &format!("-c{connections}"), &format!("-d{}s", duration.as_secs().max(1))])
            // A slow peer must count as slow, not as failed: wrk's default timeout is 2 s.
            .args(["--timeout", "30s", "--latency", "-s"])
            .arg(file.path())
            .arg(url)
            .output()
            .await
            .expect("run wrk");
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
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
        let mut rounds: Vec<Vec<Run>> = Vec::with_capacity(self::rounds());
        for _ in 0..self::rounds() {
            let mut round = Vec::with_capacity(N);
            for (url, script) in targets {
                round.push(self.run(url, script).await);
            }
            rounds.push(round);
        }
        let ratio = |round: &Vec<Run>| round[N - 1].rps / round[0].rps;
        rounds.sort_by(|a, b| ratio(a).total_cmp(&ratio(b)));
        rounds.swap_remove(rounds.len() / 2).try_into().expect("one run per target")
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
        self.run_peer(base, &Self::distinct_script(None, &template, start)).await
    }

    /// Distinct ListArmedEvents pages (the 30 days before `as_of`, each country) with no body-cache hit.
    pub async fn uncached(&self, base: &str, key: &str, as_of: chrono::DateTime<chrono::Utc>) -> Run {
        let (start, _) = Self::window(as_of);
        self.run(base, &Self::distinct_script(Some(key), UNCACHED_TEMPLATE, start)).await
    }
}
