//! In-process calls into the assembled application, for the operations that fan out to others:
//! ExecuteBatch sends its sub-requests through the whole per-operation pipeline (routing,
//! authentication, entitlement, rate limit, handler), and the MCP server calls the handlers
//! behind its own gate. Either way the same handler code answers; there is no HTTP loopback.

use std::sync::Arc;

use poem::{Endpoint, Request, Response};

use crate::{app::Pipeline, app_state::AppState, registry::Operation};

#[derive(Clone)]
pub struct Dispatch {
    /// `edge::run` in front of the handlers: what a REST request to `/api/*` goes through.
    pipeline: Arc<Pipeline>,
    state: Arc<AppState>,
}

impl Dispatch {
    pub fn new(pipeline: Arc<Pipeline>, state: Arc<AppState>) -> Self {
        Dispatch { pipeline, state }
    }

    /// Answers `req` exactly as the REST pipeline would.
    pub async fn through_pipeline(&self, req: Request) -> Response {
        self.pipeline.get_response(req).await
    }

    /// Answers `req` with `op`'s handler; the caller has already applied the operation's access
    /// rule and put the principal in the request's extensions.
    pub async fn handler(&self, op: &'static Operation, mut req: Request) -> Response {
        op.handle(&self.state, &mut req).await
    }
}
