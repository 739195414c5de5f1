//! The delivery worker: every replica runs one. Beside it a task announces the dataset versions
//! each new generation brought (`publications`); each turn the worker fans new outbox events out into
//! deliveries (to the endpoints that want them and whose accounts may read what they report),
//! then claims due deliveries under a lease and sends each, at most `TOTAL` at once, at most
//! `PER_ENDPOINT` to one endpoint and `PER_ACCOUNT` for one account: a slow or dead receiver
//! holds only its own share of the worker while every other account's deliveries go on.

use std::{
    sync::{Arc, Weak},
    time::{Duration, Instant},
};

use sitrep_pipelines::public_fetch::{pinned_client, PublicFetchError, PublicFetchOptions};
use sitrep_platform::{
    app_state::AppState,
    auth::{gate, Principal},
    kit::error::ApiError,
    registry::Access,
};
use sitrep_schemas::DatasetId;
use sitrep_webhooks::{
    schedule::{next_attempt_at, AttemptResult},
    signing::signature_header,
    store::{fan_out_candidates, Attempt, Claimed, Finished, OutboxEvent, KEPT_MS},
    EventType,
};
use tokio::sync::Semaphore;

use super::{payload, publications, webhooks};

/// Attempts in flight in this process.
const TOTAL: usize = 32;
const PER_ENDPOINT: i64 = 4;
const PER_ACCOUNT: i64 = 8;
/// An attempt's deadline over the whole exchange: resolution, connection, request, answer.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How much of a receiver's answer is read (kept as the attempt's detail, shortened).
const ANSWER_READ_BYTES: usize = 4096;
const DETAIL_CHARS: usize = 256;
/// How often the worker looks for work.
const TURN: Duration = Duration::from_millis(500);
/// Events fanned out per turn.
const FAN_OUT_BATCH: usize = 200;
/// How often finished deliveries older than `KEPT_MS` are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(3600);

/// Runs the worker while `state` lives: the announcements of dataset versions on a task of their
/// own (counting a large version's changes takes its diff, seconds at a million rows, which must
/// not hold deliveries back), and the deliveries.
pub fn spawn(state: &Arc<AppState>) -> tokio::task::JoinHandle<()> {
    spawn_announcer(Arc::downgrade(state));
    let state: Weak<AppState> = Arc::downgrade(state);
    let owner = format!("worker-{}", ulid::Ulid::new());
    let slots = Arc::new(Semaphore::new(TOTAL));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(TURN);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut purged_at: Option<Instant> = None;
        loop {
            tick.tick().await;
            let Some(state) = state.upgrade() else { return };
            if purged_at.is_none_or(|at| at.elapsed() >= PURGE_EVERY) {
                purged_at = Some(Instant::now());
                let before = state.clock.now_ms() - KEPT_MS;
                if let Err(e) = webhooks(&state).store.purge(before).await {
                    tracing::warn!(error = %e, "webhooks: purging old deliveries failed");
                }
            }
            if let Err(e) = fan_out(&state).await {
                tracing::warn!(error = %e, "webhooks: fan-out failed");
            }
            if let Err(e) = claim_and_send(&state, &owner, &slots).await {
                tracing::warn!(error = %e, "webhooks: claiming deliveries failed");
            }
        }
    })
}

/// Announces the versions each new generation brought, while `state` lives.
fn spawn_announcer(state: Weak<AppState>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(TURN);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The generation whose publications were announced (none yet: the first turn looks).
        let mut announced_at = None;
        loop {
            tick.tick().await;
            let Some(state) = state.upgrade() else { return };
            let generation = state.snapshots.current_number();
            if announced_at != Some(generation) {
                match publications::announce(&state).await {
                    Ok(()) => announced_at = Some(generation),
                    Err(e) => tracing::warn!(error = %e, "webhooks: announcing dataset versions failed"),
                }
            }
        }
    });
}

/// Whether `account` may read what `event` reports now (its plan and standing; the scope was
/// asked when the endpoint subscribed).
async fn may_receive(state: &AppState, account: &str, event: &OutboxEvent) -> bool {
    let Ok(Some(found)) = state.store.find_account(account).await else { return false };
    let principal = Principal {
        account_id: found.id.clone(),
        key_id: String::new(),
        plan: found.plan,
        standing: found.standing(chrono::Utc::now()),
        scopes: vec!["company_monitoring:read".into()],
    };
    let access = match event.event_type {
        EventType::CompanyImpactChanged => {
            // What ListCompanyEventChanges would show: publication on, the company not removed.
            let cm = &crate::context(state).company_monitoring;
            if !cm.settings.flags.publication {
                return false;
            }
            match cm.store.company(account, &event.subject).await {
                Ok(Some(c)) if c.lifecycle != sitrep_cm::records::Lifecycle::Removed => {}
                _ => return false,
            }
            Access::CmRead
        }
        EventType::DatasetVersionPublished => match event.subject.parse::<DatasetId>() {
            Ok(dataset) => state.dataset_access(dataset),
            Err(_) => return false,
        },
        EventType::Test => Access::Subscription,
    };
    gate(access, Some(&principal), || ApiError::NotFound).is_ok()
}

async fn fan_out(state: &AppState) -> Result<(), sitrep_webhooks::WebhookError> {
    let store = &webhooks(state).store;
    for event in store.events_to_fan_out(FAN_OUT_BATCH).await? {
        let endpoints = store.enabled_endpoints(event.account_id.as_deref()).await?;
        let mut chosen = Vec::new();
        for endpoint in fan_out_candidates(&event, &endpoints) {
            if may_receive(state, &endpoint.account_id, &event).await {
                chosen.push(endpoint);
            }
        }
        store.fan_out(&event, &chosen, state.clock.now_ms()).await?;
        state.metrics.webhook_deliveries_created(chosen.len() as u64);
    }
    Ok(())
}

async fn claim_and_send(
    state: &Arc<AppState>,
    owner: &str,
    slots: &Arc<Semaphore>,
) -> Result<(), sitrep_webhooks::WebhookError> {
    let store = &webhooks(state).store;
    loop {
        let Ok(permit) = slots.clone().try_acquire_owned() else { return Ok(()) };
        let Some(claimed) = store.claim(owner, state.clock.now_ms(), PER_ENDPOINT, PER_ACCOUNT).await? else {
            return Ok(());
        };
        let (state, owner) = (state.clone(), owner.to_string());
        tokio::spawn(async move {
            attempt(&state, &owner, claimed).await;
            drop(permit);
        });
    }
}

/// One attempt of `claimed`, recorded.
async fn attempt(state: &AppState, owner: &str, claimed: Claimed) {
    let started_at = state.clock.now_ms();
    let started = Instant::now();
    let (result, detail) = send(state, &claimed, started_at).await;
    let elapsed = started.elapsed();
    state.metrics.webhook_attempt(result.outcome().as_str(), elapsed);
    let now = state.clock.now_ms();
    let next = next_attempt_at(claimed.step, result, now, &mut rand::thread_rng());
    let record = Attempt {
        attempt: claimed.attempt,
        started_at,
        duration_ms: elapsed.as_millis() as i64,
        status_code: result.status(),
        outcome: result.outcome(),
        detail,
    };
    match record_attempt(state, owner, &claimed, &record, result, next, now).await {
        Ok(Finished::EndpointDisabled) => {
            state.metrics.webhook_endpoint_disabled();
            tracing::warn!(endpoint = %claimed.endpoint.endpoint_id, "webhooks: endpoint disabled after failing for 5 days");
        }
        Ok(Finished::LeaseLost) => {
            tracing::warn!(delivery = %claimed.delivery_id, "webhooks: lease lost during an attempt; not recorded")
        }
        Ok(Finished::Recorded(_)) => {}
        Err(e) => tracing::warn!(
            delivery = %claimed.delivery_id,
            error = %e,
            "webhooks: recording an attempt failed until its lease ran out; the delivery will be sent again"
        ),
    }
}

/// Records the attempt, trying again while the lease holds: a state store that restarts under
/// an attempt the receiver answered must not make that receiver get the event a second time.
async fn record_attempt(
    state: &AppState,
    owner: &str,
    claimed: &Claimed,
    record: &Attempt,
    result: AttemptResult,
    next: Option<i64>,
    now: i64,
) -> Result<Finished, sitrep_webhooks::WebhookError> {
    let store = &webhooks(state).store;
    let mut pause = Duration::from_millis(250);
    loop {
        match store.finish(claimed, owner, record, result, next, now).await {
            Err(e) if state.clock.now_ms() + (pause.as_millis() as i64) < claimed.lease_until => {
                tracing::warn!(delivery = %claimed.delivery_id, error = %e, "webhooks: recording an attempt failed; trying again");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(4));
            }
            done => return done,
        }
    }
}

/// Sends one attempt: the result and what to keep of it. The URL is resolved again and pinned to
/// a checked public address; redirects are not followed. Neither the URL (it may carry a token)
/// nor the secret is logged.
async fn send(state: &AppState, claimed: &Claimed, now_ms: i64) -> (AttemptResult, String) {
    // One deadline over the whole exchange, whatever part of it is slow (resolution included);
    // an answer's status counts even when its body is still arriving at the deadline.
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    let timed_out = || (AttemptResult::Timeout, "no answer within 10 s".to_string());
    let settings = &webhooks(state).settings;
    let body = match payload::body(&claimed.event, state.settings.site_origin()) {
        Ok(body) => body,
        // The outbox holds what this build cannot render: a defect, not the receiver's failure.
        Err(e) => return (AttemptResult::Connection, format!("the event could not be rendered: {e}")),
    };
    let Ok(url) = url::Url::parse(&claimed.endpoint.url) else {
        return (AttemptResult::AddressRefused, "the URL does not parse".into());
    };
    let options = PublicFetchOptions {
        allow_loopback: false,
        plain_http_to_loopback: settings.allow_loopback,
        extra_root_pem: settings.extra_root_pem.clone(),
    };
    let Ok(client) = tokio::time::timeout_at(deadline, pinned_client(&url, TIMEOUT, &options)).await else {
        return timed_out();
    };
    let client = match client {
        Ok(c) => c,
        Err(e @ (PublicFetchError::NotHttps | PublicFetchError::ForbiddenAddress | PublicFetchError::Unresolvable)) => {
            return (AttemptResult::AddressRefused, e.to_string())
        }
        Err(PublicFetchError::Client(e)) => return (AttemptResult::Connection, e),
    };
    let timestamp = now_ms.div_euclid(1000);
    let secrets = claimed.endpoint.signing_secrets(now_ms);
    let request = client
        .post(url)
        .header("content-type", "application/json")
        .header("webhook-id", &claimed.delivery_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature_header(&secrets, &claimed.delivery_id, timestamp, &body))
        .body(body);
    let Ok(sent) = tokio::time::timeout_at(deadline, request.send()).await else { return timed_out() };
    let mut response = match sent {
        Ok(r) => r,
        Err(e) if e.is_timeout() => return timed_out(),
        Err(e) => return (AttemptResult::Connection, connection_failure(&e)),
    };
    let retry_after_ms = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .map(|s| s.saturating_mul(1000));
    let result = AttemptResult::of_status(response.status().as_u16(), retry_after_ms);
    // At most a few KB of the answer, within the same deadline.
    let mut answer = Vec::new();
    let read = async {
        while answer.len() < ANSWER_READ_BYTES {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    answer.extend_from_slice(&chunk[..chunk.len().min(ANSWER_READ_BYTES - answer.len())])
                }
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout_at(deadline, read).await;
    let detail: String = String::from_utf8_lossy(&answer).chars().take(DETAIL_CHARS).collect();
    (result, detail)
}

/// What a failed connection says, without the URL reqwest puts in its messages.
fn connection_failure(e: &reqwest::Error) -> String {
    if e.is_connect() {
        "the connection failed".into()
    } else if e.is_redirect() {
        "a redirect (not followed)".into()
    } else {
        "the request failed before an answer".into()
    }
}
