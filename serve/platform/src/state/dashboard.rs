//! What the dashboard reads and changes for a signed-in person: sessions, the account's keys and
//! its connected clients (token families). Every change is scoped to the session's account.

use sqlx::Row;

use super::{
    accounts::{account_of_row, record, Account, ApiKeyRecord, KEY_WITH_ACCOUNT},
    StateError, StateStore,
};

/// A signed-in session.
#[derive(Debug, Clone)]
pub struct Session {
    pub account: Account,
    pub key_id: String,
    /// The scopes of the key the session signed in with: the most a key it mints may have.
    pub key_scopes: Vec<String>,
    pub csrf: String,
}

/// A connected client: one live token family of the account.
#[derive(Debug, Clone)]
pub struct ConnectedClient {
    pub family_id: String,
    /// The client id (an https URL for a metadata-document client).
    pub client_id: Option<String>,
    pub client_name: String,
    pub scope: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

impl StateStore {
    pub async fn create_session(
        &self,
        session_hash: &str,
        account_id: &str,
        key_id: &str,
        csrf: &str,
        expires_at: i64,
    ) -> Result<(), StateError> {
        sqlx::query("INSERT INTO dashboard_sessions (session_hash, account_id, key_id, csrf, expires_at) VALUES ($1, $2, $3, $4, $5)")
            .bind(session_hash)
            .bind(account_id)
            .bind(key_id)
            .bind(csrf)
            .bind(expires_at)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A live session: unexpired, and the key it was opened with not revoked.
    pub async fn session(&self, session_hash: &str, now: i64) -> Result<Option<Session>, StateError> {
        let row = sqlx::query(
            "SELECT s.key_id, s.csrf, k.scopes AS key_scopes, a.id AS account_id, a.name AS account_name, a.plan AS account_plan,
                    a.status AS account_status, a.valid_until AS account_valid_until
             FROM dashboard_sessions s JOIN accounts a ON a.id = s.account_id JOIN api_keys k ON k.id = s.key_id
             WHERE s.session_hash = $1 AND s.expires_at > $2 AND k.revoked_at IS NULL",
        )
        .bind(session_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            let scopes: String = r.try_get("key_scopes")?;
            Ok(Session {
                account: account_of_row(&r)?,
                key_id: r.try_get("key_id")?,
                key_scopes: scopes.split_whitespace().map(str::to_string).collect(),
                csrf: r.try_get("csrf")?,
            })
        })
        .transpose()
    }

    pub async fn end_session(&self, session_hash: &str) -> Result<(), StateError> {
        sqlx::query("DELETE FROM dashboard_sessions WHERE session_hash = $1")
            .bind(session_hash)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The account's keys, newest first (revoked ones included, marked).
    pub async fn keys_of(&self, account_id: &str) -> Result<Vec<ApiKeyRecord>, StateError> {
        let rows = sqlx::query(&format!("{KEY_WITH_ACCOUNT} WHERE k.account_id = $1 ORDER BY k.created_at DESC"))
            .bind(account_id)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.iter().map(record).collect::<Result<_, _>>()?)
    }

    /// Revokes one of the account's keys (and its token families); false if it is not the account's.
    pub async fn revoke_key_of(&self, account_id: &str, key_id: &str) -> Result<bool, StateError> {
        let owned: Option<String> = sqlx::query_scalar("SELECT id FROM api_keys WHERE id = $1 AND account_id = $2")
            .bind(key_id)
            .bind(account_id)
            .fetch_optional(&self.pool)
            .await?;
        match owned {
            Some(id) => self.revoke_key_id(&id).await,
            None => Ok(false),
        }
    }

    /// The account's live token families with their clients' names, newest first.
    pub async fn connected_clients(&self, account_id: &str) -> Result<Vec<ConnectedClient>, StateError> {
        let rows = sqlx::query(
            "SELECT f.id, f.client_id, COALESCE(c.client_name, 'Operator credentials') AS client_name, f.scope, f.created_at, f.last_used_at
             FROM oauth_families f LEFT JOIN oauth_clients c ON c.client_id = f.client_id
             WHERE f.account_id = $1 AND f.revoked_at IS NULL
               AND EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.family_id = f.id)
             ORDER BY f.created_at DESC",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(ConnectedClient {
                    family_id: r.try_get("id")?,
                    client_id: r.try_get("client_id")?,
                    client_name: r.try_get("client_name")?,
                    scope: r.try_get("scope")?,
                    created_at: r.try_get("created_at")?,
                    last_used_at: r.try_get("last_used_at")?,
                })
            })
            .collect()
    }

    /// Revokes one of the account's token families; false if it is not the account's.
    pub async fn revoke_family_of(&self, account_id: &str, family_id: &str, now: i64) -> Result<bool, StateError> {
        let done = sqlx::query(
            "UPDATE oauth_families SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(family_id)
        .bind(account_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() > 0)
    }
}
