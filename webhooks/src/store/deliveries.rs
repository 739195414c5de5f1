//! Deliveries: one per event and endpoint, its id the `webhook-id` of every attempt. A worker
//! claims a due delivery under a lease (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so replicas skip
//! each other's rows; SQLite serialises writers), sends it, and records the attempt only while
//! its lease holds, so each attempt is made once whatever the number of workers, and a worker
//! killed mid-delivery leaves the attempt to the next claim after its lease.

use sqlx::{any::AnyRow, Any, Row, Transaction};

use super::{
    endpoints::{endpoint_of, DISABLE_AFTER_FAILING_MS},
    outbox::event_of,
    parsed, Endpoint, OutboxEvent, WebhookError, WebhookStore,
};
use crate::{
    schedule::{AttemptOutcome, AttemptResult},
    EventType,
};
use sitrep_db::Backend;

sitrep_schemas::closed_set!(
    /// Where a delivery stands.
    DeliveryState,
    "WebhookDeliveryState",
    [Pending = "pending", Delivered = "delivered", Failed = "failed"]
);

/// One attempt of a delivery.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub attempt: i64,
    pub started_at: i64,
    pub duration_ms: i64,
    pub status_code: Option<u16>,
    pub outcome: AttemptOutcome,
    /// What went wrong, or the start of the receiver's answer (at most a few hundred bytes).
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub delivery_id: String,
    pub endpoint_id: String,
    pub event_type: EventType,
    pub subject: String,
    pub state: DeliveryState,
    pub attempt_count: i64,
    /// When the next attempt is due (pending deliveries).
    pub next_attempt_at: Option<i64>,
    pub created_at: i64,
    pub finished_at: Option<i64>,
    pub attempts: Vec<Attempt>,
}

/// A delivery a worker holds the lease on: its next attempt's number, its endpoint and event.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery_id: String,
    pub attempt: i64,
    /// The attempt's place in the retry schedule (1 at first, and after a redelivery).
    pub step: i64,
    /// Until when the claim holds (ms): recording the attempt may be retried until then.
    pub lease_until: i64,
    pub endpoint: Endpoint,
    pub event: OutboxEvent,
}

/// What a redelivery asks for.
#[derive(Debug, Clone)]
pub enum Redelivery {
    One(String),
    /// Every failed delivery of the endpoint created at or after this instant.
    FailedSince(i64),
}

/// How long a claim holds a delivery: an attempt's 10 s deadline (DNS, connection, TLS, the
/// answer), then room to record it through a short outage of the state store.
pub const LEASE_MS: i64 = 30_000;

pub(super) async fn insert_delivery(
    tx: &mut Transaction<'_, Any>,
    event: &OutboxEvent,
    endpoint: &Endpoint,
    now: i64,
) -> Result<String, WebhookError> {
    let id = crate::ids::Kind::Delivery.new_id();
    sqlx::query(
        "INSERT INTO webhook_deliveries (delivery_id, endpoint_id, account_id, event_seq, event_type, subject, state, \
         attempts, schedule_from, next_attempt_at, lease_owner, lease_until, created_at, finished_at) \
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, 1, $7, NULL, 0, $7, NULL) \
         ON CONFLICT (endpoint_id, event_seq) DO NOTHING",
    )
    .bind(&id)
    .bind(&endpoint.endpoint_id)
    .bind(&endpoint.account_id)
    .bind(event.event_seq)
    .bind(event.event_type.as_str())
    .bind(&event.subject)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(id)
}

const DELIVERY_COLUMNS: &str = "delivery_id, endpoint_id, event_type, subject, state, attempts, next_attempt_at, \
     created_at, finished_at";

fn delivery_of(row: &AnyRow) -> Result<Delivery, WebhookError> {
    let state = parsed(DeliveryState::from_name(&row.try_get::<String, _>("state")?), "delivery state")?;
    Ok(Delivery {
        delivery_id: row.try_get("delivery_id")?,
        endpoint_id: row.try_get("endpoint_id")?,
        event_type: parsed(EventType::parse(&row.try_get::<String, _>("event_type")?), "event type")?,
        subject: row.try_get("subject")?,
        state,
        attempt_count: row.try_get("attempts")?,
        next_attempt_at: (state == DeliveryState::Pending).then(|| row.try_get("next_attempt_at")).transpose()?,
        created_at: row.try_get("created_at")?,
        finished_at: row.try_get("finished_at")?,
        attempts: Vec::new(),
    })
}

impl DeliveryState {
    fn from_name(name: &str) -> Option<DeliveryState> {
        <DeliveryState as sitrep_schemas::closed_set::ClosedSet>::from_wire_name(name)
    }
}

impl WebhookStore {
    /// Takes the lease on one due delivery for `owner` until `now + LEASE_MS`: the oldest due,
    /// of an enabled endpoint, with no earlier pending delivery of the same subject to the same
    /// endpoint (deliveries of one company or dataset go in order), and whose endpoint has fewer
    /// than `per_endpoint` and account fewer than `per_account` attempts under lease.
    pub async fn claim(
        &self,
        owner: &str,
        now: i64,
        per_endpoint: i64,
        per_account: i64,
    ) -> Result<Option<Claimed>, WebhookError> {
        // An idle worker only reads: a write transaction every turn would queue every other
        // writer of a SQLite store behind it.
        let due: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= $1 AND lease_until <= $1 LIMIT 1",
        )
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        if due.is_none() {
            return Ok(None);
        }
        let skip_locked = if self.backend == Backend::Postgres { " FOR UPDATE OF d SKIP LOCKED" } else { "" };
        let sql = format!(
            "UPDATE webhook_deliveries SET lease_owner = $1, lease_until = $2 WHERE delivery_id = (\
               SELECT d.delivery_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.endpoint_id = d.endpoint_id \
               WHERE d.state = 'pending' AND d.next_attempt_at <= $3 AND d.lease_until <= $3 AND e.enabled = 1 \
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id \
                 AND p.subject = d.subject AND p.state = 'pending' AND p.event_seq < d.event_seq) \
               AND (SELECT COUNT(*) FROM webhook_deliveries f WHERE f.endpoint_id = d.endpoint_id \
                 AND f.state = 'pending' AND f.lease_until > $3) < $4 \
               AND (SELECT COUNT(*) FROM webhook_deliveries f WHERE f.account_id = d.account_id \
                 AND f.state = 'pending' AND f.lease_until > $3) < $5 \
               ORDER BY d.next_attempt_at, d.event_seq LIMIT 1{skip_locked}) \
             AND lease_until <= $3 RETURNING delivery_id, attempts, schedule_from"
        );
        let mut tx = self.pool.begin().await?;
        let claimed = sqlx::query(&sql)
            .bind(owner)
            .bind(now + LEASE_MS)
            .bind(now)
            .bind(per_endpoint)
            .bind(per_account)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = claimed else { return Ok(None) };
        let delivery_id: String = row.try_get("delivery_id")?;
        let attempts: i64 = row.try_get("attempts")?;
        let schedule_from: i64 = row.try_get("schedule_from")?;
        let sql = format!(
            "SELECT {} FROM webhook_endpoints WHERE endpoint_id = (SELECT endpoint_id FROM webhook_deliveries WHERE delivery_id = $1)",
            super::endpoints::COLUMNS
        );
        let endpoint = endpoint_of(&sqlx::query(&sql).bind(&delivery_id).fetch_one(&mut *tx).await?)?;
        let event = event_of(
            &sqlx::query(
                "SELECT e.event_seq, e.event_type, e.account_id, e.subject, e.data, e.created_at FROM webhook_events e \
                 JOIN webhook_deliveries d ON d.event_seq = e.event_seq WHERE d.delivery_id = $1",
            )
            .bind(&delivery_id)
            .fetch_one(&mut *tx)
            .await?,
        )?;
        tx.commit().await?;
        Ok(Some(Claimed {
            delivery_id,
            attempt: attempts + 1,
            step: attempts + 2 - schedule_from,
            lease_until: now + LEASE_MS,
            endpoint,
            event,
        }))
    }

    /// Records `claimed`'s attempt, if `owner` still holds its lease: the attempt, the delivery's
    /// next step (`next_at`: due again then; `None`: over — delivered, or failed for good), and
    /// the endpoint's failure record (disabled once failing for 5 days).
    pub async fn finish(
        &self,
        claimed: &Claimed,
        owner: &str,
        attempt: &Attempt,
        result: AttemptResult,
        next_at: Option<i64>,
        now: i64,
    ) -> Result<Finished, WebhookError> {
        let mut tx = self.pool.begin().await?;
        let state = match (result, next_at) {
            (AttemptResult::Delivered { .. }, _) => DeliveryState::Delivered,
            (_, Some(_)) => DeliveryState::Pending,
            (_, None) => DeliveryState::Failed,
        };
        let updated = sqlx::query(
            "UPDATE webhook_deliveries SET attempts = $1, state = $2, next_attempt_at = $3, lease_owner = NULL, \
             lease_until = 0, finished_at = $4 \
             WHERE delivery_id = $5 AND lease_owner = $6 AND state = 'pending' AND attempts = $7",
        )
        .bind(claimed.attempt)
        .bind(state.as_str())
        .bind(next_at.unwrap_or(now))
        .bind((state != DeliveryState::Pending).then_some(now))
        .bind(&claimed.delivery_id)
        .bind(owner)
        .bind(claimed.attempt - 1)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Ok(Finished::LeaseLost);
        }
        sqlx::query(
            "INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, outcome, detail) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (delivery_id, attempt) DO NOTHING",
        )
        .bind(&claimed.delivery_id)
        .bind(attempt.attempt)
        .bind(attempt.started_at)
        .bind(attempt.duration_ms)
        .bind(attempt.status_code.map(i64::from))
        .bind(attempt.outcome.as_str())
        .bind(&attempt.detail)
        .execute(&mut *tx)
        .await?;
        let endpoint_id = &claimed.endpoint.endpoint_id;
        let mut disabled = false;
        if matches!(result, AttemptResult::Delivered { .. }) {
            sqlx::query("UPDATE webhook_endpoints SET failing_since = NULL WHERE endpoint_id = $1")
                .bind(endpoint_id)
                .execute(&mut *tx)
                .await?;
        } else {
            sqlx::query(
                "UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $1) WHERE endpoint_id = $2",
            )
            .bind(now)
            .bind(endpoint_id)
            .execute(&mut *tx)
            .await?;
            disabled = sqlx::query(
                "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = $1, updated_at = $2 \
                 WHERE endpoint_id = $3 AND enabled = 1 AND failing_since <= $4",
            )
            .bind("every delivery attempt failed for 5 days; enable the endpoint again once it answers 2xx")
            .bind(now)
            .bind(endpoint_id)
            .bind(now - DISABLE_AFTER_FAILING_MS)
            .execute(&mut *tx)
            .await?
            .rows_affected()
                > 0;
        }
        tx.commit().await?;
        Ok(if disabled { Finished::EndpointDisabled } else { Finished::Recorded(state) })
    }

    /// A `webhook.test` event for the endpoint, delivered like any other (`None`: no such endpoint).
    pub async fn send_test(
        &self,
        account: &str,
        endpoint_id: &str,
        now: i64,
    ) -> Result<Option<Delivery>, WebhookError> {
        let Some(endpoint) = self.endpoint(account, endpoint_id).await? else { return Ok(None) };
        let mut tx = self.pool.begin().await?;
        let event_seq: i64 = sqlx::query_scalar(
            "INSERT INTO webhook_events (event_type, account_id, subject, dedupe_key, data, created_at, fanned_out) \
             VALUES ($1, $2, $3, NULL, $4, $5, 1) RETURNING event_seq",
        )
        .bind(EventType::Test.as_str())
        .bind(account)
        .bind(endpoint_id)
        .bind(serde_json::json!({ "endpointId": endpoint_id }).to_string())
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let event = OutboxEvent {
            event_seq,
            event_type: EventType::Test,
            account_id: Some(account.to_string()),
            subject: endpoint_id.to_string(),
            data: serde_json::Value::Null,
            created_at: now,
        };
        let id = insert_delivery(&mut tx, &event, &endpoint, now).await?;
        tx.commit().await?;
        self.delivery(account, &id).await
    }

    /// One of the account's deliveries with its attempts.
    pub async fn delivery(&self, account: &str, delivery_id: &str) -> Result<Option<Delivery>, WebhookError> {
        let sql =
            format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE delivery_id = $1 AND account_id = $2");
        let row = sqlx::query(&sql).bind(delivery_id).bind(account).fetch_optional(&self.pool).await?;
        let Some(row) = row else { return Ok(None) };
        let mut delivery = delivery_of(&row)?;
        self.with_attempts(std::slice::from_mut(&mut delivery)).await?;
        Ok(Some(delivery))
    }

    /// The endpoint's deliveries, newest first, after `before` (a previous page's last
    /// `(created_at, delivery_id)`), at most `limit`, each with its attempts.
    pub async fn deliveries(
        &self,
        account: &str,
        endpoint_id: &str,
        state: Option<DeliveryState>,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<Delivery>, WebhookError> {
        let state_clause = if state.is_some() { " AND state = $5" } else { "" };
        let sql = format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = $1 AND account_id = $2 \
             AND (created_at < $3 OR (created_at = $3 AND delivery_id < $4)){state_clause} \
             ORDER BY created_at DESC, delivery_id DESC LIMIT {limit}"
        );
        let (at, id) = before.unwrap_or((i64::MAX, String::new()));
        // With no position every delivery is before it: the id bound only matters on ties.
        let id = if id.is_empty() { "\u{10FFFF}".to_string() } else { id };
        let mut query = sqlx::query(&sql).bind(endpoint_id).bind(account).bind(at).bind(id);
        if let Some(s) = state {
            query = query.bind(s.as_str());
        }
        let rows = query.fetch_all(&self.pool).await?;
        let mut out = rows.iter().map(delivery_of).collect::<Result<Vec<_>, _>>()?;
        self.with_attempts(&mut out).await?;
        Ok(out)
    }

    async fn with_attempts(&self, deliveries: &mut [Delivery]) -> Result<(), WebhookError> {
        for d in deliveries.iter_mut() {
            let rows = sqlx::query(
                "SELECT attempt, started_at, duration_ms, status_code, outcome, detail FROM webhook_attempts \
                 WHERE delivery_id = $1 ORDER BY attempt",
            )
            .bind(&d.delivery_id)
            .fetch_all(&self.pool)
            .await?;
            d.attempts = rows
                .iter()
                .map(|r| {
                    Ok(Attempt {
                        attempt: r.try_get("attempt")?,
                        started_at: r.try_get("started_at")?,
                        duration_ms: r.try_get("duration_ms")?,
                        status_code: r.try_get::<Option<i64>, _>("status_code")?.and_then(|s| u16::try_from(s).ok()),
                        outcome: parsed(AttemptOutcome::parse(&r.try_get::<String, _>("outcome")?), "attempt outcome")?,
                        detail: r.try_get("detail")?,
                    })
                })
                .collect::<Result<_, WebhookError>>()?;
        }
        Ok(())
    }

    /// Makes deliveries due again now (one, whatever its state, or every failed one since an
    /// instant), with the same `webhook-id`, the retry schedule starting again. A delivery under
    /// a worker's lease is left to it. Returns how many.
    pub async fn redeliver(
        &self,
        account: &str,
        endpoint_id: &str,
        which: &Redelivery,
        now: i64,
    ) -> Result<u64, WebhookError> {
        let set = "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = $1, finished_at = NULL, \
                   schedule_from = attempts + 1 WHERE endpoint_id = $2 AND account_id = $3 AND lease_until <= $1";
        let done = match which {
            Redelivery::One(id) => {
                sqlx::query(&format!("{set} AND delivery_id = $4"))
                    .bind(now)
                    .bind(endpoint_id)
                    .bind(account)
                    .bind(id)
                    .execute(&self.pool)
                    .await?
            }
            Redelivery::FailedSince(since) => {
                sqlx::query(&format!("{set} AND state = 'failed' AND created_at >= $4"))
                    .bind(now)
                    .bind(endpoint_id)
                    .bind(account)
                    .bind(since)
                    .execute(&self.pool)
                    .await?
            }
        };
        Ok(done.rows_affected())
    }
}

/// How long finished deliveries (and their attempts and events) are kept, for ListWebhookDeliveries
/// and redelivery.
pub const KEPT_MS: i64 = 30 * 24 * 3_600_000;

impl WebhookStore {
    /// Deletes deliveries that finished before `before` with their attempts, and the events no
    /// delivery needs any more; returns how many deliveries went. Pending deliveries stay whatever
    /// their age (an endpoint disabled for a month resumes where it stopped).
    pub async fn purge(&self, before: i64) -> Result<u64, WebhookError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "DELETE FROM webhook_attempts WHERE delivery_id IN \
             (SELECT delivery_id FROM webhook_deliveries WHERE state <> 'pending' AND finished_at < $1)",
        )
        .bind(before)
        .execute(&mut *tx)
        .await?;
        let gone = sqlx::query("DELETE FROM webhook_deliveries WHERE state <> 'pending' AND finished_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        sqlx::query(
            "DELETE FROM webhook_events WHERE fanned_out = 1 AND created_at < $1 AND NOT EXISTS \
             (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = webhook_events.event_seq)",
        )
        .bind(before)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(gone)
    }
}

/// What recording an attempt did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finished {
    Recorded(DeliveryState),
    /// Recorded, and the endpoint disabled (failing for 5 days).
    EndpointDisabled,
    /// Another worker holds the delivery now; nothing recorded.
    LeaseLost,
}
