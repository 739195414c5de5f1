//! Assembling the server: the route tree (the platform's pipeline in front of every `/api/*`
//! operation, the agents' surfaces, docs and health), the error edge for poem's own errors, and
//! the outer layers (request id, `Vary`, metrics, panics).

use std::{
    panic::AssertUnwindSafe,
    sync::Arc,
    time::{Duration, Instant},
};

use futures::FutureExt;
use poem::{
    endpoint::BoxEndpoint,
    get,
    http::{header, HeaderName, HeaderValue, StatusCode},
    Endpoint, EndpointExt, Request, Response, Route,
};
use rand::RngCore;

use sitrep_agents::{mcp::McpEndpoint, AgentContext};
use sitrep_api::ApiContext;
use sitrep_platform::{
    app_state::AppState,
    dispatch::{Dispatch, Pipeline},
    edge::load_shedding::AtWork,
    kit::error::ApiError,
    meta, openapi_doc,
    registry::Registry,
};

/// Maps poem's own errors (unknown route, wrong method, bad payload, panics) to our JSON bodies.
fn error_edge(err: poem::Error) -> Response {
    match err.status() {
        StatusCode::NOT_FOUND => ApiError::NotFound.into_response(),
        // Operations answer 405 in the pipeline; the rest of the tree (docs, health) is GET only.
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed { allow: "GET" }.into_response(),
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::TooLarge.into_response(),
        StatusCode::BAD_REQUEST | StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::InvalidBody.into_response(),
        s if s.is_server_error() => ApiError::Internal(err.to_string()).into_response(),
        _ => ApiError::InvalidBody.into_response(),
    }
}

/// The caller's `X-Request-Id` when it is well formed, else a new UUID v4.
fn request_id(req: &Request) -> Option<HeaderValue> {
    let sent = req.headers().get(X_REQUEST_ID).filter(|v| {
        let v = v.as_bytes();
        (8..=128).contains(&v.len()) && v.iter().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(b))
    });
    if let Some(v) = sent {
        return Some(v.clone());
    }
    // From the thread-local generator (`Uuid::new_v4` makes a getrandom syscall per request),
    // formatted on the stack.
    let mut bytes = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut bytes);
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let id = uuid::Builder::from_random_bytes(bytes).into_uuid().hyphenated().encode_lower(&mut text);
    HeaderValue::from_str(id).ok()
}

const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
const VARY: HeaderValue = HeaderValue::from_static("Authorization, X-Service-Key, X-Api-Key, Accept-Encoding");

/// The answer of `inner`, with poem's errors mapped by `error_edge` and a panic turned into a 500
/// (the worker thread and the server go on).
/// Not an `async fn`: one would hold `inner` twice (as its argument and inside the
/// `catch_unwind` it is moved into), and every request's future would carry both.
fn answer_of(
    inner: impl std::future::Future<Output = poem::Result<Response>>,
) -> impl std::future::Future<Output = Response> {
    AssertUnwindSafe(inner).catch_unwind().map(|caught| match caught {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => error_edge(e),
        Err(_) => ApiError::Internal("handler panicked".into()).into_response(),
    })
}

/// The application's own limits on each request.
#[derive(Debug, Clone, Copy)]
pub struct RequestLimits {
    /// From the request's arrival to its response: past it, the request's work is dropped (its
    /// DuckDB query interrupted) and it is answered 503 `deadline_exceeded`. Above ExecuteBatch's
    /// 10 s per sub-operation, so a batch meets its own timeouts first.
    pub deadline: Duration,
    /// Requests at work at once; one more is answered 503 `overloaded` at once, before any work.
    /// A request parked behind another's work (a single flight, a diff) is not at work meanwhile
    /// (`sitrep_platform::edge::load_shedding`). Health probes (`/healthz`, `/readyz`,
    /// `/api/health`) are never refused.
    pub max_in_flight: usize,
}

impl Default for RequestLimits {
    fn default() -> Self {
        RequestLimits { deadline: Duration::from_secs(30), max_in_flight: 512 }
    }
}

/// Paths a load balancer polls: never shed (they read memory only and answer a few bytes). The
/// status page is shed like any page: it renders HTML for anyone who asks, so a flood of it must
/// not get past the cap.
fn is_health_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/api/health")
}

/// The outermost layer: load shedding and the request deadline, request id, `Vary`, the request metrics, the batch handle for
/// ExecuteBatch, and panics turned into 500s. A declared operation goes straight to the pipeline
/// (looked up once, here), `/mcp` straight to the MCP server; the route tree takes the rest
/// (pages, OAuth, docs, and the pipeline's 404 for an undeclared path), so the hot paths skip the
/// tree's radix match, its middleware and the URI rewrite of a nested route. A struct rather than poem's `around`, which clones two `Arc`s
/// per request (their counts are cache lines both worker threads write).
struct Outer {
    pipeline: Arc<Pipeline>,
    /// `/mcp`, reached without the route tree and its middleware (as `/api/*` is): it keeps its
    /// own state, and a tool call repeated from the body cache costs little else.
    mcp: Arc<McpEndpoint>,
    routes: BoxEndpoint<'static>,
    state: Arc<AppState>,
    dispatch: Dispatch,
    deadline: Duration,
    at_work: Arc<AtWork>,
}

impl Endpoint for Outer {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let started = Instant::now();
        let id = request_id(&req);
        let path = req.uri().path();
        let api = path.starts_with("/api/");
        let op = if api { self.pipeline.find(path) } else { None };
        // Which series the request is counted in, named before the request moves on.
        let mcp = !api && path == "/mcp";
        let metered = match op {
            Some(op) => Some(op.id),
            None if api => Some("unknown"),
            None if mcp => Some("mcp"),
            None => None,
        };
        let place = if is_health_probe(path) { None } else { Some(self.at_work.enter()) };
        if path.starts_with("/api/batch/") {
            req.extensions_mut().insert(self.dispatch.clone());
        }
        let mut resp = if matches!(place, Some(None)) {
            ApiError::Overloaded.into_response()
        } else {
            // The request stays where it is (a copy moved into the deadline's future would be
            // held twice); what takes it by value takes it from there.
            let req = &mut req;
            let answer = tokio::time::timeout(
                self.deadline,
                AtWork::run(place.as_ref().and_then(Option::as_ref), async move {
                    match op {
                        Some(op) => answer_of(self.pipeline.run(Some(op), req, started).map(Ok)).await,
                        // Boxed, as the route tree's futures are: held inline, the MCP server's future
                        // would make every request's several kilobytes larger.
                        None if mcp => answer_of(Box::pin(self.mcp.call(std::mem::take(req)))).await,
                        None => answer_of(self.routes.call(std::mem::take(req))).await,
                    }
                }),
            );
            answer.await.unwrap_or_else(|_| ApiError::DeadlineExceeded.into_response())
        };
        drop(place);
        if let Some(v) = id {
            resp.headers_mut().insert(X_REQUEST_ID, v);
        }
        if api {
            resp.headers_mut().insert(header::VARY, VARY);
        }
        if let Some(operation) = metered {
            self.state.metrics.observe(operation, resp.status().as_u16(), started.elapsed());
        }
        Ok(resp)
    }
}

/// A fixed body of this content type, for every GET of its route.
fn fixed(content_type: &'static str, body: impl Into<bytes::Bytes>) -> impl Endpoint<Output = Response> {
    let body = body.into();
    get(poem::endpoint::make_sync(move |_: Request| Response::builder().content_type(content_type).body(body.clone())))
}

/// What makes a state unfit to serve.
#[derive(Debug, thiserror::Error)]
pub enum AssemblyError {
    #[error("the state keeps no {0} (AppState::with_extension)")]
    MissingContext(&'static str),
}

/// The whole HTTP application answering `registry`'s operations, under the default request limits.
/// The state must keep the API's and the agents' contexts (their handlers read them on every request).
pub fn build(
    state: Arc<AppState>,
    registry: Arc<Registry>,
    server_url: &str,
) -> Result<BoxEndpoint<'static>, AssemblyError> {
    build_with(state, registry, server_url, RequestLimits::default())
}

/// [`build`] under `limits`.
pub fn build_with(
    state: Arc<AppState>,
    registry: Arc<Registry>,
    server_url: &str,
    limits: RequestLimits,
) -> Result<BoxEndpoint<'static>, AssemblyError> {
    if state.extension::<ApiContext>().is_none() {
        return Err(AssemblyError::MissingContext("ApiContext"));
    }
    if state.extension::<AgentContext>().is_none() {
        return Err(AssemblyError::MissingContext("AgentContext"));
    }
    let doc = openapi_doc::document(&registry, server_url);
    // Rendered once; each request clones a reference-counted buffer.
    let spec_json = serde_json::to_string_pretty(&doc).unwrap_or_default();
    let spec_yaml = serde_yaml::to_string(&doc).unwrap_or_default();
    let docs = openapi_doc::swagger_ui(&spec_json);
    // REST requests take the pipeline; ExecuteBatch and MCP call it or the handlers in process.
    let pipeline = Arc::new(Pipeline::new(state.clone(), registry));
    let dispatch = Dispatch::new(pipeline.clone(), state.clone());
    let mcp = Arc::new(McpEndpoint::new(state.clone(), dispatch.clone()));
    let mcp_docs = mcp.clone();
    let outer_state = state.clone();
    let routes = sitrep_agents::dashboard::mount(
        sitrep_agents::oauth::mount(Route::new(), state.clone()),
        state.clone(),
        dispatch.clone(),
    )
    .nest("/", pipeline.clone())
    .at("/openapi.json", fixed("application/json; charset=utf-8", spec_json))
    .at("/openapi.yaml", fixed("application/yaml; charset=utf-8", spec_yaml))
    .at("/docs", fixed("text/html; charset=utf-8", docs.clone()))
    .at("/docs/", fixed("text/html; charset=utf-8", docs))
    .at("/docs/mcp", get(poem::endpoint::make_sync(move |_: Request| mcp_docs.docs_page())))
    .at("/healthz", get(meta::healthz))
    .at("/readyz", get(meta::readyz))
    .at("/api/health", get(meta::api_health))
    .data(state)
    .boxed();
    Ok(Outer {
        pipeline,
        mcp,
        routes,
        state: outer_state,
        dispatch,
        deadline: limits.deadline,
        at_work: AtWork::new(limits.max_in_flight),
    }
    .boxed())
}

/// The operator's listener (`SITREP_METRICS_LISTEN`): `/metrics` alone. Not on the public one:
/// per-operation traffic, refusals, memory and each dataset's runs are an operator's view.
pub fn metrics_app(state: Arc<AppState>) -> BoxEndpoint<'static> {
    Route::new().at("/metrics", get(meta::metrics)).data(state).boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_is_answered_as_a_500_with_the_documented_body() {
        let panicking = async {
            if true {
                panic!("a handler's bug");
            }
            Ok(Response::default())
        };
        let r = answer_of(panicking).await;
        assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = r.into_body().into_string().await.unwrap();
        assert_eq!(body, r#"{"message":"Internal server error"}"#);
        let not_found = answer_of(async { Err(poem::error::NotFoundError.into()) }).await;
        assert_eq!(not_found.status(), StatusCode::NOT_FOUND);
    }

    /// The size of what `f` returns, from its type alone (`f` is never called).
    fn returned_size<A, B, R>(_: impl Fn(A, B) -> R) -> usize {
        std::mem::size_of::<R>()
    }

    /// Every request's future is boxed once and moved on the way: the outer layer holds the
    /// pipeline's future once, not twice (an `async fn` wrapper holds its argument and what it
    /// moved it into; 3,592 bytes in release before, against 1,256 for the pipeline's).
    #[test]
    fn the_outer_layer_holds_the_pipelines_future_once() {
        let outer = returned_size(|o: &'static Outer, r: Request| o.call(r));
        let pipeline = returned_size(|p: &'static Pipeline, r: &'static mut Request| p.run(None, r, Instant::now()));
        eprintln!("Outer::call {outer} bytes, the pipeline {pipeline} bytes");
        assert!(outer < 2 * pipeline, "Outer::call {outer} bytes, the pipeline's {pipeline}");
    }
}
