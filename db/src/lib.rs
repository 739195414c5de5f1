//! The state store's database (DESIGN.md §5): one sqlx pool over SQLite (the embedded default) or
//! PostgreSQL (several replicas). Statements are written once, in the SQL both accept: `$n`
//! placeholders, `ON CONFLICT`, `RETURNING`, integers as BIGINT and flags as 0/1 (sqlx's `Any`
//! driver carries no booleans from SQLite). Each backend has its own migrations; time-to-live
//! checks read the database's clock through [`Db::now_ms`], so replicas with drifting clocks agree.

use std::{str::FromStr, sync::Once, time::Duration};

use sqlx::{
    any::{AnyConnectOptions, AnyPoolOptions},
    migrate::Migrator,
    AnyPool, Executor,
};

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("state store: {0}")]
    Db(#[from] sqlx::Error),
    #[error("state store migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("state store `{url}`: {reason}")]
    Url { url: String, reason: String },
}

/// Which database a [`Db`] speaks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The backend a state-store URL names (`sqlite:…`, `postgres://…` or `postgresql://…`).
    pub fn of_url(url: &str) -> Option<Backend> {
        if url.starts_with("sqlite:") {
            Some(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(Backend::Postgres)
        } else {
            None
        }
    }
}

/// One crate's migrations, a directory per backend (the SQLite files are the ones databases
/// created before PostgreSQL support recorded, byte for byte: their checksums must not change).
pub struct Migrations {
    pub sqlite: Migrator,
    pub postgres: Migrator,
}

/// How long a request waits for a connection before the store counts as unavailable: short, so a
/// database that went away turns into a 503 rather than a hung request.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
}

impl Db {
    /// Connects to `url` with at most `max_connections` (an in-memory SQLite database is one
    /// connection, kept for the pool's life: it exists only as long as its connection). A SQLite
    /// file and its folder are created when missing.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Db, DbError> {
        static DRIVERS: Once = Once::new();
        DRIVERS.call_once(sqlx::any::install_default_drivers);
        let backend = Backend::of_url(url).ok_or_else(|| DbError::Url {
            url: redacted(url),
            reason: "expected sqlite://path, sqlite::memory: or postgres://…".into(),
        })?;
        let memory = backend == Backend::Sqlite && url.contains(":memory:");
        let connect_url = match backend {
            Backend::Sqlite if !memory => sqlite_file_url(url)?,
            _ => url.to_string(),
        };
        let options = AnyConnectOptions::from_str(&connect_url)?;
        let mut pool = AnyPoolOptions::new()
            .max_connections(if memory { 1 } else { max_connections })
            .acquire_timeout(ACQUIRE_TIMEOUT);
        if memory {
            pool = pool.min_connections(1).idle_timeout(None).max_lifetime(None);
        }
        if backend == Backend::Sqlite && !memory {
            // Readers never wait for the writer; a writer waits up to 10 s for another.
            pool = pool.after_connect(|conn, _| {
                Box::pin(async move {
                    conn.execute("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000;").await?;
                    Ok(())
                })
            });
        }
        Ok(Db { pool: pool.connect_with(options).await?, backend })
    }

    /// Applies this backend's migrations of one crate. Several crates keep tables in one database,
    /// each with its own version range, so each migrator ignores versions it does not know.
    pub async fn migrate(&self, migrations: Migrations) -> Result<(), DbError> {
        let mut migrator = match self.backend {
            Backend::Sqlite => migrations.sqlite,
            Backend::Postgres => migrations.postgres,
        };
        migrator.set_ignore_missing(true);
        migrator.run(&self.pool).await?;
        Ok(())
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A SQL expression for the database's clock in epoch milliseconds (BIGINT): what a
    /// time-to-live is checked against, the same on every replica.
    pub fn now_ms(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
            Backend::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
        }
    }

    /// The database's clock in epoch milliseconds.
    pub async fn clock_ms(&self) -> Result<i64, DbError> {
        Ok(sqlx::query_scalar(&format!("SELECT {}", self.now_ms())).fetch_one(&self.pool).await?)
    }

    /// How far the database's clock is ahead of this machine's, in ms (negative: behind), read
    /// at the midpoint of one round trip. Time-to-live checks and leases are written against this
    /// machine's clock plus the skew, so every replica and worker judges them on one clock (the
    /// database's) without a round trip per check.
    pub async fn skew_ms(&self) -> Result<i64, DbError> {
        let before = local_ms();
        let database = self.clock_ms().await?;
        let after = local_ms();
        Ok(database - (before + after) / 2)
    }

    /// Closes every connection; later calls fail (tests use it to take the store away).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

fn local_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// `sqlite://path` made to create the file (and its folder) when missing.
fn sqlite_file_url(url: &str) -> Result<String, DbError> {
    let path = url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
    let path = path.split('?').next().unwrap_or(path);
    if let Some(dir) = std::path::Path::new(path).parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| DbError::Url { url: url.into(), reason: e.to_string() })?;
    }
    Ok(if url.contains("mode=") {
        url.to_string()
    } else if url.contains('?') {
        format!("{url}&mode=rwc")
    } else {
        format!("{url}?mode=rwc")
    })
}

/// The URL without its password, for error messages and logs.
pub fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}:***{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_leave_in_a_message() {
        assert_eq!(redacted("postgres://sitrep:s3cret@db:5432/sitrep"), "postgres://sitrep:***@db:5432/sitrep");
        assert_eq!(redacted("sqlite://var/state.db"), "sqlite://var/state.db");
    }

    #[test]
    fn urls_name_their_backend() {
        assert_eq!(Backend::of_url("sqlite::memory:"), Some(Backend::Sqlite));
        assert_eq!(Backend::of_url("postgresql://h/db"), Some(Backend::Postgres));
        assert_eq!(Backend::of_url("mysql://h/db"), None);
    }

    #[tokio::test]
    async fn a_sqlite_file_and_its_folder_are_created_and_its_clock_is_now() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("a/b/state.db").display());
        let db = Db::connect(&url, 2).await.unwrap();
        let before = local_ms();
        let clock = db.clock_ms().await.unwrap();
        assert!((clock - before).abs() < 2_000, "{clock} vs {before}");
        assert!(db.skew_ms().await.unwrap().abs() < 2_000, "one machine, one clock");
        assert!(dir.path().join("a/b/state.db").exists());
    }
}
