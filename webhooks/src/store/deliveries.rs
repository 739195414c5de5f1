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
    /// The claim's lease (its worker's and batch's): the attempt is recorded only while it holds.
    pub lease: String,
    /// Until when the claim holds (ms): recording the attempt may be retried until then.
    pub lease_until: i64,
    pub endpoint: Endpoint,
    pub event: OutboxEvent,
}

/// An attempt made under a claim, to be recorded: what happened and when its delivery is due
/// again (`None`: over).
#[derive(Debug, Clone)]
pub struct Recorded {
    pub claimed: Claimed,
    pub attempt: Attempt,
    pub result: AttemptResult,
    pub next_at: Option<i64>,
}

impl Recorded {
    /// Where its delivery stands once recorded.
    fn state(&self) -> DeliveryState {
        match (self.result, self.next_at) {
            (AttemptResult::Delivered { .. }, _) => DeliveryState::Delivered,
            (_, Some(_)) => DeliveryState::Pending,
            (_, None) => DeliveryState::Failed,
        }
    }
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

/// Due queue heads a claim ranks for each delivery it asks for, at most.
const SCANNED_PER_CLAIMED: usize = 8;

/// Locks the endpoints' rows, in one order, for the rest of `tx` (PostgreSQL; SQLite serialises
/// writers anyway). Whatever writes a delivery (fan-out, a test event) or moves a queue's head on
/// (a finished attempt) takes them first: a new delivery is then written either before a
/// finishing one looks for its queue's next head or after that one finished, never half-seen —
/// or it would wait behind a head that no longer exists, for ever. One order: never a cycle.
pub(super) async fn lock_endpoints(
    tx: &mut Transaction<'_, Any>,
    backend: Backend,
    ids: &mut Vec<&str>,
) -> Result<(), WebhookError> {
    if backend != Backend::Postgres {
        return Ok(());
    }
    ids.sort_unstable();
    ids.dedup();
    for chunk in ids.chunks(1_000) {
        let sql = format!(
            "SELECT endpoint_id FROM webhook_endpoints WHERE endpoint_id IN ({}) ORDER BY endpoint_id FOR UPDATE",
            super::placeholders(chunk.len())
        );
        super::bind_all(sqlx::query(&sql), chunk.iter().copied()).fetch_all(&mut **tx).await?;
    }
    Ok(())
}

pub(super) async fn insert_delivery(
    tx: &mut Transaction<'_, Any>,
    event: &OutboxEvent,
    endpoint: &Endpoint,
    now: i64,
) -> Result<String, WebhookError> {
    let id = crate::ids::Kind::Delivery.new_id();
    sqlx::query(
        "INSERT INTO webhook_deliveries (delivery_id, endpoint_id, account_id, event_seq, event_type, subject, state, \
         attempts, schedule_from, next_attempt_at, lease_owner, lease_until, created_at, finished_at, queue_head) \
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, 1, $7, NULL, 0, $7, NULL, \
           CASE WHEN EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = $2 AND p.subject = $6 \
             AND p.state = 'pending') THEN 0 ELSE 1 END) \
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

/// Fills in the deliveries' attempts, in the transaction that read them: one statement for the
/// page.
async fn with_attempts(conn: &mut sqlx::AnyConnection, deliveries: &mut [Delivery]) -> Result<(), WebhookError> {
    if deliveries.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "SELECT delivery_id, attempt, started_at, duration_ms, status_code, outcome, detail FROM webhook_attempts \
         WHERE delivery_id IN ({}) ORDER BY delivery_id, attempt",
        super::placeholders(deliveries.len())
    );
    let query = super::bind_all(sqlx::query(&sql), deliveries.iter().map(|d| d.delivery_id.clone()));
    for r in query.fetch_all(&mut *conn).await? {
        let delivery_id: String = r.try_get("delivery_id")?;
        let attempt = Attempt {
            attempt: r.try_get("attempt")?,
            started_at: r.try_get("started_at")?,
            duration_ms: r.try_get("duration_ms")?,
            status_code: r.try_get::<Option<i64>, _>("status_code")?.and_then(|s| u16::try_from(s).ok()),
            outcome: parsed(AttemptOutcome::parse(&r.try_get::<String, _>("outcome")?), "attempt outcome")?,
            detail: r.try_get("detail")?,
        };
        if let Some(d) = deliveries.iter_mut().find(|d| d.delivery_id == delivery_id) {
            d.attempts.push(attempt);
        }
    }
    Ok(())
}

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
    /// Takes the lease on at most `limit` due deliveries for `owner` until `now + LEASE_MS`, the
    /// oldest due first: each the head of its endpoint's queue for its subject (no earlier
    /// pending delivery of the same company or dataset to the same endpoint — deliveries of one
    /// subject go in order), of an enabled endpoint, and within `per_endpoint` and `per_account`
    /// attempts under lease, counting those already leased. One statement for the batch, reading
    /// the due heads (`queue_head`) and the leased rows, not every pending delivery.
    pub async fn claim(
        &self,
        owner: &str,
        now: i64,
        per_endpoint: i64,
        per_account: i64,
        limit: usize,
    ) -> Result<Vec<Claimed>, WebhookError> {
        // An idle worker only reads: a write transaction every turn would queue every other
        // writer of a SQLite store behind it.
        let due: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM webhook_deliveries WHERE state = 'pending' AND queue_head = 1 AND next_attempt_at <= $1 \
             AND lease_until <= $1 LIMIT 1",
        )
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        if due.is_none() || limit == 0 {
            return Ok(Vec::new());
        }
        // PostgreSQL: rows another worker is claiming are skipped, not waited for (the locking
        // clause sits on the plain scan; window functions cannot carry one).
        let skip_locked = if self.backend == Backend::Postgres { " FOR UPDATE SKIP LOCKED" } else { "" };
        // Ranked: the oldest due heads whose endpoint and account have room, at most
        // `SCANNED_PER_CLAIMED` for each delivery asked for. A claim's cost then follows its
        // batch, not the number of queues (ranking every due head of a thousand endpoints cost
        // 16 ms a claim). An endpoint or account with a little room may fill the ranked rows of
        // one claim; the next sees it full and passes it by, so no queue waits long behind another.
        let sql = format!(
            "WITH busy_endpoints AS (SELECT endpoint_id, COUNT(*) AS n FROM webhook_deliveries \
               WHERE state = 'pending' AND lease_until > $3 GROUP BY endpoint_id), \
             busy_accounts AS (SELECT account_id, COUNT(*) AS n FROM webhook_deliveries \
               WHERE state = 'pending' AND lease_until > $3 GROUP BY account_id), \
             heads AS (SELECT d.delivery_id, d.endpoint_id, d.account_id, d.next_attempt_at, d.event_seq \
               FROM webhook_deliveries d \
               WHERE d.state = 'pending' AND d.queue_head = 1 AND d.next_attempt_at <= $3 AND d.lease_until <= $3 \
                 AND NOT EXISTS (SELECT 1 FROM busy_endpoints be WHERE be.endpoint_id = d.endpoint_id AND be.n >= $4) \
                 AND NOT EXISTS (SELECT 1 FROM busy_accounts ba WHERE ba.account_id = d.account_id AND ba.n >= $5) \
                 AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.endpoint_id = d.endpoint_id AND e.enabled = 1) \
               ORDER BY d.next_attempt_at, d.event_seq LIMIT $7), \
             candidates AS (SELECT h.delivery_id, h.next_attempt_at, h.event_seq, \
                 ROW_NUMBER() OVER (PARTITION BY h.endpoint_id ORDER BY h.next_attempt_at, h.event_seq) \
                   + COALESCE(be.n, 0) AS endpoint_load, \
                 ROW_NUMBER() OVER (PARTITION BY h.account_id ORDER BY h.next_attempt_at, h.event_seq) \
                   + COALESCE(ba.n, 0) AS account_load \
               FROM heads h \
               LEFT JOIN busy_endpoints be ON be.endpoint_id = h.endpoint_id \
               LEFT JOIN busy_accounts ba ON ba.account_id = h.account_id), \
             chosen AS (SELECT delivery_id FROM webhook_deliveries WHERE delivery_id IN \
               (SELECT delivery_id FROM candidates WHERE endpoint_load <= $4 AND account_load <= $5 \
                ORDER BY next_attempt_at, event_seq LIMIT $6){skip_locked}) \
             UPDATE webhook_deliveries SET lease_owner = $1, lease_until = $2 \
             WHERE delivery_id IN (SELECT delivery_id FROM chosen) AND state = 'pending' AND lease_until <= $3 \
             RETURNING delivery_id, endpoint_id, event_seq, attempts, schedule_from"
        );
        let lease = format!("{owner}.{}", ulid::Ulid::new());
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query(&sql)
            .bind(&lease)
            .bind(now + LEASE_MS)
            .bind(now)
            .bind(per_endpoint)
            .bind(per_account)
            .bind(limit as i64)
            .bind((limit * SCANNED_PER_CLAIMED) as i64)
            .fetch_all(&mut *tx)
            .await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let mut endpoint_ids: Vec<String> = Vec::new();
        let mut event_seqs: Vec<i64> = Vec::new();
        for row in &rows {
            endpoint_ids.push(row.try_get("endpoint_id")?);
            event_seqs.push(row.try_get("event_seq")?);
        }
        endpoint_ids.sort();
        endpoint_ids.dedup();
        event_seqs.sort();
        event_seqs.dedup();
        let sql = format!(
            "SELECT {} FROM webhook_endpoints WHERE endpoint_id IN ({})",
            super::endpoints::COLUMNS,
            super::placeholders(endpoint_ids.len())
        );
        let endpoints: Vec<Endpoint> = super::bind_all(sqlx::query(&sql), &endpoint_ids)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(endpoint_of)
            .collect::<Result<_, _>>()?;
        let sql = format!(
            "SELECT {} FROM webhook_events WHERE event_seq IN ({})",
            super::outbox::EVENT_COLUMNS,
            super::placeholders(event_seqs.len())
        );
        let events: Vec<OutboxEvent> = super::bind_all(sqlx::query(&sql), event_seqs.iter().copied())
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(event_of)
            .collect::<Result<_, _>>()?;
        tx.commit().await?;
        let mut claimed = Vec::with_capacity(rows.len());
        for row in &rows {
            let endpoint_id: String = row.try_get("endpoint_id")?;
            let event_seq: i64 = row.try_get("event_seq")?;
            let attempts: i64 = row.try_get("attempts")?;
            let schedule_from: i64 = row.try_get("schedule_from")?;
            claimed.push(Claimed {
                delivery_id: row.try_get("delivery_id")?,
                attempt: attempts + 1,
                step: attempts + 2 - schedule_from,
                lease: lease.clone(),
                lease_until: now + LEASE_MS,
                endpoint: parsed(
                    endpoints.iter().find(|e| e.endpoint_id == endpoint_id).cloned(),
                    "delivery's endpoint",
                )?,
                event: parsed(events.iter().find(|e| e.event_seq == event_seq).cloned(), "delivery's event")?,
            });
        }
        claimed.sort_by_key(|c| c.event.event_seq);
        Ok(claimed)
    }

    /// Records a batch of attempts, each only if its lease still holds, in one transaction: each
    /// attempt, its delivery's next step (`next_at`: due again then; `None`: over — delivered,
    /// or failed for good), and its endpoint's failure record (disabled once failing for 5
    /// days). One answer per attempt, in order. A few statements for the whole batch: a busy
    /// worker finishes hundreds of attempts a second, and a transaction each was most of what
    /// the state store spent on a delivery.
    pub async fn finish(&self, recorded: &[Recorded], now: i64) -> Result<Vec<Finished>, WebhookError> {
        if recorded.is_empty() {
            return Ok(Vec::new());
        }
        let mut tx = self.pool.begin().await?;
        let mut endpoint_ids: Vec<&str> = recorded.iter().map(|r| r.claimed.endpoint.endpoint_id.as_str()).collect();
        lock_endpoints(&mut tx, self.backend, &mut endpoint_ids).await?;
        let states: Vec<DeliveryState> = recorded.iter().map(Recorded::state).collect();
        // The deliveries whose lease held: the others belong to another worker now.
        let values = (0..recorded.len())
            .map(|i| format!("(${}, ${}, ${}, ${}, ${})", 5 * i + 2, 5 * i + 3, 5 * i + 4, 5 * i + 5, 5 * i + 6))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "WITH v (delivery_id, lease_owner, attempts, state, next_attempt_at) AS (VALUES {values}) \
             UPDATE webhook_deliveries SET attempts = v.attempts, state = v.state, \
               next_attempt_at = v.next_attempt_at, lease_owner = NULL, lease_until = 0, \
               finished_at = CASE WHEN v.state = 'pending' THEN NULL ELSE $1 END \
             FROM v WHERE webhook_deliveries.delivery_id = v.delivery_id \
               AND webhook_deliveries.lease_owner = v.lease_owner AND webhook_deliveries.state = 'pending' \
               AND webhook_deliveries.attempts = v.attempts - 1 \
             RETURNING webhook_deliveries.delivery_id"
        );
        let mut query = sqlx::query_scalar::<_, String>(&sql).bind(now);
        for (r, state) in recorded.iter().zip(&states) {
            query = query
                .bind(&r.claimed.delivery_id)
                .bind(&r.claimed.lease)
                .bind(r.claimed.attempt)
                .bind(state.as_str())
                .bind(r.next_at.unwrap_or(now));
        }
        let held: std::collections::HashSet<String> = query.fetch_all(&mut *tx).await?.into_iter().collect();
        let kept: Vec<(&Recorded, DeliveryState)> =
            recorded.iter().zip(states).filter(|(r, _)| held.contains(&r.claimed.delivery_id)).collect();
        if kept.is_empty() {
            tx.commit().await?;
            return Ok(vec![Finished::LeaseLost; recorded.len()]);
        }
        let values = (0..kept.len())
            .map(|i| (1..=7).map(|c| format!("${}", 7 * i + c)).collect::<Vec<_>>().join(", "))
            .map(|row| format!("({row})"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, outcome, detail) \
             VALUES {values} ON CONFLICT (delivery_id, attempt) DO NOTHING"
        );
        let mut query = sqlx::query(&sql);
        for (r, _) in &kept {
            let a = &r.attempt;
            query = query
                .bind(&r.claimed.delivery_id)
                .bind(a.attempt)
                .bind(a.started_at)
                .bind(a.duration_ms)
                .bind(a.status_code.map(i64::from))
                .bind(a.outcome.as_str())
                .bind(&a.detail);
        }
        query.execute(&mut *tx).await?;
        // Each endpoint's failure record follows its last attempt in the batch.
        let mut last_of: Vec<(&str, bool)> = Vec::new();
        for (r, _) in &kept {
            let id = r.claimed.endpoint.endpoint_id.as_str();
            let delivered = matches!(r.result, AttemptResult::Delivered { .. });
            match last_of.iter_mut().find(|(e, _)| *e == id) {
                Some(slot) => slot.1 = delivered,
                None => last_of.push((id, delivered)),
            }
        }
        let answering: Vec<&str> = last_of.iter().filter(|(_, ok)| *ok).map(|(id, _)| *id).collect();
        if !answering.is_empty() {
            // Written only when it changes: a busy endpoint's every batch would otherwise write
            // its row anew.
            let sql = format!(
                "UPDATE webhook_endpoints SET failing_since = NULL WHERE endpoint_id IN ({}) AND failing_since IS NOT NULL",
                super::placeholders(answering.len())
            );
            super::bind_all(sqlx::query(&sql), answering.iter().copied()).execute(&mut *tx).await?;
        }
        let mut disabled: Vec<&str> = Vec::new();
        for (endpoint_id, _) in last_of.iter().filter(|(_, ok)| !*ok) {
            sqlx::query(
                "UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $1) WHERE endpoint_id = $2",
            )
            .bind(now)
            .bind(*endpoint_id)
            .execute(&mut *tx)
            .await?;
            let turned_off = sqlx::query(
                "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = $1, updated_at = $2 \
                 WHERE endpoint_id = $3 AND enabled = 1 AND failing_since <= $4",
            )
            .bind("every delivery attempt failed for 5 days; enable the endpoint again once it answers 2xx")
            .bind(now)
            .bind(*endpoint_id)
            .bind(now - DISABLE_AFTER_FAILING_MS)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if turned_off > 0 {
                disabled.push(endpoint_id);
            }
        }
        // The next delivery of each finished one's subject heads its queue now.
        let mut queues: Vec<(&str, &str)> = kept
            .iter()
            .filter(|(_, state)| *state != DeliveryState::Pending)
            .map(|(r, _)| (r.claimed.endpoint.endpoint_id.as_str(), r.claimed.event.subject.as_str()))
            .collect();
        queues.sort_unstable();
        queues.dedup();
        if !queues.is_empty() {
            let values =
                (0..queues.len()).map(|i| format!("(${}, ${})", 2 * i + 1, 2 * i + 2)).collect::<Vec<_>>().join(", ");
            let sql = format!(
                "WITH q (endpoint_id, subject) AS (VALUES {values}) \
                 UPDATE webhook_deliveries SET queue_head = 1 WHERE delivery_id IN (SELECT \
                   (SELECT d.delivery_id FROM webhook_deliveries d WHERE d.endpoint_id = q.endpoint_id \
                    AND d.subject = q.subject AND d.state = 'pending' ORDER BY d.event_seq LIMIT 1) FROM q)"
            );
            let mut query = sqlx::query(&sql);
            for (endpoint_id, subject) in &queues {
                query = query.bind(*endpoint_id).bind(*subject);
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        // A disabled endpoint is told once, on the first of its attempts here.
        let mut answers = Vec::with_capacity(recorded.len());
        for r in recorded {
            let endpoint_id = r.claimed.endpoint.endpoint_id.as_str();
            answers.push(if !held.contains(&r.claimed.delivery_id) {
                Finished::LeaseLost
            } else if let Some(at) = disabled.iter().position(|d| *d == endpoint_id) {
                disabled.swap_remove(at);
                Finished::EndpointDisabled
            } else {
                Finished::Recorded(r.state())
            });
        }
        Ok(answers)
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
        lock_endpoints(&mut tx, self.backend, &mut vec![endpoint.endpoint_id.as_str()]).await?;
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

    /// A read-only transaction whose statements all see one snapshot: a delivery's row and its
    /// attempts are read by two statements, and a worker's batch committed between them showed
    /// an attempt delivered beside a state still pending. SQLite's transaction holds one
    /// snapshot from its first read; PostgreSQL's default gives each statement its own.
    async fn snapshot(&self) -> Result<Transaction<'static, Any>, WebhookError> {
        let mut tx = self.pool.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(&mut *tx).await?;
        }
        Ok(tx)
    }

    /// One of the account's deliveries with its attempts.
    pub async fn delivery(&self, account: &str, delivery_id: &str) -> Result<Option<Delivery>, WebhookError> {
        let sql =
            format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE delivery_id = $1 AND account_id = $2");
        let mut tx = self.snapshot().await?;
        let row = sqlx::query(&sql).bind(delivery_id).bind(account).fetch_optional(&mut *tx).await?;
        let Some(row) = row else { return Ok(None) };
        let mut delivery = delivery_of(&row)?;
        with_attempts(&mut tx, std::slice::from_mut(&mut delivery)).await?;
        tx.commit().await?;
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
        let mut tx = self.snapshot().await?;
        let rows = query.fetch_all(&mut *tx).await?;
        let mut out = rows.iter().map(delivery_of).collect::<Result<Vec<_>, _>>()?;
        with_attempts(&mut tx, &mut out).await?;
        tx.commit().await?;
        Ok(out)
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
        // Due at once, beside the endpoint's queues: a redelivery waits for no other delivery.
        let set = "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = $1, finished_at = NULL, \
                   schedule_from = attempts + 1, queue_head = 1 \
                   WHERE endpoint_id = $2 AND account_id = $3 AND lease_until <= $1";
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
