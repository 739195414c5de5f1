//! The MCP tool server (SUPPLEMENT Part 6) over real HTTP: both revision lines, the header rules
//! of 2026-07-28, the tool list from the registry, tool results with provenance, and every error
//! code of 6.3 with its HTTP status.

use serde_json::{json, Value};
use sitrep_platform::edge::rate_limit::{Decision, LimiterUnavailable, Limits, Policy, RateLimiter};
use sitrep_tests::{Options, TestApp};

const V2026: &str = "2026-07-28";
const META: &str = "io.modelcontextprotocol/protocolVersion";

struct Mcp<'a> {
    app: &'a TestApp,
    key: Option<String>,
}

impl Mcp<'_> {
    /// A 2025-line request (no version information, or the negotiated version header).
    async fn legacy(&self, method: &str, params: Value) -> (u16, reqwest::header::HeaderMap, Value) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.send(body, &[]).await
    }

    /// A 2026-07-28 request with matching headers.
    async fn stateless(&self, method: &str, mut params: Value) -> (u16, reqwest::header::HeaderMap, Value) {
        params["_meta"] = json!({ META: V2026 });
        let name = params.get("name").and_then(Value::as_str).map(str::to_string);
        let body = json!({"jsonrpc": "2.0", "id": "r1", "method": method, "params": params});
        let mut headers = vec![("mcp-protocol-version", V2026.to_string()), ("mcp-method", method.to_string())];
        if let Some(n) = name {
            headers.push(("mcp-name", n));
        }
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.send(body, &headers).await
    }

    async fn send(&self, body: Value, headers: &[(&str, &str)]) -> (u16, reqwest::header::HeaderMap, Value) {
        self.raw(body.to_string(), headers).await
    }

    async fn raw(&self, body: String, headers: &[(&str, &str)]) -> (u16, reqwest::header::HeaderMap, Value) {
        let mut req = self.app.http.post(format!("{}/mcp", self.app.base)).header("content-type", "application/json");
        if let Some(k) = &self.key {
            req = req.header("x-service-key", k);
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let r = req.body(body).send().await.expect("mcp");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let text = r.text().await.unwrap();
        (status, headers, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).expect("json") })
    }
}

fn keyed(app: &TestApp) -> Mcp<'_> {
    Mcp { app, key: Some(app.key.clone()) }
}

fn anonymous(app: &TestApp) -> Mcp<'_> {
    Mcp { app, key: None }
}

#[tokio::test]
async fn the_2025_line_handshake_and_tools() {
    let app = TestApp::start().await;
    let mcp = anonymous(&app);
    let (status, headers, body) = mcp
        .legacy(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["mcp-session-id"].to_str().unwrap().len(), 36);
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(body["result"]["capabilities"], json!({"tools": {"listChanged": false}}));
    assert_eq!(body["result"]["serverInfo"]["name"], "sitrep");
    assert!(body["result"].get("resultType").is_none());
    let (_, _, body) = mcp.legacy("initialize", json!({"protocolVersion": "2024-11-05"})).await;
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25", "unknown versions get the newest of the line");

    // The notification: 202, no body.
    let (status, _, body) = mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), &[]).await;
    assert_eq!((status, body), (202, Value::Null));
    let (_, _, body) =
        mcp.send(json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}), &[("mcp-protocol-version", "2025-06-18")]).await;
    assert_eq!(body, json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    // server/discover is not of this line: -32601 (so clients fall back to initialize).
    let (_, _, body) = mcp.legacy("server/discover", json!({})).await;
    assert_eq!(body["error"]["code"], -32601);

    // tools/list without params, anonymously: every tool, generated from the registry.
    let (_, _, body) = mcp.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}), &[]).await;
    let tools = body["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let mut expected = vec!["get_sources", "describe_tool"];
    let tool_names: Vec<String> = app.registry.tools().filter_map(|op| op.tool_name()).collect();
    expected.extend(tool_names.iter().map(String::as_str));
    assert_eq!(names, expected);
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object");
        assert_eq!(t["inputSchema"]["additionalProperties"], false);
        assert_eq!(t["annotations"]["readOnlyHint"], true);
        assert!(t["description"].as_str().unwrap().chars().count() <= 200);
        assert!(t.get("outputSchema").is_none());
    }
    assert!(body["result"].get("ttlMs").is_none());
    // The whole list pinned: it is generated from the operations' declarations, and a change to
    // how they are declared must not change what agents see.
    insta::assert_json_snapshot!("mcp_tools_list", tools);
}

#[tokio::test]
async fn the_stateless_revision_and_its_header_rules() {
    let app = TestApp::start().await;
    let mcp = keyed(&app);
    let (status, _, body) = mcp.stateless("server/discover", json!({})).await;
    assert_eq!(status, 200);
    let r = &body["result"];
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["supportedVersions"], json!(["2025-03-26", "2025-06-18", "2025-11-25", V2026]));
    assert_eq!(r["capabilities"], json!({"tools": {}}));
    assert_eq!(r["cacheScope"], "public");
    assert_eq!(r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "sitrep");
    let (_, _, body) = mcp.stateless("tools/list", json!({})).await;
    assert_eq!((&body["result"]["resultType"], &body["result"]["ttlMs"]), (&json!("complete"), &json!(3_600_000)));
    assert_eq!(body["result"]["cacheScope"], "public");

    // Headers must agree with the body: 400 with -32020.
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": {META: V2026}}});
    for headers in [
        vec![("mcp-protocol-version", V2026)],
        vec![("mcp-protocol-version", V2026), ("mcp-method", "tools/call")],
        vec![("mcp-protocol-version", "2025-11-25"), ("mcp-method", "tools/list")],
    ] {
        let (status, _, reply) = mcp.send(body.clone(), &headers).await;
        assert_eq!((status, &reply["error"]["code"], &reply["id"]), (400, &json!(-32020), &json!(9)), "{headers:?}");
    }
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_sources", "_meta": {META: V2026}}});
    let (status, _, reply) = mcp
        .send(call, &[("mcp-protocol-version", V2026), ("mcp-method", "tools/call"), ("mcp-name", "describe_tool")])
        .await;
    assert_eq!((status, &reply["error"]["code"]), (400, &json!(-32020)));
    // An unknown version: 400 with -32022 listing the supported ones.
    let (status, _, reply) =
        mcp.send(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}), &[("mcp-protocol-version", "2099-01-01")]).await;
    assert_eq!((status, &reply["error"]["code"]), (400, &json!(-32022)));
    assert_eq!(reply["error"]["data"]["supported"].as_array().unwrap().len(), 4);

    // A data tool: the REST body as text and structured content, with the snapshot's provenance.
    let (status, _, body) = mcp
        .stateless("tools/call", json!({"name": "list_armed_events", "arguments": {"country": "ua", "page_size": 2}}))
        .await;
    assert_eq!(status, 200, "{body}");
    let result = &body["result"];
    let (_, rest) = app.json("/api/conflict/v1/list-armed-events?country=UA&page_size=2").await;
    assert_eq!(result["structuredContent"], rest);
    assert_eq!(serde_json::from_str::<Value>(result["content"][0]["text"].as_str().unwrap()).unwrap(), rest);
    assert_eq!(result["resultType"], "complete");
    assert!(result.get("isError").is_none());
    let r = app.get("/api/conflict/v1/list-armed-events?country=UA&page_size=2").send().await.unwrap();
    assert_eq!(result["_meta"]["sitrep/snapshotGeneration"], r.headers()["x-snapshot-generation"].to_str().unwrap());
    assert_eq!(result["_meta"]["sitrep/asOf"], r.headers()["x-data-as-of"].to_str().unwrap());
    assert_eq!(result["_meta"]["sitrep/dataState"], r.headers()["x-data-state"].to_str().unwrap());
    // jmespath: a non-object value is structured content in this revision.
    let (_, _, body) = mcp
        .stateless(
            "tools/call",
            json!({"name": "list_armed_events", "arguments": {"jmespath": "pagination.totalCount"}}),
        )
        .await;
    assert!(body["result"]["structuredContent"].is_number());
}

/// A tool result made from an answer the edge repeats is kept and sent again with the caller's
/// id, for the same tool and arguments in any order, until a new generation answers anew.
#[tokio::test]
async fn a_repeated_tool_call_gets_the_same_result_under_its_own_id_until_a_new_generation() {
    let app = TestApp::start().await;
    let mcp = keyed(&app);
    let call = |id: Value, args: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "list_armed_events", "arguments": args}});
    let send = |body: Value| async { mcp.send(body, &[]).await.2 };
    let (hits, _, _) = app.state.cache.stats();
    let first = send(call(json!(1), json!({"country": "ua", "page_size": 3}))).await;
    let again = send(call(json!("req-2"), json!({"page_size": 3, "country": "ua"}))).await;
    let (hits_after, _, _) = app.state.cache.stats();
    assert_eq!(hits_after - hits, 1, "the second call was answered from the kept result");
    assert_eq!((&first["id"], &again["id"]), (&json!(1), &json!("req-2")));
    assert_eq!(first["result"], again["result"]);
    let generation = |v: &Value| v["result"]["_meta"]["sitrep/snapshotGeneration"].as_str().unwrap().to_string();
    let before = generation(&first);
    // Another revision's result is its own.
    let (_, _, stateless) = mcp
        .stateless("tools/call", json!({"name": "list_armed_events", "arguments": {"country": "ua", "page_size": 3}}))
        .await;
    assert_eq!(stateless["result"]["resultType"], "complete");
    assert!(again["result"].get("resultType").is_none());

    sitrep_tests::changing_runner(app.lake.clone(), &sitrep_tests::normal())
        .await
        .run(&[sitrep_schemas::DatasetId::ARMED_EVENTS])
        .await
        .unwrap();
    app.snapshots.refresh().await.unwrap();
    let after = send(call(json!(3), json!({"country": "ua", "page_size": 3}))).await;
    assert_ne!(generation(&after), before, "a new generation answers anew");
    let rest = app.get("/api/conflict/v1/list-armed-events?country=UA&page_size=3").send().await.unwrap();
    assert_eq!(generation(&after), rest.headers()["x-snapshot-generation"].to_str().unwrap());
    assert_eq!(after["result"]["structuredContent"], rest.json::<Value>().await.unwrap());
}

#[tokio::test]
async fn tool_errors_and_results() {
    let app = TestApp::start().await;
    let mcp = keyed(&app);
    let call = |name: &str, args: Value| json!({"name": name, "arguments": args});
    // Validation: -32602 with the REST violations; unknown arguments named.
    let (status, _, body) =
        mcp.legacy("tools/call", call("list_armed_events", json!({"page_size": 500, "colour": "red"}))).await;
    assert_eq!((status, &body["error"]["code"]), (200, &json!(-32602)));
    assert_eq!(body["error"]["data"]["violations"], json!([{"field": "colour", "description": "unknown argument"}]));
    let (_, _, body) = mcp.legacy("tools/call", call("list_armed_events", json!({"page_size": 500}))).await;
    assert_eq!(
        body["error"]["data"]["violations"],
        json!([{"field": "pageSize", "description": "number must be less than or equal to 100"}])
    );
    let (_, _, body) = mcp.legacy("tools/call", json!({"arguments": {}})).await;
    assert_eq!(body["error"], json!({"code": -32602, "message": "Invalid params: missing tool name"}));
    let (_, _, body) = mcp.legacy("tools/call", call("no_such_tool", json!({}))).await;
    assert_eq!(body["error"], json!({"code": -32602, "message": "Unknown tool: no_such_tool"}));
    // A jmespath failure is a result carrying the envelope, not a protocol error.
    let (_, _, body) = mcp.legacy("tools/call", call("list_armed_events", json!({"jmespath": "events["}))).await;
    let text: Value = serde_json::from_str(body["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert!(text["_jmespath_error"].as_str().unwrap().starts_with("invalid_expression"));
    // 2025 line: a non-object value is text only.
    let (_, _, body) =
        mcp.legacy("tools/call", call("list_armed_events", json!({"jmespath": "pagination.totalCount"}))).await;
    assert!(body["result"].get("structuredContent").is_none());
    assert!(body["result"]["content"][0]["text"].as_str().unwrap().parse::<u64>().is_ok());
    // describe_tool.
    let (_, _, body) =
        mcp.legacy("tools/call", call("describe_tool", json!({"tool_name": "get_humanitarian_summary"}))).await;
    assert_eq!(body["result"]["structuredContent"]["inputSchema"]["required"], json!(["country_code"]));
    let (_, _, body) = mcp.legacy("tools/call", call("describe_tool", json!({}))).await;
    assert_eq!(body["result"]["structuredContent"], json!({"error": "missing_tool_name", "hint": "pass tool_name"}));
    // Unknown methods.
    let (_, _, body) = mcp.legacy("resources/list", json!({})).await;
    assert_eq!(body["error"], json!({"code": -32601, "message": "Method not found: resources/list"}));
    // Malformed requests.
    for (raw, message) in [
        ("{nope", "Invalid request: malformed JSON"),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, "Invalid request: batch arrays are not supported"),
        (r#"{"jsonrpc":"2.0","id":1}"#, "Invalid request: missing method"),
    ] {
        let (status, _, body) = mcp.raw(raw.to_string(), &[]).await;
        assert_eq!((status, &body["error"]["code"], &body["error"]["message"]), (200, &json!(-32600), &json!(message)));
    }
}

#[tokio::test]
async fn credentials_gating_and_unavailable_data() {
    let app = TestApp::start().await;
    // No credential on a data tool: 401, -32001, the challenge and the next step.
    let (status, headers, body) = anonymous(&app).legacy("tools/call", json!({"name": "list_armed_events"})).await;
    assert_eq!((status, &body["error"]["code"]), (401, &json!(-32001)));
    assert_eq!(body["error"]["data"]["reason"], "no-credential");
    assert_eq!(body["error"]["data"]["nextStep"], format!("{}/auth.md", app.base));
    assert!(headers["www-authenticate"].to_str().unwrap().contains("resource_metadata="));
    // A bad key fails even on public methods.
    let bad = Mcp { app: &app, key: Some("di_0000000000000000000000000000000000000000".into()) };
    let (status, headers, body) = bad.legacy("tools/list", json!({})).await;
    assert_eq!((status, &body["error"]["message"]), (401, &json!("Invalid API key")));
    assert!(headers["www-authenticate"].to_str().unwrap().contains("error=\"invalid_token\""));
    let (status, _, body) = Mcp { app: &app, key: None }
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}), &[("authorization", "Bearer not-a-key-token")])
        .await;
    assert_eq!(
        (status, &body["error"]["message"]),
        (401, &json!("Invalid or expired OAuth token. Re-authenticate via /oauth/token."))
    );

    // A suspended account: -32002.
    let fresh = TestApp::start_with_key_ttl(std::time::Duration::ZERO).await;
    let acct = fresh.state.store.find_account_by_name("test").await.unwrap().unwrap();
    fresh.state.store.set_account_status(&acct.id, "suspended").await.unwrap();
    let (status, _, body) = keyed(&fresh).legacy("tools/call", json!({"name": "list_armed_events"})).await;
    assert_eq!((status, &body["error"]["code"]), (403, &json!(-32002)));
    assert_eq!(body["error"]["message"], "API access requires an active subscription");
}

#[tokio::test]
async fn unavailable_data_is_32003_unless_the_deployment_disabled_it() {
    // A lake with no generation: every dataset is unavailable.
    let dir = tempfile::tempdir().unwrap();
    let lake = sitrep_lake::Lake::open(dir.path().join("lake").to_str().unwrap()).unwrap();
    let app = TestApp::serve(dir, lake).await;
    let (status, _, body) = keyed(&app).legacy("tools/call", json!({"name": "list_violence_events"})).await;
    assert_eq!((status, &body["error"]["code"]), (200, &json!(-32003)));
    assert_eq!(body["error"]["data"], json!({"retryable": true, "dataset": "violence-events"}));
}

#[tokio::test]
async fn anonymous_get_sources_allows_ten_a_minute_and_fails_closed() {
    let app = TestApp::start().await;
    let mcp = anonymous(&app);
    for i in 0..10 {
        let (status, _, body) =
            mcp.legacy("tools/call", json!({"name": "get_sources", "arguments": {"group": "conflict"}})).await;
        assert_eq!(status, 200, "call {i}: {body}");
        let sources = &body["result"]["structuredContent"];
        assert_eq!(sources["matched"], 4);
        let armed = sources["sources"].as_array().unwrap().iter().find(|s| s["dataset"] == "armed-events").unwrap();
        assert_eq!(armed["operations"], json!(["/api/conflict/v1/list-armed-events"]));
        assert_eq!(armed["cadence"], "1h");
        let (_, ready) = app.json("/readyz").await;
        assert_eq!(armed["freshness"]["state"], ready["datasets"]["armed-events"]["state"]);
        assert_eq!(armed["freshness"]["generation"], ready["datasets"]["armed-events"]["generation"].to_string());
    }
    let (status, headers, body) = mcp.legacy("tools/call", json!({"name": "get_sources"})).await;
    assert_eq!((status, &body["error"]["code"]), (429, &json!(-32029)));
    assert_eq!(body["error"]["message"], "Free-tier rate limit. Max 10 unauthenticated tool calls per minute per IP.");
    assert_eq!(headers["ratelimit-policy"], "\"mcp-free\";q=10;w=60");
    assert!(headers.contains_key("retry-after"));
    // With a key the same tool is not on the anonymous allowance.
    let (status, _, body) =
        keyed(&app).legacy("tools/call", json!({"name": "get_sources", "arguments": {"limit": "1"}})).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["structuredContent"]["returned"], 1);
    let (_, _, body) =
        keyed(&app).legacy("tools/call", json!({"name": "get_sources", "arguments": {"group": "sports"}})).await;
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"error": "group must be one of: aviation, climate, conflict, consumer_prices, intelligence"})
    );

    // The limiter down: mcp-free fails closed (503, -32603); the data tools' policy fails open.
    struct Broken;
    #[async_trait::async_trait]
    impl RateLimiter for Broken {
        async fn hit(&self, _: Policy, _: u32, _: &str, _: std::time::Instant) -> Result<Decision, LimiterUnavailable> {
            Err(LimiterUnavailable("down".into()))
        }
        async fn peek(
            &self,
            _: Policy,
            _: u32,
            _: &str,
            _: std::time::Instant,
        ) -> Result<Decision, LimiterUnavailable> {
            Err(LimiterUnavailable("down".into()))
        }
    }
    let broken =
        TestApp::start_with(Options { limiter: Some(std::sync::Arc::new(Broken)), ..Default::default() }).await;
    let (status, headers, body) = anonymous(&broken).legacy("tools/call", json!({"name": "get_sources"})).await;
    assert_eq!((status, &body["error"]["code"]), (503, &json!(-32603)));
    assert_eq!(body["error"]["message"], "Rate-limit service temporarily unavailable. Try again.");
    assert_eq!(headers["x-ratelimit-mode"], "degraded");
    let (status, _, _) = keyed(&broken).legacy("tools/call", json!({"name": "list_iran_events"})).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn data_tools_count_against_the_mcp_policy() {
    let limits = Limits::parse("mcp=2").unwrap();
    let app = TestApp::start_with(Options { rate_limits: limits, ..Default::default() }).await;
    let mcp = keyed(&app);
    for _ in 0..2 {
        let (status, _, _) = mcp.legacy("tools/call", json!({"name": "list_iran_events"})).await;
        assert_eq!(status, 200);
    }
    let (status, _, body) = mcp.legacy("tools/call", json!({"name": "list_iran_events"})).await;
    assert_eq!((status, &body["error"]["message"]), (429, &json!("Rate limit exceeded. Max 2 tool calls per minute.")));
}

#[tokio::test]
async fn transport_rules_cors_and_the_origin_guard() {
    let app = TestApp::start().await;
    let url = format!("{}/mcp", app.base);
    for method in [reqwest::Method::GET, reqwest::Method::DELETE, reqwest::Method::PUT] {
        let r = app.http.request(method.clone(), &url).send().await.unwrap();
        assert_eq!(r.status(), 405, "{method}");
        assert_eq!(r.headers()["allow"], "POST, OPTIONS");
    }
    // The Inspector's browser mode: preflight without credentials.
    let r = app
        .http
        .request(reqwest::Method::OPTIONS, &url)
        .header("origin", "http://localhost:6274")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(r.headers()["access-control-allow-origin"], "http://localhost:6274");
    assert!(r.headers()["access-control-allow-headers"].to_str().unwrap().contains("Mcp-Method"));
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let r = app.http.post(&url).header("origin", "https://inspector.example").body(ping.clone()).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["access-control-expose-headers"], "Mcp-Session-Id, WWW-Authenticate");
    // A foreign origin: 403 (DNS-rebinding guard).
    let r = app.http.post(&url).header("origin", "https://evil.example").body(ping.clone()).send().await.unwrap();
    assert_eq!(r.status(), 403);
    let r = app.http.post(&url).header("origin", "http://localhost.evil.example").body(ping).send().await.unwrap();
    assert_eq!(r.status(), 403);
    // Bodies over 1 MiB.
    let r = app.http.post(&url).body(vec![b' '; (1 << 20) + 1]).send().await.unwrap();
    assert_eq!(r.status(), 413);
}

#[tokio::test]
async fn the_tool_server_documents_itself() {
    let app = TestApp::start().await;
    let r = app.http.get(format!("{}/docs/mcp", app.base)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    for name in app.registry.tools().filter_map(|op| op.tool_name()) {
        assert!(html.contains(&name), "{name}");
    }
    assert!(html.contains("2026-07-28"));
    // The Swagger UI still answers beside it.
    assert_eq!(app.http.get(format!("{}/docs", app.base)).send().await.unwrap().status(), 200);
}
