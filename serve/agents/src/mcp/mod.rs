//! The MCP tool server at `/mcp` (SUPPLEMENT Part 6): Streamable HTTP without sessions, both
//! revision lines on one endpoint, tools generated from the operation registry and answered by
//! the REST handlers in process. Order of checks: Origin guard → method → body → JSON-RPC shape →
//! protocol revision → credential (always checked when sent) → the method's access and rate limit.

pub mod call;
pub mod docs;
mod revision;
pub mod rpc;
mod sources;
pub mod tools;

use std::{borrow::Cow, sync::Arc};

use poem::{
    http::{HeaderName, HeaderValue, Method, StatusCode},
    Endpoint, Request, Response,
};
use serde_json::{json, Value};

use self::{
    call::Output,
    revision::Revision,
    rpc::{Call, RpcError},
};
use sitrep_platform::{
    app_state::AppState,
    auth,
    auth::Principal,
    dispatch::Dispatch,
    edge,
    edge::{rate_limit, rate_limit::Policy},
    kit::error::ApiError,
};

/// Request bodies larger than this are refused.
const MAX_BODY: usize = 1 << 20;
const SERVER_NAME: &str = "sitrep";
const TOOLS_TTL_MS: u64 = 3_600_000;
const INSTRUCTIONS: &str = "sitrep answers situational data (aviation, climate, armed conflict, consumer prices, energy) from versioned snapshots. Call get_sources to see the datasets and their freshness; data tools need an API key (X-Service-Key) or an OAuth bearer token; every data tool accepts a jmespath projection, and tools over datasets an as_of time to answer from the versions current then.";
const ALLOW_HEADERS: &str = "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, X-Service-Key, X-Api-Key";
const EXPOSE_HEADERS: &str = "Mcp-Session-Id, WWW-Authenticate";

pub struct McpEndpoint {
    state: Arc<AppState>,
    dispatch: Dispatch,
    /// The tools/list entries, generated once from the registry.
    tools: Vec<Value>,
    /// The groups `get_sources` filters by.
    groups: Vec<String>,
}

impl McpEndpoint {
    pub fn new(state: Arc<AppState>, dispatch: Dispatch) -> Self {
        let (tools, groups) = (tools::list(dispatch.registry()), tools::groups(dispatch.registry()));
        McpEndpoint { state, dispatch, tools, groups }
    }

    /// `GET /docs/mcp`: how to connect, and the tools this endpoint lists.
    pub fn docs_page(&self) -> Response {
        docs::page(self.state.settings.site_origin(), &self.tools)
    }
}

/// Whether a browser origin may call `/mcp` (the transport's DNS-rebinding guard).
fn origin_allowed(state: &AppState, origin: &str) -> bool {
    let local = ["http://localhost", "http://127.0.0.1"]
        .iter()
        .any(|base| origin == *base || origin.strip_prefix(base).is_some_and(|rest| rest.starts_with(':')));
    local
        || state.settings.public_origins.iter().any(|o| o == origin)
        || crate::context(state).settings.mcp_allowed_origins.iter().any(|o| o == origin)
}

fn set(r: &mut Response, name: &'static str, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        r.headers_mut().insert(name, v);
    }
}

fn cors(mut r: Response, origin: Option<&str>) -> Response {
    if let Some(origin) = origin {
        set(&mut r, "access-control-allow-origin", origin);
        set(&mut r, "access-control-expose-headers", EXPOSE_HEADERS);
        set(&mut r, "vary", "Origin");
    }
    r
}

impl Endpoint for McpEndpoint {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let origin = req.headers().get("origin").and_then(|v| v.to_str().ok()).map(str::to_string);
        if let Some(o) = &origin {
            if !origin_allowed(&self.state, o) {
                let r = Response::builder()
                    .status(StatusCode::FORBIDDEN)
                    .content_type("application/json")
                    .body(json!({"error": "Origin not allowed"}).to_string());
                return Ok(r);
            }
        }
        let origin = origin.as_deref();
        let r = match *req.method() {
            Method::OPTIONS => {
                let mut r = Response::builder().status(StatusCode::NO_CONTENT).finish();
                set(&mut r, "access-control-allow-methods", "POST, OPTIONS");
                set(&mut r, "access-control-allow-headers", ALLOW_HEADERS);
                set(&mut r, "access-control-max-age", "600");
                r
            }
            Method::POST => match req.take_body().into_bytes_limit(MAX_BODY).await {
                Ok(body) => self.post(&req, &body).await,
                Err(_) => RpcError::invalid_request("body too large")
                    .with_status(StatusCode::PAYLOAD_TOO_LARGE)
                    .into_response(&Value::Null),
            },
            _ => {
                let mut r = Response::builder()
                    .status(StatusCode::METHOD_NOT_ALLOWED)
                    .content_type("application/json")
                    .body(json!({"error": "Method not allowed"}).to_string());
                set(&mut r, "allow", "POST, OPTIONS");
                r
            }
        };
        Ok(cors(r, origin))
    }
}

impl McpEndpoint {
    async fn post(&self, req: &Request, body: &[u8]) -> Response {
        let call = match Call::parse(body) {
            Ok(c) => c,
            Err(refused) => {
                let (id, e) = *refused;
                return e.into_response(&id);
            }
        };
        let id = call.id.clone().unwrap_or(Value::Null);
        let revision = match revision::of(req, &call) {
            Ok(r) => r,
            Err(e) => return e.into_response(&id),
        };
        let now = std::time::Instant::now();
        let may_look_up = || edge::address_may_look_up(&self.state, req, now);
        let principal = match auth::authenticate(&self.state, req, now, may_look_up).await {
            Ok(p) => p,
            Err(e) => {
                // A wrong credential counts against its address's window, as on REST (the
                // answer stays the documented -32001).
                if matches!(e, ApiError::InvalidApiKey { .. } | ApiError::InvalidAccessToken { .. }) {
                    let _ = edge::count_refused_credential(&self.state, &edge::client_ip(&self.state, req), now).await;
                }
                return self.refusal(req, e).into_response(&id);
            }
        };
        if call.id.is_none() {
            return Response::builder().status(StatusCode::ACCEPTED).finish();
        }
        match self.answer(req, &call, revision, principal).await {
            Ok((output, headers)) => {
                let mut r = output.into_response(&id, revision);
                for (name, value) in headers {
                    r.headers_mut().insert(name, value);
                }
                r
            }
            Err(e) => e.into_response(&id),
        }
    }

    /// A method's result and extra response headers (session id, RateLimit headers).
    async fn answer(
        &self,
        req: &Request,
        call: &Call,
        revision: Revision,
        principal: Option<Arc<Principal>>,
    ) -> Result<(Output, Vec<(HeaderName, HeaderValue)>), RpcError> {
        let caller = self.caller(req, principal.as_deref());
        match call.method.as_str() {
            "initialize" => {
                let headers = self.count(Policy::McpDiscovery, &caller).await?;
                let requested = call.params.get("protocolVersion").and_then(Value::as_str);
                let mut headers = headers;
                let session = uuid::Uuid::new_v4().to_string();
                if let Ok(v) = HeaderValue::from_str(&session) {
                    headers.push((HeaderName::from_static("mcp-session-id"), v));
                }
                let result = json!({
                    "protocolVersion": revision::negotiated(requested),
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")},
                    "instructions": INSTRUCTIONS,
                });
                Ok((Output::Value(result), headers))
            }
            "ping" => Ok((Output::Value(json!({})), self.count(Policy::McpDiscovery, &caller).await?)),
            "server/discover" if revision == Revision::Stateless => {
                let headers = self.count(Policy::McpDiscovery, &caller).await?;
                let result = json!({
                    "supportedVersions": revision::SUPPORTED,
                    "capabilities": {"tools": {}},
                    "instructions": INSTRUCTIONS,
                    "ttlMs": TOOLS_TTL_MS,
                    "cacheScope": "public",
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}},
                });
                Ok((Output::Value(result), headers))
            }
            "tools/list" => {
                let headers = self.count(Policy::McpDiscovery, &caller).await?;
                let mut result = json!({"tools": self.tools});
                if revision == Revision::Stateless {
                    result["ttlMs"] = json!(TOOLS_TTL_MS);
                    result["cacheScope"] = json!("public");
                }
                Ok((Output::Value(result), headers))
            }
            "tools/call" => self.tools_call(req, call, revision, principal.clone(), &caller).await,
            other => Err(RpcError::method_not_found(other)),
        }
    }

    async fn tools_call(
        &self,
        req: &Request,
        call: &Call,
        revision: Revision,
        principal: Option<Arc<Principal>>,
        caller: &str,
    ) -> Result<(Output, Vec<(HeaderName, HeaderValue)>), RpcError> {
        let Some(name) = call.params.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()) else {
            return Err(RpcError::invalid_params("Invalid params: missing tool name"));
        };
        let args = call.params.get("arguments").unwrap_or(&Value::Null);
        match name {
            tools::GET_SOURCES => {
                // Anonymous calls have their own small, fail-closed allowance per IP.
                let policy = if principal.is_some() { Policy::McpDiscovery } else { Policy::McpFree };
                let headers = self.count(policy, caller).await?;
                let value =
                    sources::get_sources(&self.state, self.dispatch.registry(), &self.groups, args, chrono::Utc::now());
                Ok((Output::Value(call::tool_result(value, revision, call::SOURCES_BUDGET_BYTES)), headers))
            }
            tools::DESCRIBE_TOOL => {
                let headers = self.count(Policy::McpDiscovery, caller).await?;
                let value = tools::describe(&self.tools, args.get("tool_name").and_then(Value::as_str));
                Ok((Output::Value(call::tool_result(value, revision, call::BUDGET_BYTES)), headers))
            }
            _ => {
                let op = (self.dispatch.registry().by_tool(name))
                    .ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))?;
                let missing = || ApiError::MissingCredential { challenge: auth::challenge(&self.state, req, false) };
                // The operation's rule and, as on REST, the rule of a dataset it is asked about.
                let named = op.dataset_param.and_then(|p| args.get(p.name)).and_then(Value::as_str);
                let access = |d| self.state.dataset_access(d);
                if let Err(e) = auth::admit(op, access, named, principal.as_deref(), missing) {
                    return Err(self.refusal(req, e));
                }
                let principal = principal.ok_or_else(RpcError::tool_fault)?;
                let headers = self.count(Policy::Mcp, caller).await?;
                let result = call::data_tool(&self.state, &self.dispatch, op, principal, args, revision).await?;
                Ok((result, headers))
            }
        }
    }

    /// The rate-limit key: the account, else the client IP.
    fn caller<'a>(&self, req: &Request, principal: Option<&'a Principal>) -> Cow<'a, str> {
        match principal {
            Some(p) => Cow::Borrowed(&p.account_id),
            None => Cow::Owned(edge::client_ip(&self.state, req)),
        }
    }

    /// Counts one request against `policy`; the RateLimit headers to send, or the refusal.
    async fn count(&self, policy: Policy, caller: &str) -> Result<Vec<(HeaderName, HeaderValue)>, RpcError> {
        let limit = self.state.settings.rate_limits.of(policy);
        let mut carrier = Response::default();
        match rate_limit::hit(self.state.limiter.as_ref(), policy, limit, caller, std::time::Instant::now()).await {
            Ok(d) => {
                edge::rate_headers(&mut carrier, &self.state, policy, &d);
                let headers = carrier.headers().iter().map(|(n, v)| (n.clone(), v.clone())).collect();
                if d.allowed {
                    return Ok(headers);
                }
                self.state.metrics.refused(policy);
                let message = match policy {
                    Policy::McpFree => {
                        format!("Free-tier rate limit. Max {limit} unauthenticated tool calls per minute per IP.")
                    }
                    Policy::Mcp => format!("Rate limit exceeded. Max {limit} tool calls per minute."),
                    _ => format!("Rate limit exceeded. Max {limit} requests per minute."),
                };
                Err(RpcError::new(rpc::RATE_LIMITED, message)
                    .with_status(StatusCode::TOO_MANY_REQUESTS)
                    .with_headers(headers)
                    .with_header("retry-after", &d.reset_secs.to_string()))
            }
            Err(e) if policy.fails_open() => {
                tracing::warn!(error = %e, policy = policy.name(), "rate limiter unavailable; failing open");
                Ok(vec![(HeaderName::from_static("x-ratelimit-mode"), HeaderValue::from_static("degraded"))])
            }
            Err(e) => {
                tracing::warn!(error = %e, policy = policy.name(), "rate limiter unavailable; failing closed");
                Err(RpcError::unavailable("Rate-limit service temporarily unavailable. Try again.")
                    .with_header("x-ratelimit-mode", "degraded"))
            }
        }
    }

    /// A REST refusal in MCP's vocabulary (6.3).
    fn refusal(&self, req: &Request, e: ApiError) -> RpcError {
        let unauthenticated = |message: &str, challenge: &str| {
            RpcError::new(rpc::UNAUTHENTICATED, message)
                .with_status(StatusCode::UNAUTHORIZED)
                .with_header("www-authenticate", challenge)
        };
        let forbidden = |message: &str| RpcError::new(rpc::FORBIDDEN, message).with_status(StatusCode::FORBIDDEN);
        match e {
            ApiError::MissingCredential { challenge } => unauthenticated(
                "Authentication required. Use OAuth (/oauth/token) or pass your API key via X-Service-Key header.",
                &challenge,
            )
            .with_data(json!({
                "reason": "no-credential",
                "nextStep": format!("{}/auth.md", self.state.settings.origin_for(req)),
            })),
            ApiError::InvalidApiKey { challenge } => unauthenticated("Invalid API key", &challenge),
            ApiError::InvalidAccessToken { challenge } => {
                unauthenticated("Invalid or expired OAuth token. Re-authenticate via /oauth/token.", &challenge)
            }
            ApiError::ProRequired { current_tier, plan_key } => forbidden("Pro subscription required")
                .with_data(json!({"requiredTier": 1, "currentTier": current_tier, "planKey": plan_key})),
            ApiError::Lapsed { plan_key } => forbidden("Pro subscription required")
                .with_data(json!({"requiredTier": 1, "currentTier": 0, "planKey": plan_key}))
                .with_header("x-billing-verification", "subscription_lapsed"),
            ApiError::Suspended => forbidden("API access requires an active subscription"),
            ApiError::InsufficientScope { scope } => forbidden(&format!("This operation requires scope {scope}.")),
            ApiError::EntitlementUnavailable => RpcError::unavailable("Entitlement verification unavailable"),
            other => {
                tracing::error!(error = ?other, "unexpected refusal on /mcp");
                RpcError::tool_fault()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn instructions_are_short() {
        assert!(super::INSTRUCTIONS.len() < 400);
    }
}
