//! Which MCP revision a request speaks (SUPPLEMENT 6.1). The 2025 line negotiates once with
//! `initialize`; the stateless 2026-07-28 revision names its version on every request, in
//! `_meta` and in headers that must agree with the body.

use poem::{http::StatusCode, Request};
use serde_json::json;

use super::rpc::{Call, RpcError, HEADER_MISMATCH, UNSUPPORTED_VERSION};

pub const STATELESS: &str = "2026-07-28";
/// The 2025 line, oldest first; the newest is answered to an `initialize` asking for anything else.
pub const LINE_2025: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
pub const SUPPORTED: [&str; 4] = ["2025-03-26", "2025-06-18", "2025-11-25", STATELESS];
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// The `initialize` line (the version is what the handshake settled).
    Line2025,
    Stateless,
}

fn header<'r>(req: &'r Request, name: &str) -> Option<&'r str> {
    req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::trim)
}

fn unsupported(version: &str) -> RpcError {
    RpcError::new(UNSUPPORTED_VERSION, format!("Unsupported protocol version: {version}"))
        .with_status(StatusCode::BAD_REQUEST)
        .with_data(json!({ "supported": SUPPORTED, "requested": version }))
}

fn mismatch(what: &str) -> RpcError {
    RpcError::new(HEADER_MISMATCH, format!("Header mismatch: {what}")).with_status(StatusCode::BAD_REQUEST)
}

/// The revision of one request, after the header checks of 2026-07-28. A request with no version
/// information at all is the 2025 line (as 2025-03-26).
pub fn of(req: &Request, call: &Call) -> Result<Revision, RpcError> {
    let in_meta = call.meta(META_VERSION).map(|v| v.as_str().unwrap_or_default().to_string());
    let in_header = header(req, "mcp-protocol-version");
    let version = match (&in_meta, in_header) {
        (Some(v), _) => v.as_str(),
        (None, Some(h)) => h,
        (None, None) => return Ok(Revision::Line2025),
    };
    if !SUPPORTED.contains(&version) {
        return Err(unsupported(version));
    }
    if version != STATELESS {
        return Ok(Revision::Line2025);
    }
    // 2026-07-28: the version, method and tool name travel in headers too, and must agree.
    if in_meta.is_none() {
        return Err(mismatch(&format!("_meta[\"{META_VERSION}\"] is required with MCP-Protocol-Version {STATELESS}")));
    }
    if in_header != Some(STATELESS) {
        return Err(mismatch("MCP-Protocol-Version does not match the request's protocol version"));
    }
    if header(req, "mcp-method") != Some(call.method.as_str()) {
        return Err(mismatch("Mcp-Method does not match the request's method"));
    }
    if call.method == "tools/call" {
        let name = call.params.get("name").and_then(|n| n.as_str());
        if name.is_some() && header(req, "mcp-name") != name {
            return Err(mismatch("Mcp-Name does not match the called tool"));
        }
    }
    Ok(Revision::Stateless)
}

/// The version `initialize` answers: the requested one when it is of the 2025 line, else the newest.
pub fn negotiated(requested: Option<&str>) -> &'static str {
    LINE_2025.into_iter().find(|v| Some(*v) == requested).unwrap_or(LINE_2025[2])
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn call(body: Value) -> Call {
        Call::parse(body.to_string().as_bytes()).unwrap()
    }

    fn req(headers: &[(&str, &str)]) -> Request {
        let mut b = Request::builder();
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.finish()
    }

    #[test]
    fn revision_of_a_request() {
        let plain = call(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        assert_eq!(of(&req(&[]), &plain).unwrap(), Revision::Line2025);
        assert_eq!(of(&req(&[("mcp-protocol-version", "2025-06-18")]), &plain).unwrap(), Revision::Line2025);
        assert_eq!(of(&req(&[("mcp-protocol-version", "1999-01-01")]), &plain).unwrap_err().code, -32022);

        let stateless = call(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_sources", "_meta": {META_VERSION: STATELESS}}}));
        let good = [("mcp-protocol-version", STATELESS), ("mcp-method", "tools/call"), ("mcp-name", "get_sources")];
        assert_eq!(of(&req(&good), &stateless).unwrap(), Revision::Stateless);
        for broken in [
            [("mcp-protocol-version", STATELESS), ("mcp-method", "tools/list"), ("mcp-name", "get_sources")],
            [("mcp-protocol-version", STATELESS), ("mcp-method", "tools/call"), ("mcp-name", "describe_tool")],
            [("mcp-protocol-version", "2025-11-25"), ("mcp-method", "tools/call"), ("mcp-name", "get_sources")],
        ] {
            let e = of(&req(&broken), &stateless).unwrap_err();
            assert_eq!((e.code, e.status), (-32020, StatusCode::BAD_REQUEST), "{broken:?}");
        }
        let future = call(
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {META_VERSION: "2027-01-01"}}}),
        );
        let e = of(&req(&[]), &future).unwrap_err();
        assert_eq!((e.code, e.data.unwrap()["supported"].as_array().unwrap().len()), (-32022, 4));
        assert_eq!(negotiated(Some("2025-06-18")), "2025-06-18");
        assert_eq!(negotiated(Some("2024-11-05")), "2025-11-25");
        assert_eq!(negotiated(None), "2025-11-25");
    }
}
