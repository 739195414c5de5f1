//! Endpoints: an account's URLs, what each receives, and its signing secrets.

use sqlx::{any::AnyRow, Any, Row, Transaction};

use super::{parsed, WebhookError, WebhookStore};
use crate::{signing::Secret, EventType};

/// How long a rotated-out secret keeps signing beside the new one.
pub const PREVIOUS_SECRET_VALID_MS: i64 = 24 * 3_600_000;

/// Failing this long (every attempt since the first failure failed) disables an endpoint.
pub const DISABLE_AFTER_FAILING_MS: i64 = 5 * 24 * 3_600_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    pub endpoint_id: String,
    pub account_id: String,
    pub url: String,
    pub description: String,
    pub event_types: Vec<EventType>,
    /// The datasets whose versions it receives; empty: every one its account may read.
    pub datasets: Vec<String>,
    pub enabled: bool,
    /// Why the service disabled it; empty when enabled or disabled by its owner.
    pub disabled_reason: String,
    pub secret: Secret,
    /// A rotated-out secret and until when it still signs.
    pub previous_secret: Option<(Secret, i64)>,
    pub failing_since: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Endpoint {
    /// The secrets an attempt at `now` is signed with: the current one first.
    pub fn signing_secrets(&self, now: i64) -> Vec<&Secret> {
        let previous = self.previous_secret.as_ref().filter(|(_, until)| now < *until).map(|(s, _)| s);
        std::iter::once(&self.secret).chain(previous).collect()
    }

    /// Whether it receives an event of `event_type` about `subject` (a dataset's id for a version).
    pub fn wants(&self, event_type: EventType, subject: &str) -> bool {
        self.event_types.contains(&event_type)
            && (event_type != EventType::DatasetVersionPublished
                || self.datasets.is_empty()
                || self.datasets.iter().any(|d| d == subject))
    }
}

/// What a create or an update writes (validated by the caller).
#[derive(Debug, Clone, Default)]
pub struct EndpointInput {
    pub url: String,
    pub description: String,
    pub event_types: Vec<EventType>,
    pub datasets: Vec<String>,
}

/// An update: each field present is replaced.
#[derive(Debug, Clone, Default)]
pub struct EndpointChange {
    pub url: Option<String>,
    pub description: Option<String>,
    pub event_types: Option<Vec<EventType>>,
    pub datasets: Option<Vec<String>>,
    pub enabled: Option<bool>,
}

#[derive(Debug)]
pub enum NewEndpoint {
    Created(Box<Endpoint>),
    LimitReached,
}

#[derive(Debug)]
pub struct Rotated {
    pub endpoint: Endpoint,
    pub previous_valid_until: i64,
}

pub(super) const COLUMNS: &str =
    "endpoint_id, account_id, url, description, event_types, datasets, enabled, disabled_reason, \
     secret, previous_secret, previous_until, failing_since, created_at, updated_at";

fn json_list(values: impl IntoIterator<Item = String>) -> String {
    serde_json::Value::Array(values.into_iter().map(serde_json::Value::String).collect()).to_string()
}

fn event_types_json(types: &[EventType]) -> String {
    json_list(types.iter().map(|t| t.as_str().to_string()))
}

pub(super) fn endpoint_of(row: &AnyRow) -> Result<Endpoint, WebhookError> {
    let list = |column: &str| -> Result<Vec<String>, WebhookError> {
        let text: String = row.try_get(column)?;
        parsed(serde_json::from_str(&text).ok(), "endpoint list")
    };
    let event_types =
        list("event_types")?.iter().map(|t| parsed(EventType::parse(t), "event type")).collect::<Result<_, _>>()?;
    let previous = match (row.try_get::<Option<String>, _>("previous_secret")?, row.try_get("previous_until")?) {
        (Some(s), Some(until)) => Some((parsed(Secret::parse(&s), "secret")?, until)),
        _ => None,
    };
    Ok(Endpoint {
        endpoint_id: row.try_get("endpoint_id")?,
        account_id: row.try_get("account_id")?,
        url: row.try_get("url")?,
        description: row.try_get("description")?,
        event_types,
        datasets: list("datasets")?,
        enabled: row.try_get::<i64, _>("enabled")? != 0,
        disabled_reason: row.try_get("disabled_reason")?,
        secret: parsed(Secret::parse(&row.try_get::<String, _>("secret")?), "secret")?,
        previous_secret: previous,
        failing_since: row.try_get("failing_since")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

impl WebhookStore {
    /// A write transaction holding the account's row, so its writers queue.
    async fn begin_for(&self, account: &str) -> Result<Transaction<'_, Any>, WebhookError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("INSERT INTO webhook_accounts (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING")
            .bind(account)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE webhook_accounts SET account_id = account_id WHERE account_id = $1")
            .bind(account)
            .execute(&mut *tx)
            .await?;
        Ok(tx)
    }

    /// A new endpoint with a new secret, unless the account has `limit` already.
    pub async fn create_endpoint(
        &self,
        account: &str,
        input: &EndpointInput,
        limit: usize,
        now: i64,
    ) -> Result<NewEndpoint, WebhookError> {
        let mut tx = self.begin_for(account).await?;
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM webhook_endpoints WHERE account_id = $1")
            .bind(account)
            .fetch_one(&mut *tx)
            .await?;
        if count >= limit as i64 {
            return Ok(NewEndpoint::LimitReached);
        }
        let id = crate::ids::Kind::Endpoint.new_id();
        let secret = Secret::generate();
        sqlx::query(&format!(
            "INSERT INTO webhook_endpoints ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, 1, '', $7, NULL, NULL, NULL, $8, $8)"
        ))
        .bind(&id)
        .bind(account)
        .bind(&input.url)
        .bind(&input.description)
        .bind(event_types_json(&input.event_types))
        .bind(json_list(input.datasets.iter().cloned()))
        .bind(secret.expose())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let endpoint = read_endpoint(&mut tx, account, &id).await?;
        tx.commit().await?;
        Ok(NewEndpoint::Created(Box::new(parsed(endpoint, "endpoint")?)))
    }

    /// The account's endpoints, oldest first.
    pub async fn endpoints(&self, account: &str) -> Result<Vec<Endpoint>, WebhookError> {
        let sql =
            format!("SELECT {COLUMNS} FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, endpoint_id");
        let rows = sqlx::query(&sql).bind(account).fetch_all(&self.pool).await?;
        rows.iter().map(endpoint_of).collect()
    }

    pub async fn endpoint(&self, account: &str, endpoint_id: &str) -> Result<Option<Endpoint>, WebhookError> {
        read_endpoint(&mut *self.pool.acquire().await?, account, endpoint_id).await
    }

    /// Applies `change`; `None` when the account has no such endpoint. Enabling an endpoint the
    /// service disabled clears its failure record.
    pub async fn update_endpoint(
        &self,
        account: &str,
        endpoint_id: &str,
        change: &EndpointChange,
        now: i64,
    ) -> Result<Option<Endpoint>, WebhookError> {
        let mut tx = self.begin_for(account).await?;
        let Some(current) = read_endpoint(&mut tx, account, endpoint_id).await? else { return Ok(None) };
        let enabled = change.enabled.unwrap_or(current.enabled);
        let (reason, failing_since) = match (enabled, change.enabled) {
            (true, Some(true)) => (String::new(), None),
            (false, Some(false)) => (String::new(), current.failing_since),
            _ => (current.disabled_reason.clone(), current.failing_since),
        };
        sqlx::query(
            "UPDATE webhook_endpoints SET url = $1, description = $2, event_types = $3, datasets = $4, enabled = $5, \
             disabled_reason = $6, failing_since = $7, updated_at = $8 WHERE endpoint_id = $9",
        )
        .bind(change.url.as_ref().unwrap_or(&current.url))
        .bind(change.description.as_ref().unwrap_or(&current.description))
        .bind(event_types_json(change.event_types.as_ref().unwrap_or(&current.event_types)))
        .bind(json_list(change.datasets.clone().unwrap_or(current.datasets)))
        .bind(enabled as i64)
        .bind(reason)
        .bind(failing_since)
        .bind(now)
        .bind(endpoint_id)
        .execute(&mut *tx)
        .await?;
        let updated = read_endpoint(&mut tx, account, endpoint_id).await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// Deletes the endpoint with its deliveries and their attempts; false when there was none.
    pub async fn delete_endpoint(&self, account: &str, endpoint_id: &str) -> Result<bool, WebhookError> {
        let mut tx = self.begin_for(account).await?;
        let deleted = sqlx::query("DELETE FROM webhook_endpoints WHERE endpoint_id = $1 AND account_id = $2")
            .bind(endpoint_id)
            .bind(account)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if deleted > 0 {
            sqlx::query(
                "DELETE FROM webhook_attempts WHERE delivery_id IN \
                 (SELECT delivery_id FROM webhook_deliveries WHERE endpoint_id = $1)",
            )
            .bind(endpoint_id)
            .execute(&mut *tx)
            .await?;
            sqlx::query("DELETE FROM webhook_deliveries WHERE endpoint_id = $1")
                .bind(endpoint_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(deleted > 0)
    }

    /// A new secret; the one it replaces signs beside it for 24 h (a rotation within them
    /// replaces the older previous one).
    pub async fn rotate_secret(
        &self,
        account: &str,
        endpoint_id: &str,
        now: i64,
    ) -> Result<Option<Rotated>, WebhookError> {
        let mut tx = self.begin_for(account).await?;
        let Some(current) = read_endpoint(&mut tx, account, endpoint_id).await? else { return Ok(None) };
        let until = now + PREVIOUS_SECRET_VALID_MS;
        sqlx::query(
            "UPDATE webhook_endpoints SET secret = $1, previous_secret = $2, previous_until = $3, updated_at = $4 \
             WHERE endpoint_id = $5",
        )
        .bind(Secret::generate().expose())
        .bind(current.secret.expose())
        .bind(until)
        .bind(now)
        .bind(endpoint_id)
        .execute(&mut *tx)
        .await?;
        let endpoint = parsed(read_endpoint(&mut tx, account, endpoint_id).await?, "endpoint")?;
        tx.commit().await?;
        Ok(Some(Rotated { endpoint, previous_valid_until: until }))
    }
}

async fn read_endpoint(
    conn: &mut sqlx::AnyConnection,
    account: &str,
    endpoint_id: &str,
) -> Result<Option<Endpoint>, WebhookError> {
    let sql = format!("SELECT {COLUMNS} FROM webhook_endpoints WHERE endpoint_id = $1 AND account_id = $2");
    let row = sqlx::query(&sql).bind(endpoint_id).bind(account).fetch_optional(conn).await?;
    row.as_ref().map(endpoint_of).transpose()
}
