//! OAuth records (SUPPLEMENT 5.4–5.7): clients, consent nonces, codes, token families, tokens.
//! Secrets arrive already hashed; every single-use item is consumed by one conditional UPDATE, so
//! two concurrent redemptions cannot both succeed. Times are epoch seconds passed in by the
//! caller (a controllable clock in tests).

use sqlx::Row;

use super::{accounts::Account, StateError, StateStore};

/// A client registration lives this long after its last use.
pub const CLIENT_IDLE_SECONDS: i64 = 90 * 86_400;

#[derive(Debug, Clone)]
pub struct ClientRecord {
    pub client_id: String,
    pub client_name: String,
    pub redirect_uris: Vec<String>,
    pub application_type: String,
    pub created_at: i64,
}

/// What a consent nonce binds (5.5).
#[derive(Debug, Clone)]
pub struct PendingConsent {
    pub client_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub scope: String,
    pub state: Option<String>,
}

/// The authorization a family of tokens descends from.
#[derive(Debug, Clone)]
pub struct Family {
    pub id: String,
    pub client_id: Option<String>,
    pub account_id: String,
    pub key_id: String,
    pub scope: String,
}

/// A code's binding, once redeemed.
#[derive(Debug, Clone)]
pub struct RedeemedCode {
    pub family: Family,
    pub client_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
}

pub enum Redemption<T> {
    Fresh(T),
    /// Used before: the family it issued is now revoked.
    Replayed,
    /// Issued to another client: refused, and nothing is used up or revoked, so whoever learns
    /// the value cannot spend it with a client id of their own.
    OtherClient,
    /// The client's proof does not match what the code was issued for: refused, and the code
    /// stays unused for the client that holds the right verifier.
    Mismatch(Mismatch),
    Invalid,
}

/// A grant a token request presents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    Code,
    Refresh,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch {
    /// The PKCE verifier's S256 is not the code's challenge.
    Verifier,
    /// A `redirect_uri` was sent, and it is not the authorization request's.
    RedirectUri,
}

fn family_of(row: &sqlx::any::AnyRow) -> Result<Family, sqlx::Error> {
    Ok(Family {
        id: row.try_get("family_id")?,
        client_id: row.try_get("family_client_id")?,
        account_id: row.try_get("account_id")?,
        key_id: row.try_get("key_id")?,
        scope: row.try_get("scope")?,
    })
}

const FAMILY_COLUMNS: &str = "f.id AS family_id, f.client_id AS family_client_id, f.account_id, f.key_id, f.scope";

impl StateStore {
    pub async fn register_client(
        &self,
        client_id: &str,
        client_name: &str,
        redirect_uris: &[String],
        application_type: &str,
        now: i64,
    ) -> Result<(), StateError> {
        let uris = serde_json::to_string(redirect_uris).map_err(|e| StateError::Invalid(e.to_string()))?;
        sqlx::query(
            "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, application_type, created_at, last_used_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(client_id)
        .bind(client_name)
        .bind(uris)
        .bind(application_type)
        .bind(now)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Records (or refreshes) a client described by a metadata document, so its name shows in the dashboard.
    pub async fn remember_client(&self, client: &ClientRecord, now: i64) -> Result<(), StateError> {
        let uris = serde_json::to_string(&client.redirect_uris).map_err(|e| StateError::Invalid(e.to_string()))?;
        sqlx::query(
            "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, application_type, created_at, last_used_at)
             VALUES ($1, $2, $3, $4, $5, $5)
             ON CONFLICT (client_id) DO UPDATE SET client_name = $2, redirect_uris = $3, last_used_at = $5",
        )
        .bind(&client.client_id)
        .bind(&client.client_name)
        .bind(uris)
        .bind(&client.application_type)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A registered client that has not expired (90 days without use); using it slides the window.
    pub async fn client(&self, client_id: &str, now: i64) -> Result<Option<ClientRecord>, StateError> {
        let row = sqlx::query(
            "UPDATE oauth_clients SET last_used_at = $1 WHERE client_id = $2 AND last_used_at > $3
             RETURNING client_id, client_name, redirect_uris, application_type, created_at",
        )
        .bind(now)
        .bind(client_id)
        .bind(now - CLIENT_IDLE_SECONDS)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let uris: String = row.try_get("redirect_uris")?;
        Ok(Some(ClientRecord {
            client_id: row.try_get("client_id")?,
            client_name: row.try_get("client_name")?,
            redirect_uris: serde_json::from_str(&uris).map_err(|e| StateError::Invalid(e.to_string()))?,
            application_type: row.try_get("application_type")?,
            created_at: row.try_get("created_at")?,
        }))
    }

    pub async fn create_nonce(&self, nonce_hash: &str, c: &PendingConsent, expires_at: i64) -> Result<(), StateError> {
        sqlx::query(
            "INSERT INTO oauth_nonces (nonce_hash, client_id, redirect_uri, code_challenge, scope, state, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(nonce_hash)
        .bind(&c.client_id)
        .bind(&c.redirect_uri)
        .bind(&c.code_challenge)
        .bind(&c.scope)
        .bind(&c.state)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Consumes a live nonce (single use).
    pub async fn take_nonce(&self, nonce_hash: &str, now: i64) -> Result<Option<PendingConsent>, StateError> {
        let row = sqlx::query(
            "UPDATE oauth_nonces SET used = 1 WHERE nonce_hash = $1 AND used = 0 AND expires_at > $2
             RETURNING client_id, redirect_uri, code_challenge, scope, state",
        )
        .bind(nonce_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok(PendingConsent {
                client_id: r.try_get("client_id")?,
                redirect_uri: r.try_get("redirect_uri")?,
                code_challenge: r.try_get("code_challenge")?,
                scope: r.try_get("scope")?,
                state: r.try_get("state")?,
            })
        })
        .transpose()
    }

    /// Starts a token family (an approved authorization, or a client_credentials grant).
    pub async fn create_family(&self, family: &Family, now: i64) -> Result<(), StateError> {
        sqlx::query(
            "INSERT INTO oauth_families (id, client_id, account_id, key_id, scope, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&family.id)
        .bind(&family.client_id)
        .bind(&family.account_id)
        .bind(&family.key_id)
        .bind(&family.scope)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn create_code(
        &self,
        code_hash: &str,
        family_id: &str,
        consent: &PendingConsent,
        expires_at: i64,
    ) -> Result<(), StateError> {
        sqlx::query(
            "INSERT INTO oauth_codes (code_hash, family_id, client_id, redirect_uri, code_challenge, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(code_hash)
        .bind(family_id)
        .bind(&consent.client_id)
        .bind(&consent.redirect_uri)
        .bind(&consent.code_challenge)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Redeems a code once. A second use revokes every token the first one issued.
    /// Uses an authorization code once, for the client it was issued to. The client is part of
    /// the statement that uses it up: a code presented with another client id stays unused.
    /// Uses a code once, for the client it was issued to, with the PKCE `challenge` its verifier
    /// makes and, when the request names one, its `redirect_uri`: a code is used up only by a
    /// request that proves it (a stolen code with a guessed verifier leaves it to its owner).
    pub async fn redeem_code(
        &self,
        code_hash: &str,
        client_id: &str,
        challenge: &str,
        redirect_uri: Option<&str>,
        now: i64,
    ) -> Result<Redemption<RedeemedCode>, StateError> {
        let row = sqlx::query(
            "UPDATE oauth_codes SET used_at = $1
             WHERE code_hash = $2 AND client_id = $3 AND used_at IS NULL AND expires_at > $1
               AND code_challenge = $4 AND ($5 = '' OR redirect_uri = $5)
               AND family_id IN (SELECT id FROM oauth_families WHERE revoked_at IS NULL)
             RETURNING family_id, client_id, redirect_uri, code_challenge",
        )
        .bind(now)
        .bind(code_hash)
        .bind(client_id)
        .bind(challenge)
        .bind(redirect_uri.unwrap_or(""))
        .fetch_optional(&self.pool)
        .await?;
        if let Some(r) = row {
            let family_id: String = r.try_get("family_id")?;
            let family = self.family(&family_id).await?.ok_or_else(|| StateError::NotFound(family_id))?;
            return Ok(Redemption::Fresh(RedeemedCode {
                family,
                client_id: r.try_get("client_id")?,
                redirect_uri: r.try_get("redirect_uri")?,
                code_challenge: r.try_get("code_challenge")?,
            }));
        }
        let known = sqlx::query(
            "SELECT family_id, client_id, used_at, expires_at, code_challenge, redirect_uri FROM oauth_codes
             WHERE code_hash = $1",
        )
        .bind(code_hash)
        .fetch_optional(&self.pool)
        .await?;
        let Some(known) = known else { return Ok(Redemption::Invalid) };
        let issued_to: String = known.try_get("client_id")?;
        let used: Option<i64> = known.try_get("used_at")?;
        if issued_to != client_id {
            return Ok(Redemption::OtherClient);
        }
        if used.is_some() {
            self.revoke_family(&known.try_get::<String, _>("family_id")?, now).await?;
            return Ok(Redemption::Replayed);
        }
        if known.try_get::<i64, _>("expires_at")? > now {
            if known.try_get::<String, _>("code_challenge")? != challenge {
                return Ok(Redemption::Mismatch(Mismatch::Verifier));
            }
            if redirect_uri.is_some_and(|u| known.try_get::<String, _>("redirect_uri").is_ok_and(|r| r != u)) {
                return Ok(Redemption::Mismatch(Mismatch::RedirectUri));
            }
        }
        Ok(Redemption::Invalid)
    }

    pub async fn store_token(
        &self,
        token_hash: &str,
        kind: &str,
        family_id: &str,
        expires_at: i64,
    ) -> Result<(), StateError> {
        sqlx::query("INSERT INTO oauth_tokens (token_hash, kind, family_id, expires_at) VALUES ($1, $2, $3, $4)")
            .bind(token_hash)
            .bind(kind)
            .bind(family_id)
            .bind(expires_at)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Uses a refresh token once (rotation), for the client its family belongs to. Presenting one
    /// that was already rotated revokes its whole family; with another client's id nothing happens.
    pub async fn rotate_refresh(
        &self,
        token_hash: &str,
        client_id: &str,
        now: i64,
    ) -> Result<Redemption<Family>, StateError> {
        let family_id: Option<String> = sqlx::query_scalar(
            "UPDATE oauth_tokens SET used_at = $1
             WHERE token_hash = $2 AND kind = 'refresh' AND used_at IS NULL AND expires_at > $1
               AND family_id IN (SELECT f.id FROM oauth_families f JOIN api_keys k ON k.id = f.key_id
                                 WHERE f.revoked_at IS NULL AND k.revoked_at IS NULL AND f.client_id = $3)
             RETURNING family_id",
        )
        .bind(now)
        .bind(token_hash)
        .bind(client_id)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(id) = family_id {
            let family = self.family(&id).await?.ok_or_else(|| StateError::NotFound(id))?;
            return Ok(Redemption::Fresh(family));
        }
        let known = sqlx::query(
            "SELECT t.family_id, t.used_at, f.client_id FROM oauth_tokens t JOIN oauth_families f ON f.id = t.family_id
             WHERE t.token_hash = $1 AND t.kind = 'refresh'",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await?;
        let Some(known) = known else { return Ok(Redemption::Invalid) };
        let owner: Option<String> = known.try_get("client_id")?;
        let used: Option<i64> = known.try_get("used_at")?;
        if owner.as_deref() != Some(client_id) {
            return Ok(Redemption::OtherClient);
        }
        if used.is_some() {
            self.revoke_family(&known.try_get::<String, _>("family_id")?, now).await?;
            return Ok(Redemption::Replayed);
        }
        Ok(Redemption::Invalid)
    }

    /// The client a code or refresh token (by its hash) was issued to, if the store knows it: read
    /// before anything is fetched or written for the client a token request names.
    pub async fn grant_client(&self, grant: Grant, hash: &str) -> Result<Option<String>, StateError> {
        let sql = match grant {
            Grant::Code => "SELECT client_id FROM oauth_codes WHERE code_hash = $1",
            Grant::Refresh => {
                "SELECT f.client_id FROM oauth_tokens t JOIN oauth_families f ON f.id = t.family_id
                 WHERE t.token_hash = $1 AND t.kind = 'refresh'"
            }
        };
        let client: Option<Option<String>> = sqlx::query_scalar(sql).bind(hash).fetch_optional(&self.pool).await?;
        Ok(client.flatten())
    }

    async fn family(&self, id: &str) -> Result<Option<Family>, StateError> {
        let row = sqlx::query(&format!("SELECT {FAMILY_COLUMNS} FROM oauth_families f WHERE f.id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(family_of).transpose()?)
    }

    pub async fn revoke_family(&self, family_id: &str, now: i64) -> Result<(), StateError> {
        sqlx::query("UPDATE oauth_families SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
            .bind(now)
            .bind(family_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The family and account of a live access token: unexpired, its family not revoked, and the
    /// API key it was authorised through not revoked ([`touch_family`](Self::touch_family)
    /// records its use).
    pub async fn live_access_token(&self, token_hash: &str, now: i64) -> Result<Option<(Family, Account)>, StateError> {
        let row = sqlx::query(&format!(
            "SELECT {FAMILY_COLUMNS}, a.name AS account_name, a.plan AS account_plan, a.status AS account_status,
                    a.valid_until AS account_valid_until
             FROM oauth_tokens t
             JOIN oauth_families f ON f.id = t.family_id
             JOIN api_keys k ON k.id = f.key_id
             JOIN accounts a ON a.id = f.account_id
             WHERE t.token_hash = $1 AND t.kind = 'access' AND t.expires_at > $2
               AND f.revoked_at IS NULL AND k.revoked_at IS NULL"
        ))
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        let family = family_of(&r)?;
        let account = super::accounts::account_of_row(&r)?;
        Ok(Some((family, account)))
    }

    /// Records a token family's use at `now` (the dashboard's "last used").
    pub async fn touch_family(&self, family_id: &str, now: i64) -> Result<(), StateError> {
        sqlx::query("UPDATE oauth_families SET last_used_at = $1 WHERE id = $2")
            .bind(now)
            .bind(family_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
