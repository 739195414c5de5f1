//! A jmespath expression that doubles its result forty times (239 bytes), and its `to_string` and
//! `length` variants, against the real `sitrep-serve` binary over REST, ExecuteBatch and MCP: each
//! is refused with the documented envelope at once, and the server's peak resident memory barely
//! moves.

use std::time::Duration;

use serde_json::{json, Value};
use sitrep_platform::state::{Plan, StateStore};
use sitrep_tests::{fresh_state_url, normal_lake, served_process::ServedProcess};

/// A field of `/proc/<pid>/status`, in kB.
fn proc_status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

fn doubling(times: usize) -> String {
    vec!["[@,@]"; times].join("|")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doubling_expressions_are_refused_at_once_without_memory_over_rest_batch_and_mcp() {
    let dir = tempfile::tempdir().unwrap();
    let _lake = normal_lake(&dir).await; // in <dir>/lake
    let state = fresh_state_url(Some(dir.path())).await;
    let store = StateStore::open(&state).await.unwrap();
    let account = store.create_account("bombs", Plan::Pro).await.unwrap();
    let key = store.create_key(&account.id, "bombs", "di", &[], false).await.unwrap().secret;
    let lake = dir.path().join("lake");
    let mut server = ServedProcess::start(&state, lake.to_str().unwrap(), &dir.path().join("cache"), |_| {}).await;
    let (pid, base) = (server.pid(), server.base.clone());
    let http = reqwest::Client::new();
    // Warm: one answer of each kind, so what is measured next is only the expressions.
    let path = "/api/conflict/v1/list-armed-events?page_size=100";
    assert_eq!(http.get(format!("{base}{path}")).header("x-service-key", &key).send().await.unwrap().status(), 200);
    let peak_before = proc_status_kb(pid, "VmHWM:");

    let bomb = doubling(40);
    assert_eq!(bomb.len(), 239);
    let expressions = [
        (bomb.clone(), "projection_too_large: "),
        (format!("to_string({bomb})"), "invalid_expression: evaluation exceeds its budget"),
        (format!("length(to_string({bomb}))"), "invalid_expression: evaluation exceeds its budget"),
        (format!("({bomb}) == ({bomb})"), ""),
    ];
    for (expression, refusal) in &expressions {
        let encoded: String = url::form_urlencoded::byte_serialize(expression.as_bytes()).collect();
        let page = format!("{path}&jmespath={encoded}");
        let batch = json!({"operations": [{"id": "bomb", "path": page}]});
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "list_armed_events", "arguments": {"page_size": 100, "jmespath": expression}}});
        let requests = [
            ("REST", http.get(format!("{base}{page}"))),
            ("batch", http.post(format!("{base}/api/batch/v1/execute")).json(&batch)),
            ("MCP", http.post(format!("{base}/mcp")).json(&call)),
        ];
        for (protocol, request) in requests {
            let started = std::time::Instant::now();
            let r = request.header("x-service-key", &key).send().await.unwrap();
            let status = r.status().as_u16();
            let body: Value = r.json().await.unwrap();
            let took = started.elapsed();
            // Each protocol's own carrier of the projection: the response, the batch's result, the
            // tool result's text.
            let (status, projected) = match protocol {
                "REST" => (status, body.clone()),
                "batch" => {
                    (body["results"][0]["status"].as_u64().unwrap_or(0) as u16, body["results"][0]["body"].clone())
                }
                _ => {
                    let text = body["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{body}"));
                    (status, serde_json::from_str(text).unwrap())
                }
            };
            if refusal.is_empty() {
                // Two doubled values compared part by part: answered, cheaply.
                assert_eq!(projected, json!(true), "{protocol} {expression}: {body}");
            } else {
                if protocol != "MCP" {
                    assert_eq!(status, 400, "{protocol} {expression}: {body}");
                }
                let error = projected["_jmespath_error"].as_str().unwrap_or_else(|| panic!("{protocol}: {body}"));
                assert!(error.starts_with(refusal), "{protocol} {expression}: {body}");
                assert_eq!(projected["original_keys"][0], "events", "{protocol}: {body}");
            }
            assert!(took < Duration::from_millis(100), "{protocol} {expression}: {took:?}");
        }
    }
    let peak_after = proc_status_kb(pid, "VmHWM:");
    assert!(
        peak_after.saturating_sub(peak_before) < 20 * 1024,
        "peak resident memory rose {} kB (from {peak_before} kB)",
        peak_after - peak_before
    );
    server.kill().await;
}
