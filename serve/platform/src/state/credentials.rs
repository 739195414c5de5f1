//! Which credentials exist, read as digests: what each replica's `auth::known` set is filled from.

use sqlx::Row;

use super::{StateError, StateStore};

/// Credential digests read from the store, with the marks to read on from next time.
#[derive(Debug, Default)]
pub struct Digests {
    /// SHA-256 hex of API keys and access tokens.
    pub hashes: Vec<String>,
    /// The newest `created_at` among the keys read (RFC 3339, milliseconds, UTC).
    pub keys_to: Option<String>,
    /// The latest `expires_at` among the access tokens read (the OAuth clock's seconds).
    pub tokens_to: Option<i64>,
}

impl StateStore {
    /// The unrevoked API keys created at or after `keys_from` (every one without it) and the
    /// access tokens expiring after `tokens_after`.
    pub async fn credential_digests(&self, keys_from: Option<&str>, tokens_after: i64) -> Result<Digests, StateError> {
        let keys = sqlx::query(
            "SELECT key_hash, created_at FROM api_keys WHERE revoked_at IS NULL AND ($1 = '' OR created_at >= $1)",
        )
        .bind(keys_from.unwrap_or(""))
        .fetch_all(&self.pool)
        .await?;
        let tokens =
            sqlx::query("SELECT token_hash, expires_at FROM oauth_tokens WHERE kind = 'access' AND expires_at > $1")
                .bind(tokens_after)
                .fetch_all(&self.pool)
                .await?;
        let mut read = Digests { hashes: Vec::with_capacity(keys.len() + tokens.len()), ..Digests::default() };
        for row in keys {
            read.hashes.push(row.try_get("key_hash")?);
            let created: String = row.try_get("created_at")?;
            if read.keys_to.as_ref().is_none_or(|newest| &created > newest) {
                read.keys_to = Some(created);
            }
        }
        for row in tokens {
            read.hashes.push(row.try_get("token_hash")?);
            let expires: i64 = row.try_get("expires_at")?;
            read.tokens_to = Some(read.tokens_to.map_or(expires, |t| t.max(expires)));
        }
        Ok(read)
    }
}
