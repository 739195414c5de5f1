//! The state store (DESIGN.md §5): accounts, API keys, idempotency records, settings, on SQLite or
//! PostgreSQL (`sitrep_db`), with embedded migrations per backend; every statement uses bound
//! parameters.

mod accounts;
mod budgets;
mod credentials;
mod dashboard;
mod idempotency;
mod oauth;
pub mod sweep;

pub use accounts::{hash_secret, key_digest, looks_like_api_key, Account, ApiKeyRecord, NewKey, Plan, Standing};
pub use credentials::Digests;
pub use dashboard::{ConnectedClient, Session};
pub use idempotency::{Claim, StoredResponse};
pub use oauth::{ClientRecord, Family, Grant, Mismatch, PendingConsent, RedeemedCode, Redemption, CLIENT_IDLE_SECONDS};

use sitrep_db::{Db, DbError, Migrations};

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("state store: {0}")]
    Db(#[from] sqlx::Error),
    #[error(transparent)]
    Open(#[from] DbError),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
}

#[derive(Clone, Debug)]
pub struct StateStore {
    db: Db,
    pool: sqlx::AnyPool,
}

impl StateStore {
    /// Opens (creating if needed) `sqlite://path`, `sqlite::memory:` or `postgres://…`, and
    /// migrates. Company monitoring migrates its own tables in this database (versions from
    /// 1001): what this migrator does not know is theirs.
    pub async fn open(url: &str) -> Result<Self, StateError> {
        let db = Db::connect(url, 8).await?;
        db.migrate(Migrations {
            sqlite: sqlx::migrate!("./migrations/sqlite"),
            postgres: sqlx::migrate!("./migrations/postgres"),
        })
        .await?;
        Ok(StateStore { pool: db.pool().clone(), db })
    }

    /// The database, for the crates that keep their own tables in it (company monitoring).
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Closes every connection; later calls fail (tests use it to take the store away).
    pub async fn close(&self) {
        self.db.close().await;
    }

    pub async fn setting(&self, key: &str) -> Result<Option<String>, StateError> {
        Ok(sqlx::query_scalar("SELECT value FROM settings WHERE key = $1").bind(key).fetch_optional(&self.pool).await?)
    }

    /// Returns the stored value, storing `value` first if the key is new.
    pub async fn setting_or_insert(&self, key: &str, value: &str) -> Result<String, StateError> {
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(value)
            .execute(&self.pool)
            .await?;
        Ok(self.setting(key).await?.unwrap_or_else(|| value.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reopens_a_database_that_holds_another_migrators_versions() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("state.db").display());
        let store = StateStore::open(&url).await.unwrap();
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (1001, 'another crate''s tables', TRUE, X'00', 0)",
        )
        .execute(store.db().pool())
        .await
        .unwrap();
        store.close().await;
        assert!(StateStore::open(&url).await.is_ok());
    }
}
