//! Webhooks' tables in the state store's database, migrated by their own migrator (versions from
//! 2001; the platform's stay below 1000, company monitoring's below 2000). The SQL is the plain
//! kind both backends accept (`$n`, `ON CONFLICT`, BIGINT epoch ms, flags as 0/1).

mod deliveries;
mod endpoints;
mod outbox;
mod publications;

pub use deliveries::{Attempt, Claimed, Delivery, DeliveryState, Finished, Recorded, Redelivery, KEPT_MS, LEASE_MS};
pub use endpoints::{Endpoint, EndpointChange, EndpointInput, NewEndpoint, Rotated};
pub use outbox::{enqueue, fan_out_candidates, NewEvent, OutboxEvent};

use sitrep_db::{Backend, Db, DbError, Migrations};
use sqlx::AnyPool;

#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("webhook store: {0}")]
    Db(#[from] sqlx::Error),
    #[error(transparent)]
    Open(#[from] DbError),
    #[error("webhook store holds an unreadable {0}")]
    Corrupt(&'static str),
}

fn migrations() -> Migrations {
    Migrations { sqlite: sqlx::migrate!("./migrations/sqlite"), postgres: sqlx::migrate!("./migrations/postgres") }
}

/// Creates webhooks' tables where missing: whatever writes the outbox (company monitoring's store)
/// or reads it (the server) calls this first.
pub async fn migrate(db: &Db) -> Result<(), WebhookError> {
    Ok(db.migrate(migrations()).await?)
}

#[derive(Clone, Debug)]
pub struct WebhookStore {
    pool: AnyPool,
    backend: Backend,
}

impl WebhookStore {
    /// The store over the state store's database, its tables migrated.
    pub async fn new(db: &Db) -> Result<Self, WebhookError> {
        migrate(db).await?;
        Ok(WebhookStore { pool: db.pool().clone(), backend: db.backend() })
    }
}

/// `$1, $2, …, $n`: a statement's list of bound values.
fn placeholders(n: usize) -> String {
    (1..=n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

/// `query` with each of `values` bound in turn (an `IN` list of [`placeholders`]).
fn bind_all<'q, T>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    values: impl IntoIterator<Item = T>,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>
where
    T: 'q + sqlx::Encode<'q, sqlx::Any> + sqlx::Type<sqlx::Any> + Send,
{
    values.into_iter().fold(query, |query, value| query.bind(value))
}

/// A stored value that must parse, or the store is corrupt.
fn parsed<T>(value: Option<T>, what: &'static str) -> Result<T, WebhookError> {
    value.ok_or(WebhookError::Corrupt(what))
}
