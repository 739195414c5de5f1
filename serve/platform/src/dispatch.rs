//! In-process calls into the assembled application, for the operations that fan out to others:
//! ExecuteBatch sends its sub-requests through the whole per-operation pipeline (routing,
//! authentication, entitlement, rate limit, handler), and the MCP server calls the handlers
//! behind its own gate. Either way the same handler code answers; there is no HTTP loopback.

use std::{sync::Arc, time::Instant};

use poem::{Endpoint, Request, Response};

use crate::{
    app_state::AppState,
    edge,
    registry::{Operation, Registry},
};

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

    /// The operations the pipeline answers (how the agents find them: MCP lists them as tools).
    pub fn registry(&self) -> &Arc<Registry> {
        &self.pipeline.registry
    }

    /// Answers `req` exactly as the REST pipeline would.
    pub async fn through_pipeline(&self, req: Request) -> Response {
        self.pipeline.get_response(req).await
    }

    /// Answers `req` with `op`'s handler; the caller has already applied the operation's access
    /// rule and put the principal in the request's extensions. Its DuckDB queries take the
    /// principal's account's share of the pool (as on REST).
    pub async fn handler(&self, op: &'static Operation, mut req: Request) -> Response {
        let owner: Arc<str> = match req.extensions().get::<crate::auth::Principal>() {
            Some(p) => p.account_id.as_str().into(),
            None => crate::edge::client_ip(&self.state, &req).into(),
        };
        crate::snapshot::QUERY_OWNER.scope(owner, op.handle(&self.state, &mut req)).await
    }
}

/// `edge::run` in front of the handlers of the registry's operations (a struct, so a request
/// clones nothing to get through).
pub struct Pipeline {
    state: Arc<AppState>,
    registry: Arc<Registry>,
}

impl Pipeline {
    pub fn new(state: Arc<AppState>, registry: Arc<Registry>) -> Self {
        Pipeline { state, registry }
    }

    /// The declared operation at `path`.
    pub fn find(&self, path: &str) -> Option<&'static Operation> {
        self.registry.find(path)
    }

    pub fn run<'a>(
        &'a self,
        op: Option<&'static Operation>,
        req: &'a mut Request,
        arrived: Instant,
    ) -> impl std::future::Future<Output = Response> + Send + 'a {
        edge::run(&self.state, op, req, arrived)
    }
}

impl Endpoint for Pipeline {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let op = self.find(req.uri().path());
        Ok(self.run(op, &mut req, Instant::now()).await)
    }
}
