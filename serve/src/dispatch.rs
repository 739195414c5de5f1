//! In-process calls into the assembled application, for the operations that fan out to others:
//! ExecuteBatch sends its sub-requests through the whole per-operation pipeline (routing,
//! authentication, entitlement, rate limit, handler), and the MCP server calls the handlers
//! behind its own gate. Either way the same handler code answers; there is no HTTP loopback.

use std::sync::Arc;

use poem::{endpoint::BoxEndpoint, Endpoint, IntoResponse, Request, Response};

use crate::app::Pipeline;

#[derive(Clone)]
pub struct Dispatch {
    /// `edge::run` in front of the handlers: what a REST request to `/api/*` goes through.
    pipeline: Arc<Pipeline>,
    /// The route tree of the handlers alone (the caller has authenticated and gated).
    handlers: Arc<BoxEndpoint<'static>>,
    /// Maps poem's own errors (a bad body, say) to our error bodies.
    on_error: fn(poem::Error) -> Response,
}

impl Dispatch {
    pub fn new(
        pipeline: Arc<Pipeline>,
        handlers: Arc<BoxEndpoint<'static>>,
        on_error: fn(poem::Error) -> Response,
    ) -> Self {
        Dispatch { pipeline, handlers, on_error }
    }

    /// Answers `req` exactly as the REST pipeline would.
    pub async fn through_pipeline(&self, req: Request) -> Response {
        self.pipeline.get_response(req).await
    }

    /// Answers `req` with its operation's handler; the caller has already applied the
    /// operation's access rule and put the principal in the request's extensions.
    pub async fn handler(&self, req: Request) -> Response {
        self.handlers.call(req).await.map(IntoResponse::into_response).unwrap_or_else(self.on_error)
    }
}
