//! The operation registry: an [`Operation`] value is the one declaration of a REST operation, and
//! everything about how it is reached reads it — routing (404, 405 with `Allow`), authentication
//! (deny by default), entitlement and scope gating, the idempotency layer, rate-limit policies,
//! the OpenAPI document (paths, parameters, schemas, security), the MCP tool list, batch dispatch
//! and the metrics series.
//!
//! The registry knows no operation: each group module exports a [`Group`] of its operations, and
//! the server is assembled from a list of groups ([`Registry::new`] checks them). A path that is
//! not declared never reaches a handler.

use std::{collections::HashMap, future::Future, pin::Pin};

use poem::{Request, Response};
use poem_openapi::registry::{MetaSchemaRef, Registry as SchemaRegistry};
use sitrep_schemas::DatasetId;

pub use crate::access::Access;
use crate::{
    access::DatasetAccess,
    app_state::AppState,
    edge::rate_limit::Policy,
    kit::{
        error::ApiError,
        params::{Param, AS_OF, JMESPATH},
    },
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// How an operation is exposed as an MCP tool (SUPPLEMENT 6.4); the tool's name is the path's
/// last segment in snake case (`list-armed-events` → `list_armed_events`).
#[derive(Debug, Clone, Copy)]
pub struct McpTool {
    pub title: &'static str,
    /// At most 200 characters; says PRO where the operation needs it.
    pub description: &'static str,
    /// True for read-through tools (live upstream calls), false for dataset tools.
    pub open_world: bool,
}

/// The future of a handler's answer.
pub type Answered<'a> = Pin<Box<dyn Future<Output = Response> + Send + 'a>>;

/// A handler: the server's state, the request (a POST's body already read within the limit by the
/// edge), and the operation's own declaration (its path segment, datasets and parameters, so the
/// handler repeats none of them).
pub type Handler = for<'a> fn(&'a AppState, &'a mut Request, &'static Operation) -> Answered<'a>;

/// A type's place in the OpenAPI document: its reference and how to register it (and the types
/// it refers to) among the document's schemas.
#[derive(Clone, Copy)]
pub struct Schema {
    pub reference: fn() -> MetaSchemaRef,
    pub register: fn(&mut SchemaRegistry),
}

impl Schema {
    pub const fn of<T: poem_openapi::types::Type>() -> Schema {
        Schema { reference: T::schema_ref, register: T::register }
    }
}

/// The 200 body's type and the handler that answers with it, declared together by
/// [`answered_by!`](crate::answered_by) so the compiler checks that they agree.
#[derive(Clone, Copy)]
pub struct Answering {
    /// `None` only in [`Operation::GET`]'s placeholder, which [`Registry::new`] refuses.
    pub schema: Option<Schema>,
    pub handler: Handler,
}

/// `answered_by!(T, f)`: the 200 body's type `T` and the handler `f`, an async fn (or a closure)
/// of `(&AppState, &Request or &mut Request, &'static Operation)` answering `Answer<T>`.
#[macro_export]
macro_rules! answered_by {
    ($body:ty, $handler:expr) => {
        $crate::registry::Answering {
            schema: Some($crate::registry::Schema::of::<$body>()),
            handler: |state, req, op| {
                ::std::boxed::Box::pin(async move {
                    let answer: $crate::kit::answer::Answer<$body> = $handler(state, req, op).await;
                    ::poem::IntoResponse::into_response(answer)
                })
            },
        }
    };
}

pub struct Operation {
    /// The OpenAPI operation id (`ListArmedEvents`).
    pub id: &'static str,
    pub method: Method,
    /// `/api/<group>/v1/<operation in kebab case>` (API.md 1 rule 1).
    pub path: &'static str,
    /// What it answers, for the OpenAPI summary (after the id and a dash).
    pub summary: &'static str,
    pub access: Access,
    /// Whether the `Idempotency-Key` layer applies (SUPPLEMENT 1.13).
    pub idempotent: bool,
    pub rate: Policy,
    /// The lake datasets the operation answers from; the first describes a dataset answer.
    pub datasets: &'static [DatasetId],
    /// The parameter by which a caller names any dataset (the History operations): the edge then
    /// asks, besides `access`, the strictest access of the operations that read that dataset
    /// ([`Registry::dataset_access`]), so no operation reaches a dataset its own readers refuse.
    pub dataset_param: Option<Param>,
    pub mcp: Option<McpTool>,
    /// Query parameters (GET); `jmespath` is added to every GET by the pipeline.
    pub params: &'static [Param],
    /// JSON Schema of the request body (POST).
    pub body: Option<fn() -> serde_json::Value>,
    /// The group's own refusals, checked by the edge at their places in the order of checks.
    pub guard: Option<Guard>,
    /// Where a 200 answer leads: OpenAPI links that clients (schemathesis) follow.
    pub links: &'static [Link],
    pub answer: Answering,
}

/// An OpenAPI link from an operation's 200 answer to a GET: the target's query parameter takes
/// the value at `pointer` (a JSON Pointer) in the answer.
#[derive(Debug, Clone, Copy)]
pub struct Link {
    pub operation_id: &'static str,
    pub parameter: &'static str,
    pub pointer: &'static str,
}

/// A group's refusals at the two places of SUPPLEMENT 4.1's order of checks: `available` after
/// authentication and before the access rule (a feature the deployment cannot serve answers
/// before scopes are judged), `admitted` after the access rule and before the idempotency layer
/// and the rate limit (a write the deployment turned off costs no rate-limit unit).
#[derive(Clone, Copy)]
pub struct Guard {
    pub available: fn(&AppState) -> Result<(), ApiError>,
    pub admitted: fn(&AppState) -> Result<(), ApiError>,
}

impl Guard {
    /// Always available and admitted (what a guard's unused half is).
    pub fn pass(_: &AppState) -> Result<(), ApiError> {
        Ok(())
    }
}

/// The placeholder handler of [`Operation::GET`]; never reached ([`Registry::new`] refuses it).
fn undeclared<'a>(_: &'a AppState, _: &'a mut Request, op: &'static Operation) -> Answered<'a> {
    Box::pin(async move { crate::kit::error::ApiError::internal(format!("{} has no handler", op.id)).into_response() })
}

impl Operation {
    /// The common case, for `..Operation::GET`: a read with any valid credential, the default rate
    /// policy, callable from ExecuteBatch, no MCP tool, no parameters. `id`, `path`, `summary` and
    /// `answer` must be declared (the registry refuses the placeholders).
    pub const GET: Operation = Operation {
        id: "",
        method: Method::Get,
        path: "",
        summary: "",
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &[],
        dataset_param: None,
        mcp: None,
        params: &[],
        body: None,
        guard: None,
        links: &[],
        answer: Answering { schema: None, handler: undeclared },
    };

    /// The common write: a POST with a JSON body under the idempotency layer (ExecuteBatch runs
    /// only GETs, so never a POST).
    pub const POST: Operation = Operation { method: Method::Post, idempotent: true, ..Operation::GET };

    /// The last path segment (`list-armed-events`): the cursor's `op` and the body cache's.
    pub fn segment(&self) -> &'static str {
        self.path.rsplit('/').next().unwrap_or(self.path)
    }

    /// The path's group segment (`consumer-prices`).
    pub fn group_segment(&self) -> &'static str {
        self.path.split('/').nth(2).unwrap_or("")
    }

    /// The MCP tool's name, if the operation is a tool (`list_armed_events`).
    pub fn tool_name(&self) -> Option<String> {
        self.mcp.map(|_| self.segment().replace('-', "_"))
    }

    /// Whether the operation answers from dataset versions, so it takes `as_of` (issue 31): a GET
    /// that declares its datasets and is not a live (open-world) read-through tool. Read-through
    /// operations and company monitoring have no versions to go back to.
    pub fn reads_versions(&self) -> bool {
        self.method == Method::Get && !self.datasets.is_empty() && self.mcp.is_none_or(|t| !t.open_world)
    }

    /// The parameters the GET pipeline adds to the declared ones: `jmespath` to every GET, and
    /// `as_of` to those that [read versions](Self::reads_versions).
    pub fn pipeline_params(&self) -> &'static [Param] {
        match (self.method, self.reads_versions()) {
            (Method::Get, true) => &[JMESPATH, AS_OF],
            (Method::Get, false) => &[JMESPATH],
            (Method::Post, _) => &[],
        }
    }

    /// The dataset whose version describes the answer.
    pub fn dataset(&self) -> DatasetId {
        self.datasets[0]
    }

    pub fn handle<'a>(&'static self, state: &'a AppState, req: &'a mut Request) -> Answered<'a> {
        (self.answer.handler)(state, req, self)
    }
}

/// A group of operations: one OpenAPI tag, exported by its module.
pub struct Group {
    /// The OpenAPI tag (`ConsumerPrices`).
    pub tag: &'static str,
    pub description: &'static str,
    pub operations: &'static [&'static Operation],
}

#[derive(Debug, thiserror::Error)]
#[error("operation {id}: {problem}")]
pub struct Misdeclared {
    pub id: &'static str,
    pub problem: String,
}

/// Every operation of the assembled server, looked up by path (every request asks), by id and by
/// MCP tool name.
pub struct Registry {
    groups: Vec<&'static Group>,
    by_path: foldhash::HashMap<&'static str, &'static Operation>,
    by_tool: HashMap<String, &'static Operation>,
    /// Each dataset's access: the strictest of the operations that read it.
    dataset_access: DatasetAccess,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").field("operations", &self.by_path.len()).finish()
    }
}

impl Registry {
    /// The registry of these groups, after checking every declaration.
    pub fn new(groups: &[&'static Group]) -> Result<Registry, Misdeclared> {
        let mut registry = Registry {
            groups: groups.to_vec(),
            by_path: Default::default(),
            by_tool: Default::default(),
            dataset_access: Default::default(),
        };
        let mut ids = std::collections::HashSet::new();
        for op in groups.iter().flat_map(|g| g.operations.iter().copied()) {
            check(op)?;
            let twice = |what: &str| Misdeclared { id: op.id, problem: format!("{what} declared twice") };
            if !ids.insert(op.id) {
                return Err(twice("id"));
            }
            if registry.by_path.insert(op.path, op).is_some() {
                return Err(twice("path"));
            }
            if let Some(name) = op.tool_name() {
                registry.by_tool.insert(name, op);
            }
        }
        registry.dataset_access = DatasetAccess::of_readers(
            groups.iter().flat_map(|g| g.operations.iter()).flat_map(|op| op.datasets.iter().map(|&d| (d, op.access))),
        );
        // A link leads to a declared GET, by a parameter it takes.
        for op in registry.operations() {
            for link in op.links {
                let target = registry.by_id(link.operation_id).filter(|t| t.method == Method::Get);
                if !target.is_some_and(|t| t.params.iter().any(|p| p.name == link.parameter)) {
                    let problem =
                        format!("a link to {}'s `{}`, which is no GET parameter", link.operation_id, link.parameter);
                    return Err(Misdeclared { id: op.id, problem });
                }
            }
        }
        Ok(registry)
    }

    /// Every operation, group by group in declaration order.
    pub fn operations(&self) -> impl Iterator<Item = &'static Operation> + '_ {
        self.groups.iter().flat_map(|g| g.operations.iter().copied())
    }

    pub fn groups(&self) -> &[&'static Group] {
        &self.groups
    }

    /// The operation declared at `path`, whatever the method (a hash lookup: every request asks).
    pub fn find(&self, path: &str) -> Option<&'static Operation> {
        self.by_path.get(path).copied()
    }

    pub fn by_id(&self, id: &str) -> Option<&'static Operation> {
        self.operations().find(|op| op.id == id)
    }

    /// The operation behind an MCP tool.
    pub fn by_tool(&self, name: &str) -> Option<&'static Operation> {
        self.by_tool.get(name).copied()
    }

    /// The operations exposed as MCP data tools, in declaration order.
    pub fn tools(&self) -> impl Iterator<Item = &'static Operation> + '_ {
        self.operations().filter(|op| op.mcp.is_some())
    }

    /// The operations that answer from `dataset`.
    pub fn reading(&self, dataset: DatasetId) -> impl Iterator<Item = &'static Operation> + '_ {
        self.operations().filter(move |op| op.datasets.contains(&dataset))
    }

    /// What reaching `dataset` by any operation asks of the caller: the strictest access of the
    /// operations that read it (any valid credential when none does).
    pub fn dataset_access(&self, dataset: DatasetId) -> Access {
        self.dataset_access.of(dataset)
    }

    /// Every dataset's access, for [`crate::app_state::AppState`].
    pub fn datasets_access(&self) -> DatasetAccess {
        self.dataset_access.clone()
    }
}

/// One declaration's own rules.
fn check(op: &'static Operation) -> Result<(), Misdeclared> {
    let fail = |problem: &str| Err(Misdeclared { id: op.id, problem: problem.to_string() });
    if op.id.is_empty() || op.summary.is_empty() || op.answer.schema.is_none() {
        return fail("id, summary and answer must be declared");
    }
    // API.md 1 rule 1: /api/<group>/v1/<operation-in-kebab-case>.
    let parts: Vec<&str> = op.path.split('/').collect();
    let kebab = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if parts.len() != 5
        || !parts[0].is_empty()
        || parts[1] != "api"
        || parts[3] != "v1"
        || !kebab(parts[2])
        || !kebab(parts[4])
    {
        return fail("path must be /api/<group>/v1/<operation-in-kebab-case>");
    }
    // Reads are GETs, so only POSTs take the idempotency layer; MCP tools and batch run GET reads.
    if op.idempotent && op.method != Method::Post {
        return fail("only a POST is idempotent");
    }
    if op.method != Method::Get && (op.mcp.is_some() || !op.params.is_empty()) {
        return fail("a POST is no MCP tool and takes its parameters in the body");
    }
    if op.body.is_some() != (op.method == Method::Post) {
        return fail("a POST, and only a POST, declares its body");
    }
    if let Some(tool) = op.mcp {
        if tool.description.chars().count() > 200 {
            return fail("MCP tool description over 200 characters");
        }
        if tool.description.contains("PRO") != (op.access == Access::Pro) {
            return fail("an MCP tool's description says PRO exactly when the operation is gated");
        }
    }
    Ok(())
}
