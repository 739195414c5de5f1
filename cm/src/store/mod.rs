//! Company monitoring's state: its own tables in the state store's database, migrated by their
//! own migrator (versions from 1001; the platform's stay below 1000 and each ignores the other's).
//! Every write is one transaction that first takes the account's row, so two writers of one
//! account run one after the other (SQLite's write lock, a row lock on PostgreSQL) and a limit
//! or uniqueness checked inside it still holds at commit.

mod companies;
mod impacts;
mod rechecks;
mod scans;

pub use companies::{Claim, Company, CompanyPage, Created, ImportRow, LifecycleChange, RowResult, Updated};
pub use impacts::{EventWrite, StoredEvent, Window};
pub use rechecks::{RECHECK_EVERY_MS, RECHECK_FOR_MS};
pub use scans::{ScanRecord, ScanResult, ScanScope, ScanTarget, DNS_FAILURES_TO_EXPIRE};

use sitrep_db::{Db, DbError, Migrations};
use sqlx::{Any, AnyPool, Transaction};

#[derive(Debug, thiserror::Error)]
pub enum CmError {
    #[error("company-monitoring store: {0}")]
    Db(#[from] sqlx::Error),
    #[error(transparent)]
    Open(#[from] DbError),
    #[error("company-monitoring store holds an unreadable {0}")]
    Corrupt(&'static str),
    #[error(transparent)]
    Webhooks(sitrep_webhooks::WebhookError),
}

#[derive(Clone, Debug)]
pub struct CmStore {
    db: Db,
    pool: AnyPool,
}

/// Company monitoring's migrations, per backend.
fn migrations() -> Migrations {
    Migrations { sqlite: sqlx::migrate!("./migrations/sqlite"), postgres: sqlx::migrate!("./migrations/postgres") }
}

impl CmStore {
    /// The store in the state store's existing database at `url` (the ingest worker's way in;
    /// the server shares its own through [`CmStore::new`]).
    pub async fn open(url: &str) -> Result<Self, CmError> {
        Self::new(&Db::connect(url, 4).await?).await
    }

    /// The store over the state store's database, its tables migrated.
    pub async fn new(db: &Db) -> Result<Self, CmError> {
        db.migrate(migrations()).await?;
        // Impact changes write their events into the webhooks' outbox.
        sitrep_webhooks::store::migrate(db).await.map_err(CmError::Webhooks)?;
        Ok(CmStore { pool: db.pool().clone(), db: db.clone() })
    }

    /// How far the database's clock is ahead of this machine's (ms): a worker's leases are taken
    /// and judged on the database's clock, like every other worker's.
    pub async fn clock_skew_ms(&self) -> Result<i64, CmError> {
        Ok(self.db.skew_ms().await?)
    }

    /// Whether the database holds every company-monitoring migration this build knows (the
    /// runtime gate's first check: a replica newer than the schema must not serve).
    pub async fn schema_current(&self) -> Result<bool, CmError> {
        let latest = migrations().sqlite.iter().map(|m| m.version).max().unwrap_or(0);
        let applied: Option<i64> = sqlx::query_scalar(
            "SELECT MAX(version) FROM _sqlx_migrations WHERE version >= 1000 AND version < 2000 AND success",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(applied.unwrap_or(0) >= latest)
    }

    /// The account's snapshot generation (0 before its first write).
    pub async fn generation(&self, account: &str) -> Result<i64, CmError> {
        let g: Option<i64> = sqlx::query_scalar("SELECT snapshot_generation FROM cm_accounts WHERE account_id = $1")
            .bind(account)
            .fetch_optional(&self.pool)
            .await?;
        Ok(g.unwrap_or(0))
    }

    /// Active and paused companies of the account (what counts against its limit).
    pub async fn company_count(&self, account: &str) -> Result<i64, CmError> {
        companies::live_count(&mut *self.pool.acquire().await?, account).await
    }

    /// A write transaction holding the account's row (created on the account's first write).
    async fn begin_for(&self, account: &str, now: i64) -> Result<Transaction<'_, Any>, CmError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO cm_accounts (account_id, created_at) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING",
        )
        .bind(account)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        // A write to the row: from here on, other writers of this account wait for this one.
        sqlx::query("UPDATE cm_accounts SET snapshot_generation = snapshot_generation WHERE account_id = $1")
            .bind(account)
            .execute(&mut *tx)
            .await?;
        Ok(tx)
    }
}

/// A stored value that must parse, or the store is corrupt.
fn parse<T>(value: Option<T>, what: &'static str) -> Result<T, CmError> {
    value.ok_or(CmError::Corrupt(what))
}

/// Numbered placeholders (`$5, $6`) for a statement's list parameters, after its fixed ones.
struct Placeholders {
    last: usize,
}

impl Placeholders {
    /// Placeholders numbered from `fixed + 1`.
    fn after(fixed: usize) -> Self {
        Placeholders { last: fixed }
    }

    /// The next `count` placeholders, comma-separated.
    fn list(&mut self, count: usize) -> String {
        let list: Vec<String> = (self.last + 1..=self.last + count).map(|i| format!("${i}")).collect();
        self.last += count;
        list.join(", ")
    }
}

/// Moves the account's snapshot generation on by one.
async fn bump_generation(tx: &mut Transaction<'_, Any>, account: &str) -> Result<(), CmError> {
    sqlx::query("UPDATE cm_accounts SET snapshot_generation = snapshot_generation + 1 WHERE account_id = $1")
        .bind(account)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

#[cfg(test)]
pub(crate) async fn memory_store() -> CmStore {
    CmStore::new(&memory_db().await).await.expect("migrated")
}

#[cfg(test)]
async fn memory_db() -> Db {
    Db::connect("sqlite::memory:", 1).await.expect("an in-memory database")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_schema_is_current_once_migrated_and_behind_without_the_latest() {
        let db = memory_db().await;
        let store = CmStore::new(&db).await.expect("migrated");
        assert!(store.schema_current().await.unwrap());
        let latest = migrations().postgres.iter().map(|m| m.version).max().unwrap();
        sqlx::query("DELETE FROM _sqlx_migrations WHERE version = $1").bind(latest).execute(db.pool()).await.unwrap();
        assert!(!store.schema_current().await.unwrap());
    }
}
