//! ExecuteBatch — POST /api/batch/v1/execute (SUPPLEMENT Part 3): up to 20 GET operations run
//! concurrently as in-process requests through the whole per-operation pipeline (each passes its
//! own route's authentication, entitlement, rate limit and jmespath), results in request order.

use std::time::Duration;

use futures::future::join_all;
use poem::{
    http::{header, HeaderMap, HeaderValue, Method, Uri},
    web::{LocalAddr, RemoteAddr},
    Request, RequestParts, Response,
};
use poem_openapi::Object;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use sitrep_platform::{
    answered_by,
    app_state::AppState,
    dispatch::Dispatch,
    edge::rate_limit::Policy,
    kit::{
        answer::Answer,
        embedded_json::{write_value, EmbeddedJson},
        error::{ApiError, Violations},
        json_body,
        wire_name::WireName,
    },
    registry::{Access, Group, Operation},
};

pub const MAX_OPERATIONS: usize = 20;
const MAX_ID_CHARS: usize = 64;
const MAX_PATH_CHARS: usize = 2_048;
const SUB_TIMEOUT: Duration = Duration::from_secs(10);
const SUB_BODY_LIMIT: usize = 1_048_576;
/// The header that marks a sub-request; a batch carrying it is refused.
pub const BATCH_REQUEST_HEADER: &str = "x-batch-request";
/// Headers a sub-request inherits from the batch request.
const FORWARDED: [&str; 6] =
    ["authorization", "x-service-key", "x-api-key", "x-worldmonitor-key", "accept-language", "user-agent"];
const DEFAULT_USER_AGENT: &str = "sitrep-batch/1.0";

pub static GROUP: Group =
    Group { tag: "Batch", description: "Many read operations in one call.", operations: &[&EXECUTE_BATCH] };

pub static EXECUTE_BATCH: Operation = Operation {
    id: "ExecuteBatch",
    path: "/api/batch/v1/execute",
    summary: "up to 20 GET operations in one call, run concurrently; results in request order.",
    // Any valid credential (not PRO); each sub-operation is gated by its own declaration.
    access: Access::Subscription,
    rate: Policy::Batch,
    body: Some(body_schema),
    answer: answered_by!(ExecuteBatchResponse, execute_batch),
    ..Operation::POST
};

/// The documented shape of a result (rendered by [`render`], which embeds each body as it is).
#[derive(Debug, Clone, Serialize, Deserialize, Object)]
pub struct BatchResult {
    /// The operation's id (a blank id becomes its zero-based index).
    pub id: String,
    /// HTTP status of the sub-operation; 0 when it was not called or did not answer.
    pub status: i32,
    /// The parsed JSON body of the sub-response, of any status; null when there is none.
    pub body: Option<Value>,
    /// BatchCallError: "" whenever a body exists.
    pub error: WireName<BatchCallError>,
}

sitrep_schemas::closed_set!(
    /// Why a sub-operation has no body (SUPPLEMENT Part 3); "" when it has one.
    BatchCallError,
    "BatchCallError",
    [
        NoError = "",
        InvalidPath = "invalid_path",
        NestedBatch = "nested_batch",
        Timeout = "timeout",
        FetchFailed = "fetch_failed",
        ResponseTooLarge = "response_too_large",
        InvalidJson = "invalid_json",
    ]
);

#[derive(Debug, Clone, Default, Serialize, Deserialize, Object)]
pub struct ExecuteBatchResponse {
    pub results: Vec<BatchResult>,
    /// Results with a 2xx status and an empty error.
    pub succeeded: i32,
    pub failed: i32,
}

/// One requested operation after validation.
struct SubOperation {
    id: String,
    path: String,
}

/// The body's operations, or every violation of SUPPLEMENT Part 3 at once.
fn parse_body(body: &Value) -> Result<Vec<SubOperation>, ApiError> {
    let mut v = Violations::default();
    let mut ops = Vec::new();
    let Some(obj) = body.as_object() else {
        v.push("$request", "value must be an object");
        return v.into_result().map(|()| Vec::new());
    };
    let items = match obj.get("operations") {
        None | Some(Value::Null) => {
            v.push("operations", "value is required");
            &[][..]
        }
        Some(Value::Array(items)) if items.is_empty() => {
            v.push("operations", "array must contain at least 1 item(s)");
            &[][..]
        }
        Some(Value::Array(items)) if items.len() > MAX_OPERATIONS => {
            v.push("operations", format!("array must contain at most {MAX_OPERATIONS} item(s)"));
            &[][..]
        }
        Some(Value::Array(items)) => items.as_slice(),
        Some(_) => {
            v.push("operations", "value must be an array");
            &[][..]
        }
    };
    for (i, item) in items.iter().enumerate() {
        let Some(op) = item.as_object() else {
            v.push(&format!("operations[{i}]"), "value must be an object");
            continue;
        };
        let id = match op.get("id") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) if s.chars().count() > MAX_ID_CHARS => {
                v.push(&format!("operations[{i}].id"), format!("string length must be at most {MAX_ID_CHARS}"));
                continue;
            }
            Some(Value::String(s)) => s.trim().to_string(),
            Some(_) => {
                v.push(&format!("operations[{i}].id"), "value must be a string");
                continue;
            }
        };
        let path = match op.get("path") {
            None | Some(Value::Null) => {
                v.push(&format!("operations[{i}].path"), "value is required");
                continue;
            }
            Some(Value::String(s)) if s.is_empty() => {
                v.push(&format!("operations[{i}].path"), "value is required");
                continue;
            }
            Some(Value::String(s)) if s.chars().count() > MAX_PATH_CHARS => {
                v.push(&format!("operations[{i}].path"), format!("string length must be at most {MAX_PATH_CHARS}"));
                continue;
            }
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                v.push(&format!("operations[{i}].path"), "value must be a string");
                continue;
            }
        };
        let id = if id.is_empty() { i.to_string() } else { id };
        if ops.iter().any(|o: &SubOperation| o.id == id) {
            v.push(&format!("operations[{i}].id"), format!("duplicate id \"{id}\" — results would be ambiguous"));
            continue;
        }
        ops.push(SubOperation { id, path });
    }
    v.into_result().map(|()| ops)
}

/// Why a path is not called: `invalid_path` or `nested_batch` (SUPPLEMENT Part 3 path checks).
fn path_refusal(path: &str) -> Option<BatchCallError> {
    if !path.starts_with('/') || path.starts_with("//") || path.contains("://") {
        return Some(BatchCallError::InvalidPath);
    }
    let route = path.split_once('?').map_or(path, |(p, _)| p);
    if route.starts_with("/api/batch/") {
        return Some(BatchCallError::NestedBatch);
    }
    // ^/api/[a-z][a-z0-9-]*/v[0-9]+/[a-z][a-z0-9-]*$
    let parts: Vec<&str> = route.split('/').collect();
    let word = |s: &str| {
        s.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    let version = |s: &str| s.len() > 1 && s.starts_with('v') && s[1..].bytes().all(|b| b.is_ascii_digit());
    let matches = parts.len() == 5
        && parts[0].is_empty()
        && parts[1] == "api"
        && word(parts[2])
        && version(parts[3])
        && word(parts[4]);
    (!matches).then_some(BatchCallError::InvalidPath)
}

/// One operation's outcome; its body is the sub-response's JSON text, embedded unparsed.
struct SubResult {
    id: String,
    status: u16,
    body: Option<EmbeddedJson>,
    error: BatchCallError,
}

impl SubResult {
    fn succeeded(&self) -> bool {
        (200..300).contains(&self.status) && self.error == BatchCallError::NoError
    }
}

fn refused(id: String, error: BatchCallError) -> SubResult {
    SubResult { id, status: 0, body: None, error }
}

/// The sub-request of one operation: a GET of `path` carrying the forwarded headers.
fn sub_request(parent: &Request, path: &str) -> Option<Request> {
    let uri: Uri = path.parse().ok()?;
    let mut headers = HeaderMap::new();
    for name in FORWARDED {
        if let Some(v) = parent.headers().get(name) {
            headers.insert(name, v.clone());
        }
    }
    // With the peer's address below: the caller is found behind trusted proxies as for the batch.
    for name in ["forwarded", "x-forwarded-for"] {
        for v in parent.headers().get_all(name) {
            headers.append(name, v.clone());
        }
    }
    headers.entry(header::USER_AGENT).or_insert(HeaderValue::from_static(DEFAULT_USER_AGENT));
    headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    headers.insert(BATCH_REQUEST_HEADER, HeaderValue::from_static("1"));
    if let Some(host) = parent.headers().get(header::HOST) {
        headers.insert(header::HOST, host.clone());
    }
    let (mut parts, ()) = poem::http::Request::new(()).into_parts();
    parts.method = Method::GET;
    parts.uri = uri;
    parts.headers = headers;
    // The caller's address: IP-keyed limits apply to sub-requests as to the batch.
    let remote: RemoteAddr = parent.remote_addr().clone();
    let parts = RequestParts::from((parts, LocalAddr::default(), remote, poem::http::uri::Scheme::HTTP));
    Some(Request::from_parts(parts, poem::Body::empty()))
}

/// Runs one operation and reads its answer within the time and size limits.
async fn execute(dispatch: &Dispatch, parent: &Request, id: String, path: String) -> SubResult {
    if let Some(error) = path_refusal(&path) {
        return refused(id, error);
    }
    let Some(req) = sub_request(parent, &path) else { return refused(id, BatchCallError::InvalidPath) };
    let answered = tokio::time::timeout(SUB_TIMEOUT, async {
        let resp: Response = dispatch.through_pipeline(req).await;
        let content_type = resp.content_type().map(str::to_string);
        let status = resp.status().as_u16();
        let body = resp.into_body().into_bytes_limit(SUB_BODY_LIMIT).await;
        (status, content_type, body)
    })
    .await;
    let (status, content_type, body) = match answered {
        Err(_) => return refused(id, BatchCallError::Timeout),
        Ok(answer) => answer,
    };
    let bytes = match body {
        Ok(b) => b,
        Err(poem::error::ReadBodyError::PayloadTooLarge) => {
            return SubResult { id, status, body: None, error: BatchCallError::ResponseTooLarge }
        }
        Err(_) => return refused(id, BatchCallError::FetchFailed),
    };
    if bytes.is_empty() {
        return SubResult { id, status, body: None, error: BatchCallError::NoError };
    }
    match EmbeddedJson::of_response(content_type.as_deref(), bytes) {
        Some(body) => SubResult { id, status, body: Some(body), error: BatchCallError::NoError },
        None => SubResult { id, status, body: None, error: BatchCallError::InvalidJson },
    }
}

/// The 200 body ([`ExecuteBatchResponse`]'s shape), each sub-response's JSON copied in as it is.
fn render(results: &[SubResult]) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(256 + results.iter().map(|r| r.body.as_ref().map_or(64, |b| b.len() + 64)).sum::<usize>());
    out.extend_from_slice(b"{\"results\":[");
    for (i, r) in results.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"id\":");
        write_value(&mut out, &r.id);
        out.extend_from_slice(format!(",\"status\":{},\"body\":", r.status).as_bytes());
        match &r.body {
            Some(body) => body.write_to(&mut out),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"error\":");
        write_value(&mut out, r.error.as_str());
        out.push(b'}');
    }
    let succeeded = results.iter().filter(|r| r.succeeded()).count();
    out.extend_from_slice(format!("],\"succeeded\":{succeeded},\"failed\":{}}}", results.len() - succeeded).as_bytes());
    out
}

async fn execute_batch(_: &AppState, req: &mut Request, _: &'static Operation) -> Answer<ExecuteBatchResponse> {
    if req.headers().contains_key(BATCH_REQUEST_HEADER) {
        return ApiError::NestedBatch.into();
    }
    let ops = match json_body::take(req).await.and_then(|body| parse_body(&body)) {
        Ok(ops) => ops,
        Err(e) => return e.into(),
    };
    let Some(dispatch) = req.extensions().get::<Dispatch>().cloned() else {
        return ApiError::internal("batch reached without the in-process dispatch").into();
    };
    let results = join_all(ops.into_iter().map(|op| execute(&dispatch, req, op.id, op.path))).await;
    let response = Response::builder()
        .content_type("application/json; charset=utf-8")
        .header("cache-control", "no-store")
        .body(render(&results));
    Answer::from_response(response)
}

/// The request body's JSON Schema (documented in the OpenAPI document from the registry).
pub fn body_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "required": ["operations"],
        "properties": {
            "operations": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_OPERATIONS,
                "items": {
                    "type": "object",
                    "required": ["path"],
                    "properties": {
                        "id": {"type": "string", "maxLength": MAX_ID_CHARS, "description": "Names the result; blank = the operation's index."},
                        "path": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_CHARS, "description": "A GET operation path with its query string (jmespath included)."},
                    },
                },
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_results_have_the_documented_shape() {
        let page = EmbeddedJson::of_response(Some("application/json"), bytes::Bytes::from_static(b"{\"events\":[]}"));
        let results = [
            SubResult { id: "a\"1".into(), status: 200, body: page, error: BatchCallError::NoError },
            SubResult { id: "b".into(), status: 404, body: None, error: BatchCallError::NoError },
            refused("c".into(), BatchCallError::NestedBatch),
        ];
        let parsed: ExecuteBatchResponse =
            serde_json::from_slice(&render(&results)).expect("valid JSON of the documented shape");
        assert_eq!(parsed.results[0].id, "a\"1");
        assert_eq!(parsed.results[0].body, Some(serde_json::json!({"events": []})));
        assert_eq!((parsed.results[1].status, &parsed.results[1].body), (404, &None));
        assert_eq!(parsed.results[2].error, WireName(BatchCallError::NestedBatch));
        assert_eq!((parsed.succeeded, parsed.failed), (1, 2));
    }

    #[test]
    fn path_checks() {
        assert_eq!(path_refusal("/api/conflict/v1/list-armed-events?country=UA&jmespath=events"), None);
        assert_eq!(path_refusal("/api/batch/v1/execute"), Some(BatchCallError::NestedBatch));
        for bad in [
            "api/conflict/v1/x",
            "//evil.example/api/conflict/v1/x",
            "https://evil.example/api/conflict/v1/x",
            "/api/conflict/v1/",
            "/api/Conflict/v1/x",
            "/api/conflict/1/x",
            "/api/conflict/v1/x/y",
            "/healthz",
        ] {
            assert_eq!(path_refusal(bad), Some(BatchCallError::InvalidPath), "{bad}");
        }
    }

    fn fields(body: Value) -> Vec<(String, String)> {
        match parse_body(&body) {
            Err(ApiError::Validation(v)) => v.into_iter().map(|x| (x.field, x.description)).collect(),
            other => panic!("expected violations, got {:?}", other.map(|o| o.len())),
        }
    }

    #[test]
    fn body_violations_are_reported_together() {
        assert_eq!(fields(serde_json::json!([])), [("$request".into(), "value must be an object".into())]);
        assert_eq!(fields(serde_json::json!({})), [("operations".into(), "value is required".into())]);
        let many: Vec<Value> = (0..21).map(|i| serde_json::json!({"path": format!("/p{i}")})).collect();
        assert_eq!(
            fields(serde_json::json!({ "operations": many })),
            [("operations".into(), "array must contain at most 20 item(s)".into())]
        );
        let long_id = "x".repeat(65);
        let got = fields(serde_json::json!({"operations": [
            {"id": "a", "path": "/api/conflict/v1/list-iran-events"},
            {"id": " a ", "path": "/api/conflict/v1/list-iran-events"},
            {"id": long_id, "path": "/x"},
            {"id": "c"},
        ]}));
        assert_eq!(
            got,
            [
                ("operations[1].id".to_string(), "duplicate id \"a\" — results would be ambiguous".to_string()),
                ("operations[2].id".into(), "string length must be at most 64".into()),
                ("operations[3].path".into(), "value is required".into()),
            ]
        );
        // Blank ids become the index.
        let ops = parse_body(&serde_json::json!({"operations": [{"path": "/a"}, {"id": "  ", "path": "/b"}]}))
            .unwrap_or_else(|_| panic!("valid"));
        assert_eq!(ops.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), ["0", "1"]);
    }
}
