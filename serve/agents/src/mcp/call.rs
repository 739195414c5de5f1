//! A data tool call (SUPPLEMENT 6.5): the arguments become the REST operation's query string, the
//! REST handler answers in process for the caller's principal, and its answer becomes the tool
//! result — or the JSON-RPC error its status stands for.

use std::{sync::Arc, time::Instant};

use bytes::Bytes;
use poem::{
    http::{Method, StatusCode, Uri},
    Request,
};
use serde_json::{json, Value};

use super::{
    revision::Revision,
    rpc::{self, RpcError},
};
use sitrep_platform::{
    app_state::AppState,
    auth::Principal,
    dispatch::Dispatch,
    kit::{
        answer::Remembered,
        dataset_read::DisabledByDeployment,
        embedded_json::{write_value, EmbeddedJson},
        error::Violation,
    },
    registry::Operation,
};

/// Result budget of a data tool, and of `get_sources`.
pub const BUDGET_BYTES: usize = 1 << 20;
pub const SOURCES_BUDGET_BYTES: usize = 64 << 10;

/// The arguments as a query string, in the order of their names (so the same arguments in any
/// order make one query); arguments the tool does not declare are violations.
fn query_of(op: &Operation, args: &Value) -> Result<String, RpcError> {
    let empty = serde_json::Map::new();
    let obj = match args {
        Value::Null => &empty,
        Value::Object(o) => o,
        _ => return Err(invalid(vec![violation("arguments", "value must be an object")])),
    };
    let mut sorted: Vec<_> = obj.iter().collect();
    sorted.sort_by_key(|(name, _)| name.as_str());
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    let mut violations = Vec::new();
    for (name, value) in sorted {
        let Some(param) = op.params.iter().chain(op.pipeline_params()).find(|p| p.name == name) else {
            violations.push(violation(name, "unknown argument"));
            continue;
        };
        // Appended straight into the query: this runs on every call, remembered or not.
        match value {
            Value::Null => {}
            Value::String(s) => {
                query.append_pair(name, s);
            }
            Value::Number(n) => {
                query.append_pair(name, &n.to_string());
            }
            Value::Bool(b) => {
                query.append_pair(name, if *b { "true" } else { "false" });
            }
            Value::Array(items) if items.iter().all(Value::is_string) => {
                for item in items.iter().filter_map(Value::as_str) {
                    query.append_pair(name, item);
                }
            }
            Value::Array(_) | Value::Object(_) => violations.push(violation(&param.field(), "value must be a string")),
        }
    }
    if violations.is_empty() {
        Ok(query.finish())
    } else {
        Err(invalid(violations))
    }
}

fn violation(field: &str, description: &str) -> Violation {
    Violation { field: field.to_string(), description: description.to_string() }
}

fn invalid(violations: Vec<Violation>) -> RpcError {
    RpcError::invalid_params("Invalid params").with_data(json!({ "violations": violations }))
}

/// A method's result: a JSON value, or a data tool's result already rendered as JSON bytes.
pub enum Output {
    Value(Value),
    Rendered(Bytes),
}

impl Output {
    /// The JSON-RPC reply; results of the stateless revision say `resultType: complete`.
    pub fn into_response(self, id: &Value, revision: Revision) -> poem::Response {
        match self {
            Output::Value(mut result) => {
                if revision == Revision::Stateless {
                    result["resultType"] = json!("complete");
                }
                rpc::result(id, result)
            }
            Output::Rendered(result) => {
                // The result goes out as it is, between an envelope with the caller's id.
                let mut head = Vec::with_capacity(64);
                head.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
                write_value(&mut head, id);
                head.extend_from_slice(b",\"result\":");
                rpc::reply_parts(StatusCode::OK, [Bytes::from(head), result, Bytes::from_static(b"}")])
            }
        }
    }
}

/// A data tool's result carrying the REST body as it was rendered, embedded twice (as the text
/// content and as structured content) without a reparse.
fn rendered_result(json: &EmbeddedJson, meta: Option<&Value>, revision: Revision) -> Bytes {
    let stateless = revision == Revision::Stateless;
    let mut out = Vec::with_capacity(json.len() * 2 + 256);
    out.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
    write_value(&mut out, json.as_str());
    out.extend_from_slice(b"}]");
    // The 2025 line allows structured content only as an object.
    if stateless || json.is_object() {
        out.extend_from_slice(b",\"structuredContent\":");
        json.write_to(&mut out);
    }
    if let Some(meta) = meta {
        out.extend_from_slice(b",\"_meta\":");
        write_value(&mut out, meta);
    }
    if stateless {
        out.extend_from_slice(b",\"resultType\":\"complete\"");
    }
    out.push(b'}');
    Bytes::from(out)
}

/// The text + structured result of a JSON value, within `budget` bytes.
pub fn tool_result(value: Value, revision: Revision, budget: usize) -> Value {
    let text = value.to_string();
    if text.len() > budget {
        return budget_exceeded(budget, text.len());
    }
    let mut result = json!({"content": [{"type": "text", "text": text}]});
    // The 2025 line allows structured content only as an object.
    if revision == Revision::Stateless || value.is_object() {
        result["structuredContent"] = value;
    }
    result
}

fn budget_exceeded(budget: usize, actual: usize) -> Value {
    let over = json!({"_budget_exceeded": true, "budget_bytes": budget, "actual_bytes": actual,
        "hint": "narrow the query or use jmespath"});
    json!({"content": [{"type": "text", "text": over.to_string()}], "structuredContent": over})
}

fn header(resp: &poem::Response, name: &str) -> Option<String> {
    resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

/// Runs the tool of `op` for `principal` (already authenticated, gated and counted).
///
/// A result made from an answer the REST edge would repeat (a dataset answer of the current
/// generation, a read-through cache hit) is a function of the tool, its canonical arguments and
/// the revision for as long as that answer holds: it is kept in the body cache and sent again as
/// it is, with only the request id spliced in ([`Output::into_response`]).
pub async fn data_tool(
    state: &AppState,
    dispatch: &Dispatch,
    op: &'static Operation,
    principal: Arc<Principal>,
    args: &Value,
    revision: Revision,
) -> Result<Output, RpcError> {
    let query = query_of(op, args)?;
    let key = format!("mcp:{revision:?}:{}?{query}", op.path);
    let (epoch, now) = (state.epoch(), Instant::now());
    if let Some(result) = state.cache.derived(&key, epoch, now) {
        return Ok(Output::Rendered(result));
    }
    let uri: Uri = format!("{}?{query}", op.path).parse().map_err(|_| RpcError::tool_fault())?;
    // Handlers read an owned principal; only a call that is not remembered pays for the copy.
    let req = Request::builder().method(Method::GET).uri(uri).extension(Arc::unwrap_or_clone(principal)).finish();
    let mut resp = dispatch.handler(op, req).await;
    let remembered = resp.extensions_mut().remove::<Remembered>();
    let status = resp.status();
    let disabled_by_deployment = resp.extensions().get::<DisabledByDeployment>().is_some();
    let data_state = header(&resp, "x-data-state");
    let meta = data_state.as_ref().map(|state| {
        json!({
            "sitrep/snapshotGeneration": header(&resp, "x-snapshot-generation").unwrap_or_default(),
            "sitrep/asOf": header(&resp, "x-data-as-of").unwrap_or_default(),
            "sitrep/dataState": state,
        })
    });
    let content_type = resp.content_type().map(str::to_string);
    let body = resp.into_body().into_bytes().await.map_err(|_| RpcError::tool_fault())?;
    let json = EmbeddedJson::of_response(content_type.as_deref(), body).ok_or_else(RpcError::tool_fault)?;
    match status {
        StatusCode::OK => {
            // A deployment that disabled a dataset answers its documented empty body instead.
            if data_state.as_deref() == Some("unavailable") && !disabled_by_deployment {
                let dataset = op.datasets.first().map(|d| d.as_str()).unwrap_or_default();
                return Err(RpcError::new(rpc::DATA_UNAVAILABLE, "Required data inputs are unavailable")
                    .with_data(json!({"retryable": true, "dataset": dataset})));
            }
            if json.len() > BUDGET_BYTES {
                return Ok(Output::Value(budget_exceeded(BUDGET_BYTES, json.len())));
            }
            let result = rendered_result(&json, meta.as_ref(), revision);
            if let Some(answer) = &remembered {
                state.cache.derive(key, answer, result.clone(), epoch.clock_offset);
            }
            Ok(Output::Rendered(result))
        }
        StatusCode::BAD_REQUEST => {
            let value = json.parse().map_err(|_| RpcError::tool_fault())?;
            if value.get("_jmespath_error").is_some() {
                // A jmespath failure is a result, not a protocol error (6.5).
                Ok(Output::Value(tool_result(value, revision, BUDGET_BYTES)))
            } else if value.get("violations").is_some() {
                Err(RpcError::invalid_params("Invalid params").with_data(json!({"violations": value["violations"]})))
            } else {
                Err(RpcError::tool_fault())
            }
        }
        _ => {
            tracing::warn!(tool = op.id, %status, "data tool answered an unexpected status");
            Err(RpcError::tool_fault())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn arguments_become_the_rest_query() {
        let op = sitrep_api::registry().by_id("ListArmedEvents").unwrap();
        let q =
            query_of(op, &json!({"country": "ua", "page_size": 5, "start": 1780099200000u64, "jmespath": "events[0]"}))
                .unwrap();
        assert_eq!(q, "country=ua&jmespath=events%5B0%5D&page_size=5&start=1780099200000");
        let reordered =
            query_of(op, &json!({"start": 1780099200000u64, "jmespath": "events[0]", "country": "ua", "page_size": 5}));
        assert_eq!(reordered.unwrap(), q, "one query whatever the order of the arguments");
        let e = query_of(op, &json!({"countri": "UA", "page_size": {"x": 1}})).unwrap_err();
        assert_eq!(e.code, -32602);
        assert_eq!(
            e.data.unwrap()["violations"],
            json!([
                {"field": "countri", "description": "unknown argument"},
                {"field": "pageSize", "description": "value must be a string"},
            ])
        );
        let summary = sitrep_api::registry().by_id("GetAirportOpsSummary").unwrap();
        assert_eq!(query_of(summary, &json!({"airports": ["IST", "LHR"]})).unwrap(), "airports=IST&airports=LHR");
        let e = query_of(summary, &json!({"airports": ["IST", 3]})).unwrap_err();
        assert_eq!(
            e.data.unwrap()["violations"],
            json!([{"field": "airports", "description": "value must be a string"}])
        );
    }

    #[test]
    fn results_within_the_budget() {
        let r = tool_result(json!({"a": 1}), Revision::Line2025, 100);
        assert_eq!(r, json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}}));
        let r = tool_result(json!([1, 2]), Revision::Line2025, 100);
        assert!(r.get("structuredContent").is_none(), "2025 line: objects only");
        assert_eq!(tool_result(json!([1, 2]), Revision::Stateless, 100)["structuredContent"], json!([1, 2]));
        let r = tool_result(json!({"big": "x".repeat(200)}), Revision::Stateless, 100);
        assert_eq!(r["structuredContent"]["_budget_exceeded"], true);
        assert_eq!(r["structuredContent"]["budget_bytes"], 100);
    }
}
