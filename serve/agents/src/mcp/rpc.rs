//! JSON-RPC 2.0 as `/mcp` speaks it (SUPPLEMENT 6.1, 6.3): one request object per POST, one
//! `application/json` reply, and the error table of 6.3 with the HTTP status each code travels with.

use bytes::Bytes;
use poem::{
    http::{HeaderName, HeaderValue, StatusCode},
    Response,
};
use serde_json::{json, Value};

pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL: i64 = -32603;
pub const UNAUTHENTICATED: i64 = -32001;
pub const FORBIDDEN: i64 = -32002;
pub const DATA_UNAVAILABLE: i64 = -32003;
pub const HEADER_MISMATCH: i64 = -32020;
pub const UNSUPPORTED_VERSION: i64 = -32022;
pub const RATE_LIMITED: i64 = -32029;

/// A JSON-RPC error, with the HTTP status and headers it is sent with.
#[derive(Debug)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// Boxed: most errors carry none, and the error travels in `Result`s.
    pub data: Option<Box<Value>>,
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None, status: StatusCode::OK, headers: Vec::new() }
    }
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(Box::new(data));
        self
    }
    pub fn with_header(mut self, name: &'static str, value: &str) -> Self {
        if let Ok(v) = HeaderValue::from_str(value) {
            self.headers.push((HeaderName::from_static(name), v));
        }
        self
    }
    /// Headers already built (RateLimit headers, the challenge).
    pub fn with_headers(mut self, headers: impl IntoIterator<Item = (HeaderName, HeaderValue)>) -> Self {
        self.headers.extend(headers);
        self
    }

    pub fn invalid_request(what: &str) -> Self {
        RpcError::new(INVALID_REQUEST, format!("Invalid request: {what}"))
    }
    pub fn method_not_found(method: &str) -> Self {
        RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }
    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, message)
    }
    /// An unexpected fault while running a tool (HTTP 200).
    pub fn tool_fault() -> Self {
        RpcError::new(INTERNAL, "Internal error: data fetch failed")
    }
    /// Infrastructure that is down (state store, limiter): HTTP 503.
    pub fn unavailable(message: &str) -> Self {
        RpcError::new(INTERNAL, message).with_status(StatusCode::SERVICE_UNAVAILABLE).with_header("retry-after", "5")
    }

    pub fn into_response(self, id: &Value) -> Response {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(data) = self.data {
            error["data"] = *data;
        }
        let mut r = reply(self.status, &json!({ "jsonrpc": "2.0", "id": id, "error": error }));
        for (name, value) in self.headers {
            r.headers_mut().insert(name, value);
        }
        r
    }
}

/// A successful reply.
pub fn result(id: &Value, result: Value) -> Response {
    reply(StatusCode::OK, &json!({ "jsonrpc": "2.0", "id": id, "result": result }))
}

fn reply(status: StatusCode, body: &Value) -> Response {
    reply_bytes(status, serde_json::to_vec(body).unwrap_or_default())
}

/// A reply whose body is `parts` one after another, sent as they are: hyper writes them with one
/// vectored write, so a large remembered part is never copied into a new buffer.
pub fn reply_parts<const N: usize>(status: StatusCode, parts: [Bytes; N]) -> Response {
    let body = http_body_util::combinators::BoxBody::new(Parts { parts: parts.into_iter().collect() });
    let r = Response::builder().status(status).content_type("application/json").header("cache-control", "no-store");
    r.body(poem::Body::from(body))
}

/// A body of buffers sent in order, of a length known in advance (`Content-Length`).
struct Parts {
    parts: std::collections::VecDeque<Bytes>,
}

impl http_body::Body for Parts {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, std::io::Error>>> {
        std::task::Poll::Ready(self.parts.pop_front().map(|b| Ok(http_body::Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        self.parts.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.parts.iter().map(|b| b.len() as u64).sum())
    }
}

/// A reply whose JSON body was written elsewhere.
pub fn reply_bytes(status: StatusCode, body: Vec<u8>) -> Response {
    Response::builder().status(status).content_type("application/json").header("cache-control", "no-store").body(body)
}

/// One request object, checked for the shape JSON-RPC requires.
#[derive(Debug)]
pub struct Call {
    /// `None`: a notification (answered 202 with no body).
    pub id: Option<Value>,
    pub method: String,
    pub params: Value,
}

impl Call {
    /// Parses a POST body; on failure, the id to echo (null when unknown) and the error.
    pub fn parse(body: &[u8]) -> Result<Call, Box<(Value, RpcError)>> {
        let refuse = |id: Value, what: &str| Box::new((id, RpcError::invalid_request(what)));
        let value: Value = serde_json::from_slice(body).map_err(|_| refuse(Value::Null, "malformed JSON"))?;
        let mut obj = match value {
            Value::Array(_) => return Err(refuse(Value::Null, "batch arrays are not supported")),
            Value::Object(obj) => obj,
            _ => return Err(refuse(Value::Null, "malformed JSON")),
        };
        // Taken out of the parsed object, not cloned: the arguments may be large.
        let id = obj.remove("id");
        let method = match obj.remove("method") {
            Some(Value::String(m)) if !m.is_empty() => m,
            _ => return Err(refuse(id.unwrap_or(Value::Null), "missing method")),
        };
        let params = obj.remove("params").unwrap_or(Value::Object(Default::default()));
        Ok(Call { id, method, params })
    }

    /// `params._meta`, when present.
    pub fn meta(&self, key: &str) -> Option<&Value> {
        self.params.get("_meta").and_then(|m| m.get(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(body: &str) -> (Value, i64, String) {
        let (id, e) = *Call::parse(body.as_bytes()).unwrap_err();
        (id, e.code, e.message)
    }

    #[test]
    fn request_shapes() {
        assert_eq!(err("{nope"), (Value::Null, -32600, "Invalid request: malformed JSON".into()));
        assert_eq!(
            err(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            (Value::Null, -32600, "Invalid request: batch arrays are not supported".into())
        );
        assert_eq!(err(r#"{"jsonrpc":"2.0","id":7}"#), (json!(7), -32600, "Invalid request: missing method".into()));
        let call = Call::parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(call.id.is_none());
        let call =
            Call::parse(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"_meta":{"k":1}}}"#).unwrap();
        assert_eq!(call.meta("k"), Some(&json!(1)));
        assert_eq!(call.id, Some(json!("a")));
    }
}
