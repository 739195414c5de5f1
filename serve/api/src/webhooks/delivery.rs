//! The delivery worker: every replica runs one. Beside it a task announces the dataset versions
//! each new generation brought (`publications`), and another fans new outbox events out into
//! deliveries (to the endpoints that want them and whose accounts may read what they report).
//! The worker claims due deliveries in batches under a lease and sends each, at most `TOTAL` at
//! once, at most `PER_ENDPOINT` to one endpoint and `PER_ACCOUNT` for one account: a slow or dead
//! receiver holds only its own share of the worker while every other account's deliveries go on.
//! A finished attempt or a fan-out wakes it; idle, it looks every `TURN`.

use std::{
    collections::HashMap,
    sync::{Arc, Weak},
    time::{Duration, Instant},
};

use sitrep_pipelines::public_fetch::{pin, Pinned, PublicFetchError, PublicFetchOptions};
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
    store::{fan_out_candidates, Attempt, Claimed, Endpoint, Finished, OutboxEvent, Recorded, KEPT_MS},
    EventType,
};
use tokio::sync::{mpsc, oneshot, Notify, Semaphore};

use super::{payload, publications, webhooks};

/// Attempts in flight in this process: each a small task and a socket, so many; a receiver that
/// never answers holds at most `PER_ENDPOINT` of them (one per company or dataset) until the
/// attempt's deadline, and its account at most `PER_ACCOUNT`.
const TOTAL: usize = 256;
const PER_ENDPOINT: i64 = 4;
const PER_ACCOUNT: i64 = 8;
/// Deliveries claimed by one statement, at most.
const CLAIM_BATCH: usize = 64;
/// How long a busy worker waits for more slots to free before it claims for fewer than a
/// quarter batch.
const GATHER: Duration = Duration::from_millis(20);
/// An attempt's deadline over the whole exchange: resolution, connection, request, answer.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How much of a receiver's answer is read (kept as the attempt's detail, shortened).
const ANSWER_READ_BYTES: usize = 4096;
const DETAIL_CHARS: usize = 256;
/// How often an idle worker looks for work (another replica's, or due retries); its own fan-out
/// and finished attempts wake it at once.
const TURN: Duration = Duration::from_millis(250);
/// Events fanned out per transaction.
const FAN_OUT_BATCH: usize = 200;
/// How often finished deliveries older than `KEPT_MS` are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(3600);

/// Runs the worker while `state` lives, as three tasks: the announcements of dataset versions
/// (counting a large version's changes takes its diff, seconds at a million rows, which must not
/// hold deliveries back), the fan-out of new events into deliveries, and the deliveries.
pub fn spawn(state: &Arc<AppState>) -> tokio::task::JoinHandle<()> {
    spawn_announcer(Arc::downgrade(state));
    let wake = Arc::new(Notify::new());
    spawn_fan_out(Arc::downgrade(state), wake.clone());
    let state: Weak<AppState> = Arc::downgrade(state);
    let owner = format!("worker-{}", ulid::Ulid::new());
    let slots = Arc::new(Semaphore::new(TOTAL));
    let clients = Clients::default();
    let recorder = Recorder::spawn(state.clone());
    tokio::spawn(async move {
        loop {
            // A free slot, then as many more as are free, one claim for all of them. When few
            // are free (a busy worker: each finished attempt frees one), the slots freed within
            // `GATHER` join the batch: a claim reads every due head, so claiming one delivery at
            // a time would cost that read per delivery.
            let Ok(first) = slots.clone().acquire_owned().await else { return };
            let mut permits = vec![first];
            let gather_until = Instant::now() + GATHER;
            loop {
                while permits.len() < CLAIM_BATCH {
                    let Ok(more) = slots.clone().try_acquire_owned() else { break };
                    permits.push(more);
                }
                if permits.len() >= CLAIM_BATCH / 4 || Instant::now() >= gather_until {
                    break;
                }
                tokio::time::sleep(GATHER / 10).await;
            }
            let Some(state) = state.upgrade() else { return };
            let now = state.clock.now_ms();
            match webhooks(&state).store.claim(&owner, now, PER_ENDPOINT, PER_ACCOUNT, permits.len()).await {
                Ok(batch) if !batch.is_empty() => {
                    for (claimed, permit) in batch.into_iter().zip(permits) {
                        let (state, wake) = (state.clone(), wake.clone());
                        let (clients, recorder) = (clients.clone(), recorder.clone());
                        tokio::spawn(async move {
                            attempt(&state, &clients, &recorder, claimed).await;
                            drop(permit);
                            // The next delivery of its subject may be due now.
                            wake.notify_one();
                        });
                    }
                }
                Ok(_) => {
                    drop((permits, state));
                    let _ = tokio::time::timeout(TURN, wake.notified()).await;
                }
                Err(e) => {
                    drop((permits, state));
                    tracing::warn!(error = %e, "webhooks: claiming deliveries failed");
                    tokio::time::sleep(TURN).await;
                }
            }
        }
    })
}

/// Fans new events out into deliveries while `state` lives (at once while a batch comes back
/// full), waking the deliveries; purges old deliveries hourly.
fn spawn_fan_out(state: Weak<AppState>, wake: Arc<Notify>) {
    tokio::spawn(async move {
        let mut purged_at: Option<Instant> = None;
        loop {
            let Some(state) = state.upgrade() else { return };
            if purged_at.is_none_or(|at| at.elapsed() >= PURGE_EVERY) {
                purged_at = Some(Instant::now());
                let before = state.clock.now_ms() - KEPT_MS;
                if let Err(e) = webhooks(&state).store.purge(before).await {
                    tracing::warn!(error = %e, "webhooks: purging old deliveries failed");
                }
            }
            let full = match fan_out(&state).await {
                Ok(events) => {
                    if events > 0 {
                        wake.notify_one();
                    }
                    events == FAN_OUT_BATCH
                }
                Err(e) => {
                    tracing::warn!(error = %e, "webhooks: fan-out failed");
                    false
                }
            };
            drop(state);
            if !full {
                tokio::time::sleep(TURN).await;
            }
        }
    });
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

/// One batch of new events fanned out in one transaction: how many events it took. Each account's
/// endpoints, and whether it may read a subject, are looked up once per batch.
async fn fan_out(state: &AppState) -> Result<usize, sitrep_webhooks::WebhookError> {
    let store = &webhooks(state).store;
    let events = store.events_to_fan_out(FAN_OUT_BATCH).await?;
    let mut endpoints_of: HashMap<Option<&str>, Vec<Endpoint>> = HashMap::new();
    for event in &events {
        let account = event.account_id.as_deref();
        if let std::collections::hash_map::Entry::Vacant(slot) = endpoints_of.entry(account) {
            slot.insert(store.enabled_endpoints(account).await?);
        }
    }
    let mut allowed: HashMap<(&str, EventType, &str), bool> = HashMap::new();
    let mut batch = Vec::with_capacity(events.len());
    for event in &events {
        let mut chosen = Vec::new();
        for endpoint in fan_out_candidates(event, &endpoints_of[&event.account_id.as_deref()]) {
            let key = (endpoint.account_id.as_str(), event.event_type, event.subject.as_str());
            let may = match allowed.get(&key) {
                Some(&may) => may,
                None => *allowed.entry(key).or_insert(may_receive(state, &endpoint.account_id, event).await),
            };
            if may {
                chosen.push(endpoint);
            }
        }
        batch.push((event, chosen));
    }
    store.fan_out(&batch, state.clock.now_ms()).await?;
    state.metrics.webhook_deliveries_created(batch.iter().map(|(_, to)| to.len() as u64).sum());
    Ok(events.len())
}

/// One attempt of `claimed`, recorded.
async fn attempt(state: &AppState, clients: &Clients, recorder: &Recorder, claimed: Claimed) {
    let started_at = state.clock.now_ms();
    let started = Instant::now();
    let (result, detail) = send(state, clients, &claimed, started_at).await;
    let elapsed = started.elapsed();
    state.metrics.webhook_attempt(result.outcome().as_str(), elapsed);
    let next_at = next_attempt_at(claimed.step, result, state.clock.now_ms(), &mut rand::thread_rng());
    let attempt = Attempt {
        attempt: claimed.attempt,
        started_at,
        duration_ms: elapsed.as_millis() as i64,
        status_code: result.status(),
        outcome: result.outcome(),
        detail,
    };
    let delivery_id = claimed.delivery_id.clone();
    match record_attempt(state, recorder, Recorded { claimed, attempt, result, next_at }).await {
        Ok((Finished::EndpointDisabled, endpoint)) => {
            state.metrics.webhook_endpoint_disabled();
            tracing::warn!(endpoint = %endpoint, "webhooks: endpoint disabled after failing for 5 days");
        }
        Ok((Finished::LeaseLost, _)) => {
            tracing::warn!(delivery = %delivery_id, "webhooks: lease lost during an attempt; not recorded")
        }
        Ok((Finished::Recorded(_), _)) => {}
        Err(e) => tracing::warn!(
            delivery = %delivery_id,
            error = %e,
            "webhooks: recording an attempt failed until its lease ran out; the delivery will be sent again"
        ),
    }
}

/// Records the attempt, trying again while the lease holds: a state store that restarts under
/// an attempt the receiver answered must not make that receiver get the event a second time.
/// Answers what recording did and the attempt's endpoint.
async fn record_attempt(
    state: &AppState,
    recorder: &Recorder,
    recorded: Recorded,
) -> Result<(Finished, String), RecordError> {
    let mut pause = Duration::from_millis(250);
    let lease_until = recorded.claimed.lease_until;
    let endpoint = recorded.claimed.endpoint.endpoint_id.clone();
    loop {
        match recorder.record(recorded.clone()).await {
            Err(e) if state.clock.now_ms() + (pause.as_millis() as i64) < lease_until => {
                tracing::warn!(delivery = %recorded.claimed.delivery_id, error = %e, "webhooks: recording an attempt failed; trying again");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(4));
            }
            done => return done.map(|finished| (finished, endpoint)),
        }
    }
}

/// Records finished attempts in batches: one task takes every attempt finished since its last
/// transaction and writes them in the next, so a busy worker's state store commits once per
/// batch rather than once per delivery. At most `TOTAL` attempts wait (one per slot).
#[derive(Clone)]
struct Recorder(mpsc::UnboundedSender<(Recorded, oneshot::Sender<RecordAnswer>)>);

type RecordAnswer = Result<Finished, RecordError>;

#[derive(Debug, Clone, thiserror::Error)]
enum RecordError {
    #[error(transparent)]
    Store(Arc<sitrep_webhooks::WebhookError>),
    /// The recorder ends only with the state it records into, and with it the worker.
    #[error("the worker is stopping")]
    Stopped,
}

/// Attempts recorded in one transaction, at most.
const RECORD_BATCH: usize = 128;

impl Recorder {
    fn spawn(state: Weak<AppState>) -> Recorder {
        let (sender, mut waiting) = mpsc::unbounded_channel::<(Recorded, oneshot::Sender<RecordAnswer>)>();
        tokio::spawn(async move {
            while let Some(first) = waiting.recv().await {
                let mut batch = vec![first];
                while batch.len() < RECORD_BATCH {
                    let Ok(more) = waiting.try_recv() else { break };
                    batch.push(more);
                }
                let Some(state) = state.upgrade() else { return };
                let (recorded, answers): (Vec<Recorded>, Vec<_>) = batch.into_iter().unzip();
                match webhooks(&state).store.finish(&recorded, state.clock.now_ms()).await {
                    Ok(finished) => {
                        for (answer, finished) in answers.into_iter().zip(finished) {
                            let _ = answer.send(Ok(finished));
                        }
                    }
                    Err(e) => {
                        let e = RecordError::Store(Arc::new(e));
                        for answer in answers {
                            let _ = answer.send(Err(e.clone()));
                        }
                    }
                }
            }
        });
        Recorder(sender)
    }

    async fn record(&self, recorded: Recorded) -> RecordAnswer {
        let (answer, answered) = oneshot::channel();
        self.0.send((recorded, answer)).map_err(|_| RecordError::Stopped)?;
        answered.await.map_err(|_| RecordError::Stopped)?
    }
}

/// The worker's HTTP clients, one per receiver host and the address it was pinned to: a client
/// keeps its connections to the receiver open a little while, so a busy endpoint is not
/// connected (and TLS-handshaken) anew for each delivery, and building a client (its TLS
/// configuration) is paid once. An address that changes gets a client of its own; the least
/// recently used go past `CLIENTS_KEPT`.
#[derive(Clone)]
struct Clients(moka::sync::Cache<Pinned, reqwest::Client>);

const CLIENTS_KEPT: u64 = 1_024;

impl Default for Clients {
    fn default() -> Self {
        Clients(moka::sync::Cache::builder().max_capacity(CLIENTS_KEPT).time_to_idle(Duration::from_secs(60)).build())
    }
}

impl Clients {
    fn get_or_build(&self, pinned: Pinned, options: &PublicFetchOptions) -> Result<reqwest::Client, PublicFetchError> {
        if let Some(client) = self.0.get(&pinned) {
            return Ok(client);
        }
        let client = pinned.client(TIMEOUT, options)?;
        self.0.insert(pinned, client.clone());
        Ok(client)
    }
}

/// Sends one attempt: the result and what to keep of it. The URL is resolved again and pinned to
/// a checked public address; redirects are not followed. Neither the URL (it may carry a token)
/// nor the secret is logged.
async fn send(state: &AppState, clients: &Clients, claimed: &Claimed, now_ms: i64) -> (AttemptResult, String) {
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
    let Ok(pinned) = tokio::time::timeout_at(deadline, pin(&url, &options)).await else { return timed_out() };
    let client = match pinned.and_then(|p| clients.get_or_build(p, &options)) {
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
