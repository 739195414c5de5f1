//! MCP's JSON-RPC envelope at `/mcp`: any JSON, envelopes with any id, method and params (both
//! protocol lines), batches, and any bytes. Each answer is a JSON-RPC answer or an HTTP refusal,
//! never a server error.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::{any_json, app, business_key, config, send};

fn envelope() -> impl Strategy<Value = Vec<u8>> {
    let method = prop_oneof![
        proptest::sample::select(vec![
            "initialize",
            "tools/list",
            "tools/call",
            "ping",
            "notifications/initialized",
            "resources/list",
            "server/discover",
        ])
        .prop_map(str::to_string),
        ".{0,12}",
    ];
    let tool_call =
        (proptest::sample::select(vec!["list_armed_events", "get_sources", "describe_tool", "nope", ""]), any_json())
            .prop_map(|(name, arguments)| json!({"name": name, "arguments": arguments}));
    let params = prop_oneof![
        any_json(),
        tool_call,
        Just(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}))
    ];
    let single = (any_json(), method, params, any::<bool>())
        .prop_map(|(id, method, params, with_id)| {
            let mut e = json!({"jsonrpc": "2.0", "method": method, "params": params});
            if with_id {
                e["id"] = id;
            }
            e
        })
        .boxed();
    prop_oneof![
        4 => single.clone().prop_map(|e| e.to_string().into_bytes()),
        1 => proptest::collection::vec(single, 0..4).prop_map(|b| Value::Array(b).to_string().into_bytes()),
        1 => any_json().prop_map(|v| v.to_string().into_bytes()),
        1 => proptest::collection::vec(any::<u8>(), 0..256),
    ]
}

#[test]
fn any_envelope_gets_a_json_rpc_answer_or_an_http_refusal() {
    let _ = app();
    let headers = proptest::sample::select(vec![
        (true, None),
        (false, None),
        (true, Some("2026-07-28")),
        (true, Some("1999-01-01")),
    ]);
    let mut runner = proptest::test_runner::TestRunner::new(config(2_000));
    runner
        .run(&(envelope(), headers), |(bytes, (keyed, version))| {
            let mut request = poem::Request::builder()
                .method(poem::http::Method::POST)
                .uri("/mcp".parse().expect("uri"))
                .content_type("application/json")
                .header("accept", "application/json, text/event-stream");
            if keyed {
                request = request.header("x-service-key", business_key());
            }
            if let Some(version) = version {
                request = request.header("mcp-protocol-version", version);
            }
            let (status, content_type, body) = send(request.body(bytes.clone()));
            let sent = String::from_utf8_lossy(&bytes);
            prop_assert!(status < 500, "{sent}: {status} {}", String::from_utf8_lossy(&body));
            if status == 200 && content_type.starts_with("application/json") {
                let answer: Value =
                    serde_json::from_slice(&body).map_err(|e| TestCaseError::fail(format!("{sent}: {e}")))?;
                let answers = answer.as_array().cloned().unwrap_or_else(|| vec![answer.clone()]);
                for a in answers {
                    prop_assert_eq!(&a["jsonrpc"], "2.0", "{}: {}", sent, a);
                    prop_assert!(a.get("result").is_some() != a.get("error").is_some(), "{sent}: {a}");
                }
            }
            Ok(())
        })
        .unwrap();
}
