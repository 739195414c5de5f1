//! The state store (DESIGN.md §5): accounts, API keys, idempotency records, settings. One sqlx
//! SQLite pool with embedded migrations; every statement uses bound parameters.

mod accounts;
mod budgets;
mod dashboard;
mod idempotency;
mod oauth;

pub use accounts::{hash_secret, key_digest, looks_like_api_key, Account, ApiKeyRecord, NewKey, Plan, Standing};
pub use dashboard::{ConnectedClient, Session};
pub use idempotency::{Claim, StoredResponse};
pub use oauth::{ClientRecord, Family, PendingConsent, RedeemedCode, Redemption, CLIENT_IDLE_SECONDS};

use sqlx::{
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions},
    SqlitePool,
};

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("state store: {0}")]
    Db(#[from] sqlx::Error),
    #[error("state store migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
}

#[derive(Clone, Debug)]
pub struct StateStore {
    pool: SqlitePool,
}

impl StateStore {
    /// Opens (creating if needed) `sqlite://path` or `sqlite::memory:`, and migrates.
    pub async fn open(url: &str) -> Result<Self, StateError> {
        if let Some(path) = url.strip_prefix("sqlite://") {
            if let Some(dir) = std::path::Path::new(path).parent() {
                std::fs::create_dir_all(dir).map_err(|e| StateError::Invalid(format!("{url}: {e}")))?;
            }
        }
        let opts: SqliteConnectOptions = url
            .parse::<SqliteConnectOptions>()?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(std::time::Duration::from_secs(5));
        // An in-memory database exists per connection: keep exactly one.
        let max = if url.contains(":memory:") { 1 } else { 8 };
        let pool = SqlitePoolOptions::new().max_connections(max).connect_with(opts).await?;
        // Company monitoring migrates its own tables in this database (versions from 1001): what
        // this migrator does not know is theirs.
        let mut migrator = sqlx::migrate!("./migrations");
        migrator.set_ignore_missing(true);
        migrator.run(&pool).await?;
        Ok(StateStore { pool })
    }

    /// The database's pool, for the crates that keep their own tables in it (company monitoring).
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Closes every connection; later calls fail (tests use it to take the store away).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    pub async fn setting(&self, key: &str) -> Result<Option<String>, StateError> {
        Ok(sqlx::query_scalar("SELECT value FROM settings WHERE key = ?").bind(key).fetch_optional(&self.pool).await?)
    }

    /// Returns the stored value, storing `value` first if the key is new.
    pub async fn setting_or_insert(&self, key: &str, value: &str) -> Result<String, StateError> {
        sqlx::query("INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)")
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
        .execute(store.pool())
        .await
        .unwrap();
        store.close().await;
        assert!(StateStore::open(&url).await.is_ok());
    }
}
