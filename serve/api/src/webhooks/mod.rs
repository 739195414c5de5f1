//! The Webhooks group (issue 59): an account's endpoints, their deliveries, test events and
//! redeliveries, under `/api/webhooks/v1/`. What is delivered is written by the changes
//! themselves into the state store's outbox (`sitrep-webhooks`); `delivery` sends it.

mod body;
pub mod delivery;
mod endpoint_url;
mod model;
mod payload;
mod publications;
pub(crate) mod service;

pub use service::{WebhookSettings, Webhooks};

use poem::{http::StatusCode, Request};
use sitrep_platform::{
    answered_by,
    app_state::AppState,
    auth::Principal,
    edge::rate_limit::Policy,
    kit::{
        answer::{account_get, account_write, Answer},
        error::ApiError,
        json_body,
        params::{Param, ParamKind},
        parse::parse_with,
    },
    registry::{Group, Operation},
    state::Plan,
};
use sitrep_webhooks::{
    ids::Kind,
    store::{DeliveryState, NewEndpoint},
    EventType,
};

use model::{
    DeleteWebhookEndpointResponse, ListWebhookDeliveriesResponse, ListWebhookEndpointsResponse,
    RedeliverWebhookDeliveriesResponse, WebhookDelivery, WebhookDeliveryResponse, WebhookEndpoint,
    WebhookEndpointResponse, WebhookEndpointSecretResponse,
};

fn webhooks(state: &AppState) -> &Webhooks {
    &crate::context(state).webhooks
}

/// Endpoints an account may have, by plan (a **decision**: enough for a team's pipelines and
/// environments, few enough that one account's receivers cannot crowd the worker).
pub fn endpoint_limit(plan: Plan) -> usize {
    match plan {
        Plan::Free => 2,
        Plan::Pro => 10,
        Plan::Business => 50,
    }
}

pub static GROUP: Group = Group {
    tag: "Webhooks",
    description: "Signed pushes (Standard Webhooks) of company impact changes and new dataset versions: endpoints, deliveries, tests, redeliveries.",
    operations: &[
        &CREATE_WEBHOOK_ENDPOINT,
        &LIST_WEBHOOK_ENDPOINTS,
        &UPDATE_WEBHOOK_ENDPOINT,
        &DELETE_WEBHOOK_ENDPOINT,
        &ROTATE_WEBHOOK_ENDPOINT_SECRET,
        &LIST_WEBHOOK_DELIVERIES,
        &SEND_WEBHOOK_TEST_EVENT,
        &REDELIVER_WEBHOOK_DELIVERIES,
    ],
};

/// A write: its own window per operation, as company monitoring's writes.
const WRITE: Operation = Operation { rate: Policy::WebhookWrite, ..Operation::POST };

pub static CREATE_WEBHOOK_ENDPOINT: Operation = Operation {
    id: "CreateWebhookEndpoint",
    path: "/api/webhooks/v1/create-webhook-endpoint",
    summary: "registers an https endpoint for the named event types; answers its signing secret (`whsec_…`), shown only here and by a rotation.",
    body: Some(body::create),
    answer: answered_by!(WebhookEndpointSecretResponse, create),
    ..WRITE
};

pub static LIST_WEBHOOK_ENDPOINTS: Operation = Operation {
    id: "ListWebhookEndpoints",
    path: "/api/webhooks/v1/list-webhook-endpoints",
    summary: "the account's endpoints, oldest first, with their state (a disabled endpoint says why) and the plan's endpoint limit.",
    answer: answered_by!(ListWebhookEndpointsResponse, list),
    ..Operation::GET
};

pub static UPDATE_WEBHOOK_ENDPOINT: Operation = Operation {
    id: "UpdateWebhookEndpoint",
    path: "/api/webhooks/v1/update-webhook-endpoint",
    summary: "changes an endpoint's URL, description, event types, datasets or enabled state (each field present is replaced).",
    body: Some(body::update),
    answer: answered_by!(WebhookEndpointResponse, update),
    ..WRITE
};

pub static DELETE_WEBHOOK_ENDPOINT: Operation = Operation {
    id: "DeleteWebhookEndpoint",
    path: "/api/webhooks/v1/delete-webhook-endpoint",
    summary: "deletes an endpoint with its deliveries (pending ones are not sent).",
    body: Some(body::endpoint_only),
    answer: answered_by!(DeleteWebhookEndpointResponse, delete),
    ..WRITE
};

pub static ROTATE_WEBHOOK_ENDPOINT_SECRET: Operation = Operation {
    id: "RotateWebhookEndpointSecret",
    path: "/api/webhooks/v1/rotate-webhook-endpoint-secret",
    summary: "a new signing secret; the old one signs beside it (two signatures per attempt) for 24 h.",
    body: Some(body::endpoint_only),
    answer: answered_by!(WebhookEndpointSecretResponse, rotate),
    ..WRITE
};

pub static SEND_WEBHOOK_TEST_EVENT: Operation = Operation {
    id: "SendWebhookTestEvent",
    path: "/api/webhooks/v1/send-webhook-test-event",
    summary: "queues a `webhook.test` event to the endpoint, delivered and retried like any other.",
    body: Some(body::endpoint_only),
    answer: answered_by!(WebhookDeliveryResponse, send_test),
    ..WRITE
};

pub static REDELIVER_WEBHOOK_DELIVERIES: Operation = Operation {
    id: "RedeliverWebhookDeliveries",
    path: "/api/webhooks/v1/redeliver-webhook-deliveries",
    summary: "makes one delivery, or every failed one since an instant, due now with the same webhook-id (the retry schedule starts again).",
    body: Some(body::redeliver),
    answer: answered_by!(RedeliverWebhookDeliveriesResponse, redeliver),
    ..WRITE
};

const ENDPOINT_ID: Param = Param {
    name: "endpoint_id",
    kind: ParamKind::Checked {
        min_chars: 1,
        max_chars: 64,
        pattern: Some((Kind::Endpoint.pattern(), |s| Kind::Endpoint.matches(s))),
    },
    required: true,
    description: "An endpointId: `ep_` and 26 Crockford base32 characters.",
};
const STATE: Param = Param {
    name: "state",
    kind: ParamKind::OneOf { values: &["pending", "delivered", "failed"] },
    required: false,
    description: "Only deliveries in this state.",
};
const CURSOR: Param = Param {
    name: "cursor",
    kind: ParamKind::Checked { min_chars: 1, max_chars: 128, pattern: None },
    required: false,
    description: "A previous page's nextCursor.",
};
const PAGE_SIZE: Param = Param {
    name: "page_size",
    kind: ParamKind::Int32 { min: 1, max: 100, default: 50 },
    required: false,
    description: "Deliveries per page (1–100, default 50).",
};

pub static LIST_WEBHOOK_DELIVERIES: Operation = Operation {
    id: "ListWebhookDeliveries",
    path: "/api/webhooks/v1/list-webhook-deliveries",
    summary: "an endpoint's deliveries, newest first, each with its attempts (status, duration, outcome).",
    params: &[ENDPOINT_ID, STATE, CURSOR, PAGE_SIZE],
    answer: answered_by!(ListWebhookDeliveriesResponse, deliveries),
    ..Operation::GET
};

fn coded(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::Coded { status, code, message: message.into() }
}

fn endpoint_not_found() -> ApiError {
    coded(StatusCode::NOT_FOUND, "NOT_FOUND", "webhook endpoint not found")
}

/// What subscribing asks beyond the operation's access: company impacts are the account's
/// company monitoring's (scope `company_monitoring:read` and the entitlement), and a dataset is
/// named only if the account may read it.
fn may_subscribe(
    state: &AppState,
    principal: &Principal,
    types: &[EventType],
    datasets: &[String],
) -> Result<(), ApiError> {
    use sitrep_platform::{auth::gate, registry::Access};
    let missing = || ApiError::NotFound;
    if types.contains(&EventType::CompanyImpactChanged) {
        gate(Access::CmRead, Some(principal), missing)?;
    }
    for name in datasets {
        if let Ok(dataset) = name.parse() {
            gate(state.dataset_access(dataset), Some(principal), missing)?;
        }
    }
    Ok(())
}

async fn create(state: &AppState, req: &mut Request, _: &'static Operation) -> Answer<WebhookEndpointSecretResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let input = body::parse_create(&body, webhooks(state).settings.allow_loopback)?;
        let principal = Principal::of(req)?;
        may_subscribe(state, principal, &input.event_types, &input.datasets)?;
        let limit = endpoint_limit(principal.plan);
        let now = state.clock.now_ms();
        let created = webhooks(state).store.create_endpoint(&principal.account_id, &input, limit, now).await;
        match created.map_err(ApiError::internal)? {
            NewEndpoint::Created(e) => {
                let secret = e.secret.expose().to_string();
                Ok(WebhookEndpointSecretResponse { endpoint: WebhookEndpoint::of(*e, now), secret })
            }
            NewEndpoint::LimitReached => Err(coded(
                StatusCode::UNPROCESSABLE_ENTITY,
                "ENDPOINT_LIMIT_REACHED",
                format!("webhook endpoint limit reached ({limit})"),
            )),
        }
    };
    account_write(result.await)
}

async fn list(state: &AppState, req: &Request, op: &'static Operation) -> Answer<ListWebhookEndpointsResponse> {
    let parsed = match parse_with::<ListWebhookEndpointsResponse, _>(req, op, |_, _| ()) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let result = async {
        let principal = Principal::of(req)?;
        let now = state.clock.now_ms();
        let endpoints = webhooks(state).store.endpoints(&principal.account_id).await.map_err(ApiError::internal)?;
        Ok(ListWebhookEndpointsResponse {
            endpoints: endpoints.into_iter().map(|e| WebhookEndpoint::of(e, now)).collect(),
            endpoint_limit: endpoint_limit(principal.plan) as i32,
        })
    };
    account_get(req, parsed.jmespath.as_deref(), result.await)
}

async fn update(state: &AppState, req: &mut Request, _: &'static Operation) -> Answer<WebhookEndpointResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let (id, change) = body::parse_update(&body, webhooks(state).settings.allow_loopback)?;
        let principal = Principal::of(req)?;
        may_subscribe(
            state,
            principal,
            change.event_types.as_deref().unwrap_or_default(),
            change.datasets.as_deref().unwrap_or_default(),
        )?;
        let now = state.clock.now_ms();
        let updated = webhooks(state).store.update_endpoint(&principal.account_id, &id, &change, now).await;
        match updated.map_err(ApiError::internal)? {
            Some(e) => Ok(WebhookEndpointResponse { endpoint: WebhookEndpoint::of(e, now) }),
            None => Err(endpoint_not_found()),
        }
    };
    account_write(result.await)
}

async fn delete(state: &AppState, req: &mut Request, _: &'static Operation) -> Answer<DeleteWebhookEndpointResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let id = body::parse_endpoint_id(&body)?;
        let principal = Principal::of(req)?;
        match webhooks(state).store.delete_endpoint(&principal.account_id, &id).await.map_err(ApiError::internal)? {
            true => Ok(DeleteWebhookEndpointResponse { endpoint_id: id, deleted: true }),
            false => Err(endpoint_not_found()),
        }
    };
    account_write(result.await)
}

async fn rotate(state: &AppState, req: &mut Request, _: &'static Operation) -> Answer<WebhookEndpointSecretResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let id = body::parse_endpoint_id(&body)?;
        let principal = Principal::of(req)?;
        let now = state.clock.now_ms();
        let rotated = webhooks(state).store.rotate_secret(&principal.account_id, &id, now).await;
        match rotated.map_err(ApiError::internal)? {
            Some(r) => {
                let secret = r.endpoint.secret.expose().to_string();
                Ok(WebhookEndpointSecretResponse { endpoint: WebhookEndpoint::of(r.endpoint, now), secret })
            }
            None => Err(endpoint_not_found()),
        }
    };
    account_write(result.await)
}

async fn send_test(state: &AppState, req: &mut Request, _: &'static Operation) -> Answer<WebhookDeliveryResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let id = body::parse_endpoint_id(&body)?;
        let principal = Principal::of(req)?;
        let sent = webhooks(state).store.send_test(&principal.account_id, &id, state.clock.now_ms()).await;
        match sent.map_err(ApiError::internal)? {
            Some(d) => Ok(WebhookDeliveryResponse { delivery: WebhookDelivery::of(d) }),
            None => Err(endpoint_not_found()),
        }
    };
    account_write(result.await)
}

async fn redeliver(
    state: &AppState,
    req: &mut Request,
    _: &'static Operation,
) -> Answer<RedeliverWebhookDeliveriesResponse> {
    let result = async {
        let body = json_body::take(req).await?;
        let (id, which) = body::parse_redeliver(&body)?;
        let principal = Principal::of(req)?;
        let store = &webhooks(state).store;
        if store.endpoint(&principal.account_id, &id).await.map_err(ApiError::internal)?.is_none() {
            return Err(endpoint_not_found());
        }
        let n = store.redeliver(&principal.account_id, &id, &which, state.clock.now_ms()).await;
        Ok(RedeliverWebhookDeliveriesResponse {
            redelivered_count: i32::try_from(n.map_err(ApiError::internal)?).unwrap_or(i32::MAX),
        })
    };
    account_write(result.await)
}

/// A deliveries cursor is `<createdAt ms>.<deliveryId>` of the page's last delivery (the
/// account's own rows are all it can reach: nothing to sign).
fn parse_cursor(cursor: &str) -> Option<(i64, String)> {
    let (at, id) = cursor.split_once('.')?;
    Some((at.parse().ok()?, id.to_string()))
}

async fn deliveries(state: &AppState, req: &Request, op: &'static Operation) -> Answer<ListWebhookDeliveriesResponse> {
    let parsed = match parse_with::<ListWebhookDeliveriesResponse, _>(req, op, |q, v| {
        let endpoint = ENDPOINT_ID.checked(q, v);
        let state = STATE.one_of(q, v);
        let cursor = CURSOR.checked(q, v);
        let before = match cursor.as_deref().map(parse_cursor) {
            Some(None) => {
                v.push("cursor", "value is not a cursor of this listing");
                None
            }
            Some(Some(position)) => Some(position),
            None => None,
        };
        (endpoint, state, before, PAGE_SIZE.int32(q, v))
    }) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let result = async {
        let principal = Principal::of(req)?;
        let (endpoint, wanted, before, page_size) = parsed.params;
        let endpoint = endpoint.unwrap_or_default();
        let store = &webhooks(state).store;
        if store.endpoint(&principal.account_id, &endpoint).await.map_err(ApiError::internal)?.is_none() {
            return Err(endpoint_not_found());
        }
        let wanted = wanted.and_then(<DeliveryState as sitrep_schemas::closed_set::ClosedSet>::from_wire_name);
        let page = page_size.max(1) as usize;
        let mut found = store
            .deliveries(&principal.account_id, &endpoint, wanted, before, page + 1)
            .await
            .map_err(ApiError::internal)?;
        let more = found.len() > page;
        found.truncate(page);
        let next_cursor = match found.last() {
            Some(last) if more => format!("{}.{}", last.created_at, last.delivery_id),
            _ => String::new(),
        };
        Ok(ListWebhookDeliveriesResponse {
            deliveries: found.into_iter().map(WebhookDelivery::of).collect(),
            next_cursor,
        })
    };
    account_get(req, parsed.jmespath.as_deref(), result.await)
}
