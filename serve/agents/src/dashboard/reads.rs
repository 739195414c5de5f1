//! How a dashboard page reads: through the operations themselves, in process (`Dispatch`), as
//! the signed-in key, so the runtime gate, the key's scopes and the plan decide what it may see,
//! exactly as over REST, and each read counts in the account's rate-limit window.

use poem::{
    http::{Method, StatusCode},
    Request, Response,
};
use serde_json::Value;
use sitrep_platform::{
    app_state::AppState,
    auth::{self, Principal},
    dispatch::Dispatch,
    edge,
    kit::error::ApiError,
    state::Session,
};

/// The principal of the key `session` signed in with (its scopes as stored now).
pub async fn principal_of(state: &AppState, session: &Session) -> Principal {
    let keys = state.store.keys_of(&session.account.id).await.unwrap_or_default();
    let scopes = keys.iter().find(|k| k.id == session.key_id).map(|k| k.scopes.clone()).unwrap_or_default();
    Principal {
        account_id: session.account.id.clone(),
        key_id: session.key_id.clone(),
        plan: session.account.plan,
        standing: session.account.standing(chrono::Utc::now()),
        scopes,
    }
}

/// `id`'s answer for `principal` at `query`, when the operation would admit it over REST
/// (`Ok(None)` when it would not, or answers other than 200), counted in the account's window as
/// the same read over REST would be: the page is no way around the account's rate limit (`Err`:
/// its 429).
pub async fn read(
    dispatch: &Dispatch,
    state: &AppState,
    principal: &Principal,
    id: &str,
    query: &str,
) -> Result<Option<Value>, Response> {
    let answer = call(dispatch, state, principal, id, Method::GET, query, None).await?;
    Ok(answer.and_then(|(status, body)| (status == StatusCode::OK).then_some(body)))
}

/// `id` (a POST operation) with `body` for `principal`, as [`read`] asks it: its status and body
/// (an error's body says why), or `Ok(None)` when the operation would not admit the key.
pub async fn write(
    dispatch: &Dispatch,
    state: &AppState,
    principal: &Principal,
    id: &str,
    body: Value,
) -> Result<Option<(StatusCode, Value)>, Response> {
    call(dispatch, state, principal, id, Method::POST, "", Some(body)).await
}

async fn call(
    dispatch: &Dispatch,
    state: &AppState,
    principal: &Principal,
    id: &str,
    method: Method,
    query: &str,
    body: Option<Value>,
) -> Result<Option<(StatusCode, Value)>, Response> {
    let Some(op) = dispatch.registry().by_id(id) else { return Ok(None) };
    if op.guard.is_some_and(|guard| (guard.available)(state).is_err())
        || auth::gate(op.access, Some(principal), || ApiError::internal("no principal")).is_err()
    {
        return Ok(None);
    }
    edge::limit(state, op.rate, &principal.account_id, std::time::Instant::now()).await?;
    let Ok(uri) = format!("{}?{query}", op.path).parse() else { return Ok(None) };
    let builder = Request::builder().method(method).uri(uri).extension(principal.clone());
    let req = match body {
        Some(body) => builder.content_type("application/json").body(body.to_string()),
        None => builder.finish(),
    };
    let resp = dispatch.handler(op, req).await;
    let status = resp.status();
    let body = resp.into_body().into_vec().await.ok().and_then(|body| serde_json::from_slice(&body).ok());
    Ok(Some((status, body.unwrap_or(Value::Null))))
}
