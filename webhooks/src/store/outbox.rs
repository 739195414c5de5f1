//! The outbox: an event is written in the transaction of the change it reports (so none is lost
//! and none announces a change that did not commit), then fanned out into one delivery per
//! endpoint that wants it.

use sqlx::{any::AnyRow, AnyConnection, Row};

use super::{endpoints::endpoint_of, parsed, Endpoint, WebhookError, WebhookStore};
use crate::EventType;

/// An event to announce.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub event_type: EventType,
    /// The account it belongs to; `None`: any account whose plan may read it (a dataset version).
    pub account_id: Option<String>,
    /// What its deliveries are ordered by (a company id, a dataset id).
    pub subject: String,
    /// Makes announcing it twice write it once (a dataset version announced by every replica).
    pub dedupe_key: Option<String>,
    /// What the payload is rendered from when it is sent.
    pub data: serde_json::Value,
}

/// An event in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxEvent {
    pub event_seq: i64,
    pub event_type: EventType,
    pub account_id: Option<String>,
    pub subject: String,
    pub data: serde_json::Value,
    pub created_at: i64,
}

/// Writes `event` on `conn` (the caller's transaction); false when its dedupe key was written before.
pub async fn enqueue(conn: &mut AnyConnection, event: &NewEvent, now: i64) -> Result<bool, WebhookError> {
    let written = sqlx::query(
        "INSERT INTO webhook_events (event_type, account_id, subject, dedupe_key, data, created_at, fanned_out) \
         VALUES ($1, $2, $3, $4, $5, $6, 0) ON CONFLICT (dedupe_key) DO NOTHING",
    )
    .bind(event.event_type.as_str())
    .bind(&event.account_id)
    .bind(&event.subject)
    .bind(&event.dedupe_key)
    .bind(event.data.to_string())
    .bind(now)
    .execute(conn)
    .await?;
    Ok(written.rows_affected() > 0)
}

pub(super) const EVENT_COLUMNS: &str = "event_seq, event_type, account_id, subject, data, created_at";

pub(super) fn event_of(row: &AnyRow) -> Result<OutboxEvent, WebhookError> {
    let data: String = row.try_get("data")?;
    Ok(OutboxEvent {
        event_seq: row.try_get("event_seq")?,
        event_type: parsed(EventType::parse(&row.try_get::<String, _>("event_type")?), "event type")?,
        account_id: row.try_get("account_id")?,
        subject: row.try_get("subject")?,
        data: parsed(serde_json::from_str(&data).ok(), "event data")?,
        created_at: row.try_get("created_at")?,
    })
}

/// The endpoints that may receive `event` by their own choice: enabled, the event's account's
/// (any account's for an event without one), subscribed to its type and subject. Whether the
/// account may read what it reports is the caller's to judge.
pub fn fan_out_candidates<'e>(event: &OutboxEvent, endpoints: &'e [Endpoint]) -> Vec<&'e Endpoint> {
    endpoints
        .iter()
        .filter(|e| e.enabled)
        .filter(|e| event.account_id.as_ref().is_none_or(|a| *a == e.account_id))
        .filter(|e| e.wants(event.event_type, &event.subject))
        .collect()
}

impl WebhookStore {
    /// Writes an event outside any other change (a dataset version, announced after the lake
    /// committed it).
    pub async fn enqueue(&self, event: &NewEvent, now: i64) -> Result<bool, WebhookError> {
        enqueue(&mut *self.pool.acquire().await?, event, now).await
    }

    /// The oldest events not yet fanned out, at most `limit`.
    pub async fn events_to_fan_out(&self, limit: usize) -> Result<Vec<OutboxEvent>, WebhookError> {
        let sql =
            format!("SELECT {EVENT_COLUMNS} FROM webhook_events WHERE fanned_out = 0 ORDER BY event_seq LIMIT {limit}");
        let rows = sqlx::query(&sql).fetch_all(&self.pool).await?;
        rows.iter().map(event_of).collect()
    }

    /// The enabled endpoints that an event of `account` (any account's when `None`) may go to.
    pub async fn enabled_endpoints(&self, account: Option<&str>) -> Result<Vec<Endpoint>, WebhookError> {
        let columns = super::endpoints::COLUMNS;
        let rows = match account {
            Some(a) => {
                let sql = format!("SELECT {columns} FROM webhook_endpoints WHERE enabled = 1 AND account_id = $1");
                sqlx::query(&sql).bind(a).fetch_all(&self.pool).await?
            }
            None => {
                let sql = format!("SELECT {columns} FROM webhook_endpoints WHERE enabled = 1");
                sqlx::query(&sql).fetch_all(&self.pool).await?
            }
        };
        rows.iter().map(endpoint_of).collect()
    }

    /// For each event of `batch`, one delivery to each of its endpoints, and the event marked
    /// fanned out, all in one transaction (two replicas fanning out one event write each delivery
    /// once; an event already marked by another is left as it is).
    pub async fn fan_out(&self, batch: &[(&OutboxEvent, Vec<&Endpoint>)], now: i64) -> Result<(), WebhookError> {
        let mut tx = self.pool.begin().await?;
        let mut endpoint_ids: Vec<&str> =
            batch.iter().flat_map(|(_, to)| to.iter().map(|e| e.endpoint_id.as_str())).collect();
        super::deliveries::lock_endpoints(&mut tx, self.backend, &mut endpoint_ids).await?;
        // The events this transaction marks (one another replica marked first is left to it).
        let mut marked: Vec<i64> = Vec::with_capacity(batch.len());
        for chunk in batch.chunks(1_000) {
            let sql = format!(
                "UPDATE webhook_events SET fanned_out = 1 WHERE event_seq IN ({}) AND fanned_out = 0 RETURNING event_seq",
                super::placeholders(chunk.len())
            );
            let mut query = sqlx::query_scalar::<_, i64>(&sql);
            for (event, _) in chunk {
                query = query.bind(event.event_seq);
            }
            marked.extend(query.fetch_all(&mut *tx).await?);
        }
        for (event, to) in batch {
            if !marked.contains(&event.event_seq) {
                continue;
            }
            for endpoint in to {
                super::deliveries::insert_delivery(&mut tx, event, endpoint, now).await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }
}
